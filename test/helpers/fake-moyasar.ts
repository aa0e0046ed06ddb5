import crypto from 'node:crypto';
import { FakeAnswer, FakeRequest, FakeServer } from './fake-server';

export interface FakeMoyasarPayment {
  id: string;
  status: 'paid' | 'failed' | 'refunded';
  amount: number;
  /** Refunded so far, in halalas; refunded_at set with the first refund. */
  refunded: number;
  refunded_at: string | null;
  currency: string;
  invoice_id: string | null;
  source: { type: string; company: string; message: string; token?: string };
  description?: string;
  metadata?: Record<string, string> | null;
}

/** A saved card (Moyasar tokenisation): its status and how many of its next charges to decline. */
export interface FakeToken {
  id: string;
  status: 'initiated' | 'active' | 'inactive';
  declineNext: number;
  /** Tokens created by POST /v1/tokens (the buyer's browser): where 3-D Secure sends the card holder back. */
  callback_url?: string;
  metadata?: Record<string, string> | null;
  last_four?: string;
}

export interface FakeInvoice {
  id: string;
  status: 'initiated' | 'paid' | 'failed' | 'expired' | 'canceled';
  amount: number;
  currency: string;
  description: string;
  url: string;
  success_url: string | null;
  back_url: string | null;
  callback_url: string | null;
  metadata: Record<string, string> | null;
  expired_at: string | null;
  payments: FakeMoyasarPayment[];
  created_at: string;
}

/**
 * Moyasar's invoices API as documented (api.moyasar.com/v1): HTTP Basic with the secret key as user name,
 * amounts in halalas (at least 100), 401 for an unknown key, 400 for a validation failure, 404 for an
 * unknown invoice. Payments: GET /v1/payments/{id}, and POST /v1/payments/{id}/refund with an optional
 * `amount` (default: what is left), which answers the payment with `refunded` grown and status
 * `refunded`; a refund beyond what is left, or of a payment that took no money, is a 400. Moyasar
 * documents no idempotency key for refunds, so this stand-in honours none: every refund call refunds.
 * `refundCalls` counts the refunds carried out. Test controls pay or decline an invoice and build its webhook, which carries the
 * merchant's secret token in the body, as Moyasar's does.
 */
export class FakeMoyasar extends FakeServer {
  readonly invoices = new Map<string, FakeInvoice>();
  /**
   * Payments whose next refund Moyasar declines: a 400 `invalid_request_error` "Payment cannot be
   * refunded", as its API answers a payment it will not refund (the issuer refuses, the card is closed).
   */
  readonly declineNextRefund = new Set<string>();
  /** Refunds carried out, one entry per successful POST /v1/payments/{id}/refund. */
  readonly refundCalls: { paymentId: string; amount: number }[] = [];
  readonly tokens = new Map<string, FakeToken>();
  /** Payments made with a saved token (POST /v1/payments), by id. */
  readonly payments = new Map<string, FakeMoyasarPayment>();

  constructor(
    private readonly secretKeys: readonly string[],
    private readonly publishableKeys: readonly string[] = [],
  ) {
    super();
  }

  /** Card numbers received by POST /v1/tokens (only here, never at the platform). */
  readonly cardNumbersSeen: string[] = [];
  /** The next token's 3-D Secure fails (the token ends `inactive`). */
  failNextVerification = false;

