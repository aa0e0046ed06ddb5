import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Customer, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createCustomer, createStore, customerToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';

/**
 * A Storefront test suite: its own Deps (TRUST_PROXY, so every request comes from its own address and
 * the general limit of 60 a minute only bites when a test means it to) and a real server. A store is
 * reached through its own domain in Host, as a storefront would.
 */
export interface StorefrontSuite {
  deps: Deps;
  server: TestServer;
}

export function useStorefrontSuite(env: NodeJS.ProcessEnv = {}): StorefrontSuite {
  let deps: Deps | null = null;
  let server: TestServer | null = null;
  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1', ...env });
    server = await startServer(deps);
  });
  after(async () => {
    await server?.close();
  });
  return {
    get deps() {
      return deps!;
    },
    get server() {
      return server!;
    },
  };
}

export interface ShopStore {
  store: Store;
  domain: string;
}

export async function createShop(overrides: Parameters<typeof createStore>[0] = {}): Promise<ShopStore> {
  const domain = `shop-${crypto.randomBytes(4).toString('hex')}.example.test`;
  const store = await createStore({ ...overrides, domains: [domain] });
  return { store, domain };
}

export async function signedIn(shop: ShopStore): Promise<{ customer: Customer; token: string }> {
  const customer = await createCustomer(shop.store, { first_name: 'Sara', last_name: 'Ali' });
  return { customer, token: await customerToken(customer, 'storefront') };
}

export interface CallOptions {
  method?: string;
  json?: unknown;
  token?: string;
  cartId?: string;
  ip?: string;
  headers?: Record<string, string>;
}

/** A request to the shop's Storefront (Host = its domain, with a port as browsers send it). */
export function call(
  suite: StorefrontSuite,
  shop: ShopStore,
  path: string,
  opts: CallOptions = {},
): Promise<TestResponse> {
  return suite.server.request(path, {
    method: opts.method ?? (opts.json === undefined ? 'GET' : 'POST'),
    json: opts.json,
    headers: {
      Host: `${shop.domain}:8443`,
      'X-Forwarded-For': opts.ip ?? randomIp(),
      ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.cartId ? { 'X-Cart-Id': opts.cartId } : {}),
      ...opts.headers,
    },
  });
}

export type Data = Record<string, unknown>;
export const dataOf = (res: TestResponse): Data => {
  expect(res.body.success, res.text).to.equal(true);
  return res.body.data as Data;
};
