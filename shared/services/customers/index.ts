import type { Knex } from 'knex';
import { Customer } from '../../../db/models';
import type { Infer } from '../../json-schema';
import type { customerSchema } from './schema';

/** The customer object of the Embed and Storefront APIs (spec: Resources, Customer): its schema's type. */
export type CustomerView = Infer<typeof customerSchema>;

export function customerView(c: Customer): CustomerView {
  return {
    id: c.id,
    firstName: c.first_name,
    lastName: c.last_name,
    email: c.email,
    phone: c.phone,
    country_code: c.country_code,
  };
}

type NewCustomer = Pick<
  Customer,
  'store_id' | 'first_name' | 'last_name' | 'email' | 'country_code' | 'phone' | 'e164'
>;

/**
 * The customer of this store with that phone. A phone known only in another store counts as an existing
 * customer (spec: Customer); it is given a profile in this store, copied from its first one, so the token
 * it gets is bound to this store like any other.
 */
export async function findOrAdoptCustomer(
  trx: Knex,
  storeId: number,
  e164: string,
): Promise<Customer | null> {
  const own = await Customer.query(trx).findOne({ store_id: storeId, e164 });
  if (own) return own;
  const elsewhere = await Customer.query(trx).where({ e164 }).orderBy('id').first();
  if (!elsewhere) return null;
  return createCustomer(trx, {
    store_id: storeId,
    first_name: elsewhere.first_name,
    last_name: elsewhere.last_name,
    email: elsewhere.email,
    country_code: elsewhere.country_code,
    phone: elsewhere.phone,
    e164,
  });
}

/** Inserts the customer, or returns the one a concurrent request created for the same store and phone. */
export async function createCustomer(trx: Knex, data: NewCustomer): Promise<Customer> {
  const inserted = await Customer.query(trx)
    .insert(data)
    .onConflict(['store_id', 'e164'])
    .ignore()
    .returning('*');
  const row = Array.isArray(inserted) ? inserted[0] : inserted;
  if (row && row.id) return row;
  const existing = await Customer.query(trx).findOne({ store_id: data.store_id, e164: data.e164 });
  if (!existing) throw new Error('customer vanished after a conflicting insert');
  return existing;
}
