import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { deliverWebhook, SsrfRefusedError } from '../../../shared/services/webhooks';
import { createMerchantWebhooksProcessor } from '../../../workers/processors/merchant-webhooks';
import { WorkerPool } from '../../../workers/worker-pool';
import { waitFor } from '../queues/support';
import { call, merchantStore, MerchantStore, useMerchantSuite } from './support';

interface Received {
  path: string;
  signature: string;
  body: Buffer;
}

/** The code block of docs/webhooks.md in `lang`, as a developer would paste it. */
function snippet(lang: 'js' | 'python'): string {
  const doc = readFileSync(path.join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(doc);
  if (!block) throw new Error(`docs/webhooks.md has no ${lang} block`);
  return block[1]!;
}

/** Runs the docs' snippet in its own process on one delivery; prints what the verifier said. */
function verifyWith(lang: 'js' | 'python', secret: string, header: string, body: Buffer): string {
  const input = JSON.stringify({ secret, header, body: body.toString('base64') });
  if (lang === 'js') {
    const harness = `${snippet('js')}
const i = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
console.log(String(verifyMatjarSignature(i.secret, i.header, Buffer.from(i.body, 'base64').toString('utf8'))));`;
    return execFileSync(process.execPath, ['-e', harness], { input }).toString().trim();
  }
  const harness = `${snippet('python')}
import base64, json, sys
i = json.load(sys.stdin)
print(str(verify_matjar_signature(i["secret"], i["header"], base64.b64decode(i["body"]))).lower())`;
  return execFileSync('python3', ['-c', harness], { input }).toString().trim();
}

describe('webhooks a developer can test: test event, delivery log, verification snippets', () => {
  const suite = useMerchantSuite({ RATE_LIMITS: 'off', MERCHANT_WEBHOOK_RETRY_DELAY_MS: '60000' });
  const received: Received[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/hang') return; // never answers: the sender's time limit decides
      received.push({
        path: req.url ?? '',
        signature: String(req.headers['x-signature']),
        body: Buffer.concat(chunks),
      });
      res.statusCode = req.url === '/broken' ? 500 : 200;
      res.end('ok');
    });
  });
  let base = '';
  let workers: WorkerPool;
  let m: MerchantStore;

  before(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // Test-only relaxation: deliveries may reach the receiver on 127.0.0.1.
    workers = await WorkerPool.start(suite.deps, {
      registry: { 'merchant-webhooks': createMerchantWebhooksProcessor({ allowPrivateAddresses: true }) },
      queues: ['merchant-webhooks'],
    });
    m = await merchantStore();
  });
  after(async () => {
    await workers.close(500);
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const register = async (url: string, events: string[]): Promise<{ id: number; secret: string }> => {
    const res = await call(suite.server, m.token, 'POST', '/shawarma/webhooks', { url, events });
    expect(res.status, res.text).to.equal(201);
    return res.body.data as { id: number; secret: string };
  };

  it('accepts the event families the README advertises (order.*, refund.*, license.*)', async () => {
    const res = await call(suite.server, m.token, 'POST', '/shawarma/webhooks', {
      url: `${base}/families`,
      events: ['order.*', 'refund.*', 'license.*', 'subscription.*'],
    });
    expect(res.status, res.text).to.equal(201);
  });

  it('sends a signed test event that the Node and Python snippets of docs/webhooks.md verify', async () => {
    const endpoint = await register(`${base}/hooks`, ['subscription.*']);
    const res = await call(suite.server, m.token, 'POST', `/shawarma/webhooks/${endpoint.id}/test`, {
      type: 'order.paid',
    });
    expect(res.status, res.text).to.equal(202);
    const sent = res.body.data as { delivery_id: number; event_id: string };
    expect(sent.event_id).to.match(/^test_/);

    const delivery = await waitFor('the test delivery', async () =>
      received.find((r) => r.path === '/hooks'),
    );
    const payload = JSON.parse(delivery.body.toString('utf8')) as Record<string, unknown>;
    expect(payload).to.include({ id: sent.event_id, type: 'order.paid', test: true, store_id: m.store.id });
    expect(payload.data).to.have.property('order_id');

    for (const lang of ['js', 'python'] as const) {
      expect(verifyWith(lang, endpoint.secret, delivery.signature, delivery.body), lang).to.equal('true');
      const tampered = Buffer.from(delivery.body.toString('utf8').replace('order.paid', 'order.pain'));
      expect(verifyWith(lang, endpoint.secret, delivery.signature, tampered), `${lang} tampered`).to.equal(
        'false',
      );
    }

    const log = await waitFor('the delivery logged as delivered', async () => {
      const page = await call(suite.server, m.token, 'GET', `/shawarma/webhooks/${endpoint.id}/deliveries`);
      const rows = (page.body.data as { data: Record<string, unknown>[] }).data;
      return rows[0]?.status === 'delivered' ? rows[0] : undefined;
    });
    expect(log).to.include({ id: sent.delivery_id, test: true, response_status: 200, failure_reason: null });
  });

  it('refuses an unknown type and another store’s endpoint', async () => {
    const endpoint = await register(`${base}/hooks2`, ['order.paid']);
    const bad = await call(suite.server, m.token, 'POST', `/shawarma/webhooks/${endpoint.id}/test`, {
      type: 'order.shipped',
    });
    expect(bad.status).to.equal(422);
    expect(bad.body.error_code).to.equal('validation_failed');
    const other = await merchantStore();
    const foreign = await call(suite.server, other.token, 'POST', `/shawarma/webhooks/${endpoint.id}/test`, {
      type: 'order.paid',
    });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error_code).to.equal('webhook_endpoint_not_found');
  });

  it('shows why a delivery failed: the HTTP status, a refused address, a timeout', async () => {
    const broken = await register(`${base}/broken`, ['order.paid']);
    await call(suite.server, m.token, 'POST', `/shawarma/webhooks/${broken.id}/test`, {
      type: 'refund.failed',
    });
    const row = await waitFor('the failed attempt logged', async () => {
      const page = await call(suite.server, m.token, 'GET', `/shawarma/webhooks/${broken.id}/deliveries`);
      const rows = (page.body.data as { data: Record<string, unknown>[] }).data;
      return rows[0]?.failure_reason ? rows[0] : undefined;
    });
    expect(row).to.include({ status: 'pending', response_status: 500, failure_reason: 'http_status' });

    // The guard as production runs it (no test relaxation): loopback is refused before any connection.
    const guarded = await register(`http://internal.example/hook`, ['order.paid']);
    const queued = await call(suite.server, m.token, 'POST', `/shawarma/webhooks/${guarded.id}/test`, {
      type: 'order.paid',
    });
    const deliveryId = (queued.body.data as { delivery_id: number }).delivery_id;
    let refused: unknown = null;
    await deliverWebhook(suite.deps, deliveryId, {
      resolver: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    }).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(SsrfRefusedError);
    const page = await call(suite.server, m.token, 'GET', `/shawarma/webhooks/${guarded.id}/deliveries`);
    const rows = (page.body.data as { data: Record<string, unknown>[] }).data;
    expect(rows[0]).to.include({ id: deliveryId, failure_reason: 'refused_address' });

    // An endpoint that never answers: the attempt ends at the time limit, and the log says so.
    const slow = await register(`${base}/hang`, ['order.paid']);
    const slowSent = await call(suite.server, m.token, 'POST', `/shawarma/webhooks/${slow.id}/test`, {
      type: 'order.paid',
    });
    const slowId = (slowSent.body.data as { delivery_id: number }).delivery_id;
    await deliverWebhook(suite.deps, slowId, { allowPrivateAddresses: true, timeoutMs: 200 }).catch(
      () => null,
    );
    const slowLog = await call(suite.server, m.token, 'GET', `/shawarma/webhooks/${slow.id}/deliveries`);
    const slowRow = (slowLog.body.data as { data: Record<string, unknown>[] }).data[0];
    expect(slowRow).to.include({ id: slowId, failure_reason: 'timeout', response_status: null });
  });
});
