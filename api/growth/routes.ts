import Joi from 'joi';
import { requestDeps } from '../request-deps';
import { resumeReminder } from '../../shared/services/checkout/resume-reminder';
import { optOutOfReminders, reminderStoreName } from '../../shared/services/growth/abandoned';
import { creatorDetail } from '../../shared/services/growth/creators';
import { creatorBySecret, creatorMonths } from '../../shared/services/growth/creator-reports';
import type { AppContext } from '../context';
import { paymentStatusGuards } from '../guards';
import { defineRoute, type ResponseDoc } from '../http/route';
import { htmlResponse, redirectResponse } from '../openapi/components';
import { sendHtml } from '../pay/html';
import { LOCALES, pickLocale } from '../pay/i18n';
import { creatorPageView, type GrowthView, optedOutView, optOutAskView, resumeView } from './views';

/**
 * Growth's public pages (docs/growth.md): a reminder's resume address and its opt-out, and a creator's
 * private page. Capability addresses (an HMAC-signed reminder id; a creator's 192-bit secret), under the
 * per-IP limit of the payment pages, never cached, no Referer sent on.
 */

const limited: Record<number, ResponseDoc> = {
  429: {
    description: 'Too many requests from this IP (120 per minute, shared with the payment pages).',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/PlatformError' } } },
  },
};

function viewOf(ctx: AppContext): GrowthView {
  const locale = pickLocale(ctx);
  const query = new URLSearchParams(ctx.querystring);
  query.set('lang', LOCALES.find((l) => l !== locale) ?? 'en');
  return { locale, switchHref: `${ctx.path}?${query.toString()}`, path: ctx.path };
}

const refParams = Joi.object<{ ref: string }, true>({
  ref: Joi.string().max(100).required().description('The reminder id and its signature, as sent.'),
});

export const growthPageRoutes = [
  defineRoute({
    method: 'get',
    path: '/r/{ref}',
    interface: 'platform',
    operationId: 'resumeAbandonedCheckout',
    summary: 'Resume a checkout from its reminder',
    description:
      'The address an abandoned-checkout reminder carries (docs/growth.md): a redirect to the payment step ' +
      'of that checkout while it can be paid (its `checkout_url` is issued anew), else of a new checkout ' +
      'with the same content at today’s price and stock (and the reminder’s coupon). A page when the order ' +
      'is paid (200), can no longer be made (410), or the link is unknown (404).',
    guards: paymentStatusGuards,
    security: [],
    request: { params: refParams },
    responses: {
      ...limited,
      200: htmlResponse('Already paid.'),
      302: redirectResponse('To the checkout’s payment step.'),
      404: htmlResponse('Unknown link.'),
      410: htmlResponse('The content cannot be bought any more (off sale, out of stock).'),
    },
    handler: async (ctx, { params }) => {
      const view = viewOf(ctx);
      const deps = requestDeps(ctx);
      const answer = await resumeReminder(
        { ...deps, appSecret: ctx.deps.appSecret, appSecretPrevious: ctx.deps.appSecretPrevious },
        params.ref,
      );
      if (answer.kind === 'redirect') return sendHtml(ctx, { status: 302, location: answer.url });
      return sendHtml(ctx, resumeView(view, answer));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/r/{ref}/opt-out',
    interface: 'platform',
    operationId: 'reminderOptOutPage',
    summary: 'Stop reminders (confirmation page)',
    description:
      'Asks the buyer to confirm (a form POST to the same address): a link followed by a mail scanner ' +
      'changes nothing.',
    guards: paymentStatusGuards,
    security: [],
    request: { params: refParams },
    responses: { ...limited, 200: htmlResponse('The question.'), 404: htmlResponse('Unknown link.') },
    handler: async (ctx, { params }) => {
      const name = await reminderStoreName(ctx.deps, params.ref);
      sendHtml(ctx, optOutAskView(viewOf(ctx), name));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/r/{ref}/opt-out',
    interface: 'platform',
    operationId: 'reminderOptOut',
    summary: 'Stop reminders',
    description:
      'The buyer of this reminder (their phone and e-mail) gets no more abandoned-checkout reminders from ' +
      'the store, whichever checkout they open next.',
    guards: paymentStatusGuards,
    security: [],
    request: { params: refParams },
    responses: { ...limited, 200: htmlResponse('Done.'), 404: htmlResponse('Unknown link.') },
    handler: async (ctx, { params }) => {
      const done = await optOutOfReminders(ctx.deps, params.ref);
      sendHtml(ctx, optedOutView(viewOf(ctx), done?.storeName ?? null));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/creators/{secret}',
    interface: 'platform',
    operationId: 'creatorPage',
    summary: 'A creator’s private page',
    description:
      'The creator’s paid orders, revenue and commission, all time and by month (UTC), net of refunds and ' +
      'disputes. The address is the creator’s secret (`page_url`, shown once by the Merchant API).',
    guards: paymentStatusGuards,
    security: [],
    request: {
      params: Joi.object<{ secret: string }, true>({
        secret: Joi.string().max(100).required().description('The creator’s page secret.'),
      }),
    },
    responses: { ...limited, 200: htmlResponse('The page.'), 404: htmlResponse('Unknown link.') },
    handler: async (ctx, { params }) => {
      const view = viewOf(ctx);
      const found = await creatorBySecret(ctx.deps.knex, params.secret);
      if (!found) return sendHtml(ctx, creatorPageView(view, null));
      const detail = await creatorDetail(ctx.deps.knex, found.creator.store_id, found.creator.id);
      const months = await creatorMonths(ctx.deps.knex, found.creator.id, found.currency);
      sendHtml(
        ctx,
        creatorPageView(view, {
          name: found.creator.name,
          code: found.creator.code,
          storeName: found.storeName,
          months,
          totals: { orders: detail.orders, revenue: detail.revenue, commission: detail.commission },
          currency: found.currency,
        }),
      );
    },
  }),
];
