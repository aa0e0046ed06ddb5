import { expect } from 'chai';
import { Store } from '../../../db/models';
import { randomToken, sha256 } from '../../../shared/crypto';
import { createSession, formToken } from '../../../shared/services/staff/sessions';
import { createFivemServer, revokeFivemServers } from '../../../shared/services/fivem/servers';
import { loadFixture } from '../../../shared/services/seed';
import { randomIp } from '../../helpers/otp';
import { guestInitiate, statusOf, usePaymentsSuite, waitFor } from '../payments/support';
import { dashboardForm, type DashboardLogin } from './support';

/**
 * The dashboard's product form by type and a product's own page (docs/dashboard.md, "The product form by
 * type", "A product's keys"): each type renders only its sections and the server reads only those; a code
 * product's stock is its keys left; its keys are listed masked with Delete for unsold ones only, a sold
 * key refused, and a delete racing a sale never takes a key both ways; custom fields' Arabic labels saved
 * through the form are what the Embed API and the store page show Arabic readers.
 */

const TYPED_SECTIONS = ['stock', 'keys', 'files', 'plans', 'license', 'fivem'];

/** The form's type-dependent sections as rendered: each one's name and whether it is shown. */
function sectionsOf(html: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const m of html.matchAll(
    /<fieldset class="plain" data-section="(\w+)" data-types="[^"]*"( hidden disabled)?>/g,
  )) {
    out[m[1]!] = m[2] === undefined;
  }
  return out;
}
const shown = (html: string): string[] =>
  Object.entries(sectionsOf(html))
    .filter(([name, visible]) => visible && TYPED_SECTIONS.includes(name))
    .map(([name]) => name)
    .sort();

