import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Twilio's Messages API, enough for the real twilio SDK to talk to:
 * `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded To/From/Body, HTTP basic auth with
 * the account SID and auth token. Successes answer 201 with a message resource; failures answer Twilio's
 * documented error body `{code, message, more_info, status}` with the matching HTTP status.
 * Failures are scripted per recipient and channel; every request is recorded.
 */

export type FakeChannel = 'whatsapp' | 'sms';

export interface FakeTwilioRequest {
  method: string;
  path: string;
  accountSid: string | null;
  authorized: boolean;
  channel: FakeChannel;
  /** Recipient as digits (country code + number), without `whatsapp:` or `+`. */
  to: string;
  from: string;
  body: string;
  /** The HTTP status the fake answered. */
  status: number;
  receivedAt: number;
}

interface Rule {
  channel: FakeChannel | 'any';
  code: number;
  status: number;
  message: string;
  remaining: number;
}

/** Messages of a few real Twilio error codes, as Twilio words them. */
const MESSAGES: Record<number, string> = {
  20003: 'Authenticate',
  20429: 'Too Many Requests',
  21211: "Invalid 'To' Phone Number",
  21608: 'The number is unverified. Trial accounts cannot send messages to unverified numbers',
  21610: 'Attempt to send to unsubscribed recipient',
  63003: 'Channel could not find To address',
  63018: 'Rate limit exceeded for Channel',
  63024: 'Invalid message recipient',
};

function statusFor(code: number): number {
  if (code === 20003) return 401;
  if (code === 20429 || code === 63018) return 429;
  if (code === 20500) return 500;
  return 400;
}

function errorBody(code: number, status: number, message = MESSAGES[code] ?? `Error ${code}`): string {
  return JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
}

export class FakeTwilio {
  readonly requests: FakeTwilioRequest[] = [];
  private readonly rules = new Map<string, Rule[]>();

  private readonly server = http.createServer((req, res) => {
    void this.handle(req, res);
  });
  private baseUrl = '';

  private constructor(
    readonly accountSid: string,
    readonly authToken: string,
  ) {}

  /** Where the fake listens; give it to the SDK as TWILIO_API_BASE_URL. */
  get url(): string {
    return this.baseUrl;
  }

  static async start(opts: { accountSid?: string; authToken?: string } = {}): Promise<FakeTwilio> {
    const fake = new FakeTwilio(
      opts.accountSid ?? `AC${crypto.randomBytes(16).toString('hex')}`,
      opts.authToken ?? crypto.randomBytes(16).toString('hex'),
    );
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.baseUrl = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The next `times` WhatsApp sends to `to` fail with `code` (default 63003: not a WhatsApp user). */
  failWhatsApp(to: string, code = 63003, times = Infinity): this {
    return this.fail(to, { channel: 'whatsapp', code, times });
  }

  /** The next `times` sends to `to` are throttled (20429 with HTTP 429, or 63018 for WhatsApp). */
  rateLimit(to: string, opts: { channel?: FakeChannel; code?: number; times?: number } = {}): this {
    return this.fail(to, { channel: opts.channel, code: opts.code ?? 20429, times: opts.times });
  }

  /** The next `times` sends to `to` on `channel` (default any) fail with Twilio error `code`. */
  fail(
    to: string,
    opts: { code: number; channel?: FakeChannel; status?: number; message?: string; times?: number },
  ): this {
    const rule: Rule = {
      channel: opts.channel ?? 'any',
      code: opts.code,
      status: opts.status ?? statusFor(opts.code),
      message: opts.message ?? MESSAGES[opts.code] ?? `Error ${opts.code}`,
      remaining: opts.times ?? Infinity,
    };
    this.rules.set(digits(to), [...(this.rules.get(digits(to)) ?? []), rule]);
    return this;
  }

  /** Requests that reached the Messages endpoint for one recipient, in order. */
  requestsTo(to: string): FakeTwilioRequest[] {
    return this.requests.filter((r) => r.to === digits(to));
  }

  reset(): void {
    this.requests.length = 0;
    this.rules.clear();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const path = new URL(req.url ?? '/', this.url).pathname;
    const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(path);
    const rawTo = form.get('To') ?? '';
    const record: FakeTwilioRequest = {
      method: req.method ?? '',
      path,
      accountSid: match?.[1] ?? null,
      authorized: this.authorized(req.headers.authorization, match?.[1]),
      channel: rawTo.startsWith('whatsapp:') ? 'whatsapp' : 'sms',
      to: digits(rawTo),
      from: form.get('From') ?? '',
      body: form.get('Body') ?? '',
      status: 0,
      receivedAt: Date.now(),
    };
    const answer = (status: number, body: string): void => {
      record.status = status;
      this.requests.push(record);
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(body);
    };

    if (!match || req.method !== 'POST')
      return answer(404, errorBody(20404, 404, 'The requested resource was not found'));
    if (!record.authorized) return answer(401, errorBody(20003, 401));
    if (!rawTo) return answer(400, errorBody(21604, 400, "A 'To' phone number is required."));

    const rule = (this.rules.get(record.to) ?? []).find(
      (r) => r.remaining > 0 && (r.channel === 'any' || r.channel === record.channel),
    );
    if (rule) {
      rule.remaining -= 1;
      return answer(rule.status, errorBody(rule.code, rule.status, rule.message));
    }
    return answer(201, JSON.stringify(this.messageResource(record, form)));
  }

  private authorized(header: string | undefined, pathSid: string | undefined): boolean {
    const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
    return header === expected && pathSid === this.accountSid;
  }

  private messageResource(record: FakeTwilioRequest, form: URLSearchParams): Record<string, unknown> {
    const sid = `SM${crypto.randomBytes(16).toString('hex')}`;
    const now = new Date().toUTCString().replace('GMT', '+0000');
    return {
      account_sid: this.accountSid,
      api_version: '2010-04-01',
      body: form.get('Body'),
      date_created: now,
      date_sent: null,
      date_updated: now,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from: form.get('From'),
      messaging_service_sid: null,
      num_media: '0',
      num_segments: '1',
      price: null,
      price_unit: 'USD',
      sid,
      status: 'queued',
      subresource_uris: { media: `/2010-04-01/Accounts/${this.accountSid}/Messages/${sid}/Media.json` },
      to: form.get('To'),
      uri: `/2010-04-01/Accounts/${this.accountSid}/Messages/${sid}.json`,
    };
  }
}

function digits(address: string): string {
  return address.replace(/^whatsapp:/, '').replace(/\D/g, '');
}
