import { expect } from 'chai';
import type { Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { isPlayerId } from '../../../shared/services/fulfilment/fivem';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { GUEST_BUYER } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import { fivemProduct, gameServer, paidOrder } from './support';

/**
 * A FiveM player id names one player (docs/fivem.md, "Player ids"): never `-1` (read by TriggerClientEvent
 * and many frameworks as "every player"), `0` (the console) or another "all players" form. Refused at
 * checkout (422 naming the field) for a product whose commands need a player, never queued for the game
 * server, and refused by the online listing (422).
 */
describe('FiveM player ids', function () {
  this.timeout(30_000);
  let deps: Deps;
  let server: TestServer;
  let store: Store;

  const ALL_PLAYERS = ['-1', '0', '*', 'all', '@a', 'everyone', '-1.0', '+1', '01', '65536', 'ip:1.2.3.4'];
  const ONE_PLAYER = [
    '12',
    '1',
    '65535',
    'license:abc123',
    'steam:110000112345678',
    'discord:123456',
    'fivem:42',
  ];

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1', RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
  });
  after(() => server.close());

  it('takes one player and refuses every "all players" form', () => {
    for (const id of ONE_PLAYER) expect(isPlayerId(id), id).to.equal(true);
    for (const id of ALL_PLAYERS) expect(isPlayerId(id), id).to.equal(false);
  });

  it('refuses -1 at checkout with a 422 naming the player field, for a product whose commands need a player', async () => {
    const product = await fivemProduct(store, [{ command: 'give {player} vip' }]);
    const checkout = (player: string) =>
      server.request('/api/embed/guest/checkout', {
        method: 'POST',
        json: { ...GUEST_BUYER, product_id: product.id, quantity: 1, fields: { '1': player } },
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
      });
    for (const id of ['-1', '0', 'all']) {
      const res = await checkout(id);
      expect(res.status, `${id}: ${res.text}`).to.equal(422);
      expect(res.body.errors).to.have.property('fields.1');
      expect(String((res.body.errors as Record<string, string[]>)['fields.1'])).to.include('never -1');
    }
    expect((await checkout('license:abc123')).status).to.equal(200);
    // A product without FiveM commands takes any value in a field called "player".
    const plain = await createProduct(store, {
      fields: [{ type: 'text', label: 'Player name', required: true }],
    });
    const named = await server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: { ...GUEST_BUYER, product_id: plain.id, quantity: 1, fields: { '0': 'Abu Fahad -1' } },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(named.status, named.text).to.equal(200);
  });

  it('never queues a command for -1: the command is recorded failed, and the online listing refuses -1', async () => {
    const product = await fivemProduct(store, [{ command: 'give {player} vip', require_online: true }]);
    const order = await paidOrder(deps, store, product, '-1');
    const rows = await deps
      .knex('fivem_commands')
      .where({ order_id: order.id })
      .select('status', 'player_id');
    expect(rows).to.deep.equal([{ status: 'failed', player_id: null }]);
    const { secret } = await gameServer(deps, store, 'player-id');
    const listed = await server.request('/api/fivem/queue/online/-1', {
      headers: { 'X-FiveM-Secret': secret },
    });
    expect(listed.status, listed.text).to.equal(422);
    expect(listed.body).to.include({ success: false });
    const queue = await server.request('/api/fivem/queue', { headers: { 'X-FiveM-Secret': secret } });
    expect((queue.body.data as { players: string[] }).players).to.not.include('-1');
  });
});
