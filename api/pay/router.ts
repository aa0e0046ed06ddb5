import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { paymentStatusGuards } from '../guards';
import { SandboxGateway } from '../../shared/providers/sandbox';
import * as handlers from './handlers';

/**
 * The platform's hosted payment pages. /pay/{checkout_url} is the `payment_url` of a checkout (choose a
 * method); /pay/payments/{ref} is one payment's page: the `redirect_url` of payment/initiate and the
 * address providers send the customer back to. For a sandbox payment that page is also the sandbox's
 * Pay/Fail page, GET and POST (CONTRACT section 7). Public, under the per-IP limit of payment status polling.
 */
export function payRouter(deps: Deps): Router {
  const router = new Router({ prefix: '/pay' });
  const guards = paymentStatusGuards(deps);
  const gateway = new SandboxGateway(deps.knex, deps.appSecret, deps.logger);
  router.get('/payments/:paymentRef', ...guards, handlers.showPayment);
  // CONTRACT section 7: the sandbox's Pay/Fail is taken on the redirect_url itself.
  router.post('/payments/:paymentRef', ...guards, handlers.sandboxChoiceHandler(gateway));
  router.post('/payments/:paymentRef/retry', ...guards, handlers.retry);
  router.get('/:checkoutUrl', ...guards, handlers.showCheckout);
  router.post('/:checkoutUrl', ...guards, handlers.chooseMethod);
  return router;
}
