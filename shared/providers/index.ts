import type { Knex } from 'knex';
import type { Config } from '../config';
import { CoinbaseProvider } from './coinbase';
import { MoyasarProvider } from './moyasar';
import { SandboxProvider } from './sandbox';
import type { PaymentProviders } from './types';

export * from './types';
export { decryptCredentials, encryptCredentials } from './credentials';

/**
 * The hosted-page providers, built from the configuration. The adapters hold no state beyond their
 * settings, so building them where they are needed is cheap; tests pass their own to the processors.
 */
export function createPaymentProviders(deps: {
  config: Config;
  knex: Knex;
  appSecret: string;
}): PaymentProviders {
  const { payments, publicBaseUrl } = deps.config;
  return Object.freeze({
    sandbox: new SandboxProvider({ knex: deps.knex, appSecret: deps.appSecret, publicBaseUrl }),
    moyasar: new MoyasarProvider({ apiUrl: payments.moyasarApiUrl, timeoutMs: payments.providerTimeoutMs }),
    coinbase: new CoinbaseProvider({
      apiUrl: payments.coinbaseApiUrl,
      timeoutMs: payments.providerTimeoutMs,
    }),
  });
}
