import { expect } from 'chai';
import type { Store } from '../../../db/models';
import { createStore } from '../../helpers/builders';
import { hostedMethod, usePaymentsSuite, waitFor } from '../payments/support';
import { buyThroughSandbox, commandsOf, FivemClient, fivemProduct, gameServer, idsOf } from './support';

/**
 * A FiveM product bought through the sandbox provider (docs/operations.md) with real workers: the paid
 * webhook creates the order, fulfilment queues the commands, and the game server finds each one in the
 * right listing: an offline command in GET /queue, an online one under the buyer's player id.
 */
describe('FiveM: a purchase through the sandbox provider reaches the game server', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let client: FivemClient;

  beforeEach(async () => {
    store = await createStore({ name: 'Sandbox RP' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    client = new FivemClient(suite.server, (await gameServer(suite.deps, store)).secret);
  });

  it('queues the offline command in data.commands and the online one under the buyer’s player id', async () => {
    const product = await fivemProduct(store, [
      { command: 'announce {customer_first_name} bought {product_name}', require_online: false },
      { command: 'givecar {player} adder', require_online: true },
    ]);
    const order = await buyThroughSandbox(
      suite.deps,
      suite.server,
      store,
      product,
      { '0': 'sara#1234', '1': 'license:0a1b2c3d' },
      '500009701',
    );

    const listed = await waitFor('the offline command to be listed', async () => {
      const res = await client.queue();
      return commandsOf(res).length > 0 ? res : undefined;
    });
    expect(commandsOf(listed).map((c) => [c.command, c.player])).to.deep.equal([
      [`announce Sara bought ${product.name}`, 'license:0a1b2c3d'],
    ]);
    expect((listed.body.data as { players: string[] }).players).to.deep.equal(['license:0a1b2c3d']);

    const online = await client.online('license:0a1b2c3d');
    expect(commandsOf(online).map((c) => c.command)).to.deep.equal(['givecar license:0a1b2c3d adder']);
    const ack = await client.ack({ ids: [...idsOf(listed), ...idsOf(online)] });
    expect((ack.body.data as { executed: number[] }).executed).to.have.length(2);
    const rows = await suite.deps.knex('fivem_commands').where('order_id', order.id);
    expect(rows.map((r: { status: string }) => r.status)).to.deep.equal(['executed', 'executed']);
  });
});
