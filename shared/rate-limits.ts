/**
 * Every rate limit of the spec (Limits section), with its scope and window. The rate-limit middleware
 * (api/middleware/rate-limit.ts) consumes them on Redis, atomically, keyed by the scope.
 */
export interface LimitDefinition {
  /** Stable name, part of the Redis key. */
  readonly name: string;
  readonly points: number;
  readonly durationSeconds: number;
  readonly scope: 'ip' | 'global' | 'phone' | 'token' | 'session';
}

const def = (
  name: string,
  points: number,
  durationSeconds: number,
  scope: LimitDefinition['scope'],
): LimitDefinition => Object.freeze({ name, points, durationSeconds, scope });

export const LIMITS = Object.freeze({
  embedPerIpMinute: def('embed_ip_min', 30, 60, 'ip'),
  embedPerIpHour: def('embed_ip_hour', 200, 3600, 'ip'),
  embedPerIpDay: def('embed_ip_day', 500, 86400, 'ip'),
  embedGlobalMinute: def('embed_global_min', 5000, 60, 'global'),
  otpStartPerIp: def('otp_start_ip', 50, 86400, 'ip'),
  otpStartPerPhone: def('otp_start_phone', 10, 86400, 'phone'),
  otpResendPerIp: def('otp_resend_ip', 20, 86400, 'ip'),
  otpResendPerPhone: def('otp_resend_phone', 3, 600, 'phone'),
  merchantPerToken: def('merchant_token', 60, 60, 'token'),
  storefrontPerIp: def('storefront_ip', 60, 60, 'ip'),
  storefrontAuthStartPerIp: def('sf_auth_start_ip', 50, 86400, 'ip'),
  storefrontAuthPerPhone: def('sf_auth_phone', 10, 86400, 'phone'),
  storefrontVerifyPerIp: def('sf_verify_ip', 5, 60, 'ip'),
  storefrontResendPerPhone: def('sf_resend_phone', 3, 600, 'phone'),
  // Not in the spec's table: the Embed API's per-IP resend limit, for the Storefront too.
  storefrontResendPerIp: def('sf_resend_ip', 20, 86400, 'ip'),
  licensePerIp: def('license_ip', 60, 60, 'ip'),
  analyticsEventsPerIp: def('analytics_ip', 120, 60, 'ip'),
  paymentStatusPerIp: def('payment_status_ip', 120, 60, 'ip'),
  // Store pages (docs/store-pages.md): public, read from the hot-read caches.
  storePagesPerIp: def('store_pages_ip', 600, 60, 'ip'),
  fivemPerIp: def('fivem_ip', 600, 60, 'ip'),
  fivemPerServer: def('fivem_server', 300, 60, 'token'),
  // Failed credentials per client IP (the operator contract, docs/operations.md), counted before any
  // database lookup: Merchant API tokens and FiveM secrets share one bucket; dashboard logins have their own.
  credentialFailuresPerIp: def('cred_fail_ip', 20, 60, 'ip'),
  dashboardFailuresPerIp: def('dash_fail_ip', 10, 60, 'ip'),
  // The merchant dashboard's sign-in (docs/dashboard.md), on top of the daily code limits it shares with
  // the buyers: codes sent per IP and per phone in a quarter of an hour, and codes checked (phone codes,
  // authenticator and recovery codes alike) per IP and per phone, counted before each comparison.
  dashboardCodeSendPerIp: def('dash_send_ip', 10, 900, 'ip'),
  dashboardCodeSendPerPhone: def('dash_send_phone', 5, 900, 'phone'),
  dashboardVerifyPerIp: def('dash_verify_ip', 20, 900, 'ip'),
  dashboardVerifyPerPhone: def('dash_verify_phone', 10, 900, 'phone'),
});

export type LimitName = keyof typeof LIMITS;
