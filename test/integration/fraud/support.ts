import { expect } from 'chai';
import type { Store } from '../../../db/models';
import { merchantToken } from '../../helpers/builders';
import type { TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';

/** Fraud controls' tests: phones 5943xxxxx, e-mails @i43.test (docs/fraud.md). */

let next = 0;
/** A buyer of its own per call, so tests never share limits or block-list entries by accident. */
export function buyer(overrides: Record<string, string> = {}): {
  customer_first_name: string;
  customer_last_name: string;
  customer_email: string;
  customer_phone: string;
  customer_country_code: string;
} {
  next += 1;
  const n = `${process.pid % 1000}${String(next).padStart(3, '0')}`.slice(-5);
  return {
    customer_first_name: 'Huda',
    customer_last_name: 'Fahad',
    customer_email: `buyer${n}@i43.test`,
    customer_phone: `5943${n.padStart(5, '0')}`,
    customer_country_code: '966',
    ...overrides,
  };
}

/** PATCH /shawarma/store {settings}: the store's fraud controls, through the Merchant API. */
export async function setFraudSettings(
  server: TestServer,
  store: Store,
  settings: Record<string, unknown>,
): Promise<TestResponse> {
  const token = await merchantToken(store);
  const res = await server.request('/shawarma/store', {
    method: 'PATCH',
    json: { settings },
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(res.status, res.text).to.equal(200);
  return res;
}

/** A refused checkout, in any interface's envelope: 403 with error_code checkout_blocked, no reason. */
export function expectBlocked(res: TestResponse): void {
  expect(res.status, res.text).to.equal(403);
  expect(res.body.error_code, res.text).to.equal('checkout_blocked');
  expect(JSON.stringify(res.body)).to.not.match(/blocked_|max_|@|\d+\.\d+\.\d+\.\d+/);
}

/**
 * Posts `outcome` on a sandbox payment's page (the contract's redirect_url, sent to `server`): a post
 * before the payments worker has opened the sandbox session answers 503 after a wait; it is tried again.
 */
export async function chooseInSandbox(
  server: TestServer,
  redirectUrl: string,
  outcome: string,
): Promise<{ status: number; text: string }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${server.url}${new URL(redirectUrl).pathname}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': randomIp() },
      body: new URLSearchParams({ outcome }).toString(),
    });
    const answer = { status: res.status, text: await res.text() };
    if (answer.status !== 503 || Date.now() > deadline) return answer;
  }
}
