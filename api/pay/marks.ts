import type { PaymentMethodId } from '../../db/models';

/**
 * A small recognisable mark per payment method, drawn inline (SVG) so the pages load nothing from
 * elsewhere: brand colours and lettering, not the brands' artwork. `aria-hidden`: the method's name is
 * always written beside it.
 */
const svg = (inner: string): string =>
  `<svg class="mark" viewBox="0 0 48 32" width="48" height="32" aria-hidden="true" focusable="false">${inner}</svg>`;

const word = (text: string, fill: string, size = 11, weight = 700): string =>
  `<text x="24" y="20.5" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-size="${size}" font-weight="${weight}" fill="${fill}">${text}</text>`;

const MARKS: Readonly<Record<PaymentMethodId, string>> = {
  card: svg(
    '<rect x="1" y="3" width="46" height="26" rx="4" fill="#1a1f71"/><rect x="1" y="9" width="46" height="5" fill="#0b0f3d"/><rect x="6" y="19" width="10" height="6" rx="1" fill="#f7b600"/><rect x="20" y="21" width="20" height="2" rx="1" fill="#c7cbe8"/>',
  ),
  mada: svg(
    '<rect x="1" y="3" width="46" height="26" rx="4" fill="#fff" stroke="#d0d7de"/><rect x="7" y="10" width="9" height="3" fill="#84b740"/><rect x="7" y="17" width="9" height="3" fill="#259bd6"/>' +
      '<text x="31" y="20.5" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-size="11" font-weight="700" fill="#27292d">mada</text>',
  ),
  stcpay: svg(
    '<rect x="1" y="3" width="46" height="26" rx="4" fill="#4f008c"/>' + word('stc pay', '#fff', 10),
  ),
  applepay: svg(
    '<rect x="1" y="3" width="46" height="26" rx="4" fill="#000"/>' + word('Apple Pay', '#fff', 8.5, 600),
  ),
  paypal: svg(
    '<rect x="1" y="3" width="46" height="26" rx="4" fill="#fff" stroke="#d0d7de"/>' +
      '<text x="24" y="20.5" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-size="10" font-weight="700" font-style="italic"><tspan fill="#003087">Pay</tspan><tspan fill="#009cde">Pal</tspan></text>',
  ),
  bank: svg(
    '<rect x="1" y="3" width="46" height="26" rx="4" fill="#eef2f6" stroke="#d0d7de"/><path d="M24 7 13 12.5h22z" fill="#2f3a4a"/><rect x="15" y="14" width="3" height="9" fill="#2f3a4a"/><rect x="22.5" y="14" width="3" height="9" fill="#2f3a4a"/><rect x="30" y="14" width="3" height="9" fill="#2f3a4a"/><rect x="13" y="24" width="22" height="2.5" fill="#2f3a4a"/>',
  ),
  coinbase: svg(
    '<rect x="1" y="3" width="46" height="26" rx="4" fill="#0052ff"/><circle cx="24" cy="16" r="9" fill="#fff"/>' +
      '<text x="24" y="20.5" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-size="12" font-weight="700" fill="#0052ff">₿</text>',
  ),
};

export function methodMark(method: PaymentMethodId): string {
  return MARKS[method];
}
