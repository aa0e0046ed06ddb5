import { expect } from 'chai';
import { FivemCommand, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { orderFivemCommands } from '../../../shared/services/fivem';
import { cancelOrder } from '../../../shared/services/orders';
import { loadFixture } from '../../../shared/services/seed';
import { fivemSecretCommand } from '../../../scripts/fivem-secret';
import { createStore } from '../../helpers/builders';
import { usePaymentsSuite } from '../payments/support';
import { commandsOf, FivemClient, fivemProduct, gameServer, idsOf, paidOrder } from './support';

/**
 * What happens to an order's commands after the purchase: withdrawal and `on_refund` commands when it is
 * cancelled or refunded, the states the Merchant order detail shows, /metrics, and the secret CLI.
 */
describe('FiveM commands over an order’s life', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite({ workers: false });
  let deps: Deps;
  let store: Store;
  let client: FivemClient;

  before(() => {
    deps = suite.deps;
  });
  beforeEach(async () => {
    store = await createStore({ name: 'Refund RP' });
    client = new FivemClient(suite.server, (await gameServer(deps, store)).secret);
  });

  it('a refund withdraws what was not executed and queues the on_refund commands of what was given', async () => {
    const given = await fivemProduct(store, [
      { command: 'addrank {player} vip' },
      { command: 'givemoney {player} 500', delay_seconds: 3600 },
      { command: 'removerank {player} vip', run_on: 'refund' },
    ]);
    const order = await paidOrder(deps, store, given, 'license:refund1');
    const [rank] = idsOf(await client.queue());
    expect((await client.ack({ ids: [rank] })).body.data).to.include({ next_check: 30 });

    const before = await orderFivemCommands(deps.knex, order.id);
    expect(before.counts).to.deep.equal({ pending: 1, executed: 1, withdrawn: 0, expired: 0, failed: 0 });

    await cancelOrder(deps, order.id, 'refunded');
    const after = await orderFivemCommands(deps.knex, order.id);
    expect(after.commands.map((c) => [c.command, c.kind, c.state])).to.deep.equal([
      ['addrank license:refund1 vip', 'purchase', 'executed'],
      ['givemoney license:refund1 500', 'purchase', 'withdrawn'],
      ['removerank license:refund1 vip', 'refund', 'pending'],
    ]);
    expect(after.commands[1].withdrawn_at).to.be.a('string');

    // The game server now gets the revoke, never the withdrawn command.
    const listed = await client.queue();
    expect(commandsOf(listed).map((c) => c.command)).to.deep.equal(['removerank license:refund1 vip']);
    await cancelOrder(deps, order.id, 'refunded');
    expect(
      await FivemCommand.query().where('order_id', order.id).resultSize(),
      'twice adds nothing',
    ).to.equal(3);
    const late = await client.ack({ ids: [after.commands[1].id] });
    expect((late.body.data as { ignored: unknown[] }).ignored).to.deep.equal([
      { id: after.commands[1].id, reason: 'withdrawn' },
    ]);
  });

  it('cancelling before anything ran withdraws everything and queues no revoke; cancel then refund adds none', async () => {
    const product = await fivemProduct(store, [
      { command: 'givecar {player} adder', require_online: true },
      { command: 'takecar {player} adder', run_on: 'refund', require_online: true },
    ]);
    const order = await paidOrder(deps, store, product, 'steam:11000010cafe', 2);
    await cancelOrder(deps, order.id, 'cancelled');
    await cancelOrder(deps, order.id, 'refunded');
    const { commands, counts } = await orderFivemCommands(deps.knex, order.id);
    expect(commands.map((c) => c.state)).to.deep.equal(['withdrawn', 'withdrawn']);
    expect(counts).to.include({ withdrawn: 2, pending: 0 });
    expect((await client.queue()).body.data).to.deep.equal({ commands: [], players: [], next_check: 30 });
    expect(commandsOf(await client.online('steam:11000010cafe'))).to.deep.equal([]);
  });

  it('a command listed but not yet acknowledged counts as given: its revoke is queued', async () => {
    const product = await fivemProduct(store, [
      { command: 'addrank {player} gold' },
      { command: 'removerank {player} gold', run_on: 'refund' },
    ]);
    const order = await paidOrder(deps, store, product, '55');
    const [leased] = idsOf(await client.queue());
    await cancelOrder(deps, order.id, 'cancelled');
    const { commands } = await orderFivemCommands(deps.knex, order.id);
    expect(commands.map((c) => [c.id === leased, c.kind, c.state])).to.deep.equal([
      [true, 'purchase', 'withdrawn'],
      [false, 'refund', 'pending'],
    ]);
  });

  it('counts commands by state in /metrics', async () => {
    const product = await fivemProduct(store, [{}, { command: 'b {player}' }, { command: 'c {player}' }]);
    const order = await paidOrder(deps, store, product, '77');
    const [a] = idsOf(await client.queue());
    await client.ack({ ids: [a] });
    await FivemCommand.query()
      .patch({ expires_at: new Date(Date.now() - 1000), leased_until: null })
      .where('order_id', order.id)
      .where('status', 'pending')
      .where('command', 'c 77');
    const res = await suite.server.request('/metrics');
    expect(res.status).to.equal(200);
    const counts = await deps.knex('fivem_commands').count('* as n').first();
    const read = (state: string): number =>
      Number(new RegExp(`^fivem_commands\\{state="${state}"\\} (\\d+)$`, 'm').exec(res.text)?.[1] ?? NaN);
    for (const state of ['pending', 'executed', 'expired']) expect(read(state), state).to.be.at.least(1);
    const total = ['pending', 'executed', 'withdrawn', 'expired', 'failed'].reduce((n, s) => n + read(s), 0);
    expect(total).to.equal(Number(counts?.n));
    expect(res.text).to.match(/^fivem_commands_up 1$/m);
  });

  it('a fixture’s FiveM secret authenticates, and its templates may run on refund, later, or need slots', async () => {
    const manifest = await loadFixture(deps, {
      stores: [
        {
          ref: 'rp',
          name: 'Fixture RP',
          currency: 'SAR',
          fivem_secret: 'fivem_fixture_rp_secret_0001',
          products: [
            {
              ref: 'vip',
              name: 'VIP',
              slug: 'vip-fixture',
              type: 'product',
              price: '10.00',
              fields: [{ type: 'text', label: 'Player ID', required: true }],
              fivem_commands: [
                { command: 'addrank {player} vip', require_online: true, inventory_slots: 2 },
                { command: 'givemoney {player} 500', delay_seconds: 60 },
                { command: 'removerank {player} vip', run_on: 'refund' },
              ],
            },
          ],
        },
      ],
    });
    const productId = manifest.stores.rp.products.vip.id;
    const templates = await deps
      .knex('product_fivem_commands')
      .where('product_id', productId)
      .orderBy('position')
      .select('command', 'require_online', 'run_on', 'delay_seconds', 'inventory_slots');
    expect(templates).to.deep.equal([
      {
        command: 'addrank {player} vip',
        require_online: true,
        run_on: 'purchase',
        delay_seconds: 0,
        inventory_slots: 2,
      },
      {
        command: 'givemoney {player} 500',
        require_online: false,
        run_on: 'purchase',
        delay_seconds: 60,
        inventory_slots: null,
      },
      {
        command: 'removerank {player} vip',
        require_online: false,
        run_on: 'refund',
        delay_seconds: 0,
        inventory_slots: null,
      },
    ]);
    const res = await new FivemClient(suite.server, 'fivem_fixture_rp_secret_0001').queue();
    expect(res.status).to.equal(200);
  });

  it('the CLI issues a secret shown once, lists servers without secrets, and revokes', async () => {
    const created = await fivemSecretCommand(deps.knex, [
      'create',
      '--store',
      String(store.id),
      '--name',
      'EU #1',
    ]);
    expect(created.code, created.stderr).to.equal(0);
    const secret = created.stdout.trim();
    expect(secret).to.match(/^fvm_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).to.contain('shown only this once');
    expect((await new FivemClient(suite.server, secret).queue()).status).to.equal(200);

    const listed = await fivemSecretCommand(deps.knex, ['list', '--store', String(store.id)]);
    expect(listed.stdout).to.contain('EU #1\tlive').and.to.not.contain(secret);

    const revoked = await fivemSecretCommand(deps.knex, [
      'revoke',
      '--store',
      String(store.id),
      '--name',
      'EU #1',
    ]);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect((await new FivemClient(suite.server, secret).queue()).status).to.equal(401);
    const again = await fivemSecretCommand(deps.knex, [
      'revoke',
      '--store',
      String(store.id),
      '--name',
      'EU #1',
    ]);
    expect(again).to.include({ code: 1 });

    for (const bad of [
      [],
      ['create', '--store', 'x', '--name', 'a'],
      ['create', '--store', '1'],
      ['drop', '--store', '1'],
    ]) {
      const out = await fivemSecretCommand(deps.knex, bad);
      expect(out.code, bad.join(' ')).to.equal(1);
      expect(out.stderr).to.contain('usage:');
    }
    const noStore = await fivemSecretCommand(deps.knex, ['create', '--store', '999999', '--name', 'x']);
    expect(noStore).to.include({ code: 1, stderr: 'fivem-secret: Store 999999 does not exist\n' });
  });
});
