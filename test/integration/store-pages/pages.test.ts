import { expect } from 'chai';
import { Store } from '../../../db/models';
import { guestCheckout } from '../../helpers/checkouts';
import { loadFixture, type StoreManifest } from '../../../shared/services/seed';
import { usePaymentsSuite } from '../payments/support';

/**
 * Store pages (docs/store-pages.md; the operator contract's "Store pages and buy links"): each page over
 * real HTTP with its SEO fields, both languages, the caches invalidated by the real writers, domains.
 */

const fixture = {
  stores: [
    {
      ref: 'i42-pages',
      slug: 'i42-pages',
      name: 'Souq i42',
      currency: 'SAR',
      plan: 'paid',
      domains: ['shop.i42.test'],
      description: 'Game keys & gift cards <fast>',
      accent_color: '#aa3300',
      policies: 'Refunds within 7 days.\nContact: help@i42.test',
      merchant_tokens: ['mt_i42_pages_secret_0001'],
      payment_methods: { card: { provider: 'sandbox' }, mada: { provider: 'sandbox' } },
      categories: [
        { ref: 'games', name: 'Games', name_ar: 'ألعاب', slug: 'games', description: 'Keys for games' },
        { ref: 'gifts', name: 'Gift cards', slug: 'gifts' },
      ],
      products: [
        {
          ref: 'ebook',
          name: 'E-book',
          name_ar: 'كتاب إلكتروني',
          description: 'A great <b>book</b>',
          description_ar: 'كتاب رائع',
          slug: 'ebook',
          type: 'product',
          price: '50.00',
          sale_price: '40.00',
          image_url: 'https://img.i42.test/ebook.png',
          categories: ['games'],
          fields: [
            { type: 'text', label: 'Player name', label_ar: 'اسم اللاعب', required: true },
            {
              type: 'select',
              label: 'Edition',
              label_ar: 'الإصدار',
              required: false,
              options: [
                { label: 'Standard', label_ar: 'عادي', price: '0.00' },
                { label: 'Deluxe', price: '15.50' },
              ],
            },
          ],
        },
        {
          ref: 'key',
          name: 'Game key',
          slug: 'game-key',
          type: 'code',
          price: '20.00',
          categories: ['gifts'],
          codes: ['I42-K-0001'],
        },
        { ref: 'gone', name: 'Old thing', slug: 'old-thing', type: 'service', price: '5.00', active: false },
      ],
      customers: [
        {
          ref: 'sara',
          firstName: 'Sara',
          lastName: 'Ali',
          email: 'sara@i42.test',
          country_code: '966',
          phone: '594200001',
        },
      ],
      reviews: [
        { product: 'ebook', customer: 'sara', rating: 5, comment: 'Loved it <3', published: true },
        { product: 'ebook', rating: 3, comment: 'Hidden one', published: false },
      ],
    },
  ],
};

