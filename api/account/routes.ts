import Joi from 'joi';
import { InvalidError, NotFoundError, RateLimitedError } from '../../shared/errors';
import { LicenseError } from '../../shared/services/licenses/errors';
import { localeFrom } from '../../shared/services/licenses/labels';
import {
  cancelRenewal,
  certificateFor,
  deactivateActivation,
  resumeRenewal,
  REVIEW_MAX_LENGTH,
  writeReview,
} from '../../shared/services/account/actions';
import { ownedOrderId } from '../../shared/services/account/identity';
import { accountOrders, accountSubscriptions } from '../../shared/services/account/read';
import { requestSendAgain } from '../../shared/services/account/resend';
import { cardUpdatable } from '../../shared/services/account/subscriptions';
import { buyerFormToken, findBuyerSession, type BuyerIdentity } from '../../shared/services/account/sessions';
import type { AppContext } from '../context';
import { sendPage } from '../dashboard/layout';
import { formField, readCookie } from '../dashboard/session';
import { defineRoute } from '../http/route';
import { htmlResponse } from '../openapi/components';
import { ACCOUNT_COOKIE, accountOf, accountPage, accountSignedIn } from './session';
import { homeView, messagePage, signInView } from './view';
import { enforce, form, ID, page, signedInPost } from './forms';
import { accountSignInRoutes } from './sign-in-routes';
import { accountFollowupRoutes, FOLLOWUP_NOTICES, followupNotices } from './followup-routes';

/**
 * The buyer's account (docs/account.md): /account on the platform and on every verified store domain.
 * Sign-in by phone (the platform's OTP machinery, the dashboard's sign-in service on its own channel) or by
 * an e-mailed one-time link; then every order of that phone or address in every store, licenses,
 * subscriptions and reviews. Handlers call the services of shared/services/account.
 */

const who = (identity: BuyerIdentity): string =>
  identity.kind === 'phone' ? `+${identity.value}` : identity.value;

const NOTICES = ['sent', 'deactivated', 'cancelled', 'resumed', 'review', ...FOLLOWUP_NOTICES] as const;

async function home(ctx: AppContext, status: number, search: string, notice: string | null, error?: string) {
  const p = await accountPage(ctx);
  const { session, formToken } = accountOf(ctx);
  const [orders, subscriptions] = await Promise.all([
    accountOrders(ctx.deps, session.identity, search),
    accountSubscriptions(ctx.deps.knex, session.identity),
  ]);
  sendPage(ctx, {
    status,
    html: homeView(p, {
      who: who(session.identity),
      formToken,
      orders,
      subscriptions,
      search,
      notice,
      error: error ?? null,
      storeBase: ctx.deps.config.publicBaseUrl,
      cardUpdatable: (sub) => cardUpdatable(ctx.deps, sub),
    }),
  });
}

const back = (ctx: AppContext, done: (typeof NOTICES)[number], anchor = '') =>
  sendPage(ctx, { status: 303, location: `/account?done=${done}${anchor}` });

/** A refusal shown on the account page itself (the buyer's own state; nothing was changed). */
async function refused(ctx: AppContext, status: number, message: string) {
  await home(ctx, status, '', null, message);
}

async function notFoundPage(ctx: AppContext) {
  const p = await accountPage(ctx);
  sendPage(ctx, messagePage(p, 404, p.t.notFoundTitle, p.t.notFound));
}

const accountHomeRoutes = [
  defineRoute({
    method: 'get',
    path: '/account',
    interface: 'platform',
    operationId: 'accountHome',
    summary: 'Buyer account: sign-in, or the signed-in buyer’s purchases',
    description:
      'Not signed in: sign-in by phone (`tel-country-code`, `tel-national`) or by e-mail. Signed in: every ' +
      'paid or free order placed with that phone (or that e-mail) in any store, grouped by store, newest ' +
      'first, with keys, license keys and activations, download links, the invoice or receipt and the ' +
      'store’s support; subscriptions. `q` searches store and product names. Also on verified store domains.',
    request: {
      query: Joi.object<{ lang?: string; q?: string; done?: string }, true>({
        lang: Joi.string().valid('ar', 'en'),
        q: Joi.string().allow('').max(100),
        done: Joi.string().valid(...NOTICES),
      }),
    },
    responses: page('The sign-in page or the account.'),
    handler: async (ctx, { query }) => {
      const session = await findBuyerSession(ctx.deps.knex, readCookie(ctx, ACCOUNT_COOKIE));
      if (!session) {
        const p = await accountPage(ctx);
        return sendPage(ctx, {
          status: 200,
          html: signInView(p, { phone: { country_code: '966', phone: '' }, email: '' }),
        });
      }
      ctx.state.account = { session, formToken: buyerFormToken(ctx.deps.appSecret, session) };
      const p = await accountPage(ctx);
      const notices: Record<(typeof NOTICES)[number], string> = {
        sent: p.t.sentAgain,
        deactivated: p.t.deactivated,
        cancelled: p.t.cancelled,
        resumed: p.t.resumed,
        review: p.t.reviewSaved,
        ...followupNotices(p.t),
      };
      await home(
        ctx,
        200,
        query.q ?? '',
        query.done ? notices[query.done as (typeof NOTICES)[number]] : null,
      );
    },
  }),
];

