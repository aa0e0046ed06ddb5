import Joi from 'joi';
import type { AppContext } from '../context';
import { defineRoute } from '../http/route';
import { htmlResponse, redirectResponse } from '../openapi/components';
import type { Locale } from '../pay/i18n';
import { DASHBOARD_STRINGS } from './i18n';
import { sendPage } from './layout';
import { dashboardOf, messagePage } from './session';

/**
 * The form helpers every dashboard page shares (docs/dashboard.md): the form body with its CSRF field, the
 * answers a guarded page and a form post may give, the list and id inputs, the field errors in the
 * signed-in person's language, and who a dashboard write is recorded as. Reading one field is
 * session.ts's formField; the CSRF field a form carries is layout.ts's tokenField.
 */

/** A urlencoded form body: the page's fields and the CSRF field `_csrf`; other fields are ignored. */
export const formBody = (fields: Record<string, Joi.Schema>) => ({
  bodyTypes: ['application/x-www-form-urlencoded' as const],
  body: Joi.object({ _csrf: Joi.string().max(200), ...fields }).unknown(true),
});

export const guardedAnswers = {
  302: redirectResponse('Not signed in: to the sign-in page.'),
  403: htmlResponse('Not allowed for this role, or (POST) a missing or wrong form token.'),
};
export const postAnswers = {
  403: htmlResponse('Not allowed for this role, a missing or wrong form token, or a form from another site.'),
};

export const pageQuery = Joi.object<{ page: number; lang?: string }, true>({
  page: Joi.number().integer().min(1).max(100_000).default(1),
  lang: Joi.string().valid('ar', 'en'),
});
/** The page language a link may name (`?lang=ar`); the choice is remembered in a cookie. */
export const langParam = Joi.string().valid('ar', 'en');
export const idParam = (name: string) =>
  Joi.object({ [name]: Joi.number().integer().min(1).max(2_147_483_647).required() });

/** The 404 page in the store's shell. */
export function notFound(ctx: AppContext) {
  const { shell } = dashboardOf(ctx);
  return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
}

/** A repeated form field (checkboxes): every value given, strings only. */
export function listField(ctx: AppContext, name: string): string[] {
  const value = (ctx.request.body as Record<string, unknown> | undefined)?.[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((v): v is string => typeof v === 'string').slice(0, 100);
}

/** In Arabic the field's generic message; in English the rule the write service states. */
export function fieldErrors(locale: Locale, errors: Record<string, string[]>): Record<string, string> {
  const t = DASHBOARD_STRINGS[locale];
  return Object.fromEntries(
    Object.entries(errors).map(([k, m]) => [k, locale === 'en' && m[0] ? m[0] : t.checkField]),
  );
}

/** Who the Merchant API's audit log names for a dashboard write: the person, by phone. */
export function dashboardActor(storeId: number, user: { e164: string }) {
  return { storeId, tokenId: null, name: `dashboard:+${user.e164}` };
}

/**
 * A page's own script, served from the platform (the dashboard's CSP allows `script-src 'self'` only),
 * cached a few minutes; the page works without it.
 */
export function pageScriptRoute(opts: {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  source: string;
}) {
  return defineRoute({
    method: 'get',
    path: opts.path,
    interface: 'platform',
    operationId: opts.operationId,
    summary: opts.summary,
    description: opts.description,
    security: [],
    responses: {
      200: {
        description: 'The script.',
        content: { 'application/javascript': { schema: { type: 'string' } } },
      },
    },
    handler: (ctx) => {
      ctx.set({ 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' });
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.status = 200;
      ctx.body = opts.source;
    },
  });
}
