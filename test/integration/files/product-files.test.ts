import crypto from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ORDER_STATUS } from '../../../db/models';
import { createProduct } from '../../helpers/builders';
import {
  call,
  expectEnvelope,
  merchantStore,
  MerchantStore,
  seedOrder,
  useMerchantSuite,
} from '../merchant/support';
import { downloadCount, linksOf, rawGet, sha256Hex, upload } from './support';

interface FileBody {
  id: number;
  name: string;
  size: number;
  sha256: string;
  replaces_id: number | null;
}
const fileOf = (res: { body: { data?: unknown } }): FileBody => res.body.data as FileBody;

const storageDir = path.join(os.tmpdir(), `matjar-files-${crypto.randomBytes(4).toString('hex')}`);

describe('Files on a product and their downloads (local storage, docs/downloads.md)', () => {
  const suite = useMerchantSuite({ RATE_LIMITS: 'off', STORAGE_DIR: storageDir });
  let m: MerchantStore;
  let other: MerchantStore;

  before(async () => {
    m = await merchantStore();
    other = await merchantStore();
  });
  after(() => rm(storageDir, { recursive: true, force: true }));

  it('uploads over multipart, hashes the content, lists, renames and removes; another store sees 404', async () => {
    const product = await createProduct(m.store);
    const bytes = crypto.randomBytes(300_000);
    const res = await upload(suite.server, m.token, product.id, bytes, 'كتاب الدليل.pdf');
    expect(res.status, res.text).to.equal(201);
    const file = fileOf(res);
    expect(file).to.deep.include({ name: 'كتاب الدليل.pdf', size: bytes.length, sha256: sha256Hex(bytes) });

    const listed = await call(suite.server, m.token, 'GET', `/shawarma/products/${product.id}/files`);
    expectEnvelope(listed, 200);
    expect((listed.body.data as FileBody[]).map((f) => f.id)).to.deep.equal([file.id]);

    // Another store's token: the product and the file do not exist for it.
    expectEnvelope(
      await call(suite.server, other.token, 'GET', `/shawarma/products/${product.id}/files`),
      404,
    );
    expect((await upload(suite.server, other.token, product.id, bytes, 'x.bin')).status).to.equal(404);
    expectEnvelope(
      await call(suite.server, other.token, 'DELETE', `/shawarma/products/${product.id}/files/${file.id}`),
      404,
    );
    const foreign = await createProduct(other.store);
    expectEnvelope(
      await call(suite.server, m.token, 'DELETE', `/shawarma/products/${foreign.id}/files/${file.id}`),
      404,
    );

    const renamed = await call(
      suite.server,
      m.token,
      'PATCH',
      `/shawarma/products/${product.id}/files/${file.id}`,
      {
        name: 'guide.pdf',
      },
    );
    expectEnvelope(renamed, 200);
    expect(fileOf(renamed).name).to.equal('guide.pdf');
    const badName = await call(
      suite.server,
      m.token,
      'PATCH',
      `/shawarma/products/${product.id}/files/${file.id}`,
      {
        name: '../etc/passwd',
      },
    );
    expectEnvelope(badName, 422);

    const removed = await call(
      suite.server,
      m.token,
      'DELETE',
      `/shawarma/products/${product.id}/files/${file.id}`,
    );
    expectEnvelope(removed, 200);
    const after = await call(suite.server, m.token, 'GET', `/shawarma/products/${product.id}/files`);
    expect(after.body.data).to.deep.equal([]);
  });

  it('refuses a request without the part `file`, naming it', async () => {
    const product = await createProduct(m.store);
    const form = new FormData();
    form.append('other', new Blob([Buffer.from('x')]), 'x.txt');
    const res = await suite.server.request(`/shawarma/products/${product.id}/files`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${m.token}` },
      body: form,
    });
    expectEnvelope(res, 422);
    expect(res.body.errors).to.have.property('file');
    // A body that is not multipart at all (JSON, a form) is refused at once, never waited on.
    for (const [type, body] of [
      ['application/json', '{"file":"x"}'],
      ['application/x-www-form-urlencoded', 'file=x'],
    ]) {
      const other = await suite.server.request(`/shawarma/products/${product.id}/files`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${m.token}`, 'Content-Type': type! },
        body,
      });
      expectEnvelope(other, 422);
      expect(other.body.errors).to.have.property('file');
    }
  });

  it('downloads a paid item’s file as an opaque attachment, resumes with Range (206), counts whole downloads to the limit', async () => {
    const product = await createProduct(m.store);
    await suite.deps.knex('products').where('id', product.id).update({ download_limit: 2 });
    // A name that claims to be a web page: it is still served as opaque bytes.
    const bytes = Buffer.concat([Buffer.from('<html><script>alert(1)</script>'), crypto.randomBytes(50_000)]);
    const file = fileOf(await upload(suite.server, m.token, product.id, bytes, 'page.html'));
    const order = await seedOrder(suite.deps.knex, m.store, product, { status: ORDER_STATUS.COMPLETED });
    const [link] = await linksOf(suite.deps, suite.server, order.itemId);
    expect(link).to.deep.include({ file_id: file.id, name: 'page.html' });

    // A HEAD (a download manager probing the size) moves no bytes and does not count.
    const head = await fetch(link!.url, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-length')).to.equal(String(bytes.length));
    expect(await downloadCount(suite.deps.knex, order.itemId)).to.equal(0);

    const whole = await rawGet(link!.url);
    expect(whole.status).to.equal(200);
    expect(whole.body.equals(bytes)).to.equal(true);
    expect(whole.headers['content-type']).to.equal('application/octet-stream');
    expect(whole.headers['x-content-type-options']).to.equal('nosniff');
    expect(whole.headers['content-disposition']).to.match(/^attachment; filename="page\.html"/);

    const resumed = await rawGet(link!.url, { Range: 'bytes=1000-' });
    expect(resumed.status).to.equal(206);
    expect(resumed.headers['content-range']).to.equal(`bytes 1000-${bytes.length - 1}/${bytes.length}`);
    expect(resumed.body.equals(bytes.subarray(1000))).to.equal(true);
    expect(await downloadCount(suite.deps.knex, order.itemId)).to.equal(1);

    // A range from byte 0 is a fresh copy: it counts (else ranges would be a way around the limit).
    expect((await rawGet(link!.url, { Range: 'bytes=0-' })).status).to.equal(206);
    expect(await downloadCount(suite.deps.knex, order.itemId)).to.equal(2);

    const html = await rawGet(link!.url, { 'Accept-Language': 'ar' });
    expect(html.status).to.equal(403);
    expect(html.headers['content-type']).to.match(/^text\/html/);
    expect(html.body.toString()).to.include('بلغت حد التنزيل').and.include('dir="rtl"');
    const english = await rawGet(link!.url, { Accept: 'text/html', 'Accept-Language': 'en' });
    expect(english.body.toString()).to.include('Download limit reached');
    const json = await suite.server.request(new URL(link!.url).pathname, {
      headers: { Accept: 'application/json' },
    });
    expect(json.status).to.equal(403);
    expect(json.body).to.include({ error_code: 'download_limit_reached' });

    // The merchant sees each download (when, from which IP) and gives the buyer their downloads again.
    const seen = await call(suite.server, m.token, 'GET', `/shawarma/downloads/${order.id}`);
    expectEnvelope(seen, 200);
    const [item] = seen.body.data as {
      files: { downloads_counted: number; downloads: { ip: string }[] }[];
    }[];
    expect(item!.files[0]!.downloads_counted).to.equal(2);
    expect(item!.files[0]!.downloads).to.have.length(3);
    expect(item!.files[0]!.downloads[0]!.ip).to.match(/127\.0\.0\.1/);
    const reset = await call(suite.server, m.token, 'POST', `/shawarma/downloads/${order.id}/reset`, {
      order_item_id: order.itemId,
    });
    expectEnvelope(reset, 200);
    expect((await rawGet(link!.url)).status).to.equal(200);
    // Another store cannot see or reset this order's downloads.
    expectEnvelope(await call(suite.server, other.token, 'GET', `/shawarma/downloads/${order.id}`), 404);
  });

  it('takes `download_limit` as a product key (default 5, 0 for no limit)', async () => {
    const made = await call(suite.server, m.token, 'POST', '/shawarma/products', {
      name: 'E-book',
      slug: `ebook-${crypto.randomBytes(3).toString('hex')}`,
      type: 'product',
      price: '10.00',
    });
    expectEnvelope(made, 201);
    const id = (made.body.data as { id: number }).id;
    expect((made.body.data as { download_limit: number }).download_limit).to.equal(5);
    expectEnvelope(
      await call(suite.server, m.token, 'PATCH', `/shawarma/products/${id}`, { download_limit: -1 }),
      422,
    );
    const patched = await call(suite.server, m.token, 'PATCH', `/shawarma/products/${id}`, {
      download_limit: 0,
    });
    expectEnvelope(patched, 200);
    expect((patched.body.data as { download_limit: number }).download_limit).to.equal(0);

    await upload(suite.server, m.token, id, crypto.randomBytes(100), 'a.bin');
    const product = await suite.deps.knex('products').where('id', id).first();
    const order = await seedOrder(suite.deps.knex, m.store, product, { status: ORDER_STATUS.COMPLETED });
    const [link] = await linksOf(suite.deps, suite.server, order.itemId);
    for (let i = 0; i < 7; i += 1) expect((await rawGet(link!.url)).status).to.equal(200);
  });

  it('lets exactly `download_limit` concurrent whole downloads through', async () => {
    const product = await createProduct(m.store);
    await suite.deps.knex('products').where('id', product.id).update({ download_limit: 2 });
    await upload(suite.server, m.token, product.id, crypto.randomBytes(10_000), 'a.bin');
    const order = await seedOrder(suite.deps.knex, m.store, product, { status: ORDER_STATUS.COMPLETED });
    const [link] = await linksOf(suite.deps, suite.server, order.itemId);
    const answers = await Promise.all(Array.from({ length: 8 }, () => rawGet(link!.url)));
    expect(answers.filter((a) => a.status === 200)).to.have.length(2);
    expect(answers.filter((a) => a.status === 403)).to.have.length(6);
    expect(await downloadCount(suite.deps.knex, order.itemId)).to.equal(2);
  });

  it('stops at once for a refunded order (410), an unpaid one and a forged address (403)', async () => {
    const product = await createProduct(m.store);
    const file = fileOf(await upload(suite.server, m.token, product.id, crypto.randomBytes(1000), 'a.bin'));
    const order = await seedOrder(suite.deps.knex, m.store, product, { status: ORDER_STATUS.COMPLETED });
    const [link] = await linksOf(suite.deps, suite.server, order.itemId);
    expect((await rawGet(link!.url)).status).to.equal(200);

    expectEnvelope(
      await call(suite.server, m.token, 'PUT', `/shawarma/orders/${order.id}`, { status: 6 }),
      200,
    );
    const refunded = await suite.server.request(new URL(link!.url).pathname, {
      headers: { Accept: 'application/json' },
    });
    expect(refunded.status).to.equal(410);
    expect(refunded.body).to.include({ error_code: 'order_refunded' });
    const page = await rawGet(link!.url, { 'Accept-Language': 'ar' });
    expect(page.status).to.equal(410);
    expect(page.body.toString()).to.include('استُرد');

    const unpaid = await seedOrder(suite.deps.knex, m.store, product, {
      status: ORDER_STATUS.AWAITING_PAYMENT,
    });
    expect(await linksOf(suite.deps, suite.server, unpaid.itemId)).to.deep.equal([]);

    // The signature binds the order item and the file: changing either, or the signature, is refused.
    const token = new URL(link!.url).pathname.split('/').pop()!;
    const [itemId, , mac] = token.split('-');
    const paid = await seedOrder(suite.deps.knex, m.store, product, { status: ORDER_STATUS.COMPLETED });
    for (const forged of [
      `${paid.itemId}-${file.id}-${mac}`,
      `${itemId}-${file.id + 1}-${mac}`,
      `${paid.itemId}-${file.id}-${'A'.repeat(22)}`,
      'not-a-token',
    ]) {
      const res = await rawGet(`${suite.server.url}/downloads/${forged}`, { 'Accept-Language': 'en' });
      expect(res.status, forged).to.equal(403);
      expect(res.body.toString()).to.include('Invalid download link');
    }
  });

  it('gives a new version to later buyers while past buyers keep theirs, or to everyone when asked', async () => {
    const product = await createProduct(m.store);
    const v1 = crypto.randomBytes(2000);
    const first = fileOf(await upload(suite.server, m.token, product.id, v1, 'app-v1.zip'));
    const early = await seedOrder(suite.deps.knex, m.store, product, {
      status: ORDER_STATUS.COMPLETED,
      createdAt: new Date(Date.now() - 60_000),
    });
    const v2 = crypto.randomBytes(2000);
    const replaced = await upload(suite.server, m.token, product.id, v2, 'app-v2.zip', {
      method: 'PUT',
      path: `/shawarma/products/${product.id}/files/${first.id}`,
    });
    expect(replaced.status, replaced.text).to.equal(201);
    const second = fileOf(replaced);
    expect(second.replaces_id).to.equal(first.id);
    const late = await seedOrder(suite.deps.knex, m.store, product, { status: ORDER_STATUS.COMPLETED });

    const earlyLinks = await linksOf(suite.deps, suite.server, early.itemId);
    expect(earlyLinks.map((l) => l.name)).to.deep.equal(['app-v1.zip']);
    expect((await rawGet(earlyLinks[0]!.url)).body.equals(v1)).to.equal(true);
    const lateLinks = await linksOf(suite.deps, suite.server, late.itemId);
    expect(lateLinks.map((l) => l.name)).to.deep.equal(['app-v2.zip']);
    expect((await rawGet(lateLinks[0]!.url)).body.equals(v2)).to.equal(true);

    const v3 = crypto.randomBytes(2000);
    const everyone = await upload(suite.server, m.token, product.id, v3, 'app-v3.zip', {
      method: 'PUT',
      path: `/shawarma/products/${product.id}/files/${second.id}?update_for_everyone=1`,
    });
    expect(everyone.status, everyone.text).to.equal(201);
    // The early buyer's v1 link stays theirs (v1 was replaced for later buyers only), and v3 reaches all.
    for (const item of [early.itemId, late.itemId]) {
      const names = (await linksOf(suite.deps, suite.server, item)).map((l) => l.name);
      expect(names).to.include('app-v3.zip').and.not.include('app-v2.zip');
    }
    expect((await rawGet(lateLinks[0]!.url)).status).to.equal(410);
  });
});

