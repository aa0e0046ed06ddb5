import { expect } from 'chai';
import { FixtureError, loadFixture, type StoreManifest } from '../../../shared/services/seed';
import { createStore } from '../../helpers/builders';
import { usePaymentsSuite } from '../payments/support';

/**
 * The store's slug and the bilingual catalogue through the Merchant API (docs/store-pages.md): read and
 * change the slug (validated, unique under concurrent claims), the Arabic and English texts of products,
 * categories and custom field labels.
 */

const store = (ref: string, token: string) => ({
  ref,
  name: `Store ${ref}`,
  currency: 'SAR',
  plan: 'paid',
  merchant_tokens: [token],
  payment_methods: { card: { provider: 'sandbox' } },
});

describe('store pages: the Merchant API', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite({ workers: false });
  let a: StoreManifest;
  const A = { Authorization: 'Bearer mt_i42_merchant_a_0001' };
  const B = { Authorization: 'Bearer mt_i42_merchant_b_0001' };

  before(async () => {
    const manifest = await loadFixture(suite.deps, {
      stores: [
        store('i42_Merchant.A', 'mt_i42_merchant_a_0001'),
        store('i42-merchant-b', 'mt_i42_merchant_b_0001'),
      ],
    });
    a = manifest.stores['i42_Merchant.A'];
  });

  const req = (path: string, headers: Record<string, string>, method = 'GET', json?: unknown) =>
    suite.server.request(path, { method, headers, ...(json === undefined ? {} : { json }) });

  it('reads the slug (the fixture ref made an address) and changes it; the old address is gone', async () => {
    const got = await req('/shawarma/store', A);
    expect((got.body.data as { slug: string }).slug).to.equal('i42-merchant-a');
    const patched = await req('/shawarma/store', A, 'PATCH', {
      slug: 'i42-new-home',
      description: 'Fresh keys',
      accent_color: '#00AA55',
      policies: 'No refunds on used keys.',
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.data).to.include({
      slug: 'i42-new-home',
      description: 'Fresh keys',
      accent_color: '#00aa55',
      policies: 'No refunds on used keys.',
    });
    const page = await suite.server.request('/s/i42-new-home?lang=en');
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('Fresh keys').and.to.contain('--accent:#00aa55');
    expect((await suite.server.request('/s/i42-merchant-a')).status).to.equal(404);
  });

  it('refuses a malformed slug or one another store holds, naming slug', async () => {
    for (const slug of ['Bad Slug', '-x', 'a--b', 'x'.repeat(64), '']) {
      const res = await req('/shawarma/store', A, 'PATCH', { slug });
      expect(res.status, slug).to.equal(422);
      expect(res.body.errors).to.have.property('slug');
    }
    const taken = await req('/shawarma/store', A, 'PATCH', { slug: 'i42-merchant-b' });
    expect(taken.status).to.equal(422);
    expect(taken.body.errors).to.have.property('slug');
  });

  it('gives one slug to one store when two claim it at the same moment', async () => {
    const results = await Promise.all([
      req('/shawarma/store', A, 'PATCH', { slug: 'i42-contested' }),
      req('/shawarma/store', B, 'PATCH', { slug: 'i42-contested' }),
    ]);
    expect(results.map((r) => r.status).sort()).to.deep.equal([200, 422]);
    const holders = await suite.deps
      .knex('stores')
      .where('slug', 'i42-contested')
      .count<{ count: string }[]>();
    expect(Number(holders[0].count)).to.equal(1);
  });

  it('loads a fixture whose default slug is taken under the next free one; an explicit taken slug is refused', async () => {
    const first = await loadFixture(suite.deps, { stores: [store('i42.dup', 'mt_i42_dup_one_0001')] });
    const second = await loadFixture(suite.deps, { stores: [store('i42-dup', 'mt_i42_dup_two_0001')] });
    const slugOf = async (id: number) => (await suite.deps.knex('stores').where('id', id).first('slug')).slug;
    expect(await slugOf(first.stores['i42.dup'].id)).to.equal('i42-dup');
    expect(await slugOf(second.stores['i42-dup'].id)).to.equal('i42-dup-2');
    // Loading it again keeps it.
    const again = await loadFixture(suite.deps, { stores: [store('i42-dup', 'mt_i42_dup_two_0001')] });
    expect(await slugOf(again.stores['i42-dup'].id)).to.equal('i42-dup-2');
    let refused: unknown;
    try {
      await loadFixture(suite.deps, {
        stores: [{ ...store('i42-dup-3', 'mt_i42_dup_three_01'), slug: 'i42-dup' }],
      });
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(FixtureError);
    expect((refused as FixtureError).path).to.equal('stores[0].slug');
  });

  it('gives every new store a slug, as sign-up does', async () => {
    const created = await createStore({ name: 'Signed up' });
    const row = await suite.deps.knex('stores').where('id', created.id).first('slug');
    expect(row.slug).to.equal(`store-${created.id}`);
  });

  it('takes and shows name_ar, description_ar and label_ar on products, and name_ar on categories', async () => {
    const category = await req('/shawarma/categories', A, 'POST', {
      name: 'Tools',
      name_ar: 'أدوات',
      slug: 'i42-tools',
    });
    expect(category.status, category.text).to.equal(201);
    expect(category.body.data).to.include({ name: 'Tools', name_ar: 'أدوات' });
    const created = await req('/shawarma/products', A, 'POST', {
      name: 'Wrench',
      name_ar: 'مفتاح ربط',
      description: 'Turns bolts',
      description_ar: 'يدير البراغي',
      slug: 'wrench',
      type: 'service',
      price: '12.00',
      categories: [(category.body.data as { id: number }).id],
      fields: [
        {
          type: 'select',
          label: 'Size',
          label_ar: 'المقاس',
          required: true,
          options: [{ label: 'Small', label_ar: 'صغير', price: '0.00' }],
        },
      ],
    });
    expect(created.status, created.text).to.equal(201);
    const id = (created.body.data as { id: number }).id;
    const detail = await req(`/shawarma/products/${id}`, A);
    expect(detail.body.data).to.include({
      name_ar: 'مفتاح ربط',
      description: 'Turns bolts',
      description_ar: 'يدير البراغي',
    });
    const fields = (detail.body.data as { fields: { label_ar: string; options: { label_ar: string }[] }[] })
      .fields;
    expect(fields[0].label_ar).to.equal('المقاس');
    expect(fields[0].options[0].label_ar).to.equal('صغير');

    const patched = await req(`/shawarma/products/${id}`, A, 'PATCH', { name_ar: 'مفتاح' });
    expect(patched.status, patched.text).to.equal(200);
    expect((await req('/shawarma/store', A, 'PATCH', { slug: 'i42-new-home' })).status).to.equal(200);
    const ar = await suite.server.request('/s/i42-new-home/p/wrench?lang=ar');
    expect(ar.text)
      .to.contain('<h1><bdi>مفتاح</bdi></h1>')
      .and.to.contain('يدير البراغي')
      .and.to.contain('صغير');
    const en = await suite.server.request('/s/i42-new-home/p/wrench?lang=en');
    expect(en.text).to.contain('<h1><bdi>Wrench</bdi></h1>').and.to.contain('Small');
    const cat = await suite.server.request('/s/i42-new-home/c/i42-tools?lang=ar');
    expect(cat.text).to.contain('<h1>أدوات</h1>');
    expect(a.id).to.be.a('number');
  });
});
