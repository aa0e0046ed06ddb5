import { expect } from 'chai';
import crypto from 'node:crypto';
import { ORDER_STATUS, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { FixtureError, loadFixture } from '../../../shared/services/seed';
import { FIRST_PREVIOUS_HASH } from '../../../shared/services/einvoicing/ubl';
import { createOrderFromCheckout } from '../../../shared/services/orders/create-from-checkout';
import { insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { recomputeHash, tlvFields } from '../../helpers/einvoice-check';
import { startServer, type TestServer } from '../../helpers/http';

/** The operator contract's fixture key `einvoicing: "simulation"` and the invoice answer's phase-2 fields. */
describe('e-invoicing: the simulation fixture and the invoice answer', function () {
  this.timeout(60_000);
  let deps: Deps;
  let server: TestServer;

  const fixture = (extra: Record<string, unknown> = {}) => ({
    stores: [
      {
        ref: `einv-${crypto.randomBytes(3).toString('hex')}`,
        name: 'Acme E-invoicing',
        currency: 'SAR',
        plan: 'paid',
        legal_name: 'شركة أكمي الرقمية',
        vat_number: '310122393500003',
        tax_mode: 'inclusive',
        tax_rate: '15',
        einvoicing: 'simulation',
        merchant_tokens: [`mt_i45_${crypto.randomBytes(8).toString('hex')}`],
        products: [
          {
            ref: 'ebook',
            name: 'E-book',
            slug: 'ebook',
            type: 'product',
            price: '115.00',
            active: true,
            stock: null,
          },
        ],
        ...extra,
      },
    ],
  });

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
  });
  after(() => server.close());

  it('a simulation store signs with a self-issued certificate; loading twice keeps it; GET invoice carries the pinned fields', async () => {
    const f = fixture();
    const manifest = await loadFixture(deps, f);
    const ref = f.stores[0]!.ref;
    const storeId = manifest.stores[ref]!.id;
    const settings = await deps.knex('einvoice_settings').where({ store_id: storeId }).first();
    expect(settings).to.include({ mode: 'simulation', status: 'active' });
    const cert = new crypto.X509Certificate(Buffer.from(settings.certificate, 'base64'));
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).to.equal('secp256k1');
    expect(cert.subject).to.contain('CN=Matjar-310122393500003');
    await loadFixture(deps, f);
    const again = await deps.knex('einvoice_settings').where({ store_id: storeId }).first();
    expect(again.certificate).to.equal(settings.certificate);

    const store = await Store.query(deps.knex).findById(storeId);
    const product = await Product.query(deps.knex).findById(manifest.stores[ref]!.products.ebook!.id);
    const orders: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { checkout } = await insertCheckout(store!, product!, { tax_minor: 1_500, tax_rate_bp: 1_500 });
      orders.push(
        await deps.tx(
          async (uow) =>
            (await createOrderFromCheckout(uow, checkout.id, { status: ORDER_STATUS.IN_PROGRESS })).order.id,
        ),
      );
    }
    const token = f.stores[0]!.merchant_tokens[0]!;
    const answer = async (id: number) => {
      const res = await server.request(`/shawarma/orders/${id}/invoice`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status, res.text).to.equal(200);
      return res.body.data as Record<string, unknown>;
    };
    const a = await answer(orders[0]!);
    const b = await answer(orders[1]!);
    expect(a).to.include({ counter: 1, previous_hash: FIRST_PREVIOUS_HASH, total: '115.00', vat: '15.00' });
    expect(b).to.include({ counter: 2, previous_hash: a.hash });
    expect(a.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((a.reporting as { status: string }).status).to.equal('pending');
    const xml = Buffer.from(String(a.xml), 'base64').toString('utf8');
    expect(recomputeHash(xml)).to.equal(a.hash);
    const qr = tlvFields(String(a.qr));
    expect(qr.get(1)!.toString('utf8')).to.equal('شركة أكمي الرقمية');
    expect(qr.get(6)!.toString()).to.equal(a.hash);
    const key = crypto.createPublicKey({ key: qr.get(8)!, format: 'der', type: 'spki' });
    expect(
      crypto.verify(
        'sha256',
        Buffer.from(String(a.hash), 'base64'),
        key,
        Buffer.from(qr.get(7)!.toString(), 'base64'),
      ),
    ).to.equal(true);
  });

  it('refuses einvoicing without a vat_number, naming the path', async () => {
    const f = fixture({ vat_number: undefined, tax_mode: 'none', tax_rate: '0' });
    try {
      await loadFixture(deps, f);
      expect.fail('loaded');
    } catch (err) {
      expect(err).to.be.instanceOf(FixtureError);
      expect((err as FixtureError).path).to.equal('stores[0].einvoicing');
    }
  });
});
