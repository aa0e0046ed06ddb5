import { expect } from 'chai';
import { randomIp } from '../../helpers/otp';
import { dashboardForm, dashboardLogin, type DashboardLogin } from '../dashboard/support';
import { usePaymentsSuite } from '../payments/support';
import { seedStore } from '../invoices/support';

/**
 * The dashboard's category form takes the Arabic name (name_ar): posted as a form, saved on the category,
 * shown in the list, and kept in the form when another field is refused (docs/store-pages.md).
 */
describe('dashboard categories: the Arabic name', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let storeId: number;
  let login: DashboardLogin;

  before(async () => {
    storeId = (await seedStore(suite)).store.id;
    login = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, storeId, 'owner');
  });

  const post = (fields: Record<string, string>): Promise<Response> =>
    fetch(`${suite.server.url}/merchant/categories?lang=en`, {
      ...dashboardForm(login, fields),
      redirect: 'manual',
      headers: { ...dashboardForm(login, fields).headers, 'X-Forwarded-For': randomIp() },
    });
  const list = async (lang: string): Promise<string> => {
    const res = await fetch(`${suite.server.url}/merchant/categories?lang=${lang}`, {
      headers: { cookie: login.cookie, 'X-Forwarded-For': randomIp() },
    });
    expect(res.status).to.equal(200);
    return res.text();
  };

  it('the form has a labelled Arabic name input in both languages', async () => {
    expect(await list('en')).to.match(
      /<label for="category-name-ar">Arabic name<\/label><input id="category-name-ar" name="name_ar" lang="ar" dir="rtl"/,
    );
    expect(await list('ar')).to.contain('<label for="category-name-ar">الاسم بالعربية</label>');
  });

  it('saves name_ar and shows it; an empty one is stored as none', async () => {
    const res = await post({ name: 'Gift cards', name_ar: '  بطاقات الهدايا ', slug: 'gift-cards' });
    expect(res.status, await res.text()).to.equal(303);
    const row = await suite.deps
      .knex('categories')
      .where({ store_id: storeId, slug: 'gift-cards' })
      .first('name', 'name_ar');
    expect(row).to.deep.equal({ name: 'Gift cards', name_ar: 'بطاقات الهدايا' });
    expect(await list('en')).to.contain('<bdi lang="ar" dir="rtl">بطاقات الهدايا</bdi>');

    const plain = await post({ name: 'Keys', name_ar: '', slug: 'keys' });
    expect(plain.status).to.equal(303);
    const keys = await suite.deps
      .knex('categories')
      .where({ store_id: storeId, slug: 'keys' })
      .first('name_ar');
    expect(keys.name_ar).to.equal(null);
  });

  it('a refused form keeps the Arabic name typed; a too-long one is named by its field', async () => {
    const bad = await post({ name: 'Skins', name_ar: 'أشكال', slug: 'Bad Slug!' });
    expect(bad.status).to.equal(422);
    const html = await bad.text();
    expect(html).to.contain('id="category-slug-error"');
    expect(html).to.match(/id="category-name-ar"[^>]*value="أشكال"/);

    const long = await post({ name: 'Long', name_ar: 'ا'.repeat(201), slug: 'long' });
    expect(long.status).to.equal(422);
    const longHtml = await long.text();
    expect(longHtml).to.contain('id="category-name_ar-error"');
    expect(longHtml).to.match(/id="category-name-ar"[^>]*aria-invalid="true"/);
    expect(await suite.deps.knex('categories').where({ store_id: storeId, slug: 'long' })).to.have.length(0);
  });
});
