import { expect } from 'chai';
import type { Order, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import type { TestResponse, TestServer } from '../../helpers/http';
import { guestCheckout } from '../../helpers/checkouts';
import { deliverQueuedOtps, latestDashboardCode, randomIp } from '../../helpers/otp';
import { OutboundMessage } from '../../../db/models';
import {
  browse,
  completionOf,
  guestInitiate,
  orderOf,
  sessionOf,
  paymentIdOf,
  waitFor,
} from '../payments/support';

/** The buyer's account tests (docs/account.md): purchases made as buyers make them, and a signed-in browser. */

export interface Buyer {
  phone: string;
  email: string;
  first?: string;
}

/** Buys the product as a guest through the Embed API and pays on the sandbox page; the completed order. */
export async function buy(
  deps: Deps,
  server: TestServer,
  store: Store,
  product: Product,
  buyer: Buyer,
  extra: Record<string, unknown> = {},
): Promise<Order> {
  const checkout = await guestCheckout(server, store, { product_id: product.id, ...extra } as never, {
    customer_phone: buyer.phone,
    customer_email: buyer.email,
    customer_first_name: buyer.first ?? 'Sara',
  });
  const initiated = await guestInitiate(server, store, checkout.checkoutUrl, 'card');
  expect(initiated.status, initiated.text).to.equal(200);
  const redirectUrl = (initiated.body.data as { redirect_url: string }).redirect_url;
  const session = await sessionOf(paymentIdOf(redirectUrl), 30_000);
  const page = `${deps.config.publicBaseUrl}/sandbox/checkout/${session.provider_payment_id}`;
  const paid = await browse(server, page, { outcome: 'paid' });
  expect(paid.status).to.equal(303);
  return completionOf((await orderOf(checkout.checkoutId, 30_000)).id);
}

/** A signed-in account: its cookie and the form token of its pages. */
export interface AccountLogin {
  cookie: string;
  csrf: string;
}

export function cookieOf(res: TestResponse, name: string): string {
  const all = res.headers.getSetCookie();
  const found = all.find((c) => c.startsWith(`${name}=`));
  expect(found, `a ${name} cookie in ${all.join(' | ')}`).to.not.equal(undefined);
  return found!.split(';')[0]!;
}

export function formTokenIn(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  expect(match, 'a form token on the page').to.not.equal(null);
  return match![1]!;
}

export function post(
  server: TestServer,
  path: string,
  fields: Record<string, string>,
  cookie = '',
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return server.request(path, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Forwarded-For': randomIp(),
      ...(cookie ? { cookie } : {}),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

export function get(server: TestServer, path: string, cookie = ''): Promise<TestResponse> {
  return server.request(path, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}

/** Signs in by phone as a buyer would: the phone, then the code from the outbox. */
export async function signInByPhone(deps: Deps, server: TestServer, national: string): Promise<AccountLogin> {
  const sent = () =>
    OutboundMessage.query(deps.knex)
      .where({ to: `966${national}`, purpose: 'otp' })
      .resultSize();
  // Every earlier code of the phone out first, so the newest message is this sign-in's.
  await waitFor(
    'earlier codes to be sent',
    async () => {
      await deliverQueuedOtps(deps);
      const [{ n }] = await deps
        .knex('otp_sessions')
        .where({ e164: `966${national}`, status: 'pending' })
        .whereNotNull('code_encrypted')
        .where('expires_at', '>', new Date())
        .count<{ n: string }[]>('* as n');
      return Number(n) === 0 ? true : undefined;
    },
    30_000,
  );
  const before = await sent();
  const started = await post(server, '/account/signin/phone', { country_code: '966', phone: national });
  expect(started.status, started.text).to.equal(303);
  const pending = cookieOf(started, 'matjar_account_otp');
  const code = await codeAfter(deps, national, before);
  const done = await post(server, '/account/code', { code }, pending);
  expect(done.status, done.text).to.equal(303);
  const cookie = cookieOf(done, 'matjar_account');
  const page = await get(server, '/account', cookie);
  expect(page.status).to.equal(200);
  return { cookie, csrf: formTokenIn(page.text) };
}

/** The code of the sign-in started after `before` codes had been sent to the phone (a worker may send it). */
export async function codeAfter(deps: Deps, national: string, before: number): Promise<string> {
  const sent = () =>
    OutboundMessage.query(deps.knex)
      .where({ to: `966${national}`, purpose: 'otp' })
      .resultSize();
  await waitFor(
    'the new code',
    async () => {
      await deliverQueuedOtps(deps);
      return (await sent()) > before ? true : undefined;
    },
    30_000,
  );
  return latestDashboardCode(deps, `966${national}`);
}

/** The newest e-mail to the address, from the dev outbox. */
export async function latestEmail(
  server: TestServer,
  to: string,
): Promise<{ subject?: string; body: string } | undefined> {
  const res = await server.request(`/__dev/outbox?to=${encodeURIComponent(to)}`);
  expect(res.status, res.text).to.equal(200);
  return (res.body.messages as { subject?: string; body: string }[])[0];
}
