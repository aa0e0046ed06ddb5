import crypto from 'node:crypto';
import { safeEqual } from '../../crypto';

/**
 * The buyer's invoice page (`/invoices/<ref>`): a capability address, reachable without a login by whoever
 * holds it. The reference is the order id and an HMAC of it (128 bits of a key derived from the platform
 * secret), so the worker that writes the delivery message, the payment page and the Merchant API all build
 * the same address without storing a secret, and nobody can guess another order's. One address per order:
 * it shows the invoice (a store with a VAT number) or the receipt, and the order's credit notes.
 */
export class InvoicePageRefs {
  private readonly keys: Buffer[];

  /**
   * `previous`: earlier platform secrets (APP_SECRET_PREVIOUS), whose addresses still open; new ones are
   * built with `appSecret` (docs/security.md, "Rotating APP_SECRET").
   */
  constructor(appSecret: string, previous: readonly string[] = []) {
    this.keys = [appSecret, ...previous].map((secret) =>
      Buffer.from(crypto.hkdfSync('sha256', secret, 'commerce-platform', 'invoice-page', 32)),
    );
  }

  private signature(orderId: number, key = this.keys[0]!): string {
    return crypto.createHmac('sha256', key).update(`order:${orderId}`).digest('hex').slice(0, 32);
  }

  ref(orderId: number): string {
    return `${orderId}-${this.signature(orderId)}`;
  }

  url(publicBaseUrl: string, orderId: number): string {
    return `${publicBaseUrl}/invoices/${this.ref(orderId)}`;
  }

  /** The order id a reference names, or null when it is malformed or its signature does not verify. */
  parse(ref: string): number | null {
    const match = /^(\d{1,12})-([0-9a-f]{32})$/.exec(ref);
    if (!match) return null;
    const id = Number(match[1]);
    return this.keys.some((key) => safeEqual(match[2]!, this.signature(id, key))) ? id : null;
  }
}
