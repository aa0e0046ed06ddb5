import crypto from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { ORDER_STATUS } from '../../../db/models';
import { createProduct } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestServer } from '../../helpers/http';
import { type LocalS3, startLocalS3 } from '../../helpers/s3rver';
import type { Deps } from '../../../shared/deps';
import { merchantStore, MerchantStore, seedOrder } from '../merchant/support';
import { linksOf, rawGet, sha256Hex, upload } from './support';

const MiB = 1024 * 1024;

describe('The s3 storage driver against an S3-compatible server (s3rver on loopback)', () => {
  let s3: LocalS3;
  let deps: Deps;
  let server: TestServer;
  let m: MerchantStore;

  before(async () => {
    s3 = await startLocalS3();
    deps = await isolatedDeps({ RATE_LIMITS: 'off', ...s3.env });
    server = await startServer(deps);
    m = await merchantStore();
  });
  after(async () => {
    await server?.close();
    await s3?.close();
  });

  it('uploads a file larger than one part as a multipart upload, and a download redirects to a presigned address serving the same bytes', async () => {
    expect(deps.storage.name).to.equal('s3');
    const product = await createProduct(m.store);
    // 8 MiB parts: this file takes two.
    const bytes = crypto.randomBytes(9 * MiB + 12_345);
    const res = await upload(server, m.token, product.id, bytes, 'video.mp4');
    expect(res.status, res.text).to.equal(201);
    expect((res.body.data as { sha256: string }).sha256).to.equal(sha256Hex(bytes));
    const parts = s3.requests.filter((r) => r.method === 'PUT' && /[?&]partNumber=\d+/.test(r.url));
    expect(parts).to.have.length(2);

    const order = await seedOrder(deps.knex, m.store, product, { status: ORDER_STATUS.COMPLETED });
    const [link] = await linksOf(deps, server, order.itemId);
    const redirect = await rawGet(link!.url);
    expect(redirect.status).to.equal(302);
    const location = redirect.headers.location!;
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/files/`)).to.equal(true);
    expect(location).to.match(/X-Amz-Expires=300/);
    // The web process served no bytes: the body of the redirect is a few bytes of text at most.
    expect(redirect.body.length).to.be.below(1000);

    const followed = await fetch(link!.url);
    expect(followed.status).to.equal(200);
    expect(followed.headers.get('content-type')).to.equal('application/octet-stream');
    expect(followed.headers.get('content-disposition')).to.match(/^attachment; filename="video\.mp4"/);
    expect(Buffer.from(await followed.arrayBuffer()).equals(bytes)).to.equal(true);

    const resumed = await fetch(link!.url, { headers: { Range: `bytes=${9 * MiB}-` } });
    expect(resumed.status).to.equal(206);
    expect(Buffer.from(await resumed.arrayBuffer()).equals(bytes.subarray(9 * MiB))).to.equal(true);
  });

  it('stores a small file in one request, and product images live on the same driver', async () => {
    const product = await createProduct(m.store);
    const before = s3.requests.length;
    expect(
      (await upload(server, m.token, product.id, crypto.randomBytes(1000), 'small.bin')).status,
    ).to.equal(201);
    const sent = s3.requests.slice(before);
    expect(sent.filter((r) => r.method === 'PUT')).to.have.length(1);
    expect(sent.some((r) => /[?&]uploads/.test(r.url))).to.equal(false);

    const png = await readFile(path.join(__dirname, '../../fixtures/uploads/sample.png'));
    const form = new FormData();
    form.append('image', new Blob([png]), 'sample.png');
    const res = await server.request(`/shawarma/products/${product.id}/image`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${m.token}` },
      body: form,
    });
    expect(res.status, res.text).to.equal(200);
    const imagePath = new URL((res.body.data as { image_url: string }).image_url).pathname;
    expect(s3.requests.some((r) => r.method === 'PUT' && r.url.includes(`/${s3.bucket}/products/`))).to.equal(
      true,
    );
    const image = await rawGet(server.url + imagePath);
    expect(image.status).to.equal(200);
    expect(image.body.equals(png)).to.equal(true);
  });
});
