import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { hmacSha256, randomToken } from '../crypto';
import type { Logger } from '../logger';
import { eventReference, referenceOrRefuse, verifySignatureHeader } from './http';
import {
  CardSavingProvider,
  CardSetup,
  CardSetupRequest,
  CardSetupState,
  ReceivedWebhook,
  HostedPayment,
  HostedPaymentRequest,
  PaymentProvider,
  ProviderDispute,
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
  /** A card-saving session (no amount charged): "Update the saved card" (docs/account.md). */
  card_only: boolean;
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

export class SandboxProvider implements PaymentProvider, RefundingProvider, CardSavingProvider {
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

  /** A card-saving page like the payment page: Save card or Fail; nothing is charged. */
  async createCardSetup(request: CardSetupRequest): Promise<CardSetup> {
    const id = randomToken(16, 'sbx_');
    const back = new URL(request.returnUrl);
    back.searchParams.set('id', id);
    await this.options.knex('sandbox_payments').insert({
      id,
      store_id: request.storeId,
      amount_minor: 0,
      currency: 'SAR',
      description: request.description.slice(0, 500),
      return_url: back.toString(),
      save_card: true,
      card_only: true,
    });
    return { reference: id, redirectUrl: `${this.options.publicBaseUrl}/sandbox/checkout/${id}` };
  }

  async fetchCardSetup(reference: string): Promise<CardSetupState> {
    const row = await this.options
      .knex<SandboxPayment>('sandbox_payments')
      .where({ id: reference, card_only: true })
      .first();
    if (!row) throw new ProviderRejectedError(this.id, `unknown card setup ${reference}`, 404);
    if (row.status === 'paid' && row.token) return { status: 'saved', token: row.token };
    return { status: row.status === 'failed' ? 'failed' : 'pending' };
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

  /** The sandbox's dispute event (`payment.disputed`: `outcome=disputed` after paid, docs/operations.md). */
  disputeOf(body: unknown): ProviderDispute | null {
    return sandboxDisputeOf(body);
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
  type: 'payment.paid' | 'payment.failed' | 'payment.disputed' | 'card.saved' | 'card.failed';
  created_at: string;
  data: {
    id: string;
    status: SandboxStatus;
    amount: number;
    currency: string;
    /** A dispute event's dispute: evidence due 7 days after it was opened. */
    dispute?: { id: string; reason: string; amount: number; evidence_due_by: string };
  };
}

/** Days the sandbox gives a merchant to answer a dispute (card schemes give 7 to 30). */
export const SANDBOX_DISPUTE_DAYS = 7;

function sandboxDisputeOf(body: unknown): ProviderDispute | null {
  const event = body as Partial<SandboxEvent> | null;
  if (!event || event.type !== 'payment.disputed' || typeof event.data !== 'object' || !event.data)
    return null;
  const dispute = event.data.dispute;
  if (!dispute || typeof dispute.id !== 'string' || typeof event.data.id !== 'string') return null;
  const deadline = new Date(dispute.evidence_due_by);
  return {
    providerPaymentId: event.data.id,
    disputeId: dispute.id,
    reason: typeof dispute.reason === 'string' ? dispute.reason.slice(0, 300) : null,
    deadline: Number.isNaN(deadline.getTime()) ? null : deadline,
    amountMinor: Number.isSafeInteger(dispute.amount) ? dispute.amount : null,
  };
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

interface Delivery {
  readonly event: SandboxEvent;
  readonly url: string;
  readonly controller: AbortController;
  delivered: boolean;
  run: Promise<void>;
}

/** Waits `ms`, or less when `signal` aborts. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

const gateways = new WeakMap<object, SandboxGateway>();

/**
 * The one gateway of an app's dependencies (the pages that take a choice share it), so the web process
 * can hand its pending deliveries back at shutdown.
 */
export function sandboxGatewayFor(deps: {
  readonly knex: Knex;
  readonly appSecret: string;
  readonly logger: Logger;
}): SandboxGateway {
  let gateway = gateways.get(deps);
  if (!gateway) {
    gateway = new SandboxGateway(deps.knex, deps.appSecret, deps.logger);
    gateways.set(deps, gateway);
  }
  return gateway;
}

/**
 * The sandbox provider's own side. A real provider would run this on its servers; here it runs in the web
 * process, behind the pages in api/sandbox. Webhook deliveries are retried a few times with back-off; one
 * that never arrives is caught by the payments sweep, which asks the provider (this table) directly.
 */
export class SandboxGateway {
  private readonly key: Buffer;
  private readonly inFlight = new Set<Delivery>();
  private stopping = false;

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
        type: payment.card_only
          ? outcome === 'paid'
            ? 'card.saved'
            : 'card.failed'
          : outcome === 'paid'
            ? 'payment.paid'
            : 'payment.failed',
        created_at: (payment.decided_at ?? now).toISOString(),
        data: { id: payment.id, status: outcome, amount, currency: payment.currency },
      },
    };
  }

  /**
   * The card holder disputes a paid payment (a chargeback): recorded once on the sandbox's side; the same
   * dispute asked again answers the same event (so a repeated post delivers a duplicate, as providers do).
   * A payment that is not paid cannot be disputed (`conflict`).
   */
  async dispute(id: string, now = new Date()): Promise<SandboxDecision> {
    const [updated] = await this.knex('sandbox_payments')
      .where({ id, status: 'paid', card_only: false })
      .whereNull('disputed_at')
      .update({ disputed_at: now, dispute_event_id: randomToken(12, 'evt_') })
      .returning('*');
    const row =
      (updated as
        (SandboxPayment & { disputed_at: Date | null; dispute_event_id: string | null }) | undefined) ??
      ((await this.knex('sandbox_payments').where({ id }).first()) as
        (SandboxPayment & { disputed_at: Date | null; dispute_event_id: string | null }) | undefined);
    if (!row) return { kind: 'unknown' };
    const payment = { ...row, amount_minor: Number(row.amount_minor) };
    if (row.status !== 'paid' || !row.disputed_at || !row.dispute_event_id)
      return { kind: 'conflict', payment };
    const opened = new Date(row.disputed_at);
    return {
      kind: 'decided',
      payment,
      event: {
        id: row.dispute_event_id,
        type: 'payment.disputed',
        created_at: opened.toISOString(),
        data: {
          id: row.id,
          status: 'paid',
          amount: payment.amount_minor,
          currency: row.currency,
          dispute: {
            id: `dsp_${row.dispute_event_id.slice(4)}`,
            reason: 'fraudulent',
            amount: payment.amount_minor,
            evidence_due_by: new Date(opened.getTime() + SANDBOX_DISPUTE_DAYS * 86_400_000).toISOString(),
          },
        },
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

  /**
   * Posts the signed event to `webhookUrl`, retrying on failure; resolves with whether it was accepted.
   * `signal` stops it between tries or mid-request (the process is stopping: `handBack`).
   */
  async deliver(event: SandboxEvent, webhookUrl: string, signal?: AbortSignal): Promise<boolean> {
    const raw = JSON.stringify(event);
    const headers = {
      'Content-Type': 'application/json',
      [SANDBOX_SIGNATURE_HEADER]: signSandboxWebhook(this.key, raw),
    };
    const delays = this.delivery.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    for (let attempt = 0; attempt <= delays.length; attempt += 1) {
      if (attempt > 0) await abortableSleep(delays[attempt - 1], signal);
      if (signal?.aborted) return false;
      try {
        const timeout = AbortSignal.timeout(this.delivery.timeoutMs ?? 5_000);
        const res = await fetch(webhookUrl, {
          method: 'POST',
          headers,
          body: raw,
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        await res.arrayBuffer();
        if (res.ok) return true;
        this.logger.warn(
          { event: event.id, status: res.status, attempt: attempt + 1 },
          'sandbox webhook refused',
        );
      } catch (err) {
        if (signal?.aborted) return false;
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
    if (this.stopping) {
      // Asked after the hand-back (a late answer's close): written for the next process straight away.
      void this.persist([{ event, url: webhookUrl }]).catch((err: Error) =>
        this.logger.error({ event: event.id, error: err.message }, 'sandbox webhook hand-back failed'),
      );
      return;
    }
    const controller = new AbortController();
    const delivery: Delivery = {
      event,
      url: webhookUrl,
      controller,
      delivered: false,
      run: Promise.resolve(),
    };
    delivery.run = this.deliver(event, webhookUrl, controller.signal).then(
      (delivered) => {
        delivery.delivered = delivered;
      },
      (err: Error) =>
        this.logger.error({ event: event.id, error: err.message }, 'sandbox webhook delivery crashed'),
    );
    this.inFlight.add(delivery);
    void delivery.run.finally(() => this.inFlight.delete(delivery));
  }

  /** Resolves once every background delivery has finished (used by tests). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.inFlight].map((d) => d.run));
  }

  /**
   * At shutdown (docs/operations.md, "Stopping"): stops every delivery still being tried or waiting for its
   * next try and writes it to `sandbox_webhook_handbacks`, from where the next web process delivers it
   * (`resumeHandedBack`), instead of dropping it with the process. Returns how many were handed back.
   */
  async handBack(): Promise<number> {
    this.stopping = true;
    const running = [...this.inFlight];
    for (const delivery of running) delivery.controller.abort();
    await Promise.allSettled(running.map((d) => d.run));
    const undelivered = running.filter((d) => !d.delivered);
    await this.persist(undelivered);
    return undelivered.length;
  }

  /**
   * At start: takes the deliveries a stopped process handed back (each row once, whichever process takes
   * it: the rows are deleted as they are taken) and delivers them in the background. A delivery that
   * cannot be made in time is handed back again at the next shutdown; the webhook carries its event id,
   * so one delivered twice is kept once by the platform.
   */
  async resumeHandedBack(limit = 500): Promise<number> {
    const taken = await this.knex.raw<{ rows: { url: string; body: string }[] }>(
      `delete from sandbox_webhook_handbacks where id in (
         select id from sandbox_webhook_handbacks order by id limit ? for update skip locked
       ) returning url, body`,
      [limit],
    );
    for (const row of taken.rows) this.deliverInBackground(JSON.parse(row.body) as SandboxEvent, row.url);
    return taken.rows.length;
  }

  private async persist(deliveries: readonly Pick<Delivery, 'event' | 'url'>[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.knex('sandbox_webhook_handbacks').insert(
      deliveries.map((d) => ({ event_id: d.event.id, url: d.url, body: JSON.stringify(d.event) })),
    );
  }
}
