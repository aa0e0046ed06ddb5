import crypto from 'node:crypto';
import { safeEqual } from '../crypto';
import { requiredCredential } from './credentials';
import { eventReference, paymentMetadata, ProviderApi, ProviderApiOptions, referenceOrRefuse } from './http';
import {
  BrowserCardForm,
  CardSavingProvider,
  CardSetup,
  CardSetupRequest,
  CardSetupState,
  ReceivedWebhook,
  asRecord,
  asString,
  HostedPayment,
  HostedPaymentRequest,
  PaymentProvider,
  ProviderCredentials,
  ProviderDispute,
  ProviderPaymentState,
  ProviderRefund,
  ProviderRejectedError,
  ProviderUnavailableError,
  RefundingProvider,
  RefundRequest,
  TokenChargeRequest,
  WebhookReference,
} from './types';

/**
 * The payment id we choose for a token charge (Moyasar's `given_id`, a UUID v4): derived from the
 * idempotency key, so the same attempt always names the same payment and a repeat finds it.
 */
export function givenIdFor(idempotencyKey: string): string {
  const bytes = crypto
    .createHash('sha256')
    .update(`moyasar-given-id:${idempotencyKey}`)
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** apiUrl: https://api.moyasar.com (MOYASAR_API_URL); paths below are /v1/... */
export type MoyasarOptions = ProviderApiOptions;

/** Statuses of a Moyasar payment that took the money (a refunded one took it first). */
const CHARGED_PAYMENT_STATUSES = new Set(['paid', 'captured', 'refunded']);

/** Invoice statuses after which the invoice can never be paid through this session. */
const FAILED_INVOICE_STATUSES = new Set(['failed', 'canceled', 'expired', 'voided', 'refunded']);

/**
 * Moyasar hosted invoices, used for card, mada, Apple Pay and STC Pay: the customer pays on the invoice's
 * `url`. Requests authenticate with HTTP Basic (the secret key as user name, empty password); amounts are in
 * halalas, which are the platform's minor units. Webhooks carry the merchant's secret token in the body
 * (`secret_token`); it is compared in constant time, and the invoice is then fetched again, because the
 * webhook only tells us which invoice to look at.
 */
export class MoyasarProvider implements PaymentProvider, RefundingProvider, CardSavingProvider {
  readonly id = 'moyasar' as const;

  private readonly api: ProviderApi;
  private readonly apiUrl: string;

  constructor(options: MoyasarOptions) {
    this.api = new ProviderApi(this.id, options);
    this.apiUrl = options.apiUrl;
  }

  /**
   * "Update the saved card" (docs/account.md): Moyasar's tokenisation (Create Token, `save_only`) runs in the
   * buyer's browser on the platform's card page (`formUrl`): the page's script posts the card with the
   * store's publishable key straight to `/v1/tokens`, the card holder passes 3-D Secure at its
   * `verification_url`, and Moyasar sends them to `callback_url` with the token's `id`. So the session is
   * the platform's own (`setupId`); the token is read back with the secret key and must carry that id in
   * its metadata (`card_update`), so a token made for another update is never taken.
   */
  async createCardSetup(request: CardSetupRequest): Promise<CardSetup> {
    return { reference: request.setupId, redirectUrl: request.formUrl };
  }

  browserCardForm(credentials: ProviderCredentials): BrowserCardForm {
    return {
      tokensUrl: `${this.apiUrl}/v1/tokens`,
      publishableKey: requiredCredential(credentials, this.id, 'publishable_key'),
    };
  }

  async fetchCardSetup(
    reference: string,
    credentials: ProviderCredentials,
    returned?: Readonly<Record<string, string>>,
  ): Promise<CardSetupState> {
    const tokenId = returned?.id;
    if (!tokenId || !/^token_[A-Za-z0-9]{1,100}$/.test(tokenId)) return { status: 'pending' };
    const { body } = await this.api.request(
      'GET',
      `/v1/tokens/${encodeURIComponent(tokenId)}`,
      this.auth(credentials),
    );
    const token = asRecord(body);
    const status = asString(token?.status);
    const update = asString(asRecord(token?.metadata)?.card_update);
    if (!token || !status) throw new ProviderUnavailableError(this.id, 'token answer without a status');
    if (!update || !safeEqual(update, reference)) return { status: 'failed' };
    if (status === 'active') return { status: 'saved', token: tokenId };
    if (status === 'initiated') return { status: 'pending' };
    return { status: 'failed' };
  }

  private auth(credentials: ProviderCredentials): Record<string, string> {
    const secretKey = requiredCredential(credentials, this.id, 'secret_key');
    const token = Buffer.from(`${secretKey}:`, 'utf8').toString('base64');
    return { Authorization: `Basic ${token}` };
  }

  async createHostedPayment(
    request: HostedPaymentRequest,
    credentials: ProviderCredentials,
  ): Promise<HostedPayment> {
    const { body } = await this.api.request('POST', '/v1/invoices', this.auth(credentials), {
      amount: request.amountMinor,
      currency: request.currency,
      description: request.description,
      success_url: request.returnUrl,
      back_url: request.returnUrl,
      // The invoice stops taking payments when the checkout lapses (its reserved keys are released then).
      ...(request.expiresAt ? { expired_at: request.expiresAt.toISOString() } : {}),
      metadata: paymentMetadata(request),
    });
    const invoice = asRecord(body);
    const id = asString(invoice?.id);
    const url = asString(invoice?.url);
    if (!id || !url) throw new ProviderUnavailableError(this.id, 'invoice created without an id or url');
    return { providerPaymentId: id, redirectUrl: url };
  }

  async fetchPayment(
    providerPaymentId: string,
    credentials: ProviderCredentials,
  ): Promise<ProviderPaymentState> {
    const { body } = await this.api.request(
      'GET',
      `/v1/invoices/${encodeURIComponent(providerPaymentId)}`,
      this.auth(credentials),
    );
    const invoice = asRecord(body);
    const status = asString(invoice?.status);
    if (!invoice || !status || typeof invoice.amount !== 'number' || !asString(invoice.currency)) {
      throw new ProviderUnavailableError(this.id, 'invoice answer without status, amount or currency');
    }
    const attempts = Array.isArray(invoice.payments) ? invoice.payments.map(asRecord) : [];
    const last = attempts.length > 0 ? attempts[attempts.length - 1] : null;
    const lastMessage = asString(asRecord(last?.source)?.message) ?? undefined;

    let mapped: ProviderPaymentState['status'] = 'pending';
    let failureReason: string | undefined;
    if (status === 'paid') mapped = 'paid';
    else if (FAILED_INVOICE_STATUSES.has(status)) {
      mapped = 'failed';
      failureReason = lastMessage ?? `invoice ${status}`;
    } else if (status === 'initiated' && asString(last?.status) === 'failed') {
      // A declined attempt leaves the invoice open; the customer is told and may pay again with a new session.
      mapped = 'failed';
      failureReason = lastMessage ?? 'payment declined';
    }
    // A card saved with the payment (Moyasar tokenisation): the paid attempt's source carries its token.
    const paidAttempt = attempts.filter((a) => asString(a?.status) === 'paid').pop();
    const savedToken = asString(asRecord(paidAttempt?.source)?.token) ?? undefined;
    return {
      providerPaymentId,
      status: mapped,
      amountMinor: invoice.amount,
      currency: String(invoice.currency).toUpperCase(),
      providerStatus: status,
      failureReason,
      ...(mapped === 'paid' && savedToken ? { savedToken } : {}),
    };
  }

  /**
   * Charges a saved card: `POST /v1/payments` with a `token` source, no 3-D Secure (the buyer is not
   * there) and `given_id` derived from the idempotency key. The payment is looked up under that id
   * first, so a repeated attempt answers the charge already made instead of charging again.
   */
  async chargeSavedToken(
    request: TokenChargeRequest,
    credentials: ProviderCredentials,
  ): Promise<ProviderPaymentState> {
    const id = givenIdFor(request.idempotencyKey);
    let body: unknown;
    try {
      ({ body } = await this.api.request('GET', `/v1/payments/${id}`, this.auth(credentials)));
    } catch (err) {
      if (!(err instanceof ProviderRejectedError && err.httpStatus === 404)) throw err;
      ({ body } = await this.api.request('POST', '/v1/payments', this.auth(credentials), {
        given_id: id,
        amount: request.amountMinor,
        currency: request.currency,
        description: request.description,
        callback_url: request.returnUrl,
        source: { type: 'token', token: request.token, '3ds': false, manual: false },
        metadata: { payment_id: String(request.paymentId), store_id: String(request.storeId) },
      }));
    }
    const payment = asRecord(body);
    const status = asString(payment?.status);
    if (!payment || !status || typeof payment.amount !== 'number' || !asString(payment.currency)) {
      throw new ProviderUnavailableError(this.id, 'payment answer without status, amount or currency');
    }
    const message = asString(asRecord(payment.source)?.message) ?? undefined;
    return {
      providerPaymentId: asString(payment.id) ?? id,
      status: status === 'paid' ? 'paid' : status === 'failed' ? 'failed' : 'pending',
      amountMinor: payment.amount,
      currency: String(payment.currency).toUpperCase(),
      providerStatus: status,
      failureReason: status === 'failed' ? (message ?? 'payment declined') : undefined,
    };
  }

  webhookReference(body: unknown): WebhookReference | null {
    return eventReference(body, 'invoice_id');
  }

  /**
   * A dispute in Moyasar's webhook envelope (`id`, `type`, `created_at`, `secret_token`, `data`: the payment
   * object with its `invoice_id`), verified like every other event. Moyasar's published event list names
   * payment events only (paid, failed, refunded, voided, authorized, captured, verified); a chargeback is
   * taken as the same envelope with a `payment_disputed` (or `payment_chargeback`) type, or a payment whose
   * `status` says so (docs/fraud.md, "Disputes"). The evidence deadline is read from `data.dispute` when the
   * event carries one.
   */
  disputeOf(body: unknown): ProviderDispute | null {
    return moyasarDisputeOf(body);
  }

  verifyWebhook(
    webhook: ReceivedWebhook,
    _headers: unknown,
    credentials: ProviderCredentials,
  ): WebhookReference {
    const expected = requiredCredential(credentials, this.id, 'webhook_secret');
    const token = asString(asRecord(webhook.body)?.secret_token);
    return referenceOrRefuse(
      this.id,
      token && safeEqual(token, expected) ? this.webhookReference(webhook.body) : null,
    );
  }

  /**
   * Refunds part or all of the invoice's paid payment: POST /v1/payments/{id}/refund with `amount` in
   * halalas, as Moyasar documents; the answer is the payment, whose `refunded` is the total refunded so
   * far. Moyasar keeps refunds on the payment (there is no refund object), so the payment id stands as
   * the refund's provider id.
   *
   * Moyasar documents no idempotency key for refunds, so a repeat is ruled out by reading first: the
   * payment's `refunded` total is compared with what our books say was refunded before this refund
   * (`refundedBeforeMinor`; refunds of one payment are sent one at a time, oldest first). Already
   * `before + amount`: an earlier attempt reached Moyasar and only its answer was lost, so nothing is
   * sent again. Exactly `before`: the refund is sent. Anything else means someone refunded outside the
   * platform (the Moyasar dashboard): the refund is refused rather than guessed at. (A refund made in the
   * dashboard for exactly this refund's amount while it was pending cannot be told from a lost answer;
   * it is then taken as this refund, which leaves the money right.) The key still travels
   * as an `Idempotency-Key` header, which costs nothing where it is ignored.
   */
  async refundPayment(request: RefundRequest, credentials: ProviderCredentials): Promise<ProviderRefund> {
    const auth = this.auth(credentials);
    const paymentId = await this.chargedPaymentOf(request.providerPaymentId, auth);
    const path = `/v1/payments/${encodeURIComponent(paymentId)}`;
    const before = this.refundState(this.record((await this.api.request('GET', path, auth)).body));
    const wanted = request.refundedBeforeMinor + request.amountMinor;
    if (before.refunded === wanted) {
      return {
        providerRefundId: paymentId,
        status: 'succeeded',
        providerStatus: before.status,
        replayed: true,
      };
    }
    if (before.refunded !== request.refundedBeforeMinor) {
      throw new ProviderRejectedError(
        this.id,
        `Moyasar shows ${before.refunded} refunded of payment ${paymentId}, the platform ` +
          `${request.refundedBeforeMinor}: a refund was made outside the platform; settle it in the Moyasar dashboard`,
      );
    }
    const { body } = await this.api.request(
      'POST',
      `${path}/refund`,
      { ...auth, 'Idempotency-Key': request.idempotencyKey },
      { amount: request.amountMinor },
    );
    const after = this.refundState(this.record(body));
    if (after.refunded < wanted) {
      throw new ProviderUnavailableError(
        this.id,
        `refund answered with ${after.refunded} refunded, expected ${wanted}`,
      );
    }
    return {
      providerRefundId: paymentId,
      status: 'succeeded',
      providerStatus: after.status,
      replayed: false,
    };
  }

  private record(body: unknown): Record<string, unknown> {
    const record = asRecord(body);
    if (!record) throw new ProviderUnavailableError(this.id, 'payment answer is not an object');
    return record;
  }

  private refundState(payment: Record<string, unknown>): { refunded: number; status: string } {
    const refunded = typeof payment.refunded === 'number' ? payment.refunded : 0;
    return { refunded, status: asString(payment.status) ?? 'unknown' };
  }

  /**
   * The id of the invoice's payment that took the money (a hosted checkout's provider_payment_id is the
   * invoice's). An id Moyasar knows no invoice by is taken as a payment's own id (a charge made without
   * an invoice).
   */
  private async chargedPaymentOf(invoiceId: string, auth: Record<string, string>): Promise<string> {
    let body: unknown;
    try {
      ({ body } = await this.api.request('GET', `/v1/invoices/${encodeURIComponent(invoiceId)}`, auth));
    } catch (err) {
      if (err instanceof ProviderRejectedError && err.httpStatus === 404) return invoiceId;
      throw err;
    }
    const payments = Array.isArray(asRecord(body)?.payments) ? (asRecord(body)?.payments as unknown[]) : [];
    const charged = payments
      .map(asRecord)
      .filter((p) => p !== null && CHARGED_PAYMENT_STATUSES.has(asString(p.status) ?? ''));
    const id = asString(charged[charged.length - 1]?.id);
    if (!id) throw new ProviderRejectedError(this.id, `invoice ${invoiceId} has no paid payment to refund`);
    return id;
  }
}

const MOYASAR_DISPUTE_TYPES = new Set(['payment_disputed', 'payment_chargeback', 'payment_charged_back']);
const MOYASAR_DISPUTED_STATUSES = new Set(['disputed', 'chargeback', 'charged_back']);

export function moyasarDisputeOf(body: unknown): ProviderDispute | null {
  const event = asRecord(body);
  const payment = asRecord(event?.data);
  const type = asString(event?.type) ?? '';
  const status = asString(payment?.status) ?? '';
  if (!MOYASAR_DISPUTE_TYPES.has(type) && !MOYASAR_DISPUTED_STATUSES.has(status)) return null;
  const invoiceId = asString(payment?.invoice_id);
  if (!invoiceId) return null;
  const dispute = asRecord(payment?.dispute);
  const due = asString(dispute?.evidence_due_by) ?? asString(dispute?.due_date) ?? null;
  const deadline = due ? new Date(due) : null;
  const amount = typeof dispute?.amount === 'number' ? dispute.amount : payment?.amount;
  return {
    providerPaymentId: invoiceId,
    disputeId: asString(dispute?.id) ?? asString(event?.id) ?? invoiceId,
    reason: asString(dispute?.reason) ?? null,
    deadline: deadline && !Number.isNaN(deadline.getTime()) ? deadline : null,
    amountMinor: typeof amount === 'number' && Number.isSafeInteger(amount) ? amount : null,
  };
}
