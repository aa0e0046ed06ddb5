import type { Knex } from 'knex';
import { Payment, WebhookEvent } from '../../../db/models';
import type { Cipher } from '../../crypto';
import { InvalidError, NotFoundError, UnauthenticatedError } from '../../errors';
import { providerOffered, type MethodOffer } from '../payment-methods';
import type { Logger } from '../../logger';
import {
  isHostedProvider,
  PaymentProviders,
  ProviderRejectedError,
  WebhookHeaders,
  WebhookSignatureError,
} from '../../providers/types';
import { isTransientDependencyError } from '../../dependency-errors';
import { enqueue, Queues } from '../../queues';
import { credentialsFor } from '../payment-records/credentials';
import type { PaymentsContext } from './context';
import { reconcilePayment, ReconcileOutcome } from './reconcile';
import { type DisputeOutcome, recordDispute } from './disputes';
import {
  cardUpdateOf,
  cardUpdateTarget,
  completeCardUpdate,
  type CardUpdateOutcome,
} from '../account/subscriptions';

export const INVALID_SIGNATURE = 'Invalid webhook signature';

export interface WebhookDeps {
  knex: Knex;
  cipher: Cipher;
  queues: Queues;
  logger: Logger;
  providers: PaymentProviders;
  config: MethodOffer;
}

export type WebhookReceipt =
  | { received: true; status: 'queued' | 'duplicate'; event_id: string }
  /** Nothing of ours (no payment with that id, or an event type we do not handle): acknowledged, not kept. */
  | { received: true; status: 'ignored' };

/** Body fields that are credentials (Moyasar's secret_token) never reach the database. */
const SECRET_FIELDS = ['secret_token'];

function storable(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { body };
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of SECRET_FIELDS) delete copy[field];
  return copy;
}

/**
 * POST /webhooks/:provider. Verifies the event over the exact bytes received with the credentials of the
 * store the payment belongs to (found by the provider's payment id the event names), keeps it once per
 * provider event id, and queues it; the worker does the rest. Refused with nothing written: an unknown
 * provider, a body that is not JSON, a signature that does not verify. A replay or a duplicate is
 * acknowledged and queued at most once more (deterministic job id), so it changes nothing.
 */
export async function receiveWebhook(
  deps: WebhookDeps,
  provider: string,
  rawBody: string | undefined,
  headers: WebhookHeaders,
): Promise<WebhookReceipt> {
  if (!isHostedProvider(provider) || !providerOffered(deps.config, provider))
    throw new NotFoundError('Unknown payment provider');
  if (rawBody === undefined || rawBody === '') throw new InvalidError('Webhook body missing');
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    throw new InvalidError('Malformed webhook body');
  }
  const adapter = deps.providers[provider];
  const reference = adapter.webhookReference(body);
  if (!reference) return { received: true, status: 'ignored' };
  const found = await Payment.query(deps.knex).findOne({
    provider,
    provider_payment_id: reference.providerPaymentId,
  });
  // Not a payment: perhaps a card-saving session of "Update the saved card" (docs/account.md), verified
  // with the same store's credentials and kept in the same inbox (its payment_id null).
  const card = found ? null : await cardUpdateOf(deps.knex, provider, reference.providerPaymentId);
  const payment =
    found ?? (card ? { id: null, ...(await cardUpdateTarget(deps.knex, card, provider)) } : null);
  if (!payment) return { received: true, status: 'ignored' };

  try {
    adapter.verifyWebhook({ raw: rawBody, body }, headers, await credentialsFor(deps, payment));
  } catch (err) {
    // Without the store's webhook secret nothing can be verified: refused the same way, and the log says why.
    if (err instanceof WebhookSignatureError || err instanceof ProviderRejectedError) {
      deps.logger.warn({ provider, paymentId: payment.id, reason: err.message }, 'webhook refused');
      throw new UnauthenticatedError(INVALID_SIGNATURE);
    }
    throw err;
  }

  const inserted = await deps
    .knex('webhook_events')
    .insert({ provider, event_id: reference.eventId, payload: storable(body), payment_id: payment.id })
    .onConflict(['provider', 'event_id'])
    .ignore()
    .returning<{ id: number }[]>('id');
  const duplicate = inserted.length === 0;
  const stored = duplicate
    ? await deps
        .knex('webhook_events')
        .where({ provider, event_id: reference.eventId })
        .first<{ id: number; processed_at: Date | null }>('id', 'processed_at')
    : { id: inserted[0].id, processed_at: null };
  // The event is in Postgres (the inbox) before it is acknowledged. A duplicate of an event still waiting
  // is queued again under the same job id: BullMQ keeps one. When Redis cannot take the job the event is
  // still acknowledged: the webhook sweep queues unprocessed events once Redis is back.
  if (stored.processed_at === null) {
    try {
      await enqueueWebhookJob(deps.queues, stored.id);
    } catch (err) {
      if (!isTransientDependencyError(err)) throw err;
      deps.logger.warn(
        { provider, webhookEventId: stored.id, error: (err as Error).message },
        'webhook stored but not queued (Redis unavailable); the webhook sweep will queue it',
      );
    }
  }
  return { received: true, status: duplicate ? 'duplicate' : 'queued', event_id: reference.eventId };
}

