import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { createPaymentProviders } from '../../shared/providers';
import { receiveWebhook } from '../../shared/services/payments';
import { AppContext, respond } from '../context';

/** The request body exactly as received (koa-body keeps it as rawBody with includeUnparsed), for signatures. */
function rawBody(ctx: AppContext): string | undefined {
  return typeof ctx.request.rawBody === 'string' ? ctx.request.rawBody : undefined;
}

/**
 * POST /webhooks/{provider} (sandbox, moyasar, coinbase): verified, stored once per provider event id,
 * queued, answered 200 at once. 401 for a signature that does not verify, with nothing written.
 */
export function webhooksRouter(deps: Deps): Router {
  const router = new Router({ prefix: '/webhooks' });
  const wiring = { ...deps, providers: createPaymentProviders(deps) };
  router.post('/:provider', async (ctx: AppContext) => {
    respond(ctx, await receiveWebhook(wiring, String(ctx.params.provider), rawBody(ctx), ctx.headers));
  });
  return router;
}
