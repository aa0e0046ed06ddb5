import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { TEST_ENV } from '../../helpers/env';
import { createStore } from '../../helpers/builders';
import { call, expectEnvelope, useMerchantSuite } from './support';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

async function script(
  file: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['-r', 'tsx/cjs', file, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...TEST_ENV, LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Operators open a store with one command and hand the merchant its embed key and first token. */
describe('store:create and merchant-token --scope', function () {
  this.timeout(120_000);
  const suite = useMerchantSuite();

  it('creates a store and prints its embed key and a first write token that works at once', async () => {
    const out = await script(
      'scripts/store-create.ts',
      '--name',
      'Falafel Keys',
      '--owner-phone',
      '0501234567',
      '--owner-name',
      'Huda',
    );
    expect(out.code, out.stderr).to.equal(0);
    const created = JSON.parse(out.stdout) as {
      store_id: number;
      embed_key: string;
      token: string;
      owner: { country_code: string; phone: string };
    };
    expect(created.embed_key).to.match(/^emb_pk_/);
    expect(created.token).to.match(/^mt_/);
    expect(created.owner).to.deep.include({ country_code: '966', phone: '501234567' });
    // The owner is the store's owner in the merchant dashboard (signs in with that phone).
    const members = await suite.deps
      .knex('store_members as m')
      .join('merchant_users as u', 'u.id', 'm.merchant_user_id')
      .where('m.store_id', created.store_id)
      .select('m.role', 'u.e164');
    expect(members).to.deep.equal([{ role: 'owner', e164: '966501234567' }]);
    expect(out.stderr).to.match(/shown once/);
    expect(out.stderr).to.not.contain(created.token);

    const store = await call(suite.server, created.token, 'GET', '/shawarma/store');
    expectEnvelope(store, 200);
    expect(store.body.data).to.deep.include({
      id: created.store_id,
      name: 'Falafel Keys',
      embed_key: created.embed_key,
      plan: 'paid',
      currency: 'SAR',
    });
    // The token may write: the merchant's first product.
    const product = await call(suite.server, created.token, 'POST', '/shawarma/products', {
      name: 'Gift card',
      slug: 'gift-card',
      type: 'code',
      price: '100.00',
    });
    expectEnvelope(product, 201);
  });

  it('refuses a bad phone or a missing name before writing anything', async () => {
    const before = await suite.deps.knex('stores').count<{ n: number }[]>('* as n');
    const badPhone = await script('scripts/store-create.ts', '--name', 'X', '--owner-phone', '12');
    expect(badPhone.code).to.equal(1);
    expect(badPhone.stderr).to.match(/--owner-phone must be a valid phone number/);
    const noName = await script('scripts/store-create.ts', '--owner-phone', '0501234567');
    expect(noName.code).to.equal(1);
    expect(noName.stderr).to.match(/--name is required/);
    expect(badPhone.stdout + noName.stdout).to.equal('');
    expect(await suite.deps.knex('stores').count<{ n: number }[]>('* as n')).to.deep.equal(before);
  });

  it('merchant-token create --scope read issues a token the write routes refuse', async () => {
    const store = await createStore();
    const out = await script(
      'scripts/merchant-token.ts',
      'create',
      '--store',
      String(store.id),
      '--scope',
      'read',
    );
    expect(out.code, out.stderr).to.equal(0);
    const { token, scope } = JSON.parse(out.stdout) as { token: string; scope: string };
    expect(scope).to.equal('read');
    expectEnvelope(await call(suite.server, token, 'GET', '/shawarma/store'), 200);
    expectEnvelope(await call(suite.server, token, 'PATCH', '/shawarma/store', { name: 'No' }), 403);
    const bad = await script(
      'scripts/merchant-token.ts',
      'create',
      '--store',
      String(store.id),
      '--scope',
      'admin',
    );
    expect(bad.code).to.equal(1);
  });
});
