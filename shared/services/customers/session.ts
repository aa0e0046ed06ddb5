import type { Knex } from 'knex';
import { Customer, Product } from '../../../db/models';
import { ForbiddenError, ValidationError } from '../../errors';
import { customerView, CustomerView } from './index';

export const TOKEN_NOT_FOR_PRODUCT = 'Token not valid for this product';

/**
 * auth/validate: a saved embed token is still good for this product. A product that does not exist is
 * an invalid product id (422); one of another store than the customer's answers 403.
 */
export async function validateSessionForProduct(
  knex: Knex,
  customer: Customer,
  productId: number,
): Promise<{ valid: true; customer: CustomerView }> {
  const product = await Product.query(knex).findById(productId);
  if (!product) throw ValidationError.field('product_id', 'The selected product id is invalid.');
  if (product.store_id !== customer.store_id)
    throw new ForbiddenError(TOKEN_NOT_FOR_PRODUCT).withCode('token_not_for_product');
  return { valid: true, customer: customerView(customer) };
}
