import { FIVEM_INVALID, FIVEM_LIMITED, FIVEM_UNAUTHENTICATED } from './fivem/responses';
import type { ResponseDoc } from './http/route';
import type { SecurityRequirement, TagObject } from './openapi/types';

/**
 * The interfaces share one port and are told apart by path prefix. The error handler and the 404
 * handler use this to answer in the right envelope even when no router matched; the OpenAPI generator
 * takes each interface's tag, default credentials and standard error answers from INTERFACES.
 */
export type InterfaceName =
  'embed' | 'storefront' | 'analytics' | 'merchant' | 'license' | 'fivem' | 'platform';

const PREFIXES: ReadonlyArray<[string, InterfaceName]> = [
  ['/api/embed', 'embed'],
  ['/api/storefront/analytics', 'analytics'],
  ['/api/fivem', 'fivem'],
  ['/api', 'storefront'],
  ['/shawarma', 'merchant'],
  ['/verify', 'license'],
];

export function interfaceFor(path: string): InterfaceName {
  for (const [prefix, name] of PREFIXES) {
    if (path === prefix || path.startsWith(prefix + '/')) return name;
  }
  return 'platform';
}

export interface InterfaceDoc {
  tag: TagObject;
  /** Credentials of a route that names none. */
  security: SecurityRequirement[];
  /** The answer to invalid input (added to every operation that validates something). */
  invalid: ResponseDoc;
  /** The answer to a rate limit (added to every operation of a rate-limited interface). */
  limited?: ResponseDoc;
  /** Other answers every operation of the interface can give (a refused key, an unresolved store). */
  common?: Record<number, ResponseDoc>;
}

/** In the order the docs page lists them. */
export const INTERFACES: Record<InterfaceName, InterfaceDoc> = {
  embed: {
    tag: {
      name: 'Embed',
      description:
        'Checkout from external websites: phone OTP sign-in, guest checkout, coupons, payment initiation and ' +
        'status. Send the store’s public key as `X-Embed-Key` (or `embed_key`). CORS: any allowed origin, ' +
        'preflight answered 204 with a max age of 86400 s. Error codes: [docs/errors.md](/docs/errors.md); ' +
        'rate limits: [docs/errors.md](/docs/errors.md#embed-api-rate-limits); versions: ' +
        '[docs/versioning.md](/docs/versioning.md).',
    },
    security: [{ EmbedKey: [] }, { EmbedKeyQuery: [] }],
    invalid: 'EmbedValidationFailed',
    limited: 'EmbedRateLimited',
    common: { 401: 'EmbedUnauthenticated', 403: 'EmbedForbidden' },
  },
  storefront: {
    tag: {
      name: 'Storefront',
      description:
        'Customer-facing store features (wishlist, reviews, products, cart, checkout, sign-in). The store is the ' +
        'one whose domains match the Host (port ignored), else the host of the Origin. 60 requests per minute per IP.',
    },
    security: [],
    invalid: 'StorefrontValidationFailed',
    limited: 'RateLimited',
    common: { 400: 'StoreNotResolved' },
  },
  analytics: {
    tag: {
      name: 'Analytics',
      description:
        'Storefront analytics collection: answered 202 `{"status":"ok"}`, no success/data wrapper. ' +
        '120 events per minute per IP, every event of a batch counting.',
    },
    security: [],
    invalid: 'AnalyticsError',
    limited: 'AnalyticsRateLimited',
  },
  merchant: {
    tag: {
      name: 'Merchant',
      description:
        'Store owners manage their store (/shawarma). Bearer merchant token of a store on the paid plan; 60 ' +
        'requests per minute per token. Every answer is `{message, data, api, timestamp}`; errors carry ' +
        '`error_code` ([docs/errors.md](/docs/errors.md)). Webhooks: [docs/webhooks.md](/docs/webhooks.md).',
    },
    security: [{ MerchantBearer: [] }],
    invalid: 'MerchantValidationFailed',
    limited: 'RateLimited',
    common: { 401: 'MerchantError', 403: 'MerchantError' },
  },
  license: {
    tag: {
      name: 'License',
      description:
        'Software checks a purchased license key (POST /verify). No credential; 60 per minute per IP. Every ' +
        'answer is signed (X-Signature, Ed25519, key at GET /verify/public-key) and, when the product says so, ' +
        'encrypted with AES-256-GCM. See [docs/license.md](/docs/license.md).',
    },
    security: [],
    invalid: 'LicenseValidationFailed',
    limited: 'RateLimited',
  },
  fivem: {
    tag: {
      name: 'FiveM',
      description:
        'The command queue a game-server resource polls, with the store’s secret in `X-FiveM-Secret` ' +
        '(one per game server; `npm run fivem-secret`). Every answer is `{success, data}`, or `success: false` ' +
        'with the one error object of [docs/errors.md](/docs/errors.md) (`error_code`, `message`, `doc_url`); ' +
        'see [docs/fivem.md](/docs/fivem.md).',
    },
    security: [{ FiveMSecret: [] }],
    invalid: FIVEM_INVALID,
    limited: FIVEM_LIMITED,
    common: { 401: FIVEM_UNAUTHENTICATED },
  },
  platform: {
    tag: {
      name: 'Platform',
      description:
        'Health checks, Prometheus metrics, this documentation, the queue dashboard, hosted payment pages, ' +
        'provider webhooks and development routes.',
    },
    security: [],
    invalid: 'PlatformError',
  },
};
