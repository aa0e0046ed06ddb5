import crypto from 'node:crypto';
import { safeEqual } from '../../crypto';

/**
 * A reminder's addresses (`/r/<ref>` resumes, `/r/<ref>/opt-out` opts out): the reminder id and an HMAC of
 * it with a key derived from the platform secret, as the invoice pages' (invoices/refs.ts). The task that
 * records the reminder and the job that sends it build the same address; nothing secret is stored or put
 * in a job, and nobody can guess another buyer's.
 */
export class ReminderRefs {
  private readonly keys: Buffer[];

  constructor(appSecret: string, previous: readonly string[] = []) {
    this.keys = [appSecret, ...previous].map((secret) =>
      Buffer.from(crypto.hkdfSync('sha256', secret, 'commerce-platform', 'checkout-reminder', 32)),
    );
  }

  private signature(id: number, key = this.keys[0]!): string {
    return crypto.createHmac('sha256', key).update(`reminder:${id}`).digest('hex').slice(0, 32);
  }

  ref(id: number): string {
    return `${id}-${this.signature(id)}`;
  }

  resumeUrl(publicBaseUrl: string, id: number): string {
    return `${publicBaseUrl}/r/${this.ref(id)}`;
  }

  optOutUrl(publicBaseUrl: string, id: number): string {
    return `${publicBaseUrl}/r/${this.ref(id)}/opt-out`;
  }

  /** The reminder id a reference names, or null (malformed, or a signature that does not verify). */
  parse(ref: string): number | null {
    const match = /^(\d{1,12})-([0-9a-f]{32})$/.exec(ref);
    if (!match) return null;
    const id = Number(match[1]);
    return this.keys.some((key) => safeEqual(this.signature(id, key), match[2]!)) ? id : null;
  }
}
