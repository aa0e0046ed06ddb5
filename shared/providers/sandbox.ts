import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { hmacSha256, randomToken } from '../crypto';
import type { Logger } from '../logger';
import { eventReference, referenceOrRefuse, verifySignatureHeader } from './http';
import {
  ReceivedWebhook,
  HostedPayment,
  HostedPaymentRequest,
  PaymentProvider,
  ProviderPaymentState,
  ProviderRefund,
  ProviderRejectedError,
  RefundingProvider,
  RefundRequest,
  TokenChargeRequest,
  WebhookHeaders,
  WebhookReference,
} from './types';

/**
 * The sandbox provider (docs/operations.md): a hosted-page provider with no outside network. Its two halves
 * are kept apart on purpose, so the platform's side works exactly as with a real provider:
 *
 * - the provider's side (`SandboxGateway`): its own store of payments (table sandbox_payments), the page
 *   where the customer presses Pay or Fail (api/sandbox), and the delivery of a signed webhook over HTTP;
 * - the platform's adapter (`SandboxProvider`): creates a payment there, reads its status back, and
 *   verifies the webhook's signature, like the Moyasar and Coinbase adapters.
 *
 * Signature: header X-Sandbox-Signature = hex HMAC-SHA256 of the raw body, keyed with a key derived from
 * the platform secret (the sandbox needs no per-store credentials).
 */

export const SANDBOX_SIGNATURE_HEADER = 'X-Sandbox-Signature';

export type SandboxStatus = 'pending' | 'paid' | 'failed';

export interface SandboxPayment {
  id: string;
  store_id: number | null;
  amount_minor: number;
  currency: string;
  description: string;
  return_url: string;
  status: SandboxStatus;
  event_id: string | null;
  decided_at: Date | null;
  created_at: Date;
  save_card: boolean;
  /** The card token saved by this payment (save_card, once paid), or the token a renewal charged. */
  token: string | null;
  idempotency_key: string | null;
}

/** The webhook key, derived so that it is not the platform secret itself nor the at-rest key. */
export function sandboxWebhookKey(appSecret: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', appSecret, 'commerce-platform', 'sandbox-webhook', 32));
}

export function signSandboxWebhook(key: Buffer, rawBody: string): string {
  return hmacSha256(key, rawBody);
}

export interface SandboxOptions {
  knex: Knex;
  appSecret: string;
  publicBaseUrl: string;
}

export class SandboxProvider implements PaymentProvider, RefundingProvider {
  readonly id = 'sandbox' as const;
  private readonly key: Buffer;

  constructor(private readonly options: SandboxOptions) {
    this.key = sandboxWebhookKey(options.appSecret);
  }

  async createHostedPayment(request: HostedPaymentRequest): Promise<HostedPayment> {
    const id = randomToken(16, 'sbx_');
    await this.options.knex('sandbox_payments').insert({
      id,
      store_id: request.storeId,
      amount_minor: request.amountMinor,
      currency: request.currency,
      description: request.description.slice(0, 500),
      return_url: request.returnUrl,
      save_card: request.saveCard === true,
    });
    return { providerPaymentId: id, redirectUrl: `${this.options.publicBaseUrl}/sandbox/checkout/${id}` };
  }

  async fetchPayment(providerPaymentId: string): Promise<ProviderPaymentState> {
    const row = await this.options
      .knex<SandboxPayment>('sandbox_payments')
      .where({ id: providerPaymentId })
      .first();
    if (!row) throw new ProviderRejectedError(this.id, `unknown payment ${providerPaymentId}`, 404);
    return {
      providerPaymentId,
      status: row.status,
      amountMinor: Number(row.amount_minor),
      currency: row.currency,
      providerStatus: row.status,
      failureReason: row.status === 'failed' ? 'The payment was declined (sandbox)' : undefined,
      savedToken: row.status === 'paid' && row.save_card && row.token ? row.token : undefined,
    };
  }