describe('Upload limits per file and per store', () => {
  const dir = path.join(os.tmpdir(), `matjar-files-${crypto.randomBytes(4).toString('hex')}`);
  const suite = useMerchantSuite({
    RATE_LIMITS: 'off',
    STORAGE_DIR: dir,
    MAX_UPLOAD_BYTES: '4096',
    STORE_STORAGE_BYTES: '10000',
  });
  let m: MerchantStore;
  before(async () => {
    m = await merchantStore();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const stored = async (): Promise<string[]> =>
    readdir(path.join(dir, 'files', String(m.store.id))).catch(() => [] as string[]);

  it('refuses a file over MAX_UPLOAD_BYTES, declared or streamed, and keeps nothing of it', async () => {
    const product = await createProduct(m.store);
    const declared = await upload(suite.server, m.token, product.id, crypto.randomBytes(80_000), 'big.bin');
    expect(declared.status).to.equal(422);
    expect((declared.body.errors as Record<string, string[]>).file![0]).to.include('4096 bytes');

    // Chunked, no length declared: the stream itself is cut at the limit.
    const boundary = 'matjarboundary';
    const parts = [
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`),
      crypto.randomBytes(6000),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ];
    const res = await fetch(`${suite.server.url}/shawarma/products/${product.id}/files`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${m.token}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
      },
      body: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(new Uint8Array(part));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).to.equal(422);
    expect(await stored()).to.deep.equal([]);
    expect(await suite.deps.knex('product_files').where('store_id', m.store.id)).to.deep.equal([]);
  });

  it('keeps a store within STORE_STORAGE_BYTES when uploads race', async () => {
    const product = await createProduct(m.store);
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        upload(suite.server, m.token, product.id, crypto.randomBytes(4000), `${i}.bin`),
      ),
    );
    // 10,000 bytes hold two files of 4,000, never three.
    expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 201, 422, 422]);
    expect(await stored()).to.have.length(2);
  });
});
