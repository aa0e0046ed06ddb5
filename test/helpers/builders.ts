import crypto from 'node:crypto';
import { Category, Customer, Product, Store, StorePaymentMethod } from '../../db/models';
import { issueCustomerToken, issueMerchantToken, TokenKind } from '../../shared/services/tokens';

/** Data builders for tests: each row with sane defaults, any column overridable. */
const uniq = (): string => crypto.randomBytes(4).toString('hex');

export async function createStore(
  overrides: Omit<Partial<Store>, 'domains' | 'payment_methods'> & { domains?: string[] } = {},
): Promise<Store> {
  const { domains = [], ...columns } = overrides;
  const store = await Store.query().insertAndFetch({
    name: `Store ${uniq()}`,
    currency: 'SAR',
    plan: 'paid',
    tax_mode: 'none',
    tax_rate_bp: 0,
    embed_key: `emb_pk_test_${uniq()}${uniq()}`,
    allowed_origins: [],
    ...columns,
  });
  // Verified, as a fixture's domains are: they pick the store for Storefront requests.
  for (const domain of domains) {
    await store
      .$relatedQuery('domains')
      .insert({ domain, txt_value: `matjar-verify=test-${uniq()}`, verified_at: new Date() });
  }
  return store;
}

export async function createPaymentMethod(
  store: Store,
  overrides: Partial<StorePaymentMethod> = {},
): Promise<StorePaymentMethod> {
  return StorePaymentMethod.query().insertAndFetch({
    store_id: store.id,
    method: 'card',
    provider: 'sandbox',
    settings: {},
    ...overrides,
  });
}

export async function createCategory(store: Store, overrides: Partial<Category> = {}): Promise<Category> {
  const slug = `cat-${uniq()}`;
  return Category.query().insertAndFetch({ store_id: store.id, name: slug, slug, ...overrides });
}

export async function createProduct(store: Store, overrides: Partial<Product> = {}): Promise<Product> {
  const slug = `product-${uniq()}`;
  return Product.query().insertAndFetch({
    store_id: store.id,
    name: `Product ${slug}`,
    slug,
    type: 'product',
    price_minor: 5_000,
    sale_price_minor: null,
    active: true,
    stock: null,
    fields: [],
    ...overrides,
  });
}

let phoneSeq = 100_000;
export async function createCustomer(store: Store, overrides: Partial<Customer> = {}): Promise<Customer> {
  phoneSeq += 1;
  const phone = overrides.phone ?? `5${String(phoneSeq).padStart(8, '0')}`;
  const countryCode = overrides.country_code ?? '966';
  return Customer.query().insertAndFetch({
    store_id: store.id,
    first_name: 'Test',
    last_name: 'Customer',
    email: `c${phoneSeq}@example.com`,
    country_code: countryCode,
    phone,
    e164: `${countryCode}${phone}`,
    ...overrides,
  });
}

export async function customerToken(customer: Customer, kind: TokenKind): Promise<string> {
  return (await issueCustomerToken(customer, kind, Customer.knex())).token;
}

export async function merchantToken(store: Store): Promise<string> {
  return issueMerchantToken(Store.knex(), store.id);
}