const accountActionRoutes = [
  defineRoute({
    method: 'post',
    path: '/account/orders/{orderId}/send-again',
    interface: 'platform',
    operationId: 'accountSendAgain',
    summary: 'Buyer account: send an order’s goods again',
    description:
      '`channel` `message` (to the order’s phone, WhatsApp then SMS) or `email` (to the order’s address): ' +
      'the delivery again, keys, license keys, download addresses and the invoice or receipt. The ' +
      'dashboard’s resend service: `nonce` (32 hex digits, drawn by the page) keys it, so a double submit ' +
      'sends once. Three a quarter hour per order and channel (429).',
    guards: accountSignedIn(),
    request: {
      params: Joi.object<{ orderId: number }, true>({ orderId: ID }),
      ...form({
        channel: Joi.string().valid('message', 'email').required(),
        nonce: Joi.string().pattern(/^[0-9a-f]{32}$/),
      }),
    },
    responses: {
      ...signedInPost,
      422: htmlResponse('The order has no keys, licenses or files to send (the account, saying so).'),
      429: htmlResponse('Sent again too often (with Retry-After).'),
    },
    handler: async (ctx, { params }) => {
      const { session } = accountOf(ctx);
      const order = await ownedOrderId(ctx.deps.knex, session.identity, params.orderId);
      if (!order) return notFoundPage(ctx);
      const channel = formField(ctx, 'channel') === 'email' ? 'email' : 'message';
      const outcome = await requestSendAgain(
        { ...ctx.deps, enforce: enforce(ctx) },
        order,
        channel,
        formField(ctx, 'nonce') || undefined,
      );
      if (outcome.kind === 'rate_limited') {
        ctx.set('Retry-After', String(outcome.retryAfter));
        return refused(ctx, 429, (await accountPage(ctx)).t.tooMany);
      }
      if (outcome.kind === 'refused') {
        if (outcome.reason === 'nothing_to_send') {
          return refused(ctx, 422, (await accountPage(ctx)).t.nothingToSend);
        }
        return notFoundPage(ctx);
      }
      back(ctx, 'sent', `#order-${order.id}`);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/activations/{activationId}/deactivate',
    interface: 'platform',
    operationId: 'accountDeactivate',
    summary: 'Buyer account: deactivate a machine',
    description:
      'Removes one activation of the buyer’s license: the seat is free at once and `/verify` can activate ' +
      'another machine. Within the product’s self-service reset quota (409 with the page saying when the ' +
      'next one is allowed).',
    guards: accountSignedIn(),
    request: { params: Joi.object<{ activationId: number }, true>({ activationId: ID }), ...form({}) },
    responses: { ...signedInPost, 409: htmlResponse('The reset quota is used up (the account, saying so).') },
    handler: async (ctx, { params }) => {
      const { session } = accountOf(ctx);
      try {
        await deactivateActivation(ctx.deps, session.identity, params.activationId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFoundPage(ctx);
        if (err instanceof LicenseError || err instanceof InvalidError) {
          const details = (err as { details?: { next_reset_at?: string } }).details;
          const p = await accountPage(ctx);
          return refused(ctx, 409, p.t.resetLimit(details?.next_reset_at?.slice(0, 10) ?? null));
        }
        throw err;
      }
      back(ctx, 'deactivated');
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/licenses/{licenseId}/certificate',
    interface: 'platform',
    operationId: 'accountLicenseCertificate',
    summary: 'Buyer account: an offline certificate for a machine',
    description:
      'Form field `hwid` (the machine’s id, as the program sends it to /verify). Answers the certificate of ' +
      '`POST /verify/certificate` for this license and machine as a file (`license-certificate.jws`): it ' +
      'activates the machine as /verify does, and is refused as /verify refuses (409, the page saying so).',
    guards: accountSignedIn(),
    request: {
      params: Joi.object<{ licenseId: number }, true>({ licenseId: ID }),
      ...form({ hwid: Joi.string().trim().min(1).max(200).required() }),
    },
    responses: {
      200: {
        description: 'The certificate (a JWS compact serialization), as an attachment.',
        content: { 'application/jose': { schema: { type: 'string' } } },
      },
      ...signedInPost,
      409: htmlResponse('Refused as /verify refuses (no seat left, suspended, expired).'),
    },
    handler: async (ctx, { params, body }) => {
      const { hwid } = body as { hwid: string };
      try {
        const issued = await certificateFor(ctx.deps, accountOf(ctx).session.identity, params.licenseId, {
          hwid,
          ip: ctx.ip,
          locale: localeFrom(ctx.get('Accept-Language')),
        });
        ctx.set({
          'Cache-Control': 'no-store',
          'Content-Disposition': 'attachment; filename="license-certificate.jws"',
          'X-Content-Type-Options': 'nosniff',
        });
        ctx.type = 'application/jose';
        ctx.status = 200;
        ctx.body = issued.certificate;
      } catch (err) {
        if (err instanceof NotFoundError) return notFoundPage(ctx);
        if (err instanceof LicenseError || err instanceof InvalidError) {
          return refused(ctx, 409, `${(await accountPage(ctx)).t.certificateRefused} (${err.message})`);
        }
        throw err;
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/subscriptions/{subscriptionId}/cancel',
    interface: 'platform',
    operationId: 'accountCancelRenewal',
    summary: 'Buyer account: cancel a subscription’s renewal',
    description:
      'At the end of the period paid for: the subscription stays active until then with ' +
      '`cancel_at_period_end` (GET /shawarma/subscriptions/{id} shows it) and renews no more.',
    guards: accountSignedIn(),
    request: { params: Joi.object<{ subscriptionId: number }, true>({ subscriptionId: ID }), ...form({}) },
    responses: signedInPost,
    handler: async (ctx, { params }) => {
      try {
        await cancelRenewal(ctx.deps, accountOf(ctx).session.identity, params.subscriptionId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFoundPage(ctx);
        throw err;
      }
      back(ctx, 'cancelled', `#subscription-${params.subscriptionId}`);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/subscriptions/{subscriptionId}/resume',
    interface: 'platform',
    operationId: 'accountResumeRenewal',
    summary: 'Buyer account: resume a cancelled renewal',
    description: 'While the period is still running: the subscription renews again. An ended one: 409.',
    guards: accountSignedIn(),
    request: { params: Joi.object<{ subscriptionId: number }, true>({ subscriptionId: ID }), ...form({}) },
    responses: { ...signedInPost, 409: htmlResponse('The subscription has ended.') },
    handler: async (ctx, { params }) => {
      try {
        await resumeRenewal(ctx.deps, accountOf(ctx).session.identity, params.subscriptionId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFoundPage(ctx);
        if (err instanceof InvalidError) return refused(ctx, 409, err.message);
        throw err;
      }
      back(ctx, 'resumed', `#subscription-${params.subscriptionId}`);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/reviews',
    interface: 'platform',
    operationId: 'accountWriteReview',
    summary: 'Buyer account: review a product bought',
    description:
      `Form fields \`product_id\`, \`rating\` (1 to 5), \`comment\` (up to ${REVIEW_MAX_LENGTH} characters). ` +
      'Only for a product of a paid order (not cancelled or refunded) of this buyer; one review per product ' +
      'and buyer: writing again edits it. It waits for the store to publish it. Ten writes an hour (429).',
    guards: accountSignedIn(),
    request: form({
      product_id: ID,
      rating: Joi.number().integer().min(1).max(5).required(),
      comment: Joi.string().allow('').max(REVIEW_MAX_LENGTH),
    }),
    responses: {
      ...signedInPost,
      422: htmlResponse('A rating outside 1 to 5 or a comment too long.'),
      429: htmlResponse('Too many reviews written (with Retry-After).'),
    },
    handler: async (ctx, { body }) => {
      const input = body as { product_id: number; rating: number; comment?: string };
      try {
        await writeReview({ ...ctx.deps, enforce: enforce(ctx) }, accountOf(ctx).session.identity, {
          productId: input.product_id,
          rating: input.rating,
          comment: input.comment ?? '',
        });
      } catch (err) {
        if (err instanceof NotFoundError) return notFoundPage(ctx);
        if (err instanceof RateLimitedError) {
          ctx.set('Retry-After', String(err.retryAfterSeconds));
          return refused(ctx, 429, (await accountPage(ctx)).t.tooMany);
        }
        if (err instanceof InvalidError) return refused(ctx, 422, (await accountPage(ctx)).t.errReview);
        throw err;
      }
      back(ctx, 'review');
    },
  }),
];

export const accountRoutes = [
  ...accountHomeRoutes,
  ...accountSignInRoutes,
  ...accountActionRoutes,
  ...accountFollowupRoutes({ back, refused, notFoundPage }),
];
