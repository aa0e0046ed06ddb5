import crypto from 'node:crypto';
import { OutboundMessage } from '../../db/models';
import type { Deps } from '../../shared/deps';
import { deliverOtp } from '../../shared/services/otp/deliver';
import type { TestResponse, TestServer } from './http';

/** A client address of its own for each caller (the app trusts X-Forwarded-For under TRUST_PROXY=1). */
export function randomIp(): string {
  const b = crypto.randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

/**
 * Runs the OTP jobs waiting in the queue through the same delivery code the worker runs (outbox
 * driver), so a test can then read the code as a person would: from the dev outbox.
 */
export async function deliverQueuedOtps(deps: Deps): Promise<number> {
  const jobs = await deps.queues.otp.getJobs(['waiting', 'delayed', 'prioritized']);
  for (const job of jobs) {
    await deliverOtp(deps, job.data);
    await job.remove();
  }
  return jobs.length;
}

/** The newest code sent to `e164`, read from the outbox as the operator contract (docs/operations.md) describes it. */
export async function latestCode(deps: Deps, e164: string): Promise<string> {
  await deliverQueuedOtps(deps);
  const message = await OutboundMessage.query(deps.knex)
    .where({ to: e164, purpose: 'otp' })
    .orderBy('id', 'desc')
    .first();
  const match = message?.body?.match(/(?<!\d)\d{4}(?!\d)/g);
  if (!match || match.length !== 1) throw new Error(`no OTP message for ${e164}`);
  return match[0];
}

/**
 * The newest merchant dashboard sign-in code sent to `e164`: the body's only run of 4 to 8 digits, as the
 * operator contract (docs/operations.md) words it for dashboard codes.
 */
export async function latestDashboardCode(deps: Deps, e164: string): Promise<string> {
  await deliverQueuedOtps(deps);
  const message = await OutboundMessage.query(deps.knex)
    .where({ to: e164, purpose: 'otp' })
    .orderBy('id', 'desc')
    .first();
  const match = message?.body?.match(/(?<!\d)\d{4,8}(?!\d)/g);
  if (!match || match.length !== 1) throw new Error(`no dashboard code message for ${e164}`);
  return match[0];
}

export function wrongCode(code: string): string {
  return String((Number(code) + 1) % 10_000).padStart(4, '0');
}

export interface ApiClient {
  post(path: string, json: unknown, headers?: Record<string, string>): Promise<TestResponse>;
}

/** Posts JSON with the store's embed key from a fresh client IP (or the one given). */
export function embedClient(server: TestServer, embedKey: string, ip?: string): ApiClient {
  return {
    post: (path, json, headers = {}) =>
      server.request(path, {
        method: 'POST',
        json,
        headers: { 'X-Embed-Key': embedKey, 'X-Forwarded-For': ip ?? randomIp(), ...headers },
      }),
  };
}

/** Posts JSON to the Storefront API as a browser on the store's domain would. */
export function storefrontClient(server: TestServer, host: string, ip?: string): ApiClient {
  return {
    post: (path, json, headers = {}) =>
      server.request(path, {
        method: 'POST',
        json,
        headers: { Host: host, 'X-Forwarded-For': ip ?? randomIp(), ...headers },
      }),
  };
}
