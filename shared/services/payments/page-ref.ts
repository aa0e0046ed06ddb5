import crypto from 'node:crypto';
import { safeEqual } from '../../crypto';

/**
 * The address of one payment's page on the platform (`/pay/payments/<ref>`): what the Embed API's
 * `redirect_url` points at and where providers send the customer back. The reference is the payment id
 * and an HMAC of it, so it can be built by the worker (which never sees the checkout's secret URL) and
 * cannot be guessed from an id: 128 bits of a key derived from the platform secret.
 */
export class PaymentPageRefs {
  private readonly keys: Buffer[];

  /**
   * `previous`: earlier platform secrets (APP_SECRET_PREVIOUS), whose addresses still open; new ones are
   * built with `appSecret` (docs/security.md, "Rotating APP_SECRET").
   */
  constructor(appSecret: string, previous: readonly string[] = []) {
    this.keys = [appSecret, ...previous].map((secret) =>
      Buffer.from(crypto.hkdfSync('sha256', secret, 'commerce-platform', 'payment-page', 32)),
    );
  }

  private signature(paymentId: number, key = this.keys[0]!): string {
    return crypto.createHmac('sha256', key).update(`payment:${paymentId}`).digest('hex').slice(0, 32);
  }

  ref(paymentId: number): string {
    return `${paymentId}-${this.signature(paymentId)}`;
  }

  url(publicBaseUrl: string, paymentId: number, opts: { returning?: boolean } = {}): string {
    return `${publicBaseUrl}/pay/payments/${this.ref(paymentId)}${opts.returning ? '?return=1' : ''}`;
  }

  /** The payment id a reference names, or null when it is malformed or its signature does not verify. */
  parse(ref: string): number | null {
    const match = /^(\d{1,12})-([0-9a-f]{32})$/.exec(ref);
    if (!match) return null;
    const id = Number(match[1]);
    return this.keys.some((key) => safeEqual(match[2]!, this.signature(id, key))) ? id : null;
  }
}
