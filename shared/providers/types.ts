import type { PaymentMethodId } from '../../db/models';

/**
 * The one interface every hosted-page payment provider implements. The platform never trusts what a
 * redirect or a webhook says about a payment: a webhook only names the payment, and its state is always
 * read back from the provider (`fetchPayment`) before anything changes.
 */

/** Values of store_payment_methods.provider. */
export type ProviderId = 'sandbox' | 'moyasar' | 'coinbase' | 'paypal' | 'bank';

/** Providers with a hosted payment page, a status API and signed webhooks. */
export type HostedProviderId = 'sandbox' | 'moyasar' | 'coinbase';
export const HOSTED_PROVIDERS: readonly HostedProviderId[] = ['sandbox', 'moyasar', 'coinbase'];

export function isHostedProvider(provider: string): provider is HostedProviderId {
  return (HOSTED_PROVIDERS as readonly string[]).includes(provider);
}

/** A store's decrypted credentials for one provider (secret_key, api_key, webhook_secret, ...). */
export type ProviderCredentials = Readonly<Record<string, string>>;

export interface HostedPaymentRequest {
  /** Our payments.id, passed to the provider as metadata for the merchant's own reconciliation. */
  paymentId: number;
  checkoutId: number;
  storeId: number;
  method: PaymentMethodId;
  amountMinor: number;
  currency: string;
  description: string;
  /** Where the provider sends the customer back: the platform's hosted payment page. */
  returnUrl: string;
  /** When the checkout stops being payable; providers that can expire a session take it. */
  expiresAt?: Date;
  /**
   * The checkout sells a recurring subscription: the provider saves the card as a token (with the buyer's
   * consent, shown on the payment page) so later periods are charged without the buyer.
   */
  saveCard?: boolean;
}

/** A charge of a saved card token, made without the buyer (a subscription's renewal). */
export interface TokenChargeRequest {
  paymentId: number;
  storeId: number;
  token: string;
  amountMinor: number;
  currency: string;
  description: string;
  /**
   * The same key for the same attempt, always: a provider that sees it again answers the payment it made
   * then instead of charging twice (a retried job, two renewals of one period at once).
   */
  idempotencyKey: string;
  /** Where a provider that needs a return address (3-D Secure) sends the buyer. */
  returnUrl: string;
}

export interface HostedPayment {
  providerPaymentId: string;
  /** The provider's page the customer pays on. */
  redirectUrl: string;
}

/** What the provider says about a payment, mapped to the three states reconciliation acts on. */
export interface ProviderPaymentState {
  providerPaymentId: string;
  status: 'paid' | 'failed' | 'pending';
  amountMinor: number;
  currency: string;
  /** The provider's own status word, kept in the audit row. */
  providerStatus: string;
  /** Why a payment failed, in the provider's words, when it says. */
  failureReason?: string;
  /** The card token the provider saved with a paid payment (saveCard), when it did. */
  savedToken?: string;
}

/** The payment and event a webhook is about; read before the signature check only to find the store. */
export interface WebhookReference {
  eventId: string;
  providerPaymentId: string;
  type: string;
}

export type WebhookHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface PaymentProvider {
  readonly id: HostedProviderId;
  createHostedPayment(
    request: HostedPaymentRequest,
    credentials: ProviderCredentials,
  ): Promise<HostedPayment>;
  fetchPayment(providerPaymentId: string, credentials: ProviderCredentials): Promise<ProviderPaymentState>;
  /**
   * Charges a saved card token without the buyer. Present on providers that can tokenise; answers the
   * charge's state (paid, failed, or pending when the provider decides later).
   */
  chargeSavedToken?(
    request: TokenChargeRequest,
    credentials: ProviderCredentials,
  ): Promise<ProviderPaymentState>;
  /**
   * Reads the event id and payment id from a parsed webhook body, without trusting it: the caller uses it
   * to find whose credentials verify the signature. Null when the body is not an event this adapter handles.
   */
  webhookReference(body: unknown): WebhookReference | null;
  /**
   * Verifies the webhook's signature over the exact bytes received and reads what it names from the body
   * the receiver parsed once. Throws WebhookSignatureError.
   */
  verifyWebhook(
    webhook: ReceivedWebhook,
    headers: WebhookHeaders,
    credentials: ProviderCredentials,
  ): WebhookReference;
  /**
   * The dispute (chargeback) a verified webhook body announces, or null when it announces none. Providers
   * that send no dispute events leave it out (shared/services/payments/disputes.ts).
   */
  disputeOf?(body: unknown): ProviderDispute | null;
}

/**
 * A card-saving session (docs/account.md, "Update the saved card"): the provider's page takes the card and
 * saves it as a token without charging; it sends the buyer back to `returnUrl` (with `?id={reference}`) and
 * tells the platform by a signed webhook naming `reference`. Nothing of the card reaches the platform.
 */
