import type Router from '@koa/router';
import Joi from 'joi';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import { id, idParams, query } from '../common';
import * as handlers from './handlers';

export const listQuery = query({
  type: Joi.string().valid('product', 'code', 'service', 'subscription'),
  active: Joi.boolean().truthy('1').falsy('0'),
  category_id: id,
});

/** GET /shawarma/products (type, active, category filters) and GET /shawarma/products/{id}. */
export function registerProductRoutes(router: Router, guards: AppMiddleware[]): void {
  router.get('/products', ...guards, validate({ query: listQuery }), handlers.list);
  router.get('/products/:id', ...guards, validate({ params: idParams }), handlers.show);
}