  /**
   * A charge of a saved sandbox token, decided at once like a real card charge without 3-D Secure: paid,
   * unless the token is unknown or the test asked for its next charges to be declined (SandboxGateway).
   * The idempotency key is unique on the sandbox's side: a second charge with it waits for the first
   * (the unique index holds the insert until the first commits) and answers that same payment.
   */
  async chargeSavedToken(request: TokenChargeRequest): Promise<ProviderPaymentState> {
    const id = await this.options.knex.transaction(async (trx) => {
      const inserted = await trx('sandbox_payments')
        .insert({
          id: randomToken(16, 'sbx_'),
          store_id: request.storeId,
          amount_minor: request.amountMinor,
          currency: request.currency,
          description: request.description.slice(0, 500),
          return_url: request.returnUrl,
          token: request.token,
          idempotency_key: request.idempotencyKey,
        })
        .onConflict('idempotency_key')
        .ignore()
        .returning<{ id: string }[]>('id');
      const created = inserted[0]?.id;
      if (!created) return null;
      const known = await trx('sandbox_tokens').where({ token: request.token }).first('token');
      const declined = await trx('sandbox_tokens')
        .where({ token: request.token })
        .where('decline_next', '>', 0)
        .decrement('decline_next', 1);
      await trx('sandbox_payments')
        .where({ id: created })
        .update({
          status: known && declined === 0 ? 'paid' : 'failed',
          event_id: randomToken(12, 'evt_'),
          decided_at: new Date(),
        });
      return created;
    });
    const row =
      id !== null
        ? { id }
        : await this.options
            .knex('sandbox_payments')
            .where({ idempotency_key: request.idempotencyKey })
            .first<{ id: string }>('id');
    if (!row) throw new ProviderRejectedError(this.id, 'charge not found after its insert', 404);
    return this.fetchPayment(row.id);
  }

  webhookReference(body: unknown): WebhookReference | null {
    return eventReference(body, 'id');
  }

  verifyWebhook(webhook: ReceivedWebhook, headers: WebhookHeaders): WebhookReference {
    const expected = signSandboxWebhook(this.key, webhook.raw);
    verifySignatureHeader(this.id, headers, SANDBOX_SIGNATURE_HEADER, expected);
    return referenceOrRefuse(this.id, this.webhookReference(webhook.body));
  }

  /**
   * The sandbox's refund API, as a card provider's works: the refund is taken at once, never beyond what
   * was paid, and the idempotency key is honoured (a repeat answers the first refund, `replayed`).
   */
  async refundPayment(request: RefundRequest): Promise<ProviderRefund> {
    return this.options.knex.transaction(async (trx) => {
      const payment = await trx<SandboxPayment>('sandbox_payments')
        .where({ id: request.providerPaymentId })
        .forUpdate()
        .first();
      if (!payment) {
        throw new ProviderRejectedError(this.id, `unknown payment ${request.providerPaymentId}`, 404);
      }
      const done = await trx('sandbox_refunds')
        .where({ idempotency_key: request.idempotencyKey })
        .first<{ id: string } | undefined>('id');
      if (done)
        return { providerRefundId: done.id, status: 'succeeded', providerStatus: 'refunded', replayed: true };
      if (payment.status !== 'paid') {
        throw new ProviderRejectedError(this.id, `payment ${payment.id} is ${payment.status}, not paid`, 400);
      }
      const refunded = await trx('sandbox_refunds')
        .where({ payment_id: payment.id })
        .sum<{ total: number | null }>('amount_minor as total')
        .first();
      if (Number(refunded?.total ?? 0) + request.amountMinor > Number(payment.amount_minor)) {
        throw new ProviderRejectedError(this.id, 'the refund exceeds what is left of the payment', 400);
      }
      const id = randomToken(16, 'sbr_');
      await trx('sandbox_refunds').insert({
        id,
        payment_id: payment.id,
        amount_minor: request.amountMinor,
        idempotency_key: request.idempotencyKey,
      });
      return { providerRefundId: id, status: 'succeeded', providerStatus: 'refunded', replayed: false };
    });
  }
}

export interface SandboxEvent {
  id: string;
  type: 'payment.paid' | 'payment.failed';
  created_at: string;
  data: { id: string; status: SandboxStatus; amount: number; currency: string };
}

export type SandboxDecision =
  | { kind: 'unknown' }
  | { kind: 'conflict'; payment: SandboxPayment }
  | { kind: 'decided'; payment: SandboxPayment; event: SandboxEvent };

export interface DeliveryOptions {
  /** Waits between attempts; the first attempt is immediate. */
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
}

const DEFAULT_RETRY_DELAYS_MS = [500, 1_000, 2_000, 4_000, 8_000];

