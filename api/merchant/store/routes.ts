import Joi from 'joi';
import { storeStatistics } from '../../../shared/services/statistics';
import {
  rotateEmbedKey,
  storeSettings,
  supportEmailSchema,
  type StoreSettingsPatch,
  updateStoreSettings,
} from '../../../shared/services/stores/settings';
import {
  blockedPhoneSchema,
  currency,
  origin,
  paymentMethodsSchema,
  storePageKeys,
  storeSlug,
} from '../../../shared/services/catalogue/store-schema';
import { text } from '../../../shared/services/catalogue/schema';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { actorOf, noQuery } from '../common';
import {
  DomainState,
  EmbedKeyRotated,
  merchantOk,
  merchantRefused,
  Statistics,
  StoreSettings,
} from '../responses';
import { verifyStoreDomain } from '../../../shared/services/stores/domains';
import { storeSettingsSchema } from '../../../shared/services/stores/settings-schema';

/** The store keys a merchant may change, in the fixture's format (the schemas the seed uses). */
const patchBody = Joi.object<StoreSettingsPatch, true>({
  name: text(200),
  locale: Joi.string().valid('ar', 'en'),
  support_email: supportEmailSchema
    .allow(null)
    .messages({ 'string.email': 'support_email must be an e-mail address' }),
  currency: currency(),
  allowed_origins: Joi.array().items(origin()).max(50),
  // Host names, checked by the domains service (shared/services/stores/domains.ts) so every refusal,
  // syntax included, names `domains` alike for the API and the dashboard form.
  domains: Joi.array().items(Joi.string().trim().lowercase().max(300)).max(100),
  blocked_phones: Joi.array().items(blockedPhoneSchema).max(10_000),
  payment_methods: paymentMethodsSchema('patch'),
  settings: storeSettingsSchema.min(1),
  // Store pages (docs/store-pages.md).
  slug: storeSlug().description('The store page’s address `/s/{slug}`; unique on the platform.'),
  ...storePageKeys,
})
  .min(1)
  .required()
  .messages({ 'object.min': 'name at least one store setting to change' });

