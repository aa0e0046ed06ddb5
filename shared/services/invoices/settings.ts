import { unitOfWork, type UnitOfWorkDeps } from '../../unit-of-work';
import { STORES, storeCounter } from '../catalogue/cache';
import type { Store } from '../../../db/models';
import { ValidationError } from '../../errors';
import { formatAmount, STANDARD_VAT_RATE_BP } from './amounts';

/**
 * A store's VAT settings. A store with a VAT number issues simplified tax invoices (with the ZATCA QR) for
 * every paid order, at VAT-inclusive prices (15%): the prices the buyer sees do not change, each order
 * records the VAT inside its total. Without one, buyers get a plain receipt.
 */
export interface VatSettings {
  legal_name: string | null;
  vat_number: string | null;
  address: string | null;
  /** Whether the store issues tax invoices (it has a VAT number). */
  issues_invoices: boolean;
  prices_include_vat: boolean;
  /** Percentage string, "15.00". */
  vat_rate: string;
}

export interface VatSettingsInput {
  legal_name?: string | null;
  vat_number?: string | null;
  address?: string | null;
}

/**
 * ZATCA's form of a VAT registration number: 15 digits, the first and the last 3. The fixture accepts any
 * 15 digits (the operator contract's wording); the Merchant API, where a merchant types it, is strict.
 */
export const ZATCA_VAT_NUMBER = /^3\d{13}3$/;

export function vatSettings(
  store: Pick<Store, 'legal_name' | 'vat_number' | 'vat_address' | 'tax_mode' | 'tax_rate_bp'>,
): VatSettings {
  const registered = Boolean(store.vat_number);
  return {
    legal_name: store.legal_name ?? null,
    vat_number: store.vat_number ?? null,
    address: store.vat_address ?? null,
    issues_invoices: registered,
    prices_include_vat: store.tax_mode === 'inclusive',
    vat_rate: formatAmount(store.tax_mode === 'none' ? 0 : store.tax_rate_bp, 'SAR'),
  };
}

/**
 * Changes a store's VAT settings (the keys given; null clears one). Setting a VAT number switches the store
 * to VAT-inclusive prices at 15%; clearing it turns tax off. A VAT number needs a legal name (the seller on
 * the invoice). Past invoices keep what they were issued with.
 */
export async function updateVatSettings(
  deps: UnitOfWorkDeps,
  storeId: number,
  input: VatSettingsInput,
): Promise<VatSettings> {
  return unitOfWork(deps, async (uow) => {
    const trx = uow.trx;
    // Prices and tax show in the store's product answers: their caches hear of it after the commit.
    uow.bump([STORES, storeCounter(storeId)]);
    const store = (await trx('stores').where({ id: storeId }).forUpdate().first()) as Store;
    const next = {
      legal_name: input.legal_name !== undefined ? input.legal_name : store.legal_name,
      vat_number: input.vat_number !== undefined ? input.vat_number : store.vat_number,
      vat_address: input.address !== undefined ? input.address : store.vat_address,
    };
    if (next.vat_number && !next.legal_name) {
      throw new ValidationError(
        { legal_name: ['legal_name is required with a vat_number: it is the seller on every invoice.'] },
        'legal_name is required with a vat_number',
      );
    }
    const tax =
      input.vat_number === undefined
        ? {}
        : next.vat_number
          ? { tax_mode: 'inclusive', tax_rate_bp: STANDARD_VAT_RATE_BP }
          : { tax_mode: 'none', tax_rate_bp: 0 };
    const [row] = await trx('stores')
      .where({ id: storeId })
      .update({ ...next, ...tax, updated_at: trx.fn.now() })
      .returning('*');
    return vatSettings(row as Store);
  });
}