describe('store pages', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite({ workers: false });
  let m: StoreManifest;

  before(async () => {
    m = (await loadFixture(suite.deps, fixture)).stores['i42-pages'];
  });

  const get = (path: string, headers: Record<string, string> = {}) => suite.server.request(path, { headers });

  const metaContent = (html: string, attr: string, name: string): string | undefined =>
    new RegExp(`<meta ${attr}="${name}" content="([^"]*)"`).exec(html)?.[1];

  it('shows the store page in English and Arabic with its products, prices, stock and SEO head', async () => {
    const en = await get('/s/i42-pages?lang=en');
    expect(en.status).to.equal(200);
    expect(en.headers.get('content-type')).to.match(/^text\/html/);
    expect(en.text).to.contain('<html lang="en" dir="ltr">');
    expect(en.text).to.contain('Souq i42');
    expect(en.text).to.contain('E-book').and.to.contain('Game key');
    expect(en.text).not.to.contain('Old thing');
    expect(en.text).to.contain('href="/s/i42-pages/p/ebook?lang=en"');
    expect(en.text)
      .to.match(/SAR\s40\.00/)
      .and.to.match(/<s class="was">.*SAR\s50\.00/);
    // Merchant text is escaped.
    expect(en.text).to.contain('Game keys &amp; gift cards &lt;fast&gt;');
    expect(en.text).to.contain('--accent:#aa3300');
    expect(en.text).to.contain('<title>Souq i42</title>');
    expect(metaContent(en.text, 'name', 'description')).to.equal('Game keys &amp; gift cards &lt;fast&gt;');
    const base = suite.deps.config.publicBaseUrl;
    expect(en.text).to.contain(`<link rel="canonical" href="${base}/s/i42-pages?lang=en">`);
    expect(en.text).to.contain(`<link rel="alternate" hreflang="ar" href="${base}/s/i42-pages?lang=ar">`);
    expect(en.text).to.contain(`<link rel="alternate" hreflang="en" href="${base}/s/i42-pages?lang=en">`);
    expect(metaContent(en.text, 'property', 'og:title')).to.equal('Souq i42');
    expect(metaContent(en.text, 'property', 'og:url')).to.equal(`${base}/s/i42-pages?lang=en`);
    expect(en.text).not.to.contain('<script src');

    const ar = await get('/s/i42-pages?lang=ar');
    expect(ar.text).to.contain('<html lang="ar" dir="rtl">');
    expect(ar.text).to.contain('كتاب إلكتروني');
    expect(ar.text).to.contain('ألعاب');
    // No Arabic name: the English one.
    expect(ar.text).to.contain('Game key');

    // Without ?lang=, Accept-Language decides and the answer varies on it.
    const byHeader = await get('/s/i42-pages', { 'Accept-Language': 'ar-SA,ar;q=0.9' });
    expect(byHeader.text).to.contain('dir="rtl"');
    expect(byHeader.headers.get('vary')).to.match(/Accept-Language/i);
  });

  it('answers the Embed product in the reader’s language (the widget shows it so)', async () => {
    const ask = (lang: string) =>
      suite.server.request(`/api/embed/product/${m.products.ebook.id}`, {
        headers: { 'X-Embed-Key': m.embed_key, 'Accept-Language': lang },
      });
    const ar = (await ask('ar-SA')).body.data as {
      name: string;
      description: string;
      fields: { label: string; options: { label: string }[] }[];
    };
    expect(ar.name).to.equal('كتاب إلكتروني');
    expect(ar.description).to.equal('كتاب رائع');
    expect(ar.fields[0].label).to.equal('اسم اللاعب');
    expect(ar.fields[1].options.map((o) => o.label)).to.deep.equal(['عادي', 'Deluxe']);
    const en = await ask('en-US');
    expect((en.body.data as { name: string }).name).to.equal('E-book');
    expect(en.headers.get('vary')).to.match(/Accept-Language/i);
  });

  it('answers the Storefront products in the reader’s language too', async () => {
    const headers = (lang: string) => ({ Host: 'shop.i42.test', 'Accept-Language': lang });
    const list = await get('/api/products', headers('ar'));
    expect(list.status, list.text).to.equal(200);
    const names = ((list.body.data as { items: { name: string }[] }).items ?? []).map((p) => p.name);
    expect(names).to.include('كتاب إلكتروني').and.to.include('Game key');
    const one = await get('/api/products/ebook', headers('ar'));
    expect((one.body.data as { name: string }).name).to.equal('كتاب إلكتروني');
    const en = await get('/api/products/ebook', headers('en'));
    expect((en.body.data as { name: string }).name).to.equal('E-book');
  });

  it('answers 304 to a current ETag and sends Cache-Control for a CDN', async () => {
    const first = await get('/s/i42-pages/p/ebook?lang=en');
    const etag = first.headers.get('etag');
    expect(etag).to.match(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).to.contain('public').and.to.contain('s-maxage=');
    // As a browser revalidates (fetch() would add `Cache-Control: no-cache`, which asks for the full page).
    const again = await get('/s/i42-pages/p/ebook?lang=en', {
      'If-None-Match': etag!,
      'Cache-Control': 'max-age=0',
    });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
  });

  it('shows a product page: name by language, description, sale price, stock, reviews, buy link, JSON-LD', async () => {
    const en = await get('/s/i42-pages/p/ebook?lang=en');
    expect(en.status).to.equal(200);
    expect(en.text).to.contain('<h1><bdi>E-book</bdi></h1>');
    expect(en.text).to.contain('A great &lt;b&gt;book&lt;/b&gt;');
    expect(en.text).to.match(/data-price>SAR\s40\.00/);
    expect(en.text).to.contain('data-stock="in"');
    expect(en.text).to.contain('Player name').and.to.contain('Deluxe');
    expect(en.text).to.contain('Loved it &lt;3').and.not.to.contain('Hidden one');
    expect(en.text).to.contain('data-buy href="/s/i42-pages/checkout/ebook?lang=en"');
    expect(metaContent(en.text, 'property', 'og:image')).to.equal('https://img.i42.test/ebook.png');
    expect(metaContent(en.text, 'property', 'og:type')).to.equal('product');
    expect(metaContent(en.text, 'name', 'twitter:card')).to.equal('summary_large_image');
    const ld = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(en.text)?.[1];
    const product = JSON.parse(ld!) as {
      '@type': string;
      name: string;
      offers: Record<string, unknown>;
      aggregateRating: Record<string, unknown>;
    };
    expect(product['@type']).to.equal('Product');
    expect(product.name).to.equal('E-book');
    expect(product.offers).to.include({
      price: '40.00',
      priceCurrency: 'SAR',
      availability: 'https://schema.org/InStock',
    });
    expect(product.aggregateRating).to.include({ ratingValue: '5.0', reviewCount: 1 });

    const ar = await get('/s/i42-pages/p/ebook?lang=ar');
    expect(ar.text).to.contain('<h1><bdi>كتاب إلكتروني</bdi></h1>');
    expect(ar.text).to.contain('كتاب رائع');
    expect(ar.text).to.contain('اسم اللاعب').and.to.contain('عادي');
    expect(ar.text).to.contain('<title>كتاب إلكتروني · Souq i42</title>');
  });

  it('gives a product without an image a generated card as og:image', async () => {
    const page = await get('/s/i42-pages/p/game-key?lang=en');
    const image = metaContent(page.text, 'property', 'og:image')!;
    expect(image).to.equal(`${suite.deps.config.publicBaseUrl}/s/i42-pages/p/game-key/card.svg?lang=en`);
    const card = await get(new URL(image).pathname + new URL(image).search);
    expect(card.status).to.equal(200);
    expect(card.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(card.text)
      .to.contain('Game key')
      .and.to.match(/SAR\s20\.00/);
  });

  it('answers 404 pages for an inactive product, an unknown product, an unknown store', async () => {
    for (const path of [
      '/s/i42-pages/p/old-thing',
      '/s/i42-pages/p/nope',
      '/s/i42-nope',
      '/s/i42-pages/c/nope',
    ]) {
      const res = await get(path);
      expect(res.status, path).to.equal(404);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
    }
  });

  it('shows the category page, search in both languages and the policies page', async () => {
    const category = await get('/s/i42-pages/c/games?lang=ar');
    expect(category.status).to.equal(200);
    expect(category.text).to.contain('<h1>ألعاب</h1>');
    expect(category.text).to.contain('كتاب إلكتروني').and.not.to.contain('Game key');

    const found = await get(`/s/i42-pages/search?lang=en&q=${encodeURIComponent('كتاب')}`);
    expect(found.status).to.equal(200);
    expect(found.text).to.contain('E-book').and.not.to.contain('Game key');
    expect(found.text).to.contain('<meta name="robots" content="noindex">');
    const none = await get('/s/i42-pages/search?q=zzz&lang=en');
    expect(none.text).to.contain('No product matches your search.');

    const policies = await get('/s/i42-pages/policies?lang=en');
    expect(policies.text).to.contain('Refunds within 7 days.').and.to.contain('help@i42.test');
  });

  it('lists the store and every product page in sitemap.xml, and names it in robots.txt', async () => {
    const base = suite.deps.config.publicBaseUrl;
    const sitemap = await get('/s/i42-pages/sitemap.xml');
    expect(sitemap.status).to.equal(200);
    expect(sitemap.headers.get('content-type')).to.match(/^application\/xml/);
    expect(sitemap.text).to.contain(`<loc>${base}/s/i42-pages</loc>`);
    expect(sitemap.text).to.contain(`<loc>${base}/s/i42-pages/p/ebook</loc>`);
    expect(sitemap.text).to.contain(`<loc>${base}/s/i42-pages/p/game-key</loc>`);
    expect(sitemap.text).not.to.contain('old-thing');
    const robots = await get('/s/i42-pages/robots.txt');
    expect(robots.text).to.contain(`Sitemap: ${base}/s/i42-pages/sitemap.xml`);
    expect(robots.text).to.contain('Disallow: /s/i42-pages/checkout/');
  });

  it('serves the store page at / on its verified domain only', async () => {
    const home = await get('/?lang=en', { Host: 'shop.i42.test' });
    expect(home.status).to.equal(200);
    expect(home.text).to.contain('Souq i42');
    const robots = await get('/robots.txt', { Host: 'shop.i42.test' });
    expect(robots.text).to.contain('Sitemap:');
    await suite.deps.knex('store_domains').insert({
      store_id: m.id,
      domain: 'pending.i42.test',
      txt_value: 'matjar-verify=i42',
      verified_at: null,
    });
    expect((await get('/', { Host: 'pending.i42.test' })).status).to.equal(404);
    expect((await get('/', { Host: 'other.i42.test' })).status).to.equal(404);
  });

  it('shows a change through the Merchant API at the very next read (the unit of work bumps)', async () => {
    const auth = { Authorization: 'Bearer mt_i42_pages_secret_0001' };
    await get('/s/i42-pages?lang=en');
    const patched = await suite.server.request(`/shawarma/products/${m.products.key.id}`, {
      method: 'PATCH',
      headers: auth,
      json: { price: '25.00', name_ar: 'مفتاح لعبة' },
    });
    expect(patched.status, patched.text).to.equal(200);
    const en = await get('/s/i42-pages?lang=en');
    expect(en.text).to.match(/SAR\s25\.00/);
    const ar = await get('/s/i42-pages/p/game-key?lang=ar');
    expect(ar.text).to.contain('مفتاح لعبة');

    // The last key reserved by a checkout through the Embed API: sold out at once, and no buy control.
    const store = await Store.query(suite.deps.knex).findById(m.id);
    await guestCheckout(
      suite.server,
      store!,
      { product_id: m.products.key.id },
      { customer_phone: '594200002' },
    );
    const after = await get('/s/i42-pages/p/game-key?lang=en');
    expect(after.text).to.contain('data-stock="out"').and.not.to.contain('data-buy');
    expect((await get('/s/i42-pages?lang=en')).text).to.contain('data-stock="out"');
  });
});

