import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Store } from '../../db/models';
import { findOrInstallLua } from '../../scripts/lib/provision';
import { createStore } from '../helpers/builders';
import { buyThroughSandbox, fivemProduct, gameServer, paidOrder } from '../integration/fivem/support';
import { hostedMethod, paymentsSuite, PaymentsSuite, waitFor } from '../integration/payments/support';

/**
 * The game-server resource (integrations/fivem) run for real by Debian's Lua 5.4, against the running
 * platform on 127.0.0.1, with the FiveM natives it uses played by test/e2e/fivem/harness.lua. A purchase
 * through the sandbox provider must end as exactly one execution of each command, even though the
 * first poll is answered 429, the first acknowledgement never leaves and the second one's answer is lost
 * (meanwhile the lease ends and the platform lists the command again).
 */

const ROOT = path.resolve(__dirname, '../..');
const RESOURCE = path.join(ROOT, 'integrations/fivem');
const HARNESS = path.join(__dirname, 'fivem/harness.lua');
const run = promisify(execFile);

interface HarnessRun {
  executed: { at: number; command: string }[];
  requests: { at: number; method: string; path: string; status: number; fault: string }[];
  errors: string[];
  done: boolean;
}

function parse(stdout: string): HarnessRun {
  const result: HarnessRun = { executed: [], requests: [], errors: [], done: false };
  for (const line of stdout.split('\n')) {
    const [kind, ...rest] = line.split('\t');
    if (kind === 'EXEC') result.executed.push({ at: Number(rest[0]), command: rest.slice(1).join('\t') });
    if (kind === 'HTTP') {
      const [at, method, p, status, fault] = rest;
      result.requests.push({ at: Number(at), method, path: p, status: Number(status), fault });
    }
    if (kind === 'ERROR') result.errors.push(rest.join(' '));
    if (kind === 'DONE') result.done = true;
  }
  return result;
}

describe('FiveM resource (Lua 5.4) against the running platform', function () {
  this.timeout(120_000);
  let suite: PaymentsSuite;
  let lua: string;
  let scratch: string;
  let store: Store;

  before(async function () {
    // npm test installs lua5.4 when missing and passes it as LUA; a single-file run finds or installs it.
    lua = process.env.LUA || (await findOrInstallLua(process.env.PATH ?? '', (line) => console.log(line)));
    // Short leases and polls, so a lost acknowledgement meets a re-listing within seconds.
    suite = await paymentsSuite({ FIVEM_LEASE_SECONDS: '1', FIVEM_POLL_SECONDS: '1' });
  });
  after(async () => {
    await suite?.close();
  });
  beforeEach(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fivem-harness-'));
    store = await createStore({ name: 'Lua RP' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
  });
  afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

  async function harness(env: Record<string, string>): Promise<HarnessRun> {
    const { stdout } = await run(lua, [HARNESS, RESOURCE], {
      env: { PATH: process.env.PATH, HARNESS_DIR: scratch, ...env },
      timeout: 60_000,
    });
    return parse(stdout);
  }

  it('runs an offline and an online command of one purchase exactly once, through 429, a dropped and a lost acknowledgement', async () => {
    const product = await fivemProduct(store, [
      { command: 'say Thanks {customer_first_name}', require_online: false },
      { command: 'givecar {player} adder {server_id}', require_online: true },
    ]);
    const { secret } = await gameServer(suite.deps, store);
    const order = await buyThroughSandbox(
      suite.deps,
      suite.server,
      store,
      product,
      { '1': 'license:5a1e' },
      '500009801',
    );
    await waitFor('the commands to be queued', async () => {
      const rows = await suite.deps.knex('fivem_commands').where('order_id', order.id);
      return rows.length === 2 || undefined;
    });

    const result = await harness({
      HARNESS_URL: suite.server.url,
      HARNESS_SECRET: secret,
      HARNESS_RUN_MS: '6000',
      HARNESS_PLAYER: 'license:5a1e,steam:110000100000abc,ip:127.0.0.1',
      HARNESS_JOIN_MS: '1000',
      HARNESS_FAULTS: 'GET:429,DELETE:drop,DELETE:lose',
      HARNESS_CONFIG: JSON.stringify({ AckDelayMs: 200, BackoffStartSeconds: 1, JoinDelayMs: 500 }),
    });
    if (process.env.SHOW_HARNESS) console.log(JSON.stringify(result, null, 1));
    expect(result.errors).to.deep.equal([]);
    expect(result.done).to.equal(true);

    // Each command ran once; the online one with the joined player's server id.
    expect(result.executed.map((e) => e.command)).to.have.members([
      'say Thanks Sara',
      'givecar license:5a1e adder 1',
    ]);
    expect(result.executed).to.have.length(2);

    // The 429 was honoured: the next poll waited for Retry-After (2 s of the resource's clock).
    const polls = result.requests.filter((r) => r.method === 'GET' && r.path === '/api/fivem/queue');
    expect(polls[0]).to.include({ status: 429, fault: '429' });
    expect(polls[1].at - polls[0].at).to.be.at.least(2000);
    // Acknowledgements: one never sent, one whose answer was lost, then one that settled them.
    const acks = result.requests.filter((r) => r.method === 'DELETE');
    expect(acks.slice(0, 3).map((a) => [a.status, a.fault])).to.deep.equal([
      [0, 'drop'],
      [200, 'lose'],
      [200, '-'],
    ]);

    const rows = (await suite.deps.knex('fivem_commands').where('order_id', order.id).orderBy('id')) as {
      command: string;
      status: string;
      lease_count: number;
    }[];
    expect(rows.map((r) => [r.command, r.status])).to.deep.equal([
      ['say Thanks Sara', 'executed'],
      ['givecar license:5a1e adder {server_id}', 'executed'],
    ]);
    for (const row of rows) {
      expect(row.lease_count, 'listed again after the lost acknowledgement, not run again').to.be.at.least(2);
    }
    expect(JSON.parse(fs.readFileSync(path.join(scratch, 'pending_acks.json'), 'utf8'))).to.deep.equal([]);
  });

  it('a restarted server acknowledges what it ran before the restart instead of running it again', async () => {
    // The purchase path is the first test's; here the order is written directly to save time.
    const product = await fivemProduct(store, [{ command: 'addrank {player} vip' }]);
    const { secret } = await gameServer(suite.deps, store);
    const order = await paidOrder(suite.deps, store, product, '77');
    const env = {
      HARNESS_URL: suite.server.url,
      HARNESS_SECRET: secret,
      HARNESS_CONFIG: JSON.stringify({ AckDelayMs: 200, BackoffStartSeconds: 5 }),
    };
    // The server runs the command, then goes down before any acknowledgement gets through.
    const first = await harness({ ...env, HARNESS_RUN_MS: '1500', HARNESS_FAULTS: 'DELETE:drop' });
    expect(first.executed.map((e) => e.command)).to.deep.equal(['addrank 77 vip']);
    const [row] = await suite.deps.knex('fivem_commands').where('order_id', order.id);
    expect(row.status).to.equal('pending');

    // Back up after the lease ended: the command may be listed again, but it is only acknowledged.
    const second = await harness({ ...env, HARNESS_RUN_MS: '2500' });
    expect(second.errors).to.deep.equal([]);
    expect(second.executed).to.deep.equal([]);
    const [after] = await suite.deps.knex('fivem_commands').where('order_id', order.id);
    expect(after.status).to.equal('executed');
  });
});