/**
 * The sandbox provider's own side. A real provider would run this on its servers; here it runs in the web
 * process, behind the pages in api/sandbox. Webhook deliveries are retried a few times with back-off; one
 * that never arrives is caught by the payments sweep, which asks the provider (this table) directly.
 */
export class SandboxGateway {
  private readonly key: Buffer;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly knex: Knex,
    appSecret: string,
    private readonly logger: Logger,
    private readonly delivery: DeliveryOptions = {},
  ) {
    this.key = sandboxWebhookKey(appSecret);
  }

  async find(id: string): Promise<SandboxPayment | null> {
    const row = await this.knex<SandboxPayment>('sandbox_payments').where({ id }).first();
    return row ? { ...row, amount_minor: Number(row.amount_minor) } : null;
  }

  /**
   * Records the customer's choice. Pressing the same button twice is harmless (the same event is delivered
   * again); a different choice after the first is refused, as a real provider would.
   */
  async decide(id: string, outcome: 'paid' | 'failed', now = new Date()): Promise<SandboxDecision> {
    const token = randomToken(16, 'sbx_tok_');
    const [updated] = await this.knex<SandboxPayment>('sandbox_payments')
      .where({ id, status: 'pending' })
      .update({
        status: outcome,
        event_id: randomToken(12, 'evt_'),
        decided_at: now,
        // A paid payment that was asked to save the card leaves a token later charges use.
        token: this.knex.raw(`case when save_card and ? = 'paid' then ? else token end`, [outcome, token]),
      })
      .returning('*');
    if (updated?.token === token) {
      await this.knex('sandbox_tokens').insert({ token, store_id: updated.store_id }).onConflict().ignore();
    }
    const payment = updated ?? (await this.find(id));
    if (!payment) return { kind: 'unknown' };
    if (payment.status !== outcome || !payment.event_id) return { kind: 'conflict', payment };
    const amount = Number(payment.amount_minor);
    return {
      kind: 'decided',
      payment: { ...payment, amount_minor: amount },
      event: {
        id: payment.event_id,
        type: outcome === 'paid' ? 'payment.paid' : 'payment.failed',
        created_at: (payment.decided_at ?? now).toISOString(),
        data: { id: payment.id, status: outcome, amount, currency: payment.currency },
      },
    };
  }

  /**
   * Makes the next `count` charges of a saved token fail, as a card that runs out of funds would: the
   * test seam of renewals and dunning (and the development route that exposes it).
   */
  async declineNextCharges(token: string, count: number): Promise<boolean> {
    const changed = await this.knex('sandbox_tokens').where({ token }).update({ decline_next: count });
    return changed > 0;
  }

  /** Posts the signed event to `webhookUrl`, retrying on failure; resolves with whether it was accepted. */
  async deliver(event: SandboxEvent, webhookUrl: string): Promise<boolean> {
    const raw = JSON.stringify(event);
    const headers = {
      'Content-Type': 'application/json',
      [SANDBOX_SIGNATURE_HEADER]: signSandboxWebhook(this.key, raw),
    };
    const delays = this.delivery.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    for (let attempt = 0; attempt <= delays.length; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, delays[attempt - 1]));
      try {
        const res = await fetch(webhookUrl, {
          method: 'POST',
          headers,
          body: raw,
          signal: AbortSignal.timeout(this.delivery.timeoutMs ?? 5_000),
        });
        await res.arrayBuffer();
        if (res.ok) return true;
        this.logger.warn(
          { event: event.id, status: res.status, attempt: attempt + 1 },
          'sandbox webhook refused',
        );
      } catch (err) {
        this.logger.warn(
          { event: event.id, error: (err as Error).message, attempt: attempt + 1 },
          'sandbox webhook delivery failed',
        );
      }
    }
    this.logger.warn(
      { event: event.id },
      'sandbox webhook not delivered; the payments sweep will reconcile it',
    );
    return false;
  }

  /** Starts a delivery without waiting for it (the customer's page answers first). */
  deliverInBackground(event: SandboxEvent, webhookUrl: string): void {
    const run = this.deliver(event, webhookUrl).then(
      () => undefined,
      (err: Error) =>
        this.logger.error({ event: event.id, error: err.message }, 'sandbox webhook delivery crashed'),
    );
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /** Resolves once every background delivery has finished (used at shutdown and by tests). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
