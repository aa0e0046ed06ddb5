import { expect } from 'chai';
import { FivemCommand, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { LIMITS } from '../../../shared/rate-limits';
import {
  acknowledgeCommands,
  FIVEM_ACK_LIMIT,
  listOfflineCommands,
  revokeFivemServers,
} from '../../../shared/services/fivem';
import { createStore, merchantToken } from '../../helpers/builders';
import { usePaymentsSuite } from '../payments/support';
import { commandsOf, FivemClient, fivemProduct, gameServer, idsOf, paidOrder } from './support';

/**
 * The FiveM API (docs/operations.md) through real HTTP on a real database: authentication, per-store
 * isolation, the listings' shapes, leases, acknowledgements, bad input.
 */
describe('FiveM API: queue, leases and acknowledgements', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite({ workers: false });
  let deps: Deps;
  let store: Store;
  let client: FivemClient;
  /** The game server `client` authenticates as, for calls made straight to the services. */
  let server: { id: number; store_id: number };
  const settings = { leaseSeconds: 60, pollSeconds: 30 };

  before(() => {
    deps = suite.deps;
  });
  beforeEach(async () => {
    store = await createStore({ name: 'Los Santos RP' });
    const issued = await gameServer(deps, store);
    client = new FivemClient(suite.server, issued.secret);
    server = { id: issued.id, store_id: store.id };
  });

  describe('authentication', () => {
    it('answers 401 without a secret, with a wrong or revoked one, and with a merchant token or embed key', async () => {
      const missing = await suite.server.request('/api/fivem/queue');
      expect(missing.status).to.equal(401);
      expect(missing.body).to.deep.equal({
        success: false,
        error_code: 'unauthenticated',
        message: 'The FiveM secret is required (X-FiveM-Secret)',
        doc_url: '/docs/errors.md#unauthenticated',
      });

      const mt = await merchantToken(store);
      for (const wrong of ['fvm_not-a-secret', mt, store.embed_key, 'x'.repeat(500)]) {
        const res = await new FivemClient(suite.server, wrong).queue();
        expect(res.status, wrong).to.equal(401);
        expect(res.body).to.deep.equal({
          success: false,
          error_code: 'unauthenticated',
          message: 'Invalid FiveM secret',
          doc_url: '/docs/errors.md#unauthenticated',
        });
      }
      const bearer = await suite.server.request('/api/fivem/queue', {
        headers: { Authorization: `Bearer ${mt}`, 'X-Embed-Key': store.embed_key },
      });
      expect(bearer.status).to.equal(401);

      const second = await gameServer(deps, store, 'event server');
      const ok = await new FivemClient(suite.server, second.secret).queue();
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body).to.deep.equal({ success: true, data: { commands: [], players: [], next_check: 30 } });

      expect(await revokeFivemServers(deps.knex, store.id, { id: second.id })).to.deep.equal([second.id]);
      expect((await new FivemClient(suite.server, second.secret).queue()).status).to.equal(401);
      expect((await client.queue()).status, 'the other server of the store still works').to.equal(200);

      const stored = await deps.knex('fivem_servers').where('id', second.id).first();
      expect(stored.secret_hash).to.match(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(stored)).to.not.contain(second.secret);
    });
  });

  describe('rate limit', () => {
    it('allows a game server 300 requests a minute; the 429 says when to come back (next_check, Retry-After)', async () => {
      const spent = await client.ack({ ids: [] });
      expect(spent.status).to.equal(422);
      expect(spent.headers.get('x-ratelimit-limit')).to.equal(String(LIMITS.fivemPerServer.points));
      // The rest of the minute's budget, spent straight on the limiter rather than with 299 requests.
      await deps.services.rateLimiter.consume([
        { def: LIMITS.fivemPerServer, key: String(server.id), cost: LIMITS.fivemPerServer.points - 1 },
      ]);
      const limited = await client.queue();
      expect(limited.status).to.equal(429);
      expect(limited.body.success).to.equal(false);
      expect(limited.body.next_check).to.be.a('number').within(1, 60);
      expect(limited.headers.get('retry-after')).to.equal(String(limited.body.next_check));
      const other = await gameServer(deps, store, 'other server');
      expect((await new FivemClient(suite.server, other.secret).queue()).status, 'per server').to.equal(200);
    });
  });

  describe('listings', () => {
    it('lists offline commands in data.commands and waiting players in data.players; a player’s in online/{playerId}', async () => {
      const product = await fivemProduct(store, [
        { command: 'announce Thanks {customer_name} for order {order_id}', require_online: false },
        { command: 'givecar {player} adder {unit}/{quantity}', require_online: true },
      ]);
      const order = await paidOrder(deps, store, product, 'license:abc123', 2);

      const listed = await client.queue();
      expect(listed.status, listed.text).to.equal(200);
      const data = listed.body.data as { commands: unknown[]; players: string[]; next_check: number };
      expect(data.players).to.deep.equal(['license:abc123']);
      expect(data.next_check).to.equal(30);
      expect(data.commands).to.have.length(2);
      for (const c of commandsOf(listed)) {
        expect(c.id).to.be.a('number');
        expect(Number.isInteger(c.id)).to.equal(true);
        expect(c).to.include({
          command: `announce Thanks Sara Ali for order ${order.id}`,
          player: 'license:abc123',
        });
      }

      const online = await client.online('license:abc123');
      expect(online.status, online.text).to.equal(200);
      expect(commandsOf(online).map((c) => c.command)).to.deep.equal([
        'givecar license:abc123 adder 1/2',
        'givecar license:abc123 adder 2/2',
      ]);
      expect(commandsOf(online)[0]).to.include.keys([
        'id',
        'command',
        'player',
        'order_id',
        'require_online',
        'inventory_slots',
        'lease_expires_at',
      ]);
      expect((online.body.data as { next_check: number }).next_check).to.equal(30);

      // All four are leased: nothing is listed again, the player is no longer waiting.
      expect((await client.queue()).body.data).to.deep.equal({ commands: [], players: [], next_check: 30 });
      expect(commandsOf(await client.online('license:abc123'))).to.deep.equal([]);
    });

    it('keeps other stores’ commands, players and ids out of sight', async () => {
      const other = await createStore({ name: 'Other RP' });
      const otherClient = new FivemClient(suite.server, (await gameServer(deps, other)).secret);
      const mine = await paidOrder(deps, store, await fivemProduct(store, [{}]), 'steam:1100001aaaa');
      const theirs = await paidOrder(
        deps,
        other,
        await fivemProduct(other, [{ require_online: true, command: 'kick {player}' }]),
        'steam:1100001bbbb',
      );

      const listed = await client.queue();
      expect(commandsOf(listed).map((c) => c.command)).to.deep.equal(['give steam:1100001aaaa vip']);
      expect((listed.body.data as { players: string[] }).players).to.deep.equal([]);
      const unknown = await client.online('steam:1100001bbbb');
      expect(unknown.status).to.equal(404);
      expect(unknown.body).to.deep.equal({
        success: false,
        error_code: 'not_found',
        message: 'Unknown player: no command was ever queued for this player',
        doc_url: '/docs/errors.md#not_found',
      });

      const theirIds = (await FivemCommand.query().where('order_id', theirs.id)).map((r) => r.id);
      const otherListing = await otherClient.online('steam:1100001bbbb');
      expect(idsOf(otherListing)).to.deep.equal(theirIds);
      const ack = await client.ack({ ids: theirIds });
      expect(ack.status).to.equal(200);
      expect(ack.body.data).to.deep.equal({
        executed: [],
        ignored: theirIds.map((id) => ({ id, reason: 'unknown' })),
        next_check: 30,
      });
      expect((await FivemCommand.query().where('order_id', theirs.id)).map((r) => r.status)).to.deep.equal([
        'pending',
      ]);
      expect((await FivemCommand.query().where('order_id', mine.id)).map((r) => r.status)).to.deep.equal([
        'pending',
      ]);
    });

    it('holds back delayed commands (next_check says when they are due) and expired ones', async () => {
      const product = await fivemProduct(store, [
        { command: 'now {player}' },
        { command: 'later {player}', delay_seconds: 12, inventory_slots: 3 },
      ]);
      const order = await paidOrder(deps, store, product, '42');
      const first = await client.queue();
      expect(commandsOf(first).map((c) => c.command)).to.deep.equal(['now 42']);
      const next = (first.body.data as { next_check: number }).next_check;
      expect(next).to.be.within(1, 12);

      const due = await listOfflineCommands(deps.knex, server, settings, new Date(Date.now() + 13_000));
      expect(due.commands.map((c) => [c.command, c.inventory_slots])).to.deep.equal([['later 42', 3]]);

      await FivemCommand.query()
        .patch({ expires_at: new Date(Date.now() - 1000), leased_until: null })
        .where('order_id', order.id);
      expect(commandsOf(await client.queue())).to.deep.equal([]);
      expect((await FivemCommand.query().where('order_id', order.id)).map((r) => r.status)).to.deep.equal([
        'expired',
        'expired',
      ]);
    });
  });

  describe('leases and acknowledgements', () => {
    it('lists a command again once its lease ends unacknowledged; after DELETE no listing shows it', async () => {
      const order = await paidOrder(
        deps,
        store,
        await fivemProduct(store, [{}, { command: 'b {player}' }]),
        '7',
      );
      const [a, b] = idsOf(await client.queue());
      const afterLease = new Date(Date.now() + 61_000);

      // The resource ran `a` and acknowledged it; `b` was lost with the server's crash.
      const ack = await client.ack({ ids: [a] });
      expect(ack.body.data).to.deep.equal({ executed: [a], ignored: [], next_check: 30 });
      const again = await listOfflineCommands(deps.knex, server, settings, afterLease);
      expect(again.commands.map((c) => c.id)).to.deep.equal([b]);
      const rows = await FivemCommand.query().where('order_id', order.id).orderBy('id');
      expect(rows.map((r) => [r.status, r.lease_count])).to.deep.equal([
        ['executed', 1],
        ['pending', 2],
      ]);

      await acknowledgeCommands(deps.knex, server, [b], settings, afterLease);
      const later = await listOfflineCommands(deps.knex, server, settings, new Date(Date.now() + 3600_000));
      expect(later.commands).to.deep.equal([]);
    });

    it('DELETE is idempotent and reports what it ignored instead of failing', async () => {
      const order = await paidOrder(
        deps,
        store,
        await fivemProduct(store, [{}, { command: 'b {player}' }]),
        '7',
      );
      const [a, b] = (await FivemCommand.query().where('order_id', order.id).orderBy('id')).map((r) => r.id);
      const early = await client.ack({ ids: [a] });
      expect(early.body.data, 'a command never listed cannot be acknowledged').to.deep.equal({
        executed: [],
        ignored: [{ id: a, reason: 'not_listed' }],
        next_check: 30,
      });
      expect(idsOf(await client.queue())).to.deep.equal([a, b]);

      const first = await client.ack({ ids: [a, b, a, 999_999_999] });
      expect(first.status).to.equal(200);
      expect(first.body.data).to.deep.equal({
        executed: [a, b],
        ignored: [{ id: 999_999_999, reason: 'unknown' }],
        next_check: 30,
      });
      const repeat = await client.ack({ ids: [a, b] });
      expect(repeat.status).to.equal(200);
      expect(repeat.body.data).to.deep.equal({
        executed: [],
        ignored: [
          { id: a, reason: 'executed' },
          { id: b, reason: 'executed' },
        ],
        next_check: 30,
      });
      const rows = await FivemCommand.query().where('order_id', order.id);
      expect(rows.every((r) => r.status === 'executed' && r.executed_at !== null)).to.equal(true);
    });

    it('two game servers polling at once never get the same command', async () => {
      const product = await fivemProduct(store, [{}]);
      await paidOrder(deps, store, product, '9', 250);
      const second = new FivemClient(suite.server, (await gameServer(deps, store, 'second')).secret);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? client : second).queue()),
      );
      for (const res of answers) expect(res.status, res.text).to.equal(200);
      const handed = answers.flatMap(idsOf);
      expect(handed).to.have.length(250);
      expect(new Set(handed).size, 'no command handed out twice').to.equal(250);
      expect(answers.filter((r) => idsOf(r).length > 0).length, 'batches of 100').to.be.at.least(3);

      // Acknowledging the same ids from both servers at once executes each exactly once.
      const acks = await Promise.all([client.ack({ ids: handed }), second.ack({ ids: handed })]);
      const executed = acks.flatMap((r) => (r.body.data as { executed: number[] }).executed);
      expect(executed.sort((x, y) => x - y)).to.deep.equal([...handed].sort((x, y) => x - y));
    });
  });

  describe('bad input', () => {
    it('answers 4xx in the FiveM envelope for ids that are not integers, too many ids, a bad player id', async () => {
      const cases: [unknown, string][] = [
        [{}, 'ids'],
        [{ ids: [] }, 'ids'],
        [{ ids: 'all' }, 'ids'],
        [{ ids: ['12'] }, 'ids.0'],
        [{ ids: [1.5] }, 'ids.0'],
        [{ ids: [-3] }, 'ids.0'],
        [{ ids: [null] }, 'ids.0'],
        [{ ids: [2 ** 40] }, 'ids.0'],
        [{ ids: Array.from({ length: FIVEM_ACK_LIMIT + 1 }, (_, i) => i + 1) }, 'ids'],
      ];
      for (const [body, field] of cases) {
        const res = await client.ack(body);
        expect(res.status, JSON.stringify(body).slice(0, 60)).to.equal(422);
        expect(res.body.success).to.equal(false);
        expect(res.body.errors).to.have.property(field);
      }
      const tooMany = await client.ack({ ids: Array.from({ length: FIVEM_ACK_LIMIT + 1 }, (_, i) => i + 1) });
      expect((tooMany.body.errors as Record<string, string[]>).ids).to.deep.equal([
        `ids may hold at most ${FIVEM_ACK_LIMIT} ids; acknowledge in batches`,
      ]);

      const malformed = await suite.server.request('/api/fivem/queue', {
        method: 'DELETE',
        body: '{"ids": [1,',
        headers: { 'X-FiveM-Secret': client.secret, 'Content-Type': 'application/json' },
      });
      expect(malformed.status).to.equal(400);
      expect(malformed.body).to.deep.equal({
        success: false,
        error_code: 'malformed_json',
        message: 'Malformed JSON body',
        doc_url: '/docs/errors.md#malformed_json',
      });

      const huge = await suite.server.request('/api/fivem/queue', {
        method: 'DELETE',
        body: JSON.stringify({ ids: Array.from({ length: 20_000 }, (_, i) => i + 1) }),
        headers: { 'X-FiveM-Secret': client.secret, 'Content-Type': 'application/json' },
      });
      expect(huge.status).to.equal(413);

      for (const bad of ['a;b', 'x'.repeat(65), 'quit now']) {
        const res = await client.online(bad);
        expect(res.status, bad).to.equal(422);
        expect(res.body.errors).to.have.property('playerId');
      }
      expect((await client.online('license:nobody')).status).to.equal(404);
    });
  });
});