/** Queues the processing of one stored webhook event; one job per event (deterministic id). */
export async function enqueueWebhookJob(queues: Queues, webhookEventId: number): Promise<void> {
  // The event row is stored by one statement before: no transaction exists (sweep-webhooks re-enqueues).
  await enqueue(
    queues,
    'payments',
    { kind: 'webhook', webhookEventId },
    { jobId: `payment-webhook-${webhookEventId}` },
  );
}

/** Inbox rows older than this are swept; newer ones were queued by the receiver moments ago. */
export const WEBHOOK_SWEEP_AFTER_MS = 30_000;
const WEBHOOK_SWEEP_HORIZON_MS = 2 * 24 * 3600 * 1000;
const WEBHOOK_SWEEP_BATCH = 500;

/**
 * The `sweep-webhooks` maintenance task (every minute): queues every stored webhook event not yet
 * processed, so an event acknowledged while Redis was down (or whose job was lost) is processed once Redis
 * is back. The job id is the receiver's, so an event already queued is not queued twice.
 */
export async function sweepWebhooks(
  knex: Knex,
  now: Date = new Date(),
  ctx: { queues: Queues },
): Promise<Record<string, number>> {
  const due = await knex('webhook_events')
    .whereNull('processed_at')
    .where('created_at', '<', new Date(now.getTime() - WEBHOOK_SWEEP_AFTER_MS))
    .where('created_at', '>', new Date(now.getTime() - WEBHOOK_SWEEP_HORIZON_MS))
    .orderBy('id')
    .limit(WEBHOOK_SWEEP_BATCH)
    .select<{ id: number }[]>('id');
  for (const event of due) await enqueueWebhookJob(ctx.queues, event.id);
  return { queued: due.length };
}

/**
 * The `payments` webhook job: reconciles the payment a stored event names (asking the provider, never
 * trusting the event), then marks the event processed. Safe to run twice.
 */
export async function processWebhookEvent(
  ctx: PaymentsContext,
  webhookEventId: number,
): Promise<
  | ReconcileOutcome
  | DisputeOutcome
  | { outcome: 'processed-before' | 'unknown-payment' }
  | { outcome: 'card-update'; card: CardUpdateOutcome }
> {
  const event = await WebhookEvent.query(ctx.knex).findById(webhookEventId);
  if (!event) throw new NotFoundError(`webhook event ${webhookEventId} does not exist`);
  if (event.processed_at) return { outcome: 'processed-before' };
  // The receiver found the payment to verify the event; rows stored before it kept that are read again.
  const paymentId = event.payment_id ?? (await paymentOfPayload(ctx, event));
  // A dispute event (verified at receipt) is the provider's word on a paid payment: recorded once per order
  // (shared/services/payments/disputes.ts); every other event reconciles the payment by asking the provider.
  const dispute = isHostedProvider(event.provider)
    ? ctx.providers[event.provider].disputeOf?.(event.payload)
    : null;
  const card = !paymentId ? await cardEventOf(ctx, event) : null;
  if (card === 'pending') throw new Error(`card update of webhook event ${event.id} is still pending`);
  const result = card
    ? ({ outcome: 'card-update', card } as const)
    : !paymentId
      ? ({ outcome: 'unknown-payment' } as const)
      : dispute
        ? await recordDispute(ctx, paymentId, dispute)
        : await reconcilePayment(ctx, paymentId, 'webhook');
  await WebhookEvent.query(ctx.knex)
    .patch({ processed_at: new Date() })
    .where({ id: event.id })
    .whereNull('processed_at');
  return result;
}

async function paymentOfPayload(ctx: PaymentsContext, event: WebhookEvent): Promise<number | null> {
  const provider = event.provider;
  const reference = isHostedProvider(provider)
    ? ctx.providers[provider].webhookReference(event.payload)
    : null;
  if (!reference) return null;
  const payment = await Payment.query(ctx.knex).findOne({
    provider,
    provider_payment_id: reference.providerPaymentId,
  });
  return payment?.id ?? null;
}

/** A card-saving session's event (docs/account.md, "Update the saved card"), completed from the provider. */
async function cardEventOf(ctx: PaymentsContext, event: WebhookEvent): Promise<CardUpdateOutcome | null> {
  const provider = event.provider;
  if (!isHostedProvider(provider)) return null;
  const reference = ctx.providers[provider].webhookReference(event.payload);
  if (!reference) return null;
  const outcome = await completeCardUpdate(ctx, provider, reference.providerPaymentId, undefined);
  return outcome === 'unknown' ? null : outcome;
}
