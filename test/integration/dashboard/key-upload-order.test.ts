import http from 'node:http';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createProduct, createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestServer } from '../../helpers/http';
import { dashboardLogin, type DashboardLogin } from './support';

const BOUNDARY = 'matjarKeysBoundary';
/** A multipart key upload's body as the page's form sends it: the form token, then the CSV file. */
const multipart = (csrf: string, csv: string): Buffer =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="csv"; filename="keys.csv"\r\n` +
      `Content-Type: text/csv\r\n\r\n${csv}\r\n--${BOUNDARY}--\r\n`,
  );

/**
 * Sends the headers of a 5 MB upload and only its first kilobyte, and answers the response the server
 * gives while the rest is still to come. A server that read the body before checking who sends it would
 * never answer (it waits for the other 5 MB), and the test fails on its timeout.
 */
function startedUpload(url: string, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, {
      method: 'POST',
      headers: {
        ...headers,
        'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
        'Content-Length': String(5 * 1024 * 1024),
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.write(Buffer.alloc(1024, 'a'));
  });
}

/** The dashboard's key upload checks the session, role and origin before it reads a body of up to 6 MB. */
describe('dashboard key upload: who sends it is checked before the body is read', function () {
  this.timeout(10_000);
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;
  let owner: DashboardLogin;
  let support: DashboardLogin;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    product = await createProduct(store, { type: 'code' });
    owner = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'owner');
    support = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'support');
  });
  after(() => server.close());

  const path = () => `/merchant/products/${product.id}/keys?lang=en`;

  it('refuses without a session, for a role without products.edit, and from another site, before the body', async () => {
    expect(await startedUpload(server.url, path(), {})).to.equal(403);
    expect(await startedUpload(server.url, path(), { cookie: support.cookie })).to.equal(403);
    expect(
      await startedUpload(server.url, path(), { cookie: owner.cookie, Origin: 'https://evil.example' }),
    ).to.equal(403);
    expect(await deps.knex('product_codes').where('product_id', product.id)).to.have.length(0);
  });

  it('reads the body of a signed-in owner, and still refuses a wrong form token in it', async () => {
    const send = (csrf: string) =>
      server.request(path(), {
        method: 'POST',
        headers: { cookie: owner.cookie, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
        body: multipart(csrf, 'code\nKEY-1\nKEY-2\n'),
      });
    const forged = await send('not-the-token');
    expect(forged.status).to.equal(403);
    expect(await deps.knex('product_codes').where('product_id', product.id)).to.have.length(0);
    const res = await send(owner.csrf);
    expect(res.status, res.text).to.equal(200);
    const codes = await deps
      .knex('product_codes')
      .where('product_id', product.id)
      .orderBy('code')
      .pluck('code');
    expect(codes).to.deep.equal(['KEY-1', 'KEY-2']);
  });
});
