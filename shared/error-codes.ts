import type { ErrorCode } from './errors';

/**
 * The stable `error_code`s a client can branch on where the spec leaves a failure's shape open
 * (docs/errors.md lists each one by interface, with its status and message). They are lower_snake_case and
 * never change once published; a message may be reworded or translated, a code may not. The spec's own
 * codes (PHONE_BLOCKED, RATE_LIMIT_EXCEEDED, ... and the License API's) keep their upper-case names.
 */
export const ERROR_CODES = {
  // Any interface
  validation_failed: 'validation_failed',
  malformed_json: 'malformed_json',
  unsupported_media_type: 'unsupported_media_type',
  payload_too_large: 'payload_too_large',
  method_not_allowed: 'method_not_allowed',
  method_not_implemented: 'method_not_implemented',
  not_found: 'not_found',
  invalid_request: 'invalid_request',
  unauthenticated: 'unauthenticated',
  forbidden: 'forbidden',
  conflict: 'conflict',
  rate_limited: 'rate_limited',
  service_unavailable: 'service_unavailable',
  internal_error: 'internal_error',
  // Embed API
  embed_key_required: 'embed_key_required',
  embed_key_invalid: 'embed_key_invalid',
  origin_not_allowed: 'origin_not_allowed',
  token_ability_missing: 'token_ability_missing',
  token_not_for_product: 'token_not_for_product',
  product_not_found: 'product_not_found',
  session_not_found: 'session_not_found',
  session_already_verified: 'session_already_verified',
  session_invalid: 'session_invalid',
  registration_not_allowed: 'registration_not_allowed',
  out_of_stock: 'out_of_stock',
  no_payment_method: 'no_payment_method',
  coupon_invalid: 'coupon_invalid',
  coupon_not_active: 'coupon_not_active',
  coupon_exhausted: 'coupon_exhausted',
  coupon_minimum_order: 'coupon_minimum_order',
  coupon_not_for_product: 'coupon_not_for_product',
  checkout_not_found: 'checkout_not_found',
  order_already_created: 'order_already_created',
  payment_method_not_configured: 'payment_method_not_configured',
  payment_method_not_allowed_by_coupon: 'payment_method_not_allowed_by_coupon',
  payment_method_amount_out_of_range: 'payment_method_amount_out_of_range',
  // Fraud controls (docs/fraud.md): every checkout path, each interface's envelope
  checkout_blocked: 'checkout_blocked',
  // Storefront API
  store_not_resolved: 'store_not_resolved',
  wishlist_already_added: 'wishlist_already_added',
  wishlist_item_not_found: 'wishlist_item_not_found',
  // Merchant API
  merchant_plan_required: 'merchant_plan_required',
  webhook_endpoint_not_found: 'webhook_endpoint_not_found',
  webhook_event_type_invalid: 'webhook_event_type_invalid',
} as const;

export type PublicErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** The code of a failure that names no code of its own: by its domain code. */
export const DEFAULT_ERROR_CODE: Record<ErrorCode, PublicErrorCode> = {
  VALIDATION_FAILED: 'validation_failed',
  NOT_FOUND: 'not_found',
  INVALID: 'invalid_request',
  UNAUTHENTICATED: 'unauthenticated',
  FORBIDDEN: 'forbidden',
  ORIGIN_NOT_ALLOWED: 'origin_not_allowed',
  CONFLICT: 'conflict',
  RATE_LIMITED: 'rate_limited',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  UNAVAILABLE: 'service_unavailable',
  PHONE_BLOCKED: 'forbidden',
  COOLDOWN_ACTIVE: 'invalid_request',
  SESSION_EXPIRED: 'session_invalid',
  INVALID_CODE: 'invalid_request',
  MAX_ATTEMPTS_REACHED: 'invalid_request',
  LICENSE_NOT_FOUND: 'not_found',
  LICENSE_EXPIRED: 'forbidden',
  LICENSE_SUSPENDED: 'forbidden',
  LICENSE_REVOKED: 'forbidden',
  LICENSE_NOT_ACTIVE: 'forbidden',
  HWID_REQUIRED: 'invalid_request',
  ACTIVATION_LIMIT_REACHED: 'forbidden',
  RESET_LIMIT_REACHED: 'forbidden',
  CERTIFICATE_VOID: 'forbidden',
};