describe('store pages: a store of 500 products', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite({ workers: false });

  before(async () => {
    await loadFixture(suite.deps, {
      stores: [
        {
          ref: 'i42-many',
          name: 'Many i42',
          currency: 'SAR',
          products: Array.from({ length: 500 }, (_, i) => ({
            ref: `p${i}`,
            name: `Item ${i}`,
            name_ar: `عنصر ${i}`,
            slug: `item-${i}`,
            type: 'service',
            price: '10.00',
          })),
        },
      ],
    });
  });

  it('lists 48 a page with links between pages, and finds one product among them', async () => {
    const first = await suite.server.request('/s/i42-many?lang=en');
    expect(first.text.match(/data-product-id=/g)).to.have.length(48);
    expect(first.text).to.contain('rel="next" href="/s/i42-many?page=2&amp;lang=en"');
    const last = await suite.server.request('/s/i42-many?lang=en&page=11');
    expect(last.text.match(/data-product-id=/g)).to.have.length(20);
    expect(last.text).to.contain(
      `<link rel="canonical" href="${suite.deps.config.publicBaseUrl}/s/i42-many?page=11&amp;lang=en">`,
    );
    const found = await suite.server.request(
      `/s/i42-many/search?lang=ar&q=${encodeURIComponent('عنصر 499')}`,
    );
    expect(found.text.match(/data-product-id=/g)).to.have.length(1);
    expect(found.text).to.contain('عنصر 499');
    const sitemap = await suite.server.request('/s/i42-many/sitemap.xml');
    expect(sitemap.text.match(/<loc>[^<]*\/p\/item-\d+<\/loc>/g)).to.have.length(500);
  });
});
