import Joi from 'joi';
import type { Deps } from '../../shared/deps';
import type { AppContext } from '../context';
import { htmlResponse, redirectResponse } from '../openapi/components';

/** What the account's routes share: their inputs and answers (the dashboard's forms.ts, for /account). */

export const ID = Joi.number().integer().min(1).max(2_147_483_647).required();
export const langQuery = Joi.object<{ lang?: string }, true>({ lang: Joi.string().valid('ar', 'en') });
export const page = (d: string) => ({ 200: htmlResponse(d) });
export const forbidden = { 403: htmlResponse('A form from another site, or a missing or wrong form token.') };
export const signedInPost = {
  303: redirectResponse('Done: back to the account, saying so.'),
  ...forbidden,
  404: htmlResponse('Not one of this buyer’s (another buyer’s is answered the same).'),
};
export const form = (fields: Record<string, Joi.Schema>) => ({
  bodyTypes: ['application/x-www-form-urlencoded' as const],
  body: Joi.object({ _csrf: Joi.string().max(200), ...fields }).unknown(true),
});

/** The app's rate limiter, as the account's services take it. */
export const enforce =
  (ctx: AppContext) => (uses: Parameters<Deps['services']['rateLimiter']['enforce']>[0]) =>
    ctx.deps.services.rateLimiter.enforce(uses);
