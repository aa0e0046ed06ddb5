import type { Knex } from 'knex';
import { PaymentMethodId, StorePaymentMethod } from '../../../db/models';
import type { Config } from '../../config';

/**
 * What the platform offers besides the store's settings: the sandbox provider only where it is on
 * (SANDBOX_ENABLED; on outside production, off in production unless set to 1). A method configured with
 * the sandbox provider where it is off is neither listed nor initiated: nothing can be paid through it.
 */
export type MethodOffer = Pick<Config, 'sandboxEnabled'>;

/** Whether a configured method's provider is offered by this deployment. */
export function providerOffered(offer: MethodOffer, provider: string): boolean {
  return provider !== 'sandbox' || offer.sandboxEnabled;
}

/** The payment method object of the Embed API (spec: Resources, Payment method). */
export interface PaymentMethodView {
  id: PaymentMethodId;
  name_ar: string;
  name_en: string;
  icon: string;
}

/** Display names and icon keys. The icon key is the method id: widgets map it to their own artwork. */
export const PAYMENT_METHOD_NAMES: Readonly<Record<PaymentMethodId, Omit<PaymentMethodView, 'id'>>> = {
  card: { name_ar: 'بطاقة ائتمانية', name_en: 'Credit card', icon: 'card' },
  mada: { name_ar: 'مدى', name_en: 'Mada', icon: 'mada' },
  stcpay: { name_ar: 'STC Pay', name_en: 'STC Pay', icon: 'stcpay' },
  applepay: { name_ar: 'Apple Pay', name_en: 'Apple Pay', icon: 'applepay' },
  paypal: { name_ar: 'باي بال', name_en: 'PayPal', icon: 'paypal' },
  bank: { name_ar: 'تحويل بنكي', name_en: 'Bank transfer', icon: 'bank' },
  coinbase: { name_ar: 'عملات رقمية', name_en: 'Cryptocurrency', icon: 'coinbase' },
};

export function paymentMethodView(method: PaymentMethodId): PaymentMethodView {
  return { id: method, ...PAYMENT_METHOD_NAMES[method] };
}

export interface MethodFilter {
  /** The amount to be paid: methods whose minimum is above it or maximum below it are left out. */
  amountMinor?: number;
  /** A coupon's payment restrictions; empty means any method. */
  restrictions?: readonly string[];
}

/** Whether one configured method can take a payment of this amount under these restrictions. */
export function methodAccepts(
  method: Pick<StorePaymentMethod, 'method' | 'min_amount_minor' | 'max_amount_minor'>,
  filter: MethodFilter,
): boolean {
  const { amountMinor, restrictions = [] } = filter;
  if (restrictions.length > 0 && !restrictions.includes(method.method)) return false;
  if (amountMinor === undefined) return true;
  if (method.min_amount_minor !== null && amountMinor < method.min_amount_minor) return false;
  if (method.max_amount_minor !== null && amountMinor > method.max_amount_minor) return false;
  return true;
}

/** The store's active methods that this deployment offers, in the merchant's order. */
export async function activeMethods(
  knex: Knex,
  storeId: number,
  offer: MethodOffer,
): Promise<StorePaymentMethod[]> {
  const methods = await StorePaymentMethod.query(knex)
    .where({ store_id: storeId, active: true })
    .orderBy([{ column: 'position' }, { column: 'id' }]);
  return methods.filter((m) => providerOffered(offer, m.provider));
}

/** The store's active methods that can take this payment, as the Embed API shows them. */
export async function availablePaymentMethods(
  knex: Knex,
  storeId: number,
  filter: MethodFilter,
  offer: MethodOffer,
): Promise<PaymentMethodView[]> {
  const methods = await activeMethods(knex, storeId, offer);
  return methods.filter((m) => methodAccepts(m, filter)).map((m) => paymentMethodView(m.method));
}
