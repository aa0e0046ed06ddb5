import type { Knex } from 'knex';
import twilio from 'twilio';
import type RequestClientBase from 'twilio/lib/base/RequestClient';
import type Response from 'twilio/lib/http/response';
import { DeliveryChannel, PermanentDeliveryError, RetryableDeliveryError } from './errors';
import type { DeliveryResult, Messenger, OutgoingMessage } from './types';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  whatsappFrom?: string;
  smsFrom?: string;
  /** Replaces https://*.twilio.com in every request (a local stand-in for Twilio in tests). */
  apiBaseUrl?: string;
  /** Per-request timeout; a slow Twilio must not hold a worker slot for the SDK's default 30 s. */
  timeoutMs?: number;
}

/**
 * Twilio answers these when the recipient has no WhatsApp account (or Meta will not deliver to it), so
 * SMS is the way to reach them: 63003 "Channel could not find To address" (WhatsApp 1006/1013/1021),
 * 63024 "Invalid message recipient" (WhatsApp 1002/1026, receiver incapable), 63032 (WhatsApp 472, the
 * user's number is part of a Meta experiment).
 */
export const WHATSAPP_UNREACHABLE_CODES: ReadonlySet<number> = new Set([63003, 63024, 63032]);

/** 20429 "Too Many Requests", 63018 WhatsApp rate limit (WhatsApp 429/471/1015), 14107 SMS send rate. */
export const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([20429, 63018, 14107]);

const RECIPIENT = /^[1-9]\d{5,14}$/;
const TWILIO_ORIGIN = /^https:\/\/[a-z0-9.-]*twilio\.com(?=\/|$)/i;

/**
 * twilio-node sends every request through its RequestClient; this one only swaps the origin, so the SDK's
 * own URL building, form encoding, auth and error parsing are what the tests exercise.
 */
export class BaseUrlRequestClient extends twilio.RequestClient {
  private readonly baseUrl: string;

  constructor(baseUrl: string, opts: RequestClientBase.RequestClientOptions = {}) {
    super(opts);
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  override request<TData>(opts: RequestClientBase.RequestOptions<TData>): Promise<Response<TData>> {
    return super.request({ ...opts, uri: opts.uri.replace(TWILIO_ORIGIN, this.baseUrl) });
  }
}

interface TwilioErrorLike {
  status: number;
  code?: number;
  message: string;
}

function isTwilioError(err: unknown): err is TwilioErrorLike {
  return err instanceof Error && typeof (err as { status?: unknown }).status === 'number';
}

type Outcome =
  | { kind: 'fallback'; code: string | null; message: string }
  | { kind: 'failed'; code: string | null; message: string; error: Error };

/** Sorts a failed send into: try the next channel, retry later, or give up. */
function classify(err: unknown, channel: DeliveryChannel): Outcome {
  if (!isTwilioError(err)) {
    // Network trouble or a timeout: nothing reached Twilio, or we cannot know; the job retries later.
    const message = err instanceof Error ? err.message : String(err);
    return {
      kind: 'failed',
      code: null,
      message,
      error: new RetryableDeliveryError(`Twilio unreachable: ${message}`, null, channel, false),
    };
  }
  const code = err.code === undefined ? null : String(err.code);
  const message = err.message || `HTTP ${err.status}`;
  if (channel === 'whatsapp' && err.code !== undefined && WHATSAPP_UNREACHABLE_CODES.has(err.code)) {
    return { kind: 'fallback', code, message };
  }
  const rateLimited = err.status === 429 || (err.code !== undefined && RATE_LIMIT_CODES.has(err.code));
  if (rateLimited || err.status >= 500) {
    return {
      kind: 'failed',
      code,
      message,
      error: new RetryableDeliveryError(message, code, channel, rateLimited),
    };
  }
  // Any other 4xx means Twilio rejected this request as such (bad number, opted out, bad credentials):
  // sending it again would get the same answer.
  return { kind: 'failed', code, message, error: new PermanentDeliveryError(message, code, channel) };
}

/**
 * Delivers through Twilio's Messages API: WhatsApp first with SMS fallback, or SMS only. Every attempt is
 * recorded in outbound_messages without its body: bodies carry OTP codes and are neither stored nor logged.
 */
export class TwilioMessenger implements Messenger {
  readonly driver = 'twilio' as const;
  private readonly client: twilio.Twilio;

  constructor(
    private readonly knex: Knex,
    private readonly settings: TwilioSettings,
  ) {
    const requestOptions = { timeout: settings.timeoutMs ?? 10_000, keepAlive: true };
    this.client = twilio(settings.accountSid, settings.authToken, {
      ...requestOptions,
      // BullMQ owns retries (with back-off across restarts); the SDK must not retry 429s on its own.
      autoRetry: false,
      // The SDK's debug mode prints request parameters, which would include the message body.
      logLevel: 'info',
      env: {},
      httpClient: settings.apiBaseUrl
        ? new BaseUrlRequestClient(settings.apiBaseUrl, requestOptions)
        : undefined,
    });
  }

