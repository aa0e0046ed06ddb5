import crypto from 'node:crypto';
import { FakeAnswer, FakeRequest, FakeServer } from './fake-server';

export type ChargeStatus =
  'NEW' | 'PENDING' | 'COMPLETED' | 'EXPIRED' | 'CANCELED' | 'UNRESOLVED' | 'RESOLVED';

export interface FakeCharge {
  id: string;
  code: string;
  name: string;
  description: string;
  hosted_url: string;
  pricing_type: 'fixed_price';
  pricing: { local: { amount: string; currency: string } };
  metadata: Record<string, string>;
  redirect_url: string | null;
  cancel_url: string | null;
  timeline: { status: ChargeStatus; time: string }[];
  created_at: string;
  expires_at: string;
}

/**
 * Coinbase Commerce's charges API as documented (api.commerce.coinbase.com): X-CC-Api-Key, answers wrapped
 * in `data`, errors as `{error: {type, message}}`, the charge's status as the last entry of its timeline.
 * Test controls confirm or expire a charge and build its webhook, signed with X-CC-Webhook-Signature (hex
 * HMAC-SHA256 of the raw body with the shared secret).
 */
export class FakeCoinbase extends FakeServer {
  readonly charges = new Map<string, FakeCharge>();

  constructor(private readonly apiKeys: readonly string[]) {
    super();
  }

  protected handle(req: FakeRequest): FakeAnswer {
    if (!this.apiKeys.includes(String(req.headers['x-cc-api-key'] ?? ''))) {
      return { status: 401, body: { error: { type: 'authorization_error', message: 'No such API key.' } } };
    }
    if (req.method === 'POST' && req.path === '/charges') return this.create(req);
    const match = /^\/charges\/([^/]+)$/.exec(req.path);
    const charge = match ? this.charges.get(decodeURIComponent(match[1])) : undefined;
    if (req.method === 'GET' && charge) return { status: 200, body: { data: charge, warnings: [] } };
    return { status: 404, body: { error: { type: 'not_found', message: 'Not found' } } };
  }

  private create(req: FakeRequest): FakeAnswer {
    const body = this.json(req.body) ?? {};
    const local = body.local_price as { amount?: unknown; currency?: unknown } | undefined;
    if (
      body.pricing_type !== 'fixed_price' ||
      typeof local?.amount !== 'string' ||
      typeof local.currency !== 'string'
    ) {
      return {
        status: 400,
        body: { error: { type: 'invalid_request', message: 'local_price is required for fixed_price' } },
      };
    }
    const id = crypto.randomUUID();
    const code = crypto.randomBytes(4).toString('hex').toUpperCase();
    const now = new Date();
    const charge: FakeCharge = {
      id,
      code,
      name: String(body.name ?? ''),
      description: String(body.description ?? ''),
      hosted_url: `${this.url}/pay/${code}`,
      pricing_type: 'fixed_price',
      pricing: { local: { amount: local.amount, currency: local.currency } },
      metadata: (body.metadata as Record<string, string> | undefined) ?? {},
      redirect_url: typeof body.redirect_url === 'string' ? body.redirect_url : null,
      cancel_url: typeof body.cancel_url === 'string' ? body.cancel_url : null,
      timeline: [{ status: 'NEW', time: now.toISOString() }],
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 3600_000).toISOString(),
    };
    this.charges.set(id, charge);
    return { status: 201, body: { data: charge, warnings: [] } };
  }

  private charge(id: string): FakeCharge {
    const charge = this.charges.get(id);
    if (!charge) throw new Error(`fake coinbase: no charge ${id}`);
    return charge;
  }

  /** Moves the charge on; PENDING before COMPLETED, as the chain sees the payment then confirms it. */
  advance(chargeId: string, ...statuses: ChargeStatus[]): void {
    const charge = this.charge(chargeId);
    for (const status of statuses) charge.timeline.push({ status, time: new Date().toISOString() });
  }

  /** A webhook about the charge: the raw body and its signature under `secret`. */
  webhook(
    chargeId: string,
    type: string,
    secret: string,
    opts: { eventId?: string } = {},
  ): { raw: string; signature: string } {
    const charge = this.charge(chargeId);
    const raw = JSON.stringify({
      id: crypto.randomUUID(),
      scheduled_for: new Date().toISOString(),
      attempt_number: 1,
      event: {
        id: opts.eventId ?? crypto.randomUUID(),
        resource: 'event',
        type,
        api_version: '2018-03-22',
        created_at: new Date().toISOString(),
        data: charge,
      },
    });
    return { raw, signature: crypto.createHmac('sha256', secret).update(raw, 'utf8').digest('hex') };
  }
}
