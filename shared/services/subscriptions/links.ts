import crypto from 'node:crypto';
import { safeEqual } from '../../crypto';

/**
 * Addresses a buyer receives in renewal messages, built from the platform secret so nothing secret is
 * stored and any process can build them again:
 *
 * - the subscription's page (`/pay/subscriptions/<ref>`): a capability URL (the id and an HMAC of it) where
 *   the buyer sees the subscription and cancels it, with no sign-in;
 * - a renewal's checkout URL: the renewal's checkout is a checkout like any other, paid on the platform's
 *   payment page (`/pay/<checkout url>`); its secret is derived from the renewal id, and only its SHA-256
 *   is stored (checkouts.token_hash), as for every checkout.
 */
export class SubscriptionLinks {
  private readonly keys: Buffer[];

  /**
   * `previous`: earlier platform secrets (APP_SECRET_PREVIOUS), whose page addresses still open; every
   * address and checkout secret is built with `appSecret` (docs/security.md, "Rotating APP_SECRET").
   */
  constructor(appSecret: string, previous: readonly string[] = []) {
    this.keys = [appSecret, ...previous].map((secret) =>
      Buffer.from(crypto.hkdfSync('sha256', secret, 'commerce-platform', 'subscription-links', 32)),
    );
  }

  private mac(value: string, key = this.keys[0]!): string {
    return crypto.createHmac('sha256', key).update(value).digest('hex');
  }

  ref(subscriptionId: number): string {
    return `${subscriptionId}-${this.mac(`subscription:${subscriptionId}`).slice(0, 32)}`;
  }

  manageUrl(publicBaseUrl: string, subscriptionId: number): string {
    return `${publicBaseUrl}/pay/subscriptions/${this.ref(subscriptionId)}`;
  }

  /** The subscription id a page reference names, or null when malformed or forged. */
  parse(ref: string): number | null {
    const match = /^(\d{1,12})-([0-9a-f]{32})$/.exec(ref);
    if (!match) return null;
    const id = Number(match[1]);
    return this.keys.some((key) => safeEqual(match[2]!, this.mac(`subscription:${id}`, key).slice(0, 32)))
      ? id
      : null;
  }

  /** The secret checkout URL of a renewal's checkout (what the buyer's payment link carries). */
  renewalCheckoutUrl(renewalId: number): string {
    return `rnw_${this.mac(`renewal-checkout:${renewalId}`)}`;
  }

  renewalPaymentUrl(publicBaseUrl: string, renewalId: number): string {
    // The checkout page's address, as checkout's paymentUrl builds it (not imported: it would be a cycle).
    return `${publicBaseUrl}/pay/${encodeURIComponent(this.renewalCheckoutUrl(renewalId))}`;
  }
}
