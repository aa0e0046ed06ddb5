import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { emitEvent } from '../../../shared/events/emit';
import { createEndpoint } from '../../../shared/services/webhooks';
import { RELAY_GRACE_MS, relayOutbox } from '../../../shared/queues/outbox';
import { refundJobId } from '../../../shared/services/refunds';
import { createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';

/**
 * One way to emit an event: a unit of work's `emit`, whose subscribers (shared/events/subscribers.ts)
 * write in the emitting transaction. A rolled-back change is followed by nothing; a committed one by each
 * subscriber once, even when two relays hand its outbox rows over at once.
 */
describe('events: emit through the unit of work', () => {
  let deps: Deps;
  let storeId: number;
  before(async () => {
    deps = await isolatedDeps();
    const store = await createStore();
    storeId = store.id;
    await createEndpoint(deps, storeId, {
      url: 'https://hooks.example.test/all',
      events: ['refund.*', 'order.status_changed'],
    });
  });

  const deliveries = (eventId: string) =>
    deps.knex('merchant_webhook_deliveries').where({ store_id: storeId, event_id: eventId });
  const outbox = (jobIds: string[]) => deps.knex('job_outbox').whereIn('job_id', jobIds);
  /** A refund's events as the refunds service emits them (the payload is the refund's view). */
  const refundData = (id: number, kind: 'provider' | 'manual') => ({
    id,
    order_id: 1,
    kind,
    status: 'pending',
  });

  it('a rolled-back transaction emits nothing: no outbox row, no webhook delivery, no message, no job', async () => {
    const refundId = 880001;
    await deps
      .tx(async (uow) => {
        await uow.emit({
          type: 'refund.created',
          id: `refund.created:${refundId}`,
          storeId,
          data: refundData(refundId, 'provider'),
        });
        await uow.emit({
          type: 'refund.succeeded',
          id: `refund.succeeded:${refundId}`,
          storeId,
          data: refundData(refundId, 'provider'),
        });
        expect((await deliveries(`refund.created:${refundId}`).transacting(uow.trx)).length).to.equal(1);
        throw new Error('roll back');
      })
      .catch((err: Error) => expect(err.message).to.equal('roll back'));
    expect(await deliveries(`refund.created:${refundId}`)).to.have.length(0);
    expect(await deliveries(`refund.succeeded:${refundId}`)).to.have.length(0);
    expect(await outbox([refundJobId(refundId), `refund-message-${refundId}`])).to.have.length(0);
    expect(await deps.queues.payments.getJob(refundJobId(refundId))).to.equal(undefined);
    expect(await deps.queues.messages.getJob(`refund-message-${refundId}`)).to.equal(undefined);
    expect(await deps.queues['merchant-webhooks'].count()).to.equal(0);
  });

  it('a committed one runs each subscriber once, though two relays hand over its rows at once', async () => {
    const refundId = 880002;
    // The process stops right after the commit, before it dispatches: the jobs wait in the outbox.
    await deps.knex.transaction(async (trx) => {
      const crashed = (): void => undefined;
      for (const type of ['refund.created', 'refund.succeeded'] as const) {
        await emitEvent(trx, deps.config, crashed, {
          type,
          id: `${type}:${refundId}`,
          storeId,
          data: refundData(refundId, 'provider'),
        });
      }
      // An order's status change that calls for fulfilment, and a renewal the buyer is told of.
      await emitEvent(trx, deps.config, crashed, {
        type: 'order.status_changed',
        id: 'order.status_changed:770001',
        storeId,
        data: { order_id: 990100, from: 2, to: 3 },
        facts: { auditId: 770001, fulfil: 'paid' },
      });
      await emitEvent(trx, deps.config, crashed, {
        type: 'subscription.renewed',
        id: 'subscription.renewed:990200:r5',
        storeId,
        data: { subscription_id: 990200 },
        facts: { message: { event: 'renewed', renewalId: 5, attempt: 0 } },
      });
    });
    const [changed] = await deliveries('order.status_changed:770001');
    expect(await deliveries('subscription.renewed:990200:r5'), 'no endpoint wants it').to.have.length(0);
    const [created] = await deliveries(`refund.created:${refundId}`);
    const [succeeded] = await deliveries(`refund.succeeded:${refundId}`);
    const jobIds = [
      refundJobId(refundId),
      `refund-message-${refundId}`,
      `merchant-webhook-${created.id}`,
      `merchant-webhook-${succeeded.id}`,
      `merchant-webhook-${changed.id}`,
      'order-merchant-770001',
      'subscription-990200-renewed-5-0',
    ];
    expect((await outbox(jobIds)).map((r) => r.job_id).sort()).to.deep.equal([...jobIds].sort());

    // Two relays at once (a duplicate delivery of the same rows): each job is handed over once.
    const later = new Date(Date.now() + 60_000);
    // The parallel lane shares a database between the files of one process: rows an earlier file left
    // in the outbox are handed over too, and counted apart.
    const [{ n: leftovers }] = await deps
      .knex('job_outbox')
      .whereNotIn('job_id', jobIds)
      .where('created_at', '<', new Date(later.getTime() - RELAY_GRACE_MS))
      .count<{ n: string }[]>({ n: '*' });
    const [a, b] = await Promise.all([
      relayOutbox(deps.knex, later, deps),
      relayOutbox(deps.knex, later, deps),
    ]);
    expect(a.relayed + b.relayed).to.equal(7 + Number(leftovers));
    // A third hand-over of the same jobs (the relay's row delete lost): the job ids dedupe it.
    const provider = await deps.queues.payments.getJob(refundJobId(refundId));
    await deps.queues.payments.add('payments', provider!.data, { jobId: refundJobId(refundId) });
    expect(await outbox(jobIds)).to.have.length(0);
    expect(provider!.data).to.deep.equal({ kind: 'refund', refundId });
    expect(provider!.opts.attempts).to.equal(12);
    expect((await deps.queues.messages.getJob(`refund-message-${refundId}`))!.data).to.deep.equal({
      kind: 'refund',
      refundId,
    });
    expect((await deps.queues.fulfilment.getJob('order-merchant-770001'))!.data).to.deep.equal({
      orderId: 990100,
      event: 'paid',
    });
    expect((await deps.queues.messages.getJob('subscription-990200-renewed-5-0'))!.data).to.deep.include({
      kind: 'subscription',
      subscriptionId: 990200,
      event: 'renewed',
    });
    expect(await deps.queues.payments.count()).to.equal(1);
    expect(await deps.queues.fulfilment.count()).to.equal(1);
    expect(await deps.queues.messages.count()).to.equal(2);
    expect(await deps.queues['merchant-webhooks'].count()).to.equal(3);
    // The same event emitted again (a retried writer) records and stages nothing new.
    await deps.tx((uow) =>
      uow.emit({
        type: 'refund.succeeded',
        id: `refund.succeeded:${refundId}`,
        storeId,
        data: refundData(refundId, 'provider'),
      }),
    );
    expect(await deliveries(`refund.succeeded:${refundId}`)).to.have.length(1);
    expect(await deps.queues['merchant-webhooks'].count()).to.equal(3);
    expect(await deps.queues.messages.count()).to.equal(2);
  });

  it('a manual refund’s refund.created sends nothing to a provider', async () => {
    const refundId = 880003;
    await deps.tx((uow) =>
      uow.emit({
        type: 'refund.created',
        id: `refund.created:${refundId}`,
        storeId,
        data: refundData(refundId, 'manual'),
      }),
    );
    expect(await deliveries(`refund.created:${refundId}`)).to.have.length(1);
    expect(await deps.queues.payments.getJob(refundJobId(refundId))).to.equal(undefined);
  });
});
