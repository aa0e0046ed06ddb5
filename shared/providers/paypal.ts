import { formatMoney } from '../money';

/**
 * PayPal without an API integration: the store gives either a pay-by-link (e.g. https://paypal.me/acme) or
 * only an e-mail address. Either way PayPal tells the platform nothing, so the order waits in Under review
 * until the merchant confirms the money arrived.
 */
export interface PaypalSettings {
  email?: string;
  pay_link?: string;
}

export function paypalSettings(settings: Record<string, unknown>): PaypalSettings {
  const text = (v: unknown): string | undefined =>
    typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  return { email: text(settings.email), pay_link: text(settings.pay_link) };
}

/**
 * Currencies PayPal.me links take (two-decimal ones only; PayPal has no SAR). For any other currency the
 * link is used as the merchant gave it and the customer types the amount shown on our page.
 */
const PAYPAL_ME_CURRENCIES = new Set([
  'AUD',
  'BRL',
  'CAD',
  'CHF',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'HKD',
  'ILS',
  'MXN',
  'NOK',
  'NZD',
  'PHP',
  'PLN',
  'SEK',
  'SGD',
  'THB',
  'USD',
]);

/**
 * The pay-by-link with the amount filled in where the link format allows it: a PayPal.me link without an
 * amount of its own becomes https://paypal.me/<name>/<amount><CURRENCY> (PayPal.me's documented form,
 * e.g. /acme/40.00USD). Other links (PayPal buttons, hosted invoices) are used as they are.
 */
export function payLinkWithAmount(link: string, amountMinor: number, currency: string): string {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return link;
  }
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const upper = currency.toUpperCase();
  if (host !== 'paypal.me' || segments.length !== 1 || !PAYPAL_ME_CURRENCIES.has(upper)) return link;
  url.pathname = `/${segments[0]}/${formatMoney(amountMinor, upper)}${upper}`;
  return url.toString();
}