  /**
   * With a key, the send is claimed in message_sends before Twilio is called and marked sent with the
   * message's record once Twilio accepted it; a key already sent is not sent again. The one window left
   * (docs/outages.md): a crash or timeout DURING the Twilio call leaves the claim `sending`, and the retry
   * sends again, since we cannot know whether Twilio accepted the first request.
   */
  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    if (message.key !== undefined && !(await this.claim(message.key, message.purpose))) {
      return {
        channel: this.channelsFor(message.route)[0] ?? 'sms',
        providerMessageId: null,
        duplicate: true,
      };
    }
    const channels = this.channelsFor(message.route);
    const first = channels[0] ?? 'sms';
    if (!RECIPIENT.test(message.to)) {
      const error = new PermanentDeliveryError('Recipient is not a phone number in digits', null, first);
      await this.record(message, first, { status: 'failed', code: null, error: error.message });
      throw error;
    }
    for (let i = 0; i < channels.length; i += 1) {
      const channel = channels[i];
      let sid: string;
      try {
        sid = await this.create(channel, message);
      } catch (err) {
        const outcome = classify(err, channel);
        await this.record(message, channel, { status: 'failed', code: outcome.code, error: outcome.message });
        if (outcome.kind === 'failed') throw outcome.error;
        if (i + 1 < channels.length) continue;
        throw new PermanentDeliveryError(
          `Recipient cannot receive WhatsApp and no SMS sender is configured: ${outcome.message}`,
          outcome.code,
          channel,
        );
      }
      await this.knex.transaction(async (trx) => {
        const id = await this.record(message, channel, { status: 'sent', sid }, trx);
        if (message.key !== undefined) {
          await trx('message_sends')
            .where({ key: message.key })
            .update({ status: 'sent', outbound_message_id: id, updated_at: trx.fn.now() });
        }
      });
      return { channel, providerMessageId: sid };
    }
    // channelsFor never returns an empty list (config requires at least one sender).
    throw new PermanentDeliveryError('No Twilio sender is configured', null, 'sms');
  }

  private channelsFor(route: OutgoingMessage['route']): DeliveryChannel[] {
    const { whatsappFrom, smsFrom } = this.settings;
    const channels: DeliveryChannel[] = [];
    if (route === 'whatsapp_first' && whatsappFrom) channels.push('whatsapp');
    if (smsFrom) channels.push('sms');
    // An SMS-only route on a WhatsApp-only account still reaches the customer the one way it can.
    if (channels.length === 0 && whatsappFrom) channels.push('whatsapp');
    return channels;
  }

  private async create(channel: DeliveryChannel, message: OutgoingMessage): Promise<string> {
    const to = `+${message.to}`;
    const created =
      channel === 'whatsapp'
        ? await this.client.messages.create({
            to: `whatsapp:${to}`,
            from: `whatsapp:${withPlus(this.settings.whatsappFrom ?? '')}`,
            body: message.body,
          })
        : await this.client.messages.create({
            to,
            from: withPlus(this.settings.smsFrom ?? ''),
            body: message.body,
          });
    // Twilio normally reports delivery failures later, but a resource can come back already failed.
    if ((created.status === 'failed' || created.status === 'undelivered') && created.errorCode) {
      throw Object.assign(new Error(created.errorMessage || `Message ${created.status}`), {
        status: 400,
        code: created.errorCode,
      });
    }
    return created.sid;
  }

  /** Claims `key` for a send; false when it was sent already. A claim left `sending` is taken again. */
  private async claim(key: string, purpose: string): Promise<boolean> {
    const rows = await this.knex('message_sends')
      .insert({ key, purpose, status: 'sending' })
      .onConflict('key')
      .merge({ attempts: this.knex.raw('message_sends.attempts + 1'), updated_at: this.knex.fn.now() })
      .where('message_sends.status', 'sending')
      .returning('key');
    return rows.length > 0;
  }

  private async record(
    message: OutgoingMessage,
    channel: DeliveryChannel,
    outcome: { status: 'sent'; sid: string } | { status: 'failed'; code: string | null; error: string },
    knex: Knex = this.knex,
  ): Promise<number> {
    const [row] = await knex('outbound_messages').insert(
      {
        store_id: message.storeId ?? null,
        to: message.to,
        channel,
        driver: 'twilio',
        body: null,
        purpose: message.purpose,
        status: outcome.status,
        provider_message_id: outcome.status === 'sent' ? outcome.sid : null,
        error_code: outcome.status === 'failed' ? outcome.code : null,
        error_message: outcome.status === 'failed' ? outcome.error.slice(0, 500) : null,
      },
      'id',
    );
    return (row as { id: number }).id;
  }
}

/** Sender numbers may be configured with or without the plus; Twilio wants E.164. */
function withPlus(number: string): string {
  return number.startsWith('+') ? number : `+${number}`;
}
