import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { main, parseArgs } from '../../../scripts/merchant-token';
import { sha256 } from '../../../shared/crypto';
import {
  createMerchantToken,
  listMerchantTokens,
  revokeMerchantToken,
} from '../../../shared/services/tokens/merchant';
import { TEST_ENV } from '../../helpers/env';
import { createStore } from '../../helpers/builders';
import { call, expectEnvelope, useMerchantSuite } from './support';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

/** `npm run merchant-token -- create|revoke|list`: the operator issues and revokes Merchant API tokens. */
async function merchantToken(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['-r', 'tsx/cjs', 'scripts/merchant-token.ts', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...TEST_ENV, LOG_LEVEL: 'silent' },
        timeout: 60_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('merchant-token command', function () {
  this.timeout(90_000);
  const suite = useMerchantSuite();

  it('creates a token printed once (stored hashed) that the API accepts; revokes it; refuses bad arguments', async () => {
    const store = await createStore({ name: 'CLI store' });
    const created = await merchantToken('create', '--store', String(store.id), '--name', 'back office');
    expect(created.code, created.stderr).to.equal(0);
    const { id, token, store_id } = JSON.parse(created.stdout) as {
      id: number;
      token: string;
      store_id: number;
    };
    expect(store_id).to.equal(store.id);
    expect(token).to.match(/^mt_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).to.match(/shown once/);
    const row = await suite.deps.knex('merchant_tokens').where('id', id).first();
    expect(row).to.deep.include({ token_hash: sha256(token), name: 'back office', revoked_at: null });
    expect(JSON.stringify(row)).to.not.contain(token);
    expectEnvelope(await call(suite.server, token, 'GET', '/shawarma/store'), 200);

    const listed = await listMerchantTokens(suite.deps.knex, store.id);
    expect(listed.map((t) => t.id)).to.deep.equal([id]);
    expect(JSON.stringify(listed)).to.not.contain(token);

    const revoked = await merchantToken('revoke', '--id', String(id));
    expect(revoked.code).to.equal(0);
    expect(JSON.parse(revoked.stdout)).to.deep.equal({ revoked: true });
    expectEnvelope(await call(suite.server, token, 'GET', '/shawarma/store'), 401);
    expect(await revokeMerchantToken(suite.deps.knex, { token })).to.equal(false);
  });

  it('refuses bad arguments before touching the database, and an unknown store', async () => {
    const stderr = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      for (const args of [
        [],
        ['create'],
        ['create', '--store', 'x'],
        ['delete', '--id', '1'],
        ['create', '--shop', '1'],
      ]) {
        expect(await main(args), args.join(' ')).to.equal(1);
      }
    } finally {
      process.stderr.write = stderr;
    }
    expect(parseArgs(['create', '--store', '7', '--name', 'bot'])).to.deep.equal({
      command: 'create',
      flags: { store: '7', name: 'bot' },
    });
    let error: unknown;
    await createMerchantToken(suite.deps.knex, 2_147_483_640).catch((err: unknown) => (error = err));
    expect((error as Error).message).to.equal('Store 2147483640 not found');
  });
});
