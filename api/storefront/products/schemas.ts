import Joi from 'joi';
import { PRODUCT_SORTS, ProductListQuery } from '../../../shared/services/catalog/storefront';
import { flag, page, perPage } from '../schemas';

export const listQuery = Joi.object({
  page,
  per_page: perPage(15),
  category: Joi.string().trim().max(200),
  type: Joi.string().valid('product', 'code', 'service', 'subscription'),
  search: Joi.string().trim().max(200).allow(''),
  in_stock: flag,
  sort: Joi.string()
    .valid(...PRODUCT_SORTS)
    .default('newest'),
});
export type ListQuery = ProductListQuery;

export const productParams = Joi.object({ idOrSlug: Joi.string().max(200).required() });
export interface ProductParams {
  idOrSlug: string;
}