export const merchantStoreRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/store',
    interface: 'merchant',
    operationId: 'merchantGetStore',
    summary: 'Store information and settings',
    description:
      'Name, currency, locale, `support_email`, plan, the `embed_key` (the public key of the widget and the Embed API), ' +
      '`allowed_origins`, storefront `domains` (verified: they pick the store for Storefront requests), ' +
      '`pending_domains` (each `{domain, txt_name, txt_value}`: the TXT record to create), `blocked_phones`, the payment methods configured (method, ' +
      'provider, active, amount bounds, what buyers see, and each credential as `"set"`: credentials are ' +
      'never shown) and the tax setting (`mode` none, inclusive or exclusive; `rate` a percentage string). ' +
      'Store pages (docs/store-pages.md): `slug` (the page address `/s/{slug}`), `description`, `logo_url`, ' +
      '`accent_color` and `policies`.',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The store.', StoreSettings) },
    handler: (ctx) => storeSettings(ctx.deps, ctx.state.store!.id),
  }),
  defineRoute({
    method: 'patch',
    path: '/shawarma/store',
    interface: 'merchant',
    operationId: 'merchantUpdateStore',
    summary: 'Change store settings',
    description:
      'Any of `name`, `locale` (`ar`, `en`), `support_email` (the `Reply-To` of the store’s e-mails to ' +
      'buyers; `null` removes it), `currency` (refused once the store has orders), ' +
      '`allowed_origins` (origins allowed to call the Embed API from a browser), `domains` (the whole ' +
      'list of storefront hosts the store wants, at most 20: one left out is removed, a new one is added ' +
      'pending and listed in `pending_domains` with the DNS TXT record that proves it; a 422 naming ' +
      '`domains` for the platform’s own host, `localhost`, an IP address, a name that is not a host name, ' +
      'or a domain another store holds, verified or pending), `blocked_phones` (`{country_code, phone, ' +
      'reason}`: buyers refused at sign-in and checkout) and `payment_methods` in the fixture format: ' +
      '`card`, `mada`, `stcpay`, `applepay` (`{provider: sandbox|moyasar, secret_key, publishable_key, ' +
      'webhook_secret}`), `coinbase` (`{provider: sandbox|coinbase, api_key, webhook_secret}`), `paypal` ' +
      '(`{email}` or `{pay_link}`), `bank` (`{bank_name, account_name, account_number, iban}`); each may ' +
      'carry `active`, `min_amount`, `max_amount`. A method given replaces that method; `null` removes it; ' +
      'methods left out stay. Credentials are write-only and encrypted at rest: left out, the stored ones ' +
      'are kept while the provider stays the same. A list given replaces the stored list. `settings`: the fraud ' +
      'controls (docs/fraud.md), any of `blocked_emails` (addresses and `@domain` entries), `blocked_ips` ' +
      '(addresses and CIDR ranges, IPv4 or IPv6), `max_orders_per_buyer_per_day`, ' +
      '`max_units_per_product_per_day`, `new_buyer_daily_limit` and `review_above` (decimal strings), ' +
      "`review_buyers_per_ip_per_hour`; `null` turns a limit off, keys left out stay; and growth's (docs/growth.md) " +
      '`abandoned_checkout_minutes` and `abandoned_checkout_coupon`. ' +
      'Store pages: `slug` (1 to 63 lower-case letters, digits and inner hyphens; a 422 naming `slug` when ' +
      'another store has it), `description` (500 characters), `logo_url`, `accent_color` (`#rrggbb`), ' +
      '`policies` (the policies page, plain text); an empty string clears one.',
    guards: merchantGuards,
    request: {
      body: patchBody,
      example: {
        name: 'Acme Digital',
        allowed_origins: ['https://shop.acme.test'],
        payment_methods: {
          card: { provider: 'moyasar', secret_key: 'sk_live_…', publishable_key: 'pk_live_…' },
          bank: {
            bank_name: 'Acme Bank',
            account_name: 'Acme LLC',
            account_number: '0001',
            iban: 'SA0000000000000000000001',
          },
        },
      },
    },
    responses: { 200: merchantOk('The store as stored now.', StoreSettings) },
    handler: async (ctx, { body }) =>
      reply(await updateStoreSettings(ctx.deps, actorOf(ctx), ctx.state.store!.id, body), {
        message: 'Store updated',
      }),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/store/domains/{domain}/verify',
    interface: 'merchant',
    operationId: 'merchantVerifyDomain',
    summary: 'Verify a store domain now',
    description:
      'Looks the DNS TXT record `txt_name` of a pending domain up now and marks the domain verified when ' +
      'it holds `txt_value` (the `verify-domains` task does the same every few minutes). Answers the ' +
      'domain’s state: `status` `verified` (it picks the store for Storefront requests from now on) or ' +
      '`pending`. A domain the store does not hold is a 404.',
    guards: merchantGuards,
    request: {
      params: Joi.object<{ domain: string }, true>({
        domain: Joi.string().trim().lowercase().max(300).required().description('A domain of the store.'),
      }),
    },
    responses: {
      200: merchantOk('The domain’s state.', DomainState),
      404: merchantRefused('not_found', 'The store holds no such domain.', 'This store holds no such domain'),
    },
    handler: async (ctx, { params }) => {
      const state = await verifyStoreDomain(ctx.deps, actorOf(ctx), ctx.state.store!.id, params.domain);
      return reply(state, {
        message: state.status === 'verified' ? 'Domain verified' : 'The TXT record was not found yet',
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/store/embed-key',
    interface: 'merchant',
    operationId: 'merchantRotateEmbedKey',
    summary: 'Rotate the embed key',
    description:
      'Makes a new embed key and answers it in `embed_key`. The old key is refused from the next request ' +
      'on, on every server: update the `data-matjar-key` of your buttons first.',
    guards: merchantGuards,
    responses: { 200: merchantOk('The new key.', EmbedKeyRotated) },
    handler: async (ctx) =>
      reply(await rotateEmbedKey(ctx.deps, actorOf(ctx), ctx.state.store!.id), {
        message: 'Embed key rotated: the old key no longer works',
      }),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/store/statics',
    interface: 'merchant',
    operationId: 'merchantGetStatistics',
    summary: 'Store statistics',
    description:
      'Sales (paid orders that stand: In progress and Completed) today (UTC day), in the last 7 and 30 days ' +
      'and all time, as decimal strings with order counts; orders by status code; the five products with ' +
      'most units sold; new customers; and, from the analytics events, distinct visitors and page views per ' +
      'UTC day of the last 30 days. Built for stores with 100,000 orders and more (an index-only scan).',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The statistics.', Statistics) },
    handler: (ctx) =>
      ctx.deps.readKnex.run(ctx.state.store!.id, (knex) => storeStatistics(knex, ctx.state.store!)),
  }),
];
