import { parseArgs } from 'node:util';
import { DomainError, ValidationError } from '../shared/errors';
import { checkNewStore, createStoreForOwner, NewStoreInput } from '../shared/services/stores/onboarding';
import { scriptDeps } from './lib/script-deps';

export const STORE_CREATE_USAGE = `usage:
  npm run store:create -- --name NAME --owner-phone PHONE [--owner-country-code 966] [--owner-name NAME]
                          [--currency SAR] [--plan paid|free] [--locale ar|en]
prints {"store_id", "embed_key", "token", ...} as one JSON line: the token is shown once`;

/** Reads the flags into the service's input; a missing or unknown flag is a usage error. */
export function parseStoreArgs(args: string[]): NewStoreInput {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'owner-phone': { type: 'string' },
      'owner-country-code': { type: 'string', default: '966' },
      'owner-name': { type: 'string' },
      currency: { type: 'string', default: 'SAR' },
      plan: { type: 'string', default: 'paid' },
      locale: { type: 'string', default: 'ar' },
    },
  });
  if (positionals.length > 0) throw new Error(`unexpected argument ${positionals[0]}`);
  if (!values.name) throw new Error('--name is required');
  if (!values['owner-phone']) throw new Error('--owner-phone is required');
  if (values.plan !== 'paid' && values.plan !== 'free') throw new Error('--plan must be paid or free');
  if (values.locale !== 'ar' && values.locale !== 'en') throw new Error('--locale must be ar or en');
  return {
    name: values.name,
    ownerPhone: values['owner-phone'],
    ownerCountryCode: values['owner-country-code'],
    ownerName: values['owner-name'],
    currency: values.currency.toUpperCase(),
    plan: values.plan,
    locale: values.locale,
  };
}

function describe(err: ValidationError): string {
  return Object.entries(err.errors)
    .map(([field, messages]) => `--${field} ${messages.join('; ')}`)
    .join('\n');
}

/**
 * `npm run store:create -- --name ... --owner-phone ...`: the operator's way to open a store for a
 * merchant. stdout carries one JSON line (store id, embed key, the first Merchant API token); everything
 * else goes to stderr.
 */
export async function main(args: string[]): Promise<number> {
  let input: NewStoreInput;
  try {
    input = parseStoreArgs(args);
    checkNewStore(input);
  } catch (err) {
    const message = err instanceof ValidationError ? describe(err) : (err as Error).message;
    process.stderr.write(`store:create: ${message}\n${STORE_CREATE_USAGE}\n`);
    return 1;
  }
  const deps = await scriptDeps('store:create');
  if (!deps) return 1;
  try {
    const created = await createStoreForOwner(deps.knex, input);
    process.stdout.write(`${JSON.stringify(created)}\n`);
    process.stderr.write(
      `Store ${created.store_id} created. The Merchant API token is shown once (only its hash is kept).\n` +
        `Try it: curl -H "Authorization: Bearer ${created.token.slice(0, 6)}…" ${deps.config.publicBaseUrl}/shawarma/store\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof DomainError) {
      process.stderr.write(`store:create: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await deps.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`store:create: failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
