import Joi from 'joi';
import { ConflictError, ForbiddenError, InvalidError } from '../../shared/errors';
import { claimableKey, openClaim } from '../../shared/services/fraud/claims';
import { codeOfToken } from '../../shared/services/fulfilment/claim-links';
import { CROSS_SITE_MESSAGE } from '../admin/same-origin';
import type { AppContext, AppMiddleware } from '../context';
import { paymentStatusGuards } from '../guards';
import { defineRoute } from '../http/route';
import { htmlResponse, redirectResponse, schemaRef } from '../openapi/components';
import { sendHtml } from '../pay/html';
import { LOCALES, pickLocale } from '../pay/i18n';
import { formField } from '../pay/routes';
import { CLAIM_STRINGS, claimPage, ClaimPageView, invalidClaimPage } from './views';

/**
 * The buyer's side of key replacement claims (docs/fraud.md): the signed link sent with each delivered
 * code key (`/claims/new?t=...`) shows the key, its claims and their answers, and a form that reports it.
 * The link's token is the buyer's proof; the form's POST carries it in its body (no cookie is involved, so
 * no ambient credential a cross-site page could borrow) and is refused when the browser says it comes from
 * another site. Public, under the per-IP limit of the payment pages.
 */

function viewOf(ctx: AppContext, locale = pickLocale(ctx)): ClaimPageView {
  const query = new URLSearchParams(ctx.querystring);
  query.set('lang', LOCALES.find((l) => l !== locale) ?? 'en');
  return { locale, switchHref: `${ctx.path}?${query.toString()}` };
}

/**
 * The claim form's POST comes from the claim page itself. The page sends no Referer (its address holds the
 * token), so browsers send `Origin: null` with the post; what they say in Sec-Fetch-Site decides then: only
 * `same-origin` passes. An Origin naming another site, or a `null` Origin without Sec-Fetch-Site, is refused.
 */
function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return '';
  }
}

function claimFormOnly(): AppMiddleware {
  return async (ctx, next) => {
    const site = ctx.get('Sec-Fetch-Site');
    if (site && site !== 'same-origin') throw new ForbiddenError(CROSS_SITE_MESSAGE);
    const origin = ctx.get('Origin');
    if (origin === 'null' && site !== 'same-origin') throw new ForbiddenError(CROSS_SITE_MESSAGE);
    if (origin && origin !== 'null') {
      const host = hostOf(origin);
      if (host !== ctx.host) throw new ForbiddenError(CROSS_SITE_MESSAGE);
    }
    await next();
  };
}

const secretsOf = (ctx: AppContext): string[] => [ctx.deps.appSecret, ...(ctx.deps.appSecretPrevious ?? [])];

export const claimRoutes = [
  defineRoute({
    method: 'get',
    path: '/claims/new',
    interface: 'platform',
    operationId: 'keyClaimPage',
    summary: 'Key replacement claim: the buyer’s page',
    description:
      'The signed link of a delivered code key (`t`, from the delivery message and e-mail): the key, the ' +
      'claims on it with the store’s answers (a replacement key, or a note), and the form that reports it. ' +
      'A token the platform did not sign is a 404 page.',
    guards: paymentStatusGuards,
    request: {
      query: Joi.object<{ t?: string; lang?: string; sent?: string }, true>({
        t: Joi.string().max(100).allow('').description('The claim link’s token.'),
        sent: Joi.string().valid('1').description('1 right after a claim was sent: the page says so.'),
        lang: Joi.string().valid('ar', 'en').description('The page language.'),
      }),
    },
    responses: { 200: htmlResponse('The claim page.'), 404: htmlResponse('Not a claim link.') },
    handler: async (ctx, { query }) => {
      const view = viewOf(ctx);
      const codeId = codeOfToken(secretsOf(ctx), query.t ?? '');
      const key = codeId === null ? null : await claimableKey(ctx.deps.knex, codeId);
      if (!key) return sendHtml(ctx, invalidClaimPage(view));
      const sent = query.sent === '1' ? CLAIM_STRINGS[view.locale].sent : undefined;
      sendHtml(ctx, claimPage(view, key, query.t!, { notice: sent }));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/claims',
    interface: 'platform',
    operationId: 'keyClaimCreate',
    summary: 'Key replacement claim: report a key',
    description:
      'Form fields `t` (the claim link’s token), `note` (optional, up to 1000 characters) and `lang`. ' +
      'Answers 303 to the claim page, which then shows the claim. One open or approved claim per key: ' +
      'another is a 409 page. A cross-site post is refused (403).',
    guards: (deps) => [...paymentStatusGuards(deps), claimFormOnly()],
    responses: {
      303: redirectResponse('Back to the claim page.'),
      403: {
        description: 'A cross-site request.',
        content: { 'application/json': { schema: schemaRef('PlatformError') } },
      },
      404: htmlResponse('Not a claim link.'),
      409: htmlResponse('The key already has a claim, or cannot be claimed.'),
    },
    handler: async (ctx) => {
      const lang = formField(ctx, 'lang');
      const locale = lang === 'ar' || lang === 'en' ? lang : pickLocale(ctx);
      const view = viewOf(ctx, locale);
      const token = formField(ctx, 't');
      const codeId = codeOfToken(secretsOf(ctx), token);
      if (codeId === null) return sendHtml(ctx, invalidClaimPage(view));
      try {
        await openClaim(ctx.deps, codeId, { note: formField(ctx, 'note').slice(0, 1000), locale });
      } catch (err) {
        if (!(err instanceof ConflictError) && !(err instanceof InvalidError)) throw err;
        const key = await claimableKey(ctx.deps.knex, codeId);
        if (!key) return sendHtml(ctx, invalidClaimPage(view));
        const t = CLAIM_STRINGS[locale];
        return sendHtml(
          ctx,
          claimPage(view, key, token, {
            status: 409,
            error: err instanceof ConflictError ? t.exists : t.closed,
          }),
        );
      }
      const query = new URLSearchParams({ t: token, lang: locale, sent: '1' });
      sendHtml(ctx, { status: 303, location: `/claims/new?${query.toString()}` });
    },
  }),
];