describe('dashboard: the product form by type, a product’s keys and Arabic field labels', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let owner: DashboardLogin;
  let phoneSeq = 0;

  /** A signed-in owner whose phone is in this file's range (5961xxxxx). */
  async function login(storeId: number): Promise<DashboardLogin> {
    const phone = `5961${String(10_000 + phoneSeq++ * 7 + Math.floor(Math.random() * 5)).padStart(5, '0')}`;
    const [user] = await suite.deps
      .knex('merchant_users')
      .insert({ name: `Owner ${randomToken(3)}`, country_code: '966', phone, e164: `966${phone}` })
      .returning('id');
    const userId = Number((user as { id: number }).id);
    await suite.deps
      .knex('store_members')
      .insert({ store_id: storeId, merchant_user_id: userId, role: 'owner' });
    const token = await createSession(suite.deps.knex, userId, storeId, 'test');
    return {
      userId,
      cookie: `matjar_merchant=${token}`,
      csrf: formToken(suite.deps.appSecret, { token_hash: sha256(token) }),
    };
  }

  before(async () => {
    const slug = `t-product-${randomToken(4)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`;
    const m = await loadFixture(suite.deps, {
      stores: [
        {
          ref: slug,
          slug,
          name: 'Form by type',
          currency: 'SAR',
          payment_methods: { card: { provider: 'sandbox' } },
          products: [],
        },
      ],
    });
    store = await Store.query(suite.deps.knex).findById(m.stores[slug]!.id).throwIfNotFound();
    owner = await login(store.id);
  });

  const get = (path: string) =>
    suite.server.request(path, { headers: { cookie: owner.cookie }, redirect: 'manual' });
  const post = (path: string, fields: Record<string, string | string[]>) =>
    suite.server.request(path, { ...dashboardForm(owner, fields), redirect: 'manual' });
  const created = (res: { status: number; headers: Headers; text: string }): number => {
    expect(res.status, res.text.slice(0, 2000)).to.equal(303);
    return Number(/\/merchant\/products\/(\d+)\?saved=1/.exec(res.headers.get('location') ?? '')![1]);
  };
  const base = { name: 'Thing', price: '10.00', active: '1' };

  it('renders only the sections of the type asked for, every section before a type is chosen', async () => {
    const expected: Record<string, string[]> = {
      product: ['license', 'stock'],
      code: ['keys'],
      service: ['license', 'stock'],
      subscription: ['license', 'plans', 'stock'],
    };
    for (const [type, sections] of Object.entries(expected)) {
      const res = await get(`/merchant/products/new?type=${type}&lang=en`);
      expect(res.status).to.equal(200);
      expect(shown(res.text), type).to.deep.equal(sections);
      // The other types' sections are there for the script, hidden and disabled (nothing of them is sent).
      const hidden = Object.entries(sectionsOf(res.text))
        .filter(([, v]) => !v)
        .map(([k]) => k);
      expect(hidden.sort()).to.deep.equal(
        ['keys', 'license', 'plans', 'stock'].filter((s) => !sections.includes(s)).sort(),
      );
      expect(res.text).to.contain(`<option value="${type}" selected>`);
    }
    const all = await get('/merchant/products/new?lang=ar');
    expect(shown(all.text)).to.deep.equal(['keys', 'license', 'plans', 'stock']);
    expect(all.text).to.contain('src="/merchant/assets/product-form.js"').and.to.contain('dir="rtl"');
    expect(all.text).to.contain('لـ: مفاتيح أكواد');
    const script = await suite.server.request('/merchant/assets/product-form.js');
    expect(script.status).to.equal(200);
    expect(script.text).to.contain('data-types');
    // FiveM is a store's switch: its section appears once the store has a live game server.
    expect(sectionsOf(all.text)).to.not.have.property('fivem');
    const server = await createFivemServer(suite.deps.knex, store.id, 'Form by type');
    try {
      const on = await get('/merchant/products/new?type=code&lang=en');
      expect(shown(on.text)).to.deep.equal(['fivem', 'keys']);
    } finally {
      await revokeFivemServers(suite.deps.knex, store.id, { id: server.id });
    }
  });

  it('reads only the chosen type’s fields: another type’s are ignored, never saved', async () => {
    const other = {
      codes: 'IGNORED-1\nIGNORED-2',
      plan_name: ['Monthly', ''],
      plan_price: ['not money', ''],
      plan_duration: ['monthly', 'monthly'],
      plan_id: ['', ''],
      fivem: 'give {player} car',
    };
    // A digital product: keys, plans (even a bad plan row) and FiveM (off for this store) are ignored.
    const productId = created(
      await post('/merchant/products?lang=en', { ...base, type: 'product', stock: '7', ...other }),
    );
    const knex = suite.deps.knex;
    expect(await knex('product_codes').where('product_id', productId)).to.have.length(0);
    expect(await knex('product_plans').where('product_id', productId)).to.have.length(0);
    expect(await knex('product_fivem_commands').where('product_id', productId)).to.have.length(0);
    expect((await knex('products').where('id', productId).first()).stock).to.equal(7);

    // A code product: its stock is its keys (the stock field ignored), plans and the license ignored.
    const codeId = created(
      await post('/merchant/products?lang=en', {
        ...base,
        name: 'Keys',
        type: 'code',
        stock: '50',
        license_on: '1',
        license_prefix: 'NOPE',
        ...other,
      }),
    );
    const code = await knex('products').where('id', codeId).first();
    expect(code.stock).to.equal(null);
    expect(code.license_enabled).to.equal(false);
    expect(
      await knex('product_codes').where('product_id', codeId).orderBy('code').pluck('code'),
    ).to.deep.equal(['IGNORED-1', 'IGNORED-2']);
    expect(await knex('product_plans').where('product_id', codeId)).to.have.length(0);

    // A subscription reads its plans: one without any is refused, naming the plans.
    const none = await post('/merchant/products?lang=en', { ...base, type: 'subscription', codes: 'K-1' });
    expect(none.status).to.equal(422);
    expect(none.text).to.contain('id="plans-error"');
    expect(shown(none.text)).to.deep.equal(['license', 'plans', 'stock']);
    const subId = created(
      await post('/merchant/products?lang=en', {
        ...base,
        name: 'Club',
        type: 'subscription',
        codes: 'K-1',
        plan_name: ['Monthly', ''],
        plan_price: ['9.99', ''],
        plan_duration: ['monthly', 'monthly'],
        plan_id: ['', ''],
      }),
    );
    expect(await knex('product_plans').where('product_id', subId).pluck('price_minor')).to.deep.equal([999]);
    expect(await knex('product_codes').where('product_id', subId)).to.have.length(0);

    // A save of the code product with plan rows and a license leaves them off; its edit page shows its sections.
    const saved = await post(`/merchant/products/${codeId}?lang=en`, {
      ...base,
      name: 'Keys',
      type: 'code',
      license_on: '1',
      license_prefix: 'NOPE',
      ...other,
      codes: 'IGNORED-3',
    });
    expect(saved.status, saved.text.slice(0, 500)).to.equal(303);
    expect((await knex('products').where('id', codeId).first()).license_enabled).to.equal(false);
    expect(await knex('product_codes').where('product_id', codeId)).to.have.length(3);
    const page = await get(`/merchant/products/${codeId}?lang=en`);
    expect(shown(page.text)).to.deep.equal(['keys']);
    const digital = await get(`/merchant/products/${productId}?lang=en`);
    expect(shown(digital.text)).to.deep.equal(['files', 'license', 'stock']);
  });

  async function codeProduct(keys: string[]): Promise<number> {
    return created(
      await post('/merchant/products?lang=en', {
        ...base,
        name: `Keys ${randomToken(3)}`,
        type: 'code',
        codes: keys.join('\n'),
      }),
    );
  }

  it('shows a code product’s stock as its keys left on the list and its page, never unlimited', async () => {
    const id = await codeProduct(['STOCK-AAAA-0001', 'STOCK-AAAA-0002', 'STOCK-AAAA-0003']);
    const list = await get('/merchant/products?lang=en');
    const row = new RegExp(`data-product-id="${id}"[\\s\\S]*?</tr>`).exec(list.text)![0];
    expect(row).to.contain('data-keys-left="3"').and.to.contain('3 keys left');
    expect(row).to.not.contain('Unlimited');
    const page = await get(`/merchant/products/${id}?lang=ar`);
    expect(page.text).to.contain('data-keys-left="3"').and.to.contain('المتبقي 3 من الأكواد');
    expect(page.text).to.not.contain('غير محدود</');
    expect(page.text).to.contain('data-key-count="available">3<');
    const empty = await codeProduct([]);
    const none = await get('/merchant/products?lang=en');
    const emptyRow = new RegExp(`data-product-id="${empty}"[\\s\\S]*?</tr>`).exec(none.text)![0];
    expect(emptyRow).to.contain('0 keys left').and.to.not.contain('Unlimited');
  });

  /** Opens an Embed API checkout of one key; answers the HTTP answer. */
  const checkout = (productId: number, phone: string) =>
    suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: {
        product_id: productId,
        quantity: 1,
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: `buyer-${phone}@t-product.test`,
        customer_phone: phone,
        customer_country_code: '966',
      },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });

  async function pay(checkoutUrl: string): Promise<void> {
    const initiated = await guestInitiate(suite.server, store, checkoutUrl, 'card');
    expect(initiated.status, initiated.text).to.equal(200);
    const redirect = new URL((initiated.body.data as { redirect_url: string }).redirect_url);
    const paid = await fetch(`${suite.server.url}${redirect.pathname}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': randomIp() },
      body: new URLSearchParams({ outcome: 'paid' }).toString(),
    });
    expect(paid.status).to.equal(200);
    await paid.text();
    await waitFor('the paid checkout’s order', async () => {
      const data = (await statusOf(suite.server, checkoutUrl)).body.data as { order_id: number | null };
      return data.order_id ?? undefined;
    });
  }

  it('lists the keys masked, deletes an unsold one (audited) and refuses a sold one with a clear 409', async () => {
    const id = await codeProduct(['LIST-KEY-AAAA-1111', 'LIST-KEY-BBBB-2222', 'LIST-KEY-CCCC-3333']);
    const knex = suite.deps.knex;
    const opened = await checkout(id, '596100901');
    expect(opened.status, opened.text).to.equal(200);
    await pay((opened.body.data as { checkout_url: string }).checkout_url);
    const sold = (await waitFor('a sold key', async () =>
      knex('product_codes').where({ product_id: id, status: 'sold' }).first('id', 'code'),
    )) as { id: number; code: string };
    const page = await get(`/merchant/products/${id}?lang=en`);
    expect(page.text).to.contain('data-key-count="available">2<').and.to.contain('data-key-count="sold">1<');
    // Masked to the last four characters: the whole key is never on the page.
    for (const code of ['LIST-KEY-AAAA-1111', 'LIST-KEY-BBBB-2222', 'LIST-KEY-CCCC-3333']) {
      expect(page.text).to.not.contain(code);
      expect(page.text).to.contain(`••••${code.slice(-4)}`);
    }
    // A Delete form (with the form token) for each unsold key, none for the sold one.
    expect(page.text).to.not.contain(`/keys/${sold.id}/delete`);
    const unsold = await knex('product_codes').where({ product_id: id, status: 'available' }).orderBy('id');
    for (const k of unsold)
      expect(page.text).to.contain(`action="/merchant/products/${id}/keys/${k.id}/delete"`);

    // Without the form token: refused, nothing deleted.
    const forged = await suite.server.request(`/merchant/products/${id}/keys/${unsold[0].id}/delete`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: owner.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: '_csrf=wrong',
    });
    expect(forged.status).to.equal(403);
    expect(await knex('product_codes').where('id', unsold[0].id)).to.have.length(1);

    const del = await post(`/merchant/products/${id}/keys/${unsold[0].id}/delete?lang=en`, {});
    expect(del.status).to.equal(303);
    expect(del.headers.get('location')).to.equal(`/merchant/products/${id}?key_deleted=1#keys`);
    expect(await knex('product_codes').where('id', unsold[0].id)).to.have.length(0);
    const audit = await knex('merchant_audit_events')
      .where({
        store_id: store.id,
        resource_type: 'product',
        resource_id: id,
        action: 'product.codes_withdrawn',
      })
      .first();
    expect(audit.actor).to.match(/^dashboard:\+9665961/);
    expect(audit.changes).to.include({
      withdrawn: 1,
      key_id: unsold[0].id,
      last4: String(unsold[0].code).slice(-4),
    });
    const after = await get(`/merchant/products/${id}?key_deleted=1&lang=en`);
    expect(after.text).to.contain('The key was deleted.');
    expect(after.text)
      .to.contain('data-key-count="available">1<')
      .and.to.contain('data-key-count="withdrawn">1<')
      .and.to.contain('data-keys-left="1"');

    // The sold key: refused in the page's language, kept sold.
    const refused = await post(`/merchant/products/${id}/keys/${sold.id}/delete?lang=ar`, {});
    expect(refused.status).to.equal(409);
    expect(refused.text).to.contain('data-keys-error').and.to.contain('هذا المفتاح مباع');
    const refusedEn = await post(`/merchant/products/${id}/keys/${sold.id}/delete?lang=en`, {});
    expect(refusedEn.status).to.equal(409);
    expect(refusedEn.text).to.contain(
      'This key is sold: it belongs to its buyer’s order and cannot be deleted.',
    );
    expect((await knex('product_codes').where('id', sold.id).first()).status).to.equal('sold');
    // A key of another product, or none: 404.
    const other = await codeProduct(['OTHER-KEY-9999']);
    const foreign = await post(`/merchant/products/${other}/keys/${unsold[1].id}/delete?lang=en`, {});
    expect(foreign.status).to.equal(404);
    expect(await knex('product_codes').where('id', unsold[1].id)).to.have.length(1);
  });

  it('a delete racing a checkout for the last key: the key is either taken by the checkout or deleted, never both', async () => {
    const knex = suite.deps.knex;
    const outcomes = { deleted: 0, sold: 0 };
    // Either order may win a round; the other is then refused (the delete 409, the checkout out_of_stock).
    for (let round = 0; round < 8; round++) {
      const id = await codeProduct([`RACE-${round}-${randomToken(4)}`]);
      const key = await knex('product_codes').where('product_id', id).first('id');
      const [del, buy] = await Promise.all([
        post(`/merchant/products/${id}/keys/${key.id}/delete?lang=en`, {}),
        checkout(id, `5961002${String(round).padStart(2, '0')}`),
      ]);
      const row = await knex('product_codes').where('id', key.id).first();
      if (del.status === 303) {
        outcomes.deleted++;
        expect(row, `round ${round}: deleted`).to.equal(undefined);
        expect(buy.status, buy.text).to.not.equal(200);
        expect(buy.text).to.contain('out_of_stock');
      } else {
        outcomes.sold++;
        expect(del.status, `round ${round}`).to.equal(409);
        expect(buy.status, buy.text).to.equal(200);
        expect(row.status).to.equal('reserved');
        expect(Number(row.checkout_id)).to.equal((buy.body.data as { checkout_id: number }).checkout_id);
      }
    }
    expect(outcomes.deleted + outcomes.sold).to.equal(8);
  });

  it('a delete that waits on a checkout’s lock of the key re-reads it: the checkout took it, the delete is refused', async () => {
    const knex = suite.deps.knex;
    const id = await codeProduct([`LOCKED-${randomToken(4)}`]);
    const key = await knex('product_codes').where('product_id', id).first('id');
    // The checkout's reservation, held open: the key row locked as reserve() locks it, then moved to reserved.
    const trx = await knex.transaction();
    let settled = false;
    try {
      await trx('product_codes').where({ id: key.id, status: 'available' }).forUpdate().first('id');
      const del = post(`/merchant/products/${id}/keys/${key.id}/delete?lang=en`, {}).finally(() => {
        settled = true;
      });
      // The delete waits on the row lock (it has not answered while the checkout's transaction is open).
      await waitFor('the delete to wait on the row lock', async () => {
        const rows = await knex.raw(
          "select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'delete from \"product_codes\"%'",
        );
        return rows.rows.length > 0 ? true : undefined;
      });
      expect(settled).to.equal(false);
      await trx('product_codes').where('id', key.id).update({ status: 'reserved' });
      await trx.commit();
      const res = await del;
      expect(res.status).to.equal(409);
      expect(res.text).to.contain('A checkout in progress holds this key');
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
    expect((await knex('product_codes').where('id', key.id).first()).status).to.equal('reserved');
  });

  it('saves custom fields’ Arabic labels from the form; the Embed API and the store page show them in Arabic', async () => {
    const fields = {
      field_label: ['Player name', 'Colour', ''],
      field_label_ar: ['اسم اللاعب', 'اللون', ''],
      field_type: ['text', 'select', 'text'],
      field_options: ['', 'Red\nBlue | 5.00', ''],
      field_options_ar: ['', 'أحمر\nأزرق', ''],
      field_required: ['0'],
    };
    const id = created(
      await post('/merchant/products?lang=ar', {
        ...base,
        name: 'Skin',
        name_ar: 'شكل',
        type: 'product',
        ...fields,
      }),
    );
    const embed = (lang: string) =>
      suite.server.request(`/api/embed/product/${id}`, {
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp(), 'Accept-Language': lang },
      });
    type EmbedField = {
      label: string;
      label_ar: string | null;
      options: { label: string; label_ar: string | null }[];
    };
    const ar = await embed('ar');
    expect(ar.status, ar.text).to.equal(200);
    const arFields = (ar.body.data as { name: string; fields: EmbedField[] }).fields;
    expect(arFields.map((f) => f.label)).to.deep.equal(['اسم اللاعب', 'اللون']);
    expect(arFields[1]!.options.map((o) => o.label)).to.deep.equal(['أحمر', 'أزرق']);
    const en = await embed('en');
    const enFields = (en.body.data as { fields: EmbedField[] }).fields;
    expect(enFields.map((f) => f.label)).to.deep.equal(['Player name', 'Colour']);
    expect(enFields[0]!.label_ar).to.equal('اسم اللاعب');

    const slug = (await suite.deps.knex('products').where('id', id).first('slug')).slug as string;
    const storePage = await suite.server.request(`/s/${store.slug}/p/${slug}?lang=ar`, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(storePage.status).to.equal(200);
    expect(storePage.text).to.contain('اسم اللاعب').and.to.contain('أحمر');

    // The form shows them again, and a save that leaves them as they are keeps them.
    const form = await get(`/merchant/products/${id}?lang=en`);
    expect(form.text).to.contain(
      'name="field_label_ar" maxlength="200" dir="rtl" lang="ar" value="اسم اللاعب"',
    );
    expect(form.text).to.contain('>أحمر\nأزرق</textarea>');
    const again = await post(`/merchant/products/${id}?lang=en`, {
      ...base,
      name: 'Skin 2',
      type: 'product',
      ...fields,
    });
    expect(again.status).to.equal(303);
    const stored = (await suite.deps.knex('products').where('id', id).first('fields')).fields as EmbedField[];
    expect(stored.map((f) => f.label_ar)).to.deep.equal(['اسم اللاعب', 'اللون']);
    // An Arabic option line more than the options is refused, naming the fields.
    const tooMany = await post(`/merchant/products/${id}?lang=en`, {
      ...base,
      type: 'product',
      ...fields,
      field_options_ar: ['', 'أحمر\nأزرق\nأخضر', ''],
    });
    expect(tooMany.status).to.equal(422);
    expect(tooMany.text).to.contain('id="fields-error"');
  });
});
