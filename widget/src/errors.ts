import { ApiError } from './api';
import type { Controls } from './controls';
import type { Lang, Strings } from './i18n';

/**
 * An error answer in the buyer's words. Per-field messages of a 422 go next to their inputs (through
 * `controls`); the words returned are for the alert.
 */
export function explain(
  err: unknown,
  t: Strings,
  lang: Lang,
  controls: Controls,
  couponWords: ((message: string) => string | null) | null,
): string {
  if (!(err instanceof ApiError)) return t.errFailed;
  const wait = err.body.retry_after ?? 60;
  const msg = err.message;
  switch (err.code) {
    case 'RATE_LIMIT_EXCEEDED':
      return t.errRate(wait);
    case 'COOLDOWN_ACTIVE':
      return t.errCooldown(wait);
    case 'INVALID_CODE':
      return t.errCode(err.body.remaining_attempts ?? 0);
    case 'MAX_ATTEMPTS_REACHED':
      return t.errMaxAttempts;
    case 'SESSION_EXPIRED':
      return t.errExpired;
    case 'PHONE_BLOCKED':
      return t.errBlocked;
  }
  if (err.status === 0) return t.errNetwork;
  if (err.status === 429) return t.errRate(wait);
  if (err.status >= 500) return t.errServer;
  if (err.status === 401) return /embed key/i.test(msg) ? t.errKey : t.errSession;
  if (err.status === 403) return /origin/i.test(msg) ? t.errOrigin : t.errKey;
  if (err.status === 400 && couponWords) {
    const coupon = couponWords(msg);
    if (coupon) return coupon;
  }
  if (/^Product not found/i.test(msg)) return t.errProduct;
  if (/checkout/i.test(msg) && err.status === 404) return t.errCheckoutGone;
  if (/stock/i.test(msg)) return t.errStock;
  if (/no payment method/i.test(msg)) return t.errNoMethod;
  if (/already/i.test(msg) && /order/i.test(msg)) return t.errAlreadyPaid;
  if (/payment method/i.test(msg)) return t.errMethod;
  if (/session/i.test(msg)) return t.errSession;
  if (err.status === 422) {
    let placed = false;
    for (const [key, messages] of Object.entries(err.fields)) {
      placed = controls.error(key, fieldMessage(key, messages[0] ?? '', t, lang)) || placed;
    }
    if (err.fields.product_id) return t.errProduct;
    return placed ? t.errFix : Object.values(err.fields)[0]?.[0] || t.errFailed;
  }
  return lang === 'en' && msg ? msg : t.errFailed;
}

function fieldMessage(key: string, server: string, t: Strings, lang: Lang): string {
  if (/required|is not allowed to be empty/i.test(server)) return t.errRequired;
  if (/email/i.test(key)) return t.errEmail;
  if (/phone|country/i.test(key)) return t.errPhone;
  if (key === 'code') return t.errCodeFormat;
  return lang === 'en' && server ? server : t.errInvalid;
}
