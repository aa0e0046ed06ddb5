import type Router from '@koa/router';
import Joi from 'joi';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import { id, idParams, query } from '../common';
import * as handlers from './handlers';

export const listQuery = query({
  status: Joi.string().valid('active', 'cancelled', 'expired'),
  product_id: id,
  customer_id: id,
});

/** GET /shawarma/subscriptions and GET /shawarma/subscriptions/{id}. */
export function registerSubscriptionRoutes(router: Router, guards: AppMiddleware[]): void {
  router.get('/subscriptions', ...guards, validate({ query: listQuery }), handlers.list);
  router.get('/subscriptions/:id', ...guards, validate({ params: idParams }), handlers.show);
}
