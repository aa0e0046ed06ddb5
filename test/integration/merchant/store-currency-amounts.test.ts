import { expect } from 'chai';
import { ORDER_STATUS } from '../../../db/models';
import { randomToken, sha256 } from '../../../shared/crypto';
import type { TestResponse } from '../../helpers/http';
import {
  call,
  createProduct,
  expectEnvelope,
  merchantStore,
  MerchantStore,
  seedOrder,
  useMerchantSuite,
} from './support';

const fieldErrors = (res: TestResponse): Record<string, string[]> =>
  res.body.errors as Record<string, string[]>;

/**
 * Every amount the Merchant API takes is read in the store's own currency (ISO 4217 decimals): "10" on a
 * JPY store is ¥10, "1.250" on a KWD store is 1.250 KWD, "10.00" on a SAR store is 10.00 SAR; an amount
 * with more decimals than the currency has is a 422 naming the field, never a scaled amount.
 */
describe('Merchant API: amounts in the store’s currency', () => {
  const suite = useMerchantSuite();

  /** A store in `currency` with an order of `paidMinor`, paid by bank transfer (a manual refund, succeeded at once). */
  async function bankPaidOrder(
    currency: string,
    paidMinor: number,
  ): Promise<{ m: MerchantStore; orderId: number }> {
    const m = await merchantStore({ currency });
    const product = await createProduct(m.store, { price_minor: paidMinor });
    const { knex } = suite.deps;
    const [checkout] = await knex('checkouts')
      .insert({
        store_id: m.store.id,
        token_hash: sha256(randomToken()),
        customer_first_name: 'S',
        customer_last_name: 'A',
        customer_email: 's@example.com',
        customer_country_code: '966',
        customer_phone: '500000001',
        product_id: product.id,
        quantity: 1,
        unit_price_minor: paidMinor,
        subtotal_minor: paidMinor,
        total_minor: paidMinor,
        currency,
        status: 'paid',
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .returning('id');
    const [payment] = await knex('payments')
      .insert({
        checkout_id: (checkout as { id: number }).id,
        store_id: m.store.id,
        method: 'bank',
        provider: 'bank',
        status: 'paid',
        amount_minor: paidMinor,
        currency,
        paid_at: new Date(),
      })
      .returning('id');
    const order = await seedOrder(knex, m.store, product, {
      status: ORDER_STATUS.IN_PROGRESS,
      paymentId: Number((payment as { id: number }).id),
      paymentMethod: 'bank',
      totalMinor: paidMinor,
    });
    return { m, orderId: order.id };
  }

  const refund = (m: MerchantStore, orderId: number, amount: string) =>
    call(suite.server, m.token, 'POST', `/shawarma/orders/${orderId}/refunds`, { amount });

  for (const { currency, paid, amount, minor, left, tooPrecise } of [
    { currency: 'JPY', paid: 5_000, amount: '10', minor: 10, left: '4990', tooPrecise: '10.5' },
    { currency: 'KWD', paid: 50_000, amount: '1.250', minor: 1_250, left: '48.750', tooPrecise: '1.2501' },
    { currency: 'SAR', paid: 50_000, amount: '10.00', minor: 1_000, left: '490.00', tooPrecise: '10.001' },
  ]) {
    it(`a refund of "${amount}" on a ${currency} store moves exactly that; more decimals is a 422 naming amount`, async () => {
      const { m, orderId } = await bankPaidOrder(currency, paid);
      const bad = await refund(m, orderId, tooPrecise);
      expectEnvelope(bad, 422);
      expect(Object.keys(fieldErrors(bad))).to.deep.equal(['amount']);
      expect(await suite.deps.knex('refunds').where('order_id', orderId)).to.have.length(0);

      const res = await refund(m, orderId, amount);
      expectEnvelope(res, 201);
      const made = (res.body.data as { refund: { id: number; amount: string } }).refund;
      expect(made.amount).to.equal(amount);
      const row = await suite.deps.knex('refunds').where('id', made.id).first();
      expect(Number(row.amount_minor)).to.equal(minor);
      expect(row.currency).to.equal(currency);
      expect(row.note).to.contain(`${amount} ${currency}`);

      const listed = await call(suite.server, m.token, 'GET', `/shawarma/orders/${orderId}/refunds`);
      expectEnvelope(listed, 200);
      const summary = (listed.body.data as { summary: Record<string, string> }).summary;
      expect(summary).to.include({ currency, refundable: left });
      // What is left, in the currency's own form, is refunded in full: the payment is refunded.
      const rest = await refund(m, orderId, left);
      expectEnvelope(rest, 201);
      expect((rest.body.data as { refund: { amount: string } }).refund.amount).to.equal(left);
      const payment = await suite.deps.knex('payments').where('id', row.payment_id).first();
      expect(payment.status).to.equal('refunded');
    });
  }

  for (const { currency, min, max, minMinor, maxMinor, tooPrecise } of [
    { currency: 'JPY', min: '100', max: '50000', minMinor: 100, maxMinor: 50_000, tooPrecise: '100.5' },
    { currency: 'KWD', min: '0.500', max: '250.125', minMinor: 500, maxMinor: 250_125, tooPrecise: '0.5005' },
    { currency: 'SAR', min: '5.00', max: '900.50', minMinor: 500, maxMinor: 90_050, tooPrecise: '5.001' },
  ]) {
    it(`payment-method bounds on a ${currency} store are stored and answered in ${currency}; more decimals is a 422`, async () => {
      const m = await merchantStore({ currency });
      const patch = (bounds: Record<string, string>) =>
        call(suite.server, m.token, 'PATCH', '/shawarma/store', {
          payment_methods: {
            bank: {
              bank_name: 'Bank',
              account_name: 'Store',
              account_number: '0001',
              iban: 'SA0380000000608010167519',
              ...bounds,
            },
          },
        });
      const bad = await patch({ min_amount: tooPrecise, max_amount: max });
      expectEnvelope(bad, 422);
      expect(Object.keys(fieldErrors(bad))).to.deep.equal(['payment_methods.bank.min_amount']);
      expect(await suite.deps.knex('store_payment_methods').where('store_id', m.store.id)).to.have.length(0);

      const res = await patch({ min_amount: min, max_amount: max });
      expectEnvelope(res, 200);
      const bank = (res.body.data as { payment_methods: { method: string }[] }).payment_methods.find(
        (p) => p.method === 'bank',
      );
      expect(bank).to.deep.include({ min_amount: min, max_amount: max });
      const row = await suite.deps
        .knex('store_payment_methods')
        .where({ store_id: m.store.id, method: 'bank' })
        .first();
      expect([Number(row.min_amount_minor), Number(row.max_amount_minor)]).to.deep.equal([
        minMinor,
        maxMinor,
      ]);
      const read = await call(suite.server, m.token, 'GET', '/shawarma/store');
      expect(
        (read.body.data as { payment_methods: { method: string }[] }).payment_methods.find(
          (p) => p.method === 'bank',
        ),
      ).to.deep.include({ min_amount: min, max_amount: max });
    });
  }

  it('a fixed coupon and its minimum order on a JPY store are whole yen; "10.5" is a 422 naming the field', async () => {
    const m = await merchantStore({ currency: 'JPY' });
    const coupon = (body: Record<string, unknown>) =>
      call(suite.server, m.token, 'POST', '/shawarma/coupons', {
        code: `C${randomToken(4)}`,
        type: 'fixed',
        ...body,
      });
    const bad = await coupon({ amount: '10.5', min_order: '1000.25' });
    expectEnvelope(bad, 422);
    expect(Object.keys(fieldErrors(bad)).sort()).to.deep.equal(['amount', 'min_order']);
    expect(await suite.deps.knex('coupons').where('store_id', m.store.id)).to.have.length(0);
    const ok = await coupon({ amount: '300', min_order: '1000' });
    expectEnvelope(ok, 201);
    expect(ok.body.data).to.deep.include({ amount: '300', min_order: '1000' });
    const row = await suite.deps.knex('coupons').where('store_id', m.store.id).first();
    expect([Number(row.amount), Number(row.min_order_minor)]).to.deep.equal([300, 1000]);
  });
});