export interface CardSetupRequest {
  storeId: number;
  description: string;
  returnUrl: string;
  /** The platform's id of this card update (random): a provider without sessions of its own takes it. */
  setupId: string;
  /**
   * The platform's own card page for this update, for providers whose card form runs in the buyer's
   * browser and posts the card straight to them (Moyasar's tokenisation): the card never reaches us.
   */
  formUrl: string;
}

/** What the platform's card page needs to let the buyer's browser tokenise a card at the provider. */
export interface BrowserCardForm {
  /** Where the browser posts the card (form-encoded), e.g. Moyasar's `/v1/tokens`. */
  tokensUrl: string;
  publishableKey: string;
}

export interface CardSetup {
  /** The provider's id of the session (what its webhook and redirect name). */
  reference: string;
  redirectUrl: string;
}

/** What the provider says of a card-saving session, read back from it (never from a redirect or webhook). */
export interface CardSetupState {
  status: 'saved' | 'failed' | 'pending';
  token?: string;
}

/** A provider that saves a card without a payment (tokenisation). */
export interface CardSavingProvider {
  createCardSetup(request: CardSetupRequest, credentials: ProviderCredentials): Promise<CardSetup>;
  /**
   * `returned`: the query the provider sent the buyer back with (Moyasar: the token's `id`), when the
   * answer is read on the return; it only names what to read from the provider.
   */
  fetchCardSetup(
    reference: string,
    credentials: ProviderCredentials,
    returned?: Readonly<Record<string, string>>,
  ): Promise<CardSetupState>;
  /** Present on providers whose card form runs in the buyer's browser (see `formUrl`). */
  browserCardForm?(credentials: ProviderCredentials): BrowserCardForm;
}

export function isCardSavingProvider(provider: unknown): provider is CardSavingProvider {
  return (
    typeof provider === 'object' &&
    provider !== null &&
    typeof (provider as Partial<CardSavingProvider>).createCardSetup === 'function' &&
    typeof (provider as Partial<CardSavingProvider>).fetchCardSetup === 'function'
  );
}

/** A card holder's dispute of a paid payment, as the provider's webhook tells it. */
export interface ProviderDispute {
  providerPaymentId: string;
  disputeId: string;
  reason: string | null;
  /** When the merchant's evidence is due; null when the provider gives none. */
  deadline: Date | null;
  /** Minor units; null: the whole payment. */
  amountMinor: number | null;
}

/** A webhook as received: the exact bytes (what signatures cover) and the JSON they hold, parsed once. */
export interface ReceivedWebhook {
  raw: string;
  body: unknown;
}

export type PaymentProviders = Readonly<Record<HostedProviderId, PaymentProvider>>;

/**
 * One refund asked of the provider that took the payment. `idempotencyKey` is the refund row's own key:
 * the provider (or, where its API takes none, the adapter's read-before-write check against
 * `refundedBeforeMinor`) makes a second call with it return the first refund instead of a new one.
 */
export interface RefundRequest {
  /** Our payments.provider_payment_id: what the provider knows the payment by. */
  providerPaymentId: string;
  amountMinor: number;
  currency: string;
  idempotencyKey: string;
  /** What our books say this provider has already refunded of the payment (refunds that succeeded). */
  refundedBeforeMinor: number;
  reason: string | null;
}

/** The provider's answer about one refund. */
export interface ProviderRefund {
  providerRefundId: string;
  status: 'succeeded' | 'pending' | 'failed';
  /** The provider's own status word, kept on the refund row. */
  providerStatus: string;
  /** True when the provider already had this refund (an earlier attempt whose answer was lost). */
  replayed: boolean;
}

/** A provider whose API returns money: the platform calls it for a refund (shared/services/refunds). */
export interface RefundingProvider {
  refundPayment(request: RefundRequest, credentials: ProviderCredentials): Promise<ProviderRefund>;
}

export function isRefundingProvider(provider: unknown): provider is RefundingProvider {
  return (
    typeof provider === 'object' &&
    provider !== null &&
    typeof (provider as Partial<RefundingProvider>).refundPayment === 'function'
  );
}

/** A provider call that may succeed later: timeout, network failure, 5xx, 429. The job retries it. */
export class ProviderUnavailableError extends Error {
  readonly code = 'PROVIDER_UNAVAILABLE';

  constructor(
    readonly provider: string,
    message: string,
  ) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderUnavailableError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/** A provider call that can never succeed as made: rejected credentials, invalid request, unknown payment. */
export class ProviderRejectedError extends Error {
  readonly code = 'PROVIDER_REJECTED';

  constructor(
    readonly provider: string,
    message: string,
    readonly httpStatus: number | null = null,
  ) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderRejectedError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/** A webhook whose signature (or shared secret) does not verify. Nothing may change because of it. */
export class WebhookSignatureError extends Error {
  readonly code = 'WEBHOOK_SIGNATURE_INVALID';

  constructor(readonly provider: string) {
    super(`${provider}: webhook signature does not verify`);
    this.name = 'WebhookSignatureError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/** One header value, whatever case the sender used and however Node folded repeats. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** Narrowing helpers for provider JSON, which arrives as `unknown`. */
export function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

export function asString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
