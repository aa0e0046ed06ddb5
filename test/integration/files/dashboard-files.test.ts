import crypto from 'node:crypto';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createProduct, createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestServer } from '../../helpers/http';
import { dashboardForm, dashboardLogin, type DashboardLogin } from '../dashboard/support';
import { sha256Hex } from './support';

/** The dashboard's files page of a product: the form, its progress bar's script, upload and remove. */
describe('dashboard: a product’s files page', () => {
  const dir = path.join(os.tmpdir(), `matjar-dash-files-${crypto.randomBytes(4).toString('hex')}`);
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;
  let owner: DashboardLogin;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off', STORAGE_DIR: dir });
    server = await startServer(deps);
    store = await createStore();
    product = await createProduct(store, { type: 'product', name: 'Guide' });
    owner = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'owner');
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const formWith = (bytes: Buffer, name: string): FormData => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), name);
    return form;
  };

  it('links the files page from the product page, in Arabic and English, with a form and its progress bar', async () => {
    const edit = await server.request(`/merchant/products/${product.id}`, {
      headers: { cookie: owner.cookie },
    });
    expect(edit.text).to.include(`href="/merchant/products/${product.id}/files"`);

    const en = await server.request(`/merchant/products/${product.id}/files?lang=en`, {
      headers: { cookie: owner.cookie },
    });
    expect(en.status).to.equal(200);
    expect(en.text).to.include('enctype="multipart/form-data"').and.include('<progress id="file-progress"');
    expect(en.text).to.include('<script src="/merchant/assets/files.js"></script>');
    expect(en.text).to.include(`?_csrf=${encodeURIComponent(owner.csrf)}`);
    const ar = await server.request(`/merchant/products/${product.id}/files?lang=ar`, {
      headers: { cookie: owner.cookie },
    });
    expect(ar.text).to.include('dir="rtl"').and.include('الملفات').and.include('تقدم الرفع');

    const script = await server.request('/merchant/assets/files.js');
    expect(script.status).to.equal(200);
    expect(script.text).to.include("xhr.upload.addEventListener('progress'");
  });

  it('uploads with the page’s form (303 back) or its script (201 JSON), and removes', async () => {
    const action = `/merchant/products/${product.id}/files?_csrf=${encodeURIComponent(owner.csrf)}`;
    const bytes = crypto.randomBytes(20_000);
    const plain = await fetch(server.url + action, {
      method: 'POST',
      headers: { cookie: owner.cookie },
      body: formWith(bytes, 'manual.pdf'),
      redirect: 'manual',
    });
    expect(plain.status).to.equal(303);
    expect(plain.headers.get('location')).to.equal(`/merchant/products/${product.id}/files?done=uploaded`);

    const scripted = await server.request(action, {
      method: 'POST',
      headers: { cookie: owner.cookie, Accept: 'application/json' },
      body: formWith(bytes, 'manual-2.pdf'),
    });
    expect(scripted.status).to.equal(201);
    expect((scripted.body.data as { sha256: string }).sha256).to.equal(sha256Hex(bytes));

    const listed = await server.request(`/merchant/products/${product.id}/files?lang=en&done=uploaded`, {
      headers: { cookie: owner.cookie },
    });
    expect(listed.text).to.include('manual.pdf').and.include('manual-2.pdf').and.include('File uploaded.');

    const [first] = (await deps.knex('product_files').where('product_id', product.id).orderBy('id')) as {
      id: number;
    }[];
    const removed = await fetch(`${server.url}/merchant/products/${product.id}/files/${first!.id}/remove`, {
      ...dashboardForm(owner, {}),
      redirect: 'manual',
    });
    expect(removed.status).to.equal(303);
    const after = await server.request(`/merchant/products/${product.id}/files?lang=en`, {
      headers: { cookie: owner.cookie },
    });
    expect(after.text).to.include('manual-2.pdf');
    expect(after.text).to.not.include('>manual.pdf<');
  });

  it('refuses an upload without the form token, from another site, or to another store’s product, storing nothing', async () => {
    const before = await deps.knex('product_files').count('* as n').first();
    const bytes = crypto.randomBytes(1000);
    const noToken = await fetch(`${server.url}/merchant/products/${product.id}/files`, {
      method: 'POST',
      headers: { cookie: owner.cookie },
      body: formWith(bytes, 'x.bin'),
    });
    expect(noToken.status).to.equal(403);
    const action = `/merchant/products/${product.id}/files?_csrf=${encodeURIComponent(owner.csrf)}`;
    const crossSite = await fetch(server.url + action, {
      method: 'POST',
      headers: { cookie: owner.cookie, Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      body: formWith(bytes, 'x.bin'),
    });
    expect(crossSite.status).to.equal(403);
    const foreign = await createProduct(await createStore(), { type: 'product' });
    const other = await fetch(
      `${server.url}/merchant/products/${foreign.id}/files?_csrf=${encodeURIComponent(owner.csrf)}`,
      { method: 'POST', headers: { cookie: owner.cookie }, body: formWith(bytes, 'x.bin') },
    );
    expect(other.status).to.equal(404);
    expect(await deps.knex('product_files').count('* as n').first()).to.deep.equal(before);
  });
});
