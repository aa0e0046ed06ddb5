import { ERROR_MESSAGES_AR, type TranslatedCode } from '../../shared/i18n/buyer-messages';

/**
 * The OpenAPI document for a reader of Arabic (docs/errors.md, "Languages"): the `message` of every error
 * answer's example in Arabic, as the Embed and Storefront APIs answer an `Accept-Language: ar` request. A
 * message is read by its example's `error_code` (the same table the APIs translate with), else by its
 * English text; an example neither names stays as it is. Everything else in the document is unchanged.
 */

/** Example messages that carry no `error_code`, by their English text. */
const BY_TEXT: Readonly<Record<string, string>> = {
  'Invalid coupon': ERROR_MESSAGES_AR.coupon_invalid({}),
  'Insufficient stock': ERROR_MESSAGES_AR.out_of_stock({}),
  'This checkout cannot be completed.': ERROR_MESSAGES_AR.checkout_blocked({}),
  'Request body is too large': ERROR_MESSAGES_AR.payload_too_large({}),
  'Order already created for this checkout': ERROR_MESSAGES_AR.order_already_created({}),
  'Checkout session expired or not found': ERROR_MESSAGES_AR.checkout_not_found({}),
  'Checkout not found': ERROR_MESSAGES_AR.checkout_not_found({}),
  'Product not found': ERROR_MESSAGES_AR.product_not_found({}),
  'Too many requests': ERROR_MESSAGES_AR.rate_limited({}),
  'Too many requests. Please try again later.': ERROR_MESSAGES_AR.rate_limited({}),
  'Invalid embed key': ERROR_MESSAGES_AR.embed_key_invalid({}),
  'Origin not allowed': ERROR_MESSAGES_AR.origin_not_allowed({}),
  'Service temporarily unavailable. Please try again later.': ERROR_MESSAGES_AR.service_unavailable({}),
};

function arabicOf(example: Record<string, unknown>): string | null {
  const english = example.message;
  if (typeof english !== 'string') return null;
  const code = typeof example.error_code === 'string' ? example.error_code : null;
  for (const candidate of code ? [code, code.toLowerCase()] : []) {
    if (Object.hasOwn(ERROR_MESSAGES_AR, candidate)) {
      return ERROR_MESSAGES_AR[candidate as TranslatedCode](example as Record<string, string>);
    }
  }
  return BY_TEXT[english] ?? null;
}

/** Translates the `message` of the example objects under `node` (an error answer), in place. */
function translateExamples(node: unknown, inExample: boolean): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) translateExamples(item, inExample);
    return;
  }
  const obj = node as Record<string, unknown>;
  if (inExample) {
    const arabic = arabicOf(obj);
    if (arabic !== null) obj.message = arabic;
  }
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'schema') continue;
    translateExamples(value, inExample || key === 'example' || key === 'value');
  }
}

const isErrorStatus = (status: string): boolean => /^[45]/.test(status);

/** A copy of `document` whose error examples speak Arabic. */
export function withArabicErrorExamples<T extends object>(document: T): T {
  const doc = structuredClone(document) as {
    paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    components?: { responses?: Record<string, unknown> };
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      for (const [status, answer] of Object.entries(op.responses)) {
        if (isErrorStatus(status)) translateExamples(answer, false);
      }
    }
  }
  // The shared answers (rate limited, unauthenticated, server errors...) are all refusals.
  translateExamples(doc.components?.responses, false);
  return doc as T;
}