  /**
   * Moyasar's tokenisation as documented (Create Token): `POST /v1/tokens` from the buyer's browser with the
   * publishable key (`publishable_api_key` in the form body), the card, `save_only` and `callback_url`;
   * answers the token `initiated` with a `verification_url` (3-D Secure), CORS-readable. The verification
   * page makes it `active` (or `inactive`) and sends the card holder to `callback_url` with `id`, `status`
   * and `message`. `GET /v1/tokens/{id}` with the secret key reads it.
   */
  private tokenRoutes(req: FakeRequest): FakeAnswer | null {
    const cors = { 'Access-Control-Allow-Origin': String(req.headers.origin ?? '*') };
    if (req.method === 'OPTIONS' && req.path === '/v1/tokens') {
      return {
        status: 204,
        body: null,
        headers: {
          ...cors,
          'Access-Control-Allow-Methods': 'POST',
          'Access-Control-Allow-Headers': 'Content-Type',
        },
        raw: { type: 'text/plain', text: '' },
      };
    }
    if (req.method === 'POST' && req.path === '/v1/tokens') {
      const form = new URLSearchParams(req.body);
      if (!this.publishableKeys.includes(form.get('publishable_api_key') ?? '')) {
        return {
          status: 401,
          headers: cors,
          body: { type: 'authentication_error', message: 'Invalid authorization credentials', errors: null },
        };
      }
      const number = (form.get('number') ?? '').replace(/\s+/g, '');
      const errors: Record<string, string[]> = {};
      if (!/^\d{16,19}$/.test(number)) errors.number = ['is invalid'];
      if (!form.get('name')) errors.name = ["can't be blank"];
      if (!/^\d{3,4}$/.test(form.get('cvc') ?? '')) errors.cvc = ['is invalid'];
      if (!/^\d{1,2}$/.test(form.get('month') ?? '')) errors.month = ['is invalid'];
      if (!/^\d{2,4}$/.test(form.get('year') ?? '')) errors.year = ['is invalid'];
      if (!form.get('callback_url')) errors.callback_url = ["can't be blank"];
      if (Object.keys(errors).length > 0) {
        return {
          status: 400,
          headers: cors,
          body: { type: 'invalid_request_error', message: 'Validation Failed', errors },
        };
      }
      this.cardNumbersSeen.push(number);
      const id = `token_${crypto.randomBytes(13).toString('hex')}`;
      const metadata: Record<string, string> = {};
      for (const [k, v] of form) {
        const m = /^metadata\[(\w+)\]$/.exec(k);
        if (m) metadata[m[1]!] = v;
      }
      const token: FakeToken = {
        id,
        status: 'initiated',
        declineNext: 0,
        callback_url: form.get('callback_url')!,
        metadata,
        last_four: number.slice(-4),
      };
      this.tokens.set(id, token);
      return {
        status: 201,
        headers: cors,
        body: { ...this.tokenView(token), verification_url: `${this.url}/tokens/${id}/verify` },
      };
    }
    const verify = /^\/tokens\/([^/]+)\/verify$/.exec(req.path);
    if (req.method === 'GET' && verify) {
      const token = this.tokens.get(decodeURIComponent(verify[1]!));
      if (!token || !token.callback_url) return { status: 404, body: { message: 'Object not found' } };
      const ok = !this.failNextVerification;
      this.failNextVerification = false;
      if (token.status === 'initiated') token.status = ok ? 'active' : 'inactive';
      const back = new URL(token.callback_url);
      back.searchParams.set('id', token.id);
      back.searchParams.set('status', token.status);
      back.searchParams.set('message', ok ? 'APPROVED' : '3-D Secure transaction attempt failed');
      return {
        status: 302,
        body: null,
        headers: { Location: back.toString() },
        raw: { type: 'text/plain', text: '' },
      };
    }
    return null;
  }

  private tokenView(token: FakeToken): Record<string, unknown> {
    return {
      id: token.id,
      status: token.status,
      brand: 'visa',
      funding: 'credit',
      country: 'SA',
      last_four: token.last_four ?? '1111',
      metadata: token.metadata ?? null,
      message: null,
    };
  }

  private authorised(req: FakeRequest): boolean {
    const header = String(req.headers.authorization ?? '');
    if (!header.startsWith('Basic ')) return false;
    const [user] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    return this.secretKeys.includes(user);
  }

