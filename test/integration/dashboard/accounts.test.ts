import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { FixtureError, loadFixture } from '../../../shared/services/seed';
import { inviteStaff, listStaff, removeStaff } from '../../../shared/services/staff/accounts';
import { DashboardSignIn } from '../../../shared/services/staff/sign-in';
import { otpGuardsOf } from '../../../shared/services/otp/factory';
import { MAINTENANCE_TASKS } from '../../../shared/services/maintenance';
import { createStore } from '../../helpers/builders';
import { sharedDeps, truncateAll } from '../../helpers/deps';
import { deliverQueuedOtps, latestDashboardCode } from '../../helpers/otp';

/**
 * The dashboard's people against real Postgres: the fixture's store owner, staff with roles (a store
 * always keeps an owner, also when two owners remove each other at once), and one code, one sign-in.
 */
describe('merchant dashboard accounts', () => {
  let deps: Deps;

  before(async () => {
    deps = await sharedDeps();
  });

  beforeEach(async () => {
    await truncateAll(deps);
  });

  const fixture = (owner: unknown) => ({
    stores: [{ ref: 'acme', name: 'Acme', currency: 'SAR', ...(owner ? { owner } : {}) }],
  });

  it('makes the fixture owner an owner of the store, and a second load changes nothing', async () => {
    const owner = { name: 'Huda', country_code: '966', phone: '500000010' };
    const first = await loadFixture(deps, fixture(owner));
    const snapshot = async () => ({
      users: await deps.knex('merchant_users').select('id', 'name', 'e164', 'updated_at'),
      members: await deps.knex('store_members').select('id', 'store_id', 'merchant_user_id', 'role'),
    });
    const before = await snapshot();
    expect(before.users).to.have.length(1);
    expect(before.users[0]).to.include({ name: 'Huda', e164: '966500000010' });
    expect(before.members).to.deep.equal([
      {
        id: before.members[0].id,
        store_id: first.stores.acme.id,
        merchant_user_id: before.users[0].id,
        role: 'owner',
      },
    ]);
    await loadFixture(deps, fixture(owner));
    expect(await snapshot()).to.deep.equal(before);
  });

  it('refuses an owner with a bad phone, naming the field', async () => {
    let caught: unknown;
    try {
      await loadFixture(deps, fixture({ name: 'X', country_code: '966', phone: '12ab' }));
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(FixtureError);
    expect((caught as FixtureError).path).to.equal('stores[0].owner.phone');
    expect(await deps.knex('merchant_users').first()).to.equal(undefined);
  });

  it('invites staff by phone with a role, refuses the same phone twice, and keeps one owner when two owners remove each other at once', async () => {
    const store = await createStore();
    const a = await inviteStaff(deps.knex, store.id, null, {
      name: 'A',
      country_code: '966',
      phone: '0500000021',
      role: 'owner',
    });
    expect(a).to.include({ phone: '500000021', role: 'owner' });
    const b = await inviteStaff(deps.knex, store.id, a.merchant_user_id, {
      name: 'B',
      country_code: '966',
      phone: '500000022',
      role: 'owner',
    });
    let twice: unknown;
    try {
      await inviteStaff(deps.knex, store.id, a.merchant_user_id, {
        name: '',
        country_code: '966',
        phone: '500000022',
        role: 'support',
      });
    } catch (err) {
      twice = err;
    }
    expect((twice as Error).message).to.equal('This phone number is already on the staff.');
    const results = await Promise.allSettled([
      removeStaff(deps.knex, store.id, a.id),
      removeStaff(deps.knex, store.id, b.id),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    const left = await listStaff(deps.knex, store.id);
    expect(left.map((m) => m.role)).to.deep.equal(['owner']);
  });

  it('one code signs in once, however many requests send it at the same moment', async () => {
    const store = await createStore();
    await inviteStaff(deps.knex, store.id, null, {
      name: 'Owner',
      country_code: '966',
      phone: '500000031',
      role: 'owner',
    });
    const service = new DashboardSignIn({
      config: deps.config,
      knex: deps.knex,
      queues: deps.queues,
      appSecret: deps.appSecret,
      cipher: deps.cipher,
      consumeLimit: () => Promise.resolve(),
      guards: otpGuardsOf(deps),
    });
    // A phone of no store is answered as a merchant's, but nothing is sent to it.
    expect(
      (await service.start('signin', { country_code: '966', phone: '500000099' }, '10.0.0.1')).kind,
    ).to.equal('sent');
    await deliverQueuedOtps(deps);
    expect(await deps.knex('outbound_messages').where({ to: '966500000099' }).pluck('id')).to.deep.equal([]);
    const started = await service.start(
      'signin',
      { country_code: '966', phone: '+966 50 000 0031' },
      '10.0.0.1',
    );
    if (started.kind !== 'sent') throw new Error(started.kind);
    expect(started.phone.e164).to.equal('966500000031');
    const code = await latestDashboardCode(deps, '966500000031');
    expect(code).to.match(/^\d{6}$/);
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => service.verify(started.sessionToken, code, '10.0.0.1')),
    );
    expect(outcomes.filter((o) => o.kind === 'ok')).to.have.length(1);
  });

  it('shares the per-phone cap of failed codes with the buyers: past 10 a day, even the right code is refused', async () => {
    const store = await createStore();
    const phone = '500000032';
    await inviteStaff(deps.knex, store.id, null, {
      name: 'Owner',
      country_code: '966',
      phone,
      role: 'owner',
    });
    const guards = otpGuardsOf(deps);
    const service = new DashboardSignIn({
      config: deps.config,
      knex: deps.knex,
      queues: deps.queues,
      appSecret: deps.appSecret,
      cipher: deps.cipher,
      consumeLimit: () => Promise.resolve(),
      guards,
    });
    // Ten wrong codes over four sessions (three tries each), as a guesser with fresh sessions would.
    let wrong = 0;
    while (wrong < 10) {
      const started = await service.start('signin', { country_code: '966', phone }, '10.0.0.2');
      if (started.kind !== 'sent') throw new Error(started.kind);
      for (let i = 0; i < 3 && wrong < 10; i += 1) {
        const outcome = await service.verify(started.sessionToken, '000000', '10.0.0.2');
        expect(outcome.kind).to.be.oneOf(['wrong', 'max_attempts']);
        wrong += 1;
      }
    }
    expect(await guards.failuresToday('966' + phone)).to.equal(10);
    const started = await service.start('signin', { country_code: '966', phone }, '10.0.0.2');
    if (started.kind !== 'sent') throw new Error(started.kind);
    const code = await latestDashboardCode(deps, '966' + phone);
    const refused = await service.verify(started.sessionToken, code, '10.0.0.2');
    expect(refused.kind).to.equal('locked');
    expect(await guards.failuresToday('966' + phone)).to.equal(10);
  });

  it('the maintenance task purges sessions a week past expiry or sign-out, and keeps live ones', async () => {
    const owner = { name: 'Huda', country_code: '966', phone: '500000011' };
    await loadFixture(deps, fixture(owner));
    const user = await deps.knex('merchant_users').first('id');
    const day = 86_400_000;
    const now = Date.now();
    const row = (hash: string, expiresAgo: number, revokedAgo: number | null) => ({
      merchant_user_id: user.id,
      token_hash: hash,
      last_seen_at: new Date(now - 40 * day),
      expires_at: new Date(now - expiresAgo),
      revoked_at: revokedAgo === null ? null : new Date(now - revokedAgo),
    });
    await deps.knex('dashboard_sessions').insert([
      row('a'.repeat(64), 8 * day, null), // expired 8 days ago: purged
      row('b'.repeat(64), 2 * day, null), // expired 2 days ago: kept
      row('c'.repeat(64), -10 * day, 9 * day), // live but signed out 9 days ago: purged
      row('d'.repeat(64), -10 * day, null), // live: kept
    ]);
    await deps.knex('dashboard_sign_in_challenges').insert([
      { merchant_user_id: user.id, token_hash: 'e'.repeat(64), expires_at: new Date(now - 2 * day) },
      { merchant_user_id: user.id, token_hash: 'f'.repeat(64), expires_at: new Date(now + 60_000) },
    ]);
    const task = MAINTENANCE_TASKS['purge-dashboard-sessions']!;
    expect(await task(deps.knex, new Date(now), { queues: deps.queues, tx: deps.tx })).to.deep.equal({
      deleted: 2,
    });
    expect(await task(deps.knex, new Date(now), { queues: deps.queues, tx: deps.tx })).to.deep.equal({
      deleted: 0,
    });
    const left = await deps.knex('dashboard_sessions').orderBy('token_hash').pluck('token_hash');
    expect(left.map((h: string) => h[0])).to.deep.equal(['b', 'd']);
    // Two-step sign-in challenges a day past expiry go too; a live one stays.
    const challenges = await deps.knex('dashboard_sign_in_challenges').pluck('token_hash');
    expect(challenges.map((h: string) => h[0])).to.deep.equal(['f']);
  });
});
