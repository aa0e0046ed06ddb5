import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { paymentStatusGuards } from '../guards';
import * as handlers from './handlers';

/**
 * The platform's hosted payment pages. /pay/{checkout_url} is the `payment_url` of a checkout (choose a
 * method); /pay/payments/{ref} is one payment's page: the `redirect_url` of payment/initiate and the
 * address providers send the customer back to. Public, under the per-IP limit of payment status polling.
 */
export function payRouter(deps: Deps): Router {
  const router = new Router({ prefix: '/pay' });
  const guards = paymentStatusGuards(deps);
  router.get('/payments/:paymentRef', ...guards, handlers.showPayment);
  router.post('/payments/:paymentRef/retry', ...guards, handlers.retry);
  router.get('/:checkoutUrl', ...guards, handlers.showCheckout);
  router.post('/:checkoutUrl', ...guards, handlers.chooseMethod);
  return router;
}
