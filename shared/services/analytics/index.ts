import crypto from 'node:crypto';
import type { RedisClient } from '../../redis';
import type { Knex } from 'knex';
import { isbot } from 'isbot';
import type { Store } from '../../../db/models';
import { enqueue, Queues } from '../../queues';
import { abandonJob } from '../../queues/outbox';
import type { AnalyticsBatcher } from './batcher';

/**
 * Analytics collection (spec: Analytics collection, Events; see CONTEXT.md). The API validates, turns
 * each event into the row it will become and hands the request's rows to the `analytics` queue as one
 * job; it never writes Postgres itself. The worker (writer.ts) stores them in batches.
 *
 * What is stored, privacy first: no IP address and no user agent. A visitor is a hash of the day's salt,
 * the store, the IP and the user agent; the salt is random, kept in Redis for two days and then gone, so
 * a hash cannot be traced back to an IP, and the same visitor gets a new hash every day. The device class
 * (desktop, mobile, tablet) is read from the user agent; the referrer is kept with its host.
 * Requests from bots (`isbot`) are accepted and dropped.
 */

export const RECORDED_TYPES = ['pageview', 'event', 'outbound_click'] as const;
export type RecordedType = (typeof RECORDED_TYPES)[number];
/** Spec, Events: accepted and silently skipped. */
export const SKIPPED_TYPES = ['web_vital', 'js_error', 'time_on_page', 'scroll_depth'] as const;
export const MAX_BATCH_EVENTS = 30;

/** An event as the collect endpoints accept it (spec field list and limits, checked by the API schema). */
export interface CollectedEvent {
  type?: string;
  session_id?: string;
  visitor_id?: string;
  url?: string;
  path?: string;
  event_name?: string;
  properties?: Record<string, unknown>;
  title?: string;
  referrer?: string;
  screen_width?: number;
  destination?: string;
  text?: string;
}

export type DeviceClass = 'desktop' | 'mobile' | 'tablet';

/** The row an event becomes; the job payload carries these (no IP, no user agent). */
export interface EventRow {
  type: RecordedType;
  session_id: string | null;
  visitor_id: string | null;
  url: string | null;
  path: string | null;
  event_name: string | null;
  properties: Record<string, unknown> | null;
  title: string | null;
  referrer: string | null;
  referrer_host: string | null;
  screen_width: number | null;
  destination: string | null;
  text: string | null;
  visitor_hash: string;
  device_class: DeviceClass;
}

export interface Client {
  ip: string;
  userAgent: string;
}

export function deviceClass(userAgent: string): DeviceClass {
  if (/iPad|Tablet|PlayBook|Silk|Kindle|Android(?!.*Mobile)/i.test(userAgent)) return 'tablet';
  if (/Mobi|iPhone|iPod|Android|Windows Phone|Opera Mini/i.test(userAgent)) return 'mobile';
  return 'desktop';
}

/** The referrer's host name, lower case; null when it is not an absolute http(s) address. */
export function referrerHost(referrer: string | undefined): string | null {
  if (!referrer) return null;
  try {
    const url = new URL(referrer);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.hostname.toLowerCase().slice(0, 253) || null;
  } catch {
    return null;
  }
}

const SALT_TTL_SECONDS = 2 * 86_400;

/**
 * The day's random salt, shared by every API process through Redis (SET NX: the first process to need it
 * makes it) and forgotten two days later.
 */
export class DailySalt {
  private readonly cache = new Map<string, string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async forDay(day: string): Promise<string> {
    const cached = this.cache.get(day);
    if (cached) return cached;
    const key = `${this.prefix}:analytics:salt:${day}`;
    await this.redis.set(key, crypto.randomBytes(32).toString('hex'), 'EX', SALT_TTL_SECONDS, 'NX');
    const salt = await this.redis.get(key);
    if (!salt) throw new Error('analytics salt missing right after it was set');
    this.cache.clear();
    this.cache.set(day, salt);
    return salt;
  }
}

export function visitorHash(salt: string, storeId: number, client: Client): string {
  return crypto
    .createHash('sha256')
    .update(`${salt}\u0000${storeId}\u0000${client.ip}\u0000${client.userAgent}`)
    .digest('hex');
}

const isRecorded = (type: string): type is RecordedType =>
  (RECORDED_TYPES as readonly string[]).includes(type);

export function toRow(event: CollectedEvent, hash: string, device: DeviceClass): EventRow | null {
  const type = event.type ?? 'event';
  if (!isRecorded(type)) return null;
  return {
    type,
    session_id: event.session_id ?? null,
    visitor_id: event.visitor_id ?? null,
    url: event.url ?? null,
    path: event.path ?? null,
    event_name: event.event_name ?? null,
    properties: event.properties ?? null,
    title: event.title ?? null,
    referrer: event.referrer ?? null,
    referrer_host: referrerHost(event.referrer),
    screen_width: event.screen_width ?? null,
    destination: event.destination ?? null,
    text: event.text ?? null,
    visitor_hash: hash,
    device_class: device,
  };
}

export interface CollectDeps {
  queues: Queues;
  /** Where a job whose enqueue failed is marked abandoned (shared/queues/outbox.ts). */
  knex: Knex;
  logger?: { warn(obj: object, msg: string): void };
  salt: DailySalt;
  now?: () => Date;
  /** The process's micro-batch (batcher.ts): requests of the same few milliseconds share one add. */
  batcher?: AnalyticsBatcher;
}

/**
 * Accepts the events of one request (already cut to 30 by the caller) and answers how many were
 * processed. Skipped types and bot traffic count as processed and are not recorded; what is recorded goes
 * to the queue as one job whose id makes each event's ingest key (`{job id}:{index}`) unique.
 */
export async function collectEvents(
  deps: CollectDeps,
  store: Pick<Store, 'id'>,
  events: readonly CollectedEvent[],
  client: Client,
): Promise<number> {
  if (events.length === 0 || isbot(client.userAgent)) return events.length;
  const now = deps.now?.() ?? new Date();
  const salt = await deps.salt.forDay(now.toISOString().slice(0, 10));
  const hash = visitorHash(salt, store.id, client);
  const device = deviceClass(client.userAgent);
  const rows = events.map((e) => toRow(e, hash, device)).filter((r): r is EventRow => r !== null);
  if (rows.length > 0 && deps.batcher) {
    await deps.batcher.add(store.id, rows, now);
  } else if (rows.length > 0) {
    const jobId = `ev-${crypto.randomUUID()}`;
    try {
      // The request writes nothing to Postgres: no transaction exists (abandonJob marks a failed one).
      await enqueue(
        deps.queues,
        'analytics',
        {
          storeId: store.id,
          receivedAt: now.toISOString(),
          events: rows as unknown as Record<string, unknown>[],
        },
        { jobId },
      );
    } catch (err) {
      // Answered as refused (the client sends its events again): should the job reach Redis after all,
      // it writes nothing (the writer skips the rows of abandoned jobs).
      await abandonJob(deps, 'analytics', deps.queues.analytics.jobIdFor(jobId));
      throw err;
    }
  }
  return events.length;
}
