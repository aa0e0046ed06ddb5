import type { Knex } from 'knex';
import { InvalidError } from '../../errors';

export interface StoreSeller {
  name: string;
  legal_name: string | null;
  vat_number: string;
}

/** The store as onboarding needs it: VAT-registered, with a legal name, selling in SAR. */
export async function activeSellerFor(knex: Knex, storeId: number): Promise<StoreSeller> {
  const store = await knex('stores')
    .where({ id: storeId })
    .first('name', 'legal_name', 'vat_number', 'currency');
  if (!store?.vat_number)
    throw new InvalidError('E-invoicing needs the store’s VAT number (tax settings) first.');
  if (store.currency !== 'SAR')
    throw new InvalidError('E-invoicing with ZATCA is for stores that sell in SAR.');
  return {
    name: String(store.name),
    legal_name: store.legal_name ?? null,
    vat_number: String(store.vat_number),
  };
}