  protected handle(req: FakeRequest): FakeAnswer {
    const tokens = this.tokenRoutes(req);
    if (tokens) return tokens;
    if (!this.authorised(req)) {
      return {
        status: 401,
        body: { type: 'authentication_error', message: 'Invalid authorization credentials', errors: null },
      };
    }
    if (req.method === 'POST' && req.path === '/v1/invoices') return this.create(req);
    const refund = /^\/v1\/payments\/([^/]+)\/refund$/.exec(req.path);
    if (req.method === 'POST' && refund) return this.refund(decodeURIComponent(refund[1]), req);
    if (req.method === 'POST' && req.path === '/v1/payments') return this.chargeToken(req);
    const tokenRead = /^\/v1\/tokens\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && tokenRead) {
      const token = this.tokens.get(decodeURIComponent(tokenRead[1]!));
      return token
        ? { status: 200, body: this.tokenView(token) }
        : { status: 404, body: { type: 'record_not_found', message: 'Object not found', errors: null } };
    }
    const payment = /^\/v1\/payments\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && payment) {
      const found = this.payment(decodeURIComponent(payment[1]));
      return found
        ? { status: 200, body: found }
        : { status: 404, body: { type: 'record_not_found', message: 'Object not found', errors: null } };
    }
    const match = /^\/v1\/invoices\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && match) {
      const invoice = this.invoices.get(decodeURIComponent(match[1]));
      return invoice
        ? { status: 200, body: invoice }
        : { status: 404, body: { type: 'record_not_found', message: 'Object not found', errors: null } };
    }
    return { status: 404, body: { type: 'record_not_found', message: 'Object not found', errors: null } };
  }

  private create(req: FakeRequest): FakeAnswer {
    const body = this.json(req.body) ?? {};
    const errors: Record<string, string[]> = {};
    if (typeof body.amount !== 'number' || !Number.isInteger(body.amount) || body.amount < 100) {
      errors.amount = ['must be greater than or equal to 100'];
    }
    if (typeof body.description !== 'string' || body.description === '')
      errors.description = ["can't be blank"];
    if (
      body.currency !== undefined &&
      (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency))
    ) {
      errors.currency = ['is invalid'];
    }
    if (Object.keys(errors).length > 0) {
      return { status: 400, body: { type: 'invalid_request_error', message: 'Validation Failed', errors } };
    }
    const id = crypto.randomUUID();
    const invoice: FakeInvoice = {
      id,
      status: 'initiated',
      amount: Number(body.amount),
      currency: typeof body.currency === 'string' ? body.currency : 'SAR',
      description: String(body.description),
      url: `${this.url}/invoices/${id}`,
      success_url: typeof body.success_url === 'string' ? body.success_url : null,
      back_url: typeof body.back_url === 'string' ? body.back_url : null,
      callback_url: typeof body.callback_url === 'string' ? body.callback_url : null,
      metadata: (body.metadata as Record<string, string> | undefined) ?? null,
      expired_at: typeof body.expired_at === 'string' ? body.expired_at : null,
      payments: [],
      created_at: new Date().toISOString(),
    };
    this.invoices.set(id, invoice);
    return { status: 201, body: invoice };
  }

  private payment(id: string): FakeMoyasarPayment | undefined {
    const charged = this.payments.get(id);
    if (charged) return charged;
    for (const invoice of this.invoices.values()) {
      const found = invoice.payments.find((p) => p.id === id);
      if (found) return found;
    }
    return undefined;
  }

  private refund(paymentId: string, req: FakeRequest): FakeAnswer {
    const payment = this.payment(paymentId);
    if (!payment) {
      return { status: 404, body: { type: 'record_not_found', message: 'Object not found', errors: null } };
    }
    const body = this.json(req.body) ?? {};
    const left = payment.amount - payment.refunded;
    const amount = body.amount === undefined ? left : body.amount;
    if (payment.status === 'failed' || left <= 0 || this.declineNextRefund.delete(paymentId)) {
      return {
        status: 400,
        body: { type: 'invalid_request_error', message: 'Payment cannot be refunded', errors: null },
      };
    }
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0 || amount > left) {
      return {
        status: 400,
        body: {
          type: 'invalid_request_error',
          message: 'Validation Failed',
          errors: { amount: ['must be less than or equal to the refundable amount'] },
        },
      };
    }
    payment.refunded += amount;
    payment.refunded_at ??= new Date().toISOString();
    payment.status = 'refunded';
    this.refundCalls.push({ paymentId, amount });
    return { status: 200, body: payment };
  }

  /**
   * A payment with a saved card, as documented: `source: {type: 'token', token}`; `given_id` (a UUID) is
   * the payment's id, and a second payment with a used `given_id` is refused (400). An unknown or inactive
   * token is a 400; a declined charge is a payment with status `failed`.
   */
  private chargeToken(req: FakeRequest): FakeAnswer {
    const body = this.json(req.body) ?? {};
    const source = (body.source ?? {}) as Record<string, unknown>;
    const errors: Record<string, string[]> = {};
    if (typeof body.amount !== 'number' || !Number.isInteger(body.amount) || body.amount < 100)
      errors.amount = ['must be greater than or equal to 100'];
    if (source.type !== 'token') errors['source.type'] = ['is not supported here'];
    const token = typeof source.token === 'string' ? this.tokens.get(source.token) : undefined;
    if (!token || token.status !== 'active') errors['source.token'] = ['is invalid'];
    const givenId = typeof body.given_id === 'string' ? body.given_id : crypto.randomUUID();
    if (this.payments.has(givenId)) errors.given_id = ['has already been taken'];
    if (Object.keys(errors).length > 0) {
      return { status: 400, body: { type: 'invalid_request_error', message: 'Validation Failed', errors } };
    }
    const declined = token!.declineNext > 0;
    if (declined) token!.declineNext -= 1;
    const payment: FakeMoyasarPayment = {
      id: givenId,
      status: declined ? 'failed' : 'paid',
      amount: Number(body.amount),
      refunded: 0,
      refunded_at: null,
      currency: typeof body.currency === 'string' ? body.currency : 'SAR',
      invoice_id: null,
      description: typeof body.description === 'string' ? body.description : undefined,
      metadata: (body.metadata as Record<string, string> | undefined) ?? null,
      source: {
        type: 'token',
        company: 'visa',
        message: declined ? 'Insufficient Funds' : 'APPROVED',
        token: token!.id,
      },
    };
    this.payments.set(givenId, payment);
    return { status: 201, body: payment };
  }

  /** How many charges the token has taken (the test's count of money moved). */
  chargesOf(tokenId: string): FakeMoyasarPayment[] {
    return [...this.payments.values()].filter((p) => p.source.token === tokenId);
  }

  private invoice(id: string): FakeInvoice {
    const invoice = this.invoices.get(id);
    if (!invoice) throw new Error(`fake moyasar: no invoice ${id}`);
    return invoice;
  }

  /** The customer pays the invoice (optionally a different amount, to test the amount check). */
  pay(invoiceId: string, opts: { amount?: number; saveCard?: boolean } = {}): FakeMoyasarPayment {
    const invoice = this.invoice(invoiceId);
    const token = opts.saveCard ? `token_${crypto.randomBytes(16).toString('hex')}` : undefined;
    if (token) this.tokens.set(token, { id: token, status: 'active', declineNext: 0 });
    const payment: FakeMoyasarPayment = {
      id: crypto.randomUUID(),
      status: 'paid',
      amount: opts.amount ?? invoice.amount,
      refunded: 0,
      refunded_at: null,
      currency: invoice.currency,
      invoice_id: invoice.id,
      source: { type: 'creditcard', company: 'visa', message: 'APPROVED', ...(token ? { token } : {}) },
    };
    invoice.payments.push(payment);
    invoice.status = 'paid';
    if (opts.amount !== undefined) invoice.amount = opts.amount;
    return payment;
  }

  /** The card is declined: the attempt fails and the invoice stays open, as Moyasar's does. */
  decline(invoiceId: string, message = 'Insufficient Funds'): FakeMoyasarPayment {
    const invoice = this.invoice(invoiceId);
    const payment: FakeMoyasarPayment = {
      id: crypto.randomUUID(),
      status: 'failed',
      amount: invoice.amount,
      refunded: 0,
      refunded_at: null,
      currency: invoice.currency,
      invoice_id: invoice.id,
      source: { type: 'creditcard', company: 'visa', message },
    };
    invoice.payments.push(payment);
    return payment;
  }

  /** The webhook Moyasar would send for the invoice's latest payment, as the raw JSON text. */
  webhook(invoiceId: string, secretToken: string, opts: { eventId?: string } = {}): string {
    const invoice = this.invoice(invoiceId);
    const payment = invoice.payments[invoice.payments.length - 1];
    if (!payment) throw new Error(`fake moyasar: invoice ${invoiceId} has no payment yet`);
    return JSON.stringify({
      id: opts.eventId ?? crypto.randomUUID(),
      type: payment.status === 'paid' ? 'payment_paid' : 'payment_failed',
      created_at: new Date().toISOString(),
      secret_token: secretToken,
      account_name: null,
      live: false,
      data: payment,
    });
  }
}
