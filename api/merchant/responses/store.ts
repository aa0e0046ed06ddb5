import type { SchemaObject } from '../../openapi/types';
import { bool, int, money, nint, nmoney, nstr, ntime, obj, str, time } from './scalars';

/** The DNS TXT record that proves a store holds a domain (docs/merchant.md, "Store domains"). */
const PendingDomain = obj({
  domain: str,
  txt_name: { type: 'string', description: 'The TXT record’s name: `_matjar-verify.` and the domain.' },
  txt_value: { type: 'string', description: 'The value the record must hold, exactly.' },
});

export const DomainState = obj({
  domain: str,
  status: { type: 'string', enum: ['verified', 'pending'] },
  txt_name: str,
  txt_value: str,
  verified_at: { type: ['string', 'null'], format: 'date-time' },
  checked_at: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'When the TXT record was last looked up.',
  },
});

export const StoreSettings = obj({
  id: int,
  name: str,
  slug: { type: 'string', description: 'The store page’s address: `/s/{slug}` (docs/store-pages.md).' },
  description: nstr,
  logo_url: nstr,
  accent_color: nstr,
  policies: nstr,
  currency: str,
  locale: { type: 'string', enum: ['ar', 'en'] },
  support_email: {
    type: ['string', 'null'],
    description: 'The Reply-To of the store’s e-mails to buyers; null: none.',
  },
  plan: { type: 'string', enum: ['paid', 'free'] },
  embed_key: str,
  allowed_origins: { type: 'array', items: str },
  domains: {
    type: 'array',
    items: str,
    description: 'Verified domains: they pick the store on the Storefront.',
  },
  pending_domains: {
    type: 'array',
    items: PendingDomain,
    description: 'Domains added and not yet proven: each picks no store until its TXT record holds.',
  },
  blocked_phones: { type: 'array', items: obj({ country_code: str, phone: str, reason: nstr }) },
  payment_methods: {
    type: 'array',
    items: obj({
      method: str,
      provider: str,
      active: bool,
      min_amount: nmoney,
      max_amount: nmoney,
      settings: { type: 'object', description: 'What buyers see: PayPal address or link, bank details.' },
      credentials: {
        type: 'object',
        additionalProperties: { type: 'string', enum: ['set'] },
        description: 'Each credential configured, as "set"; values are never shown.',
      },
    }),
  },
  tax: obj({ mode: { type: 'string', enum: ['none', 'inclusive', 'exclusive'] }, rate: money }),
  settings: obj({
    abandoned_checkout_minutes: {
      type: 'integer',
      description: 'Minutes an unpaid checkout waits for its one reminder (docs/growth.md); 0: off.',
    },
    abandoned_checkout_coupon: { type: ['string', 'null'], description: 'The coupon the reminder names.' },
    blocked_emails: {
      type: 'array',
      items: str,
      description: 'Addresses and `@domain` entries refused at checkout.',
    },
    blocked_ips: {
      type: 'array',
      items: str,
      description: 'Client addresses and CIDR ranges refused at checkout.',
    },
    max_orders_per_buyer_per_day: { type: ['integer', 'null'] },
    max_units_per_product_per_day: { type: ['integer', 'null'] },
    new_buyer_daily_limit: nmoney,
    review_above: nmoney,
    review_buyers_per_ip_per_hour: { type: ['integer', 'null'] },
  }),
  created_at: time,
});

export const EmbedKeyRotated = obj({ embed_key: str, previous_key_last4: str });

const tokenProps: Record<string, SchemaObject> = {
  id: int,
  store_id: int,
  name: str,
  scope: { type: 'string', enum: ['read', 'write'] },
  last4: { type: ['string', 'null'], description: 'The last four characters, to tell tokens apart.' },
  created_at: time,
  last_used_at: ntime,
  revoked_at: ntime,
};
export const MerchantTokenInfo = obj(tokenProps);
export const CreatedMerchantToken = obj({
  ...tokenProps,
  token: { type: 'string', description: 'The token, shown this once.' },
});

const fivemProps: Record<string, SchemaObject> = {
  id: int,
  name: str,
  last4: nstr,
  last_seen_at: ntime,
  revoked_at: ntime,
  created_at: time,
};
export const FivemServerInfo = obj(fivemProps);
export const CreatedFivemServer = obj({
  ...fivemProps,
  secret: { type: 'string', description: 'The X-FiveM-Secret of this game server, shown this once.' },
});

export const AuditEvent = obj({
  id: int,
  action: str,
  resource: obj({ type: str, id: nint }),
  actor: str,
  token: { type: ['object', 'null'], properties: { id: int, name: str, last4: nstr } },
  changes: { type: 'object', description: '`{key: {from, to}}`; secrets as "set".' },
  created_at: time,
});
