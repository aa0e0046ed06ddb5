import { expect } from 'chai';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Product, Refund, Store } from '../../db/models';
import {
  createMatjarClient,
  MatjarClient,
  retryingFetch,
  verifyLicenseAnswer,
  verifyWebhook,
  type WebhookEvent,
} from '../../integrations/sdk/index';
import { generateSdkTypes, SDK_TYPES_FILE } from '../../scripts/generate-sdk';
import { signatureHeader } from '../../shared/services/webhooks/deliver';
import { MERCHANT_EVENT_TYPES } from '../../shared/services/webhooks/events';
import { buildOpenApiDocument } from '../../api/http/openapi';
import { allRoutes } from '../../api/routes';
import { createProduct } from '../helpers/builders';
import { GUEST_BUYER } from '../helpers/checkouts';
import { checkAnswer, checkWebhookEvent } from '../helpers/contract';
import { randomIp } from '../helpers/otp';
import { merchantStore } from './merchant/support';
import {
  browse,
  hostedMethod,
  orderOf,
  paymentIdOf,
  paymentsSuite,
  PaymentsSuite,
  sessionOf,
  waitFor,
} from './payments/support';

/**
 * The SDK of integrations/sdk: its types are what scripts/generate-sdk.ts makes of today's document, and
 * it drives a purchase (Embed guest checkout paid with the sandbox provider) and a merchant refund against
 * the running platform, every answer checked against the document as the other tests' are.
 */
/** How the documents import the SDK: the package, or (older examples) its folder. */
const SDK_IMPORT = /from '(?:@matjar\/sdk|\.\/(?:integrations\/)?sdk)'/;

/** The delivery bodies recorded for an endpoint (merchant_webhook_deliveries.payload), oldest first. */
async function deliveredBodies(suite: PaymentsSuite, endpointId: number): Promise<string[]> {
  const rows = await suite.deps
    .knex('merchant_webhook_deliveries')
    .where({ endpoint_id: endpointId })
    .orderBy('id')
    .select<{ payload: unknown }[]>('payload');
  return rows.map((r) => (typeof r.payload === 'string' ? r.payload : JSON.stringify(r.payload)));
}

/** What a receiver does with a verified event: `event.type` narrows `event.data` (checked by tsc). */
function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'order.created':
    case 'order.paid':
      return `${event.type} ${event.data.order_id} ${event.data.total} ${event.data.currency}`;
    case 'refund.created':
    case 'refund.succeeded':
    case 'refund.failed':
      return `${event.type} ${event.data.order_id} ${event.data.amount} ${event.data.status}`;
    case 'order.status_changed':
      return `${event.type} ${event.data.order_id} ${event.data.from}->${event.data.to}`;
    default:
      return `${event.type} ${JSON.stringify(event.data)}`;
  }
}

describe('SDK (integrations/sdk)', function () {
  this.timeout(60_000);

  it('is generated from the current OpenAPI document (npx tsx scripts/generate-sdk.ts)', async () => {
    const fresh = await generateSdkTypes();
    const committed = fs.readFileSync(SDK_TYPES_FILE, 'utf8');
    expect(committed === fresh, 'integrations/sdk/openapi.ts is stale: run `npx tsx scripts/generate-sdk.ts`')
      .to.be.true;
  });

  it('typechecks the SDK examples of docs/sdk.md, docs/merchant.md and the README under the SDK’s strict settings', async () => {
    const root = path.resolve(__dirname, '../..');
    const dir = fs.mkdtempSync(path.join(root, 'integrations', 'sdk', '.examples-'));
    try {
      const files: string[] = [];
      for (const doc of ['docs/sdk.md', 'docs/merchant.md', 'README.md', 'integrations/sdk/README.md']) {
        const text = fs.readFileSync(path.join(root, doc), 'utf8');
        const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)]
          .map((m) => m[1]!)
          .filter((b) => SDK_IMPORT.test(b));
        for (const [i, block] of blocks.entries()) {
          const file = path.join(dir, `${doc.replace(/\W+/g, '-')}-${i}.ts`);
          // The snippets' free names (secrets, a request body) are declared; imports point at the SDK.
          const source = block.replace(new RegExp(SDK_IMPORT.source, 'g'), "from '../index.js'");
          const imports = source.match(/^import .*;$/gm) ?? [];
          const body = source.replace(/^import .*;$/gm, '');
          fs.writeFileSync(
            file,
            `${imports.join('\n')}\nimport { createMatjarClient as _c } from '../index.js';\nvoid _c;\n` +
              'declare const WEBHOOK_SECRET: string;\ndeclare const PINNED_PUBLIC_KEY_PEM: string;\n' +
              'declare const headers: Record<string, string>;\ndeclare const body: string;\n' +
              (/^export /m.test(body)
                ? body
                : `export async function example(): Promise<void> {\n${body}\n}\n`),
          );
          files.push(file);
        }
      }
      expect(files.length, 'SDK examples found').to.be.greaterThan(3);
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: '../tsconfig.json', include: ['*.ts'] }),
      );
      const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      const out = await new Promise<string>((resolve) =>
        execFile(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], (err, stdout) =>
          resolve(err ? stdout || String(err) : ''),
        ),
      );
      expect(out).to.equal('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('against the running platform', () => {
    let suite: PaymentsSuite;
    let store: Store;
    let token: string;
    let product: Product;

    /** fetch through the contract check every test answer goes through (test/helpers/contract.ts). */
    const checkedFetch: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      request.headers.set('X-Forwarded-For', randomIp());
      const response = await fetch(request);
      const text = await response.clone().text();
      checkAnswer(
        suite.deps.config.nodeEnv,
        request.method,
        request.url,
        response.status,
        response.headers.get('content-type'),
        text,
      );
      return response;
    };

    const client = (options: { embedKey?: string; merchantToken?: string }): MatjarClient =>
      createMatjarClient({ baseUrl: suite.server.url, fetch: checkedFetch, ...options });

    before(async () => {
      suite = await paymentsSuite({ RATE_LIMITS: 'off' });
      ({ store, token } = await merchantStore({ name: 'SDK Store' }));
      await hostedMethod(suite.deps, store, 'card', 'sandbox');
      product = await createProduct(store, { name: 'Course', price_minor: 5_000 });
    });
    after(async () => suite?.close());

    it('buys as a guest with the sandbox provider, then the merchant refunds part of it', async () => {
      const merchant = client({ merchantToken: token });
      const hook = await merchant.POST('/shawarma/webhooks', {
        body: { url: 'https://hooks.example.com/matjar', events: ['order.*', 'refund.*'] },
      });
      const endpoint = hook.data!.data;
      const embed = client({ embedKey: store.embed_key });
      const opened = await embed.POST('/api/embed/guest/checkout', {
        body: { product_id: product.id, quantity: 1, ...GUEST_BUYER, customer_phone: '500000301' },
      });
      expect(opened.response.status).to.equal(200);
      const session = opened.data!.data;
      if (session.type !== 'payment_required') throw new Error(`expected a payment, got ${session.type}`);
      expect(session.amount).to.equal('50.00');
      expect(session.payment_methods.map((m) => m.id)).to.deep.equal(['card']);

      const initiated = await embed.POST('/api/embed/guest/payment/initiate', {
        body: { checkout_url: session.checkout_url, payment_method: 'card' },
      });
      const how = initiated.data!.data;
      if (how.type !== 'redirect') throw new Error(`expected a redirect, got ${how.type}`);

      // The buyer's choice on the sandbox's page is a browser form, not an API call.
      const payment = await sessionOf(paymentIdOf(how.redirect_url));
      const paid = await browse(
        suite.server,
        `${suite.deps.config.publicBaseUrl}/sandbox/checkout/${payment.provider_payment_id}`,
        { outcome: 'paid' },
      );
      expect(paid.status).to.equal(303);
      const order = await orderOf(session.checkout_id);

      const status = await embed.GET('/api/embed/payment/status/{checkoutUrl}', {
        params: { path: { checkoutUrl: session.checkout_url } },
      });
      expect(status.data!.data).to.deep.equal({ is_paid: true, order_id: order.id });

      const detail = await merchant.GET('/shawarma/orders/{id}', { params: { path: { id: order.id } } });
      expect(detail.data!.data.total).to.equal('50.00');
      expect(detail.data!.data.refunds.refundable).to.equal('50.00');

      const key = crypto.randomUUID();
      const refund = () =>
        merchant.POST('/shawarma/orders/{id}/refunds', {
          params: { path: { id: order.id }, header: { 'Idempotency-Key': key } },
          body: { amount: '20.00', reason: 'Customer request' },
        });
      const created = await refund();
      expect(created.response.status, JSON.stringify(created.error)).to.equal(201);
      const again = await refund();
      expect(again.response.status).to.equal(200);
      expect(again.response.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(again.data!.data.refund.id).to.equal(created.data!.data.refund.id);

      await waitFor('the sandbox refund to succeed', async () => {
        const row = await Refund.query().findById(created.data!.data.refund.id);
        return row?.status === 'succeeded' ? row : undefined;
      });
      const after = await merchant.GET('/shawarma/orders/{id}', { params: { path: { id: order.id } } });
      expect(after.data!.data.refunds).to.include({ refunded: '20.00', refundable: '30.00' });

      // The events this purchase and refund sent are the document's `webhooks`, and the SDK reads them.
      const bodies = await waitFor('the order and refund events', async () => {
        const all = await deliveredBodies(suite, endpoint.id);
        const types = all.map((b) => (JSON.parse(b) as { type: string }).type);
        return ['order.created', 'order.paid', 'refund.created', 'refund.succeeded'].every((t) =>
          types.includes(t),
        )
          ? all
          : undefined;
      });
      const now = Math.floor(Date.now() / 1000);
      const read = bodies.map((body) => {
        checkWebhookEvent(suite.deps.config.nodeEnv, body);
        const event = verifyWebhook({
          body,
          signature: signatureHeader(endpoint.secret, now, body),
          secret: endpoint.secret,
          now,
        });
        expect(event, body).to.not.equal(null);
        return describeEvent(event!);
      });
      expect(read).to.include.members([
        `order.paid ${order.id} 50.00 SAR`,
        `refund.succeeded ${order.id} 20.00 succeeded`,
      ]);

      // An error answer is typed by its envelope too.
      const missing = await merchant.GET('/shawarma/orders/{id}', {
        params: { path: { id: 2_000_000_000 } },
      });
      expect(missing.response.status).to.equal(404);
      expect(missing.error).to.include({ error: true, data: null, api: 'merchant' });
    });

    it('sends test events of every type that match the `webhooks` section', async () => {
      const merchant = client({ merchantToken: token });
      const hook = await merchant.POST('/shawarma/webhooks', {
        body: { url: 'https://hooks.example.com/tests', events: ['license.*'] },
      });
      const endpoint = hook.data!.data;
      for (const type of MERCHANT_EVENT_TYPES) {
        const sent = await merchant.POST('/shawarma/webhooks/{id}/test', {
          params: { path: { id: endpoint.id } },
          body: { type },
        });
        expect(sent.response.status, type).to.equal(202);
      }
      const bodies = await deliveredBodies(suite, endpoint.id);
      expect(bodies.map((b) => (JSON.parse(b) as { type: string }).type)).to.deep.equal([
        ...MERCHANT_EVENT_TYPES,
      ]);
      for (const body of bodies) checkWebhookEvent(suite.deps.config.nodeEnv, body);
    });

    it('checks /verify signatures with the published key', async () => {
      const keys = await client({}).GET('/verify/public-key');
      const pem = keys.data!.data.public_key_pem;
      const res = await fetch(`${suite.server.url}/verify`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp() },
        body: JSON.stringify({ product_id: product.id, license_key: 'NOPE-0000-0000-0000-0000' }),
      });
      const body = await res.text();
      expect(res.status).to.equal(404);
      expect(verifyLicenseAnswer(body, res.headers.get('X-Signature'), pem)).to.equal(true);
      expect(
        verifyLicenseAnswer(body.replace('License', 'Licence'), res.headers.get('X-Signature'), pem),
      ).to.equal(false);
    });
  });

  it('checks a merchant webhook’s signature as the platform makes it, answers the typed event, and refuses old or altered ones', () => {
    const secret = 'whsec_test';
    const body = JSON.stringify({
      id: 'order.paid:1',
      type: 'order.paid',
      created_at: '2026-11-27T12:00:00.000Z',
      store_id: 3,
      data: { order_id: 1, status: 3, total: '50.00', currency: 'SAR', source: 'embed' },
    });
    const now = 1_795_000_000;
    const signature = signatureHeader(secret, now, body);
    const event = verifyWebhook({ body, signature, secret, now });
    expect(event).to.deep.equal(JSON.parse(body));
    expect(event && describeEvent(event)).to.equal('order.paid 1 50.00 SAR');
    expect(verifyWebhook({ body: body + ' ', signature, secret, now })).to.equal(null);
    expect(verifyWebhook({ body, signature, secret: 'other', now })).to.equal(null);
    expect(verifyWebhook({ body, signature, secret, now: now + 301 })).to.equal(null);
    expect(verifyWebhook({ body, signature: null, secret, now })).to.equal(null);
    const notAnEvent = '[1,2]';
    const signedNonEvent = signatureHeader(secret, now, notAnEvent);
    expect(verifyWebhook({ body: notAnEvent, signature: signedNonEvent, secret, now })).to.equal(null);
  });

  it('declares every merchant webhook event in the OpenAPI `webhooks` section', () => {
    const doc = buildOpenApiDocument(allRoutes({ nodeEnv: 'production' }), {
      publicBaseUrl: 'https://matjar.example',
    });
    expect(Object.keys(doc.webhooks).sort()).to.deep.equal([...MERCHANT_EVENT_TYPES].sort());
  });

  it('retries a 429 or 503 after Retry-After only when the request is safe to repeat', async () => {
    const seen: string[] = [];
    const answers = [
      new Response('{}', { status: 503, headers: { 'Retry-After': '0' } }),
      new Response('{}', { status: 429, headers: { 'Retry-After': '0' } }),
      new Response('{"ok":true}', { status: 200 }),
    ];
    const base: typeof fetch = async (input) => {
      const request = input as Request;
      seen.push(`${request.method} ${request.headers.get('Idempotency-Key') ?? '-'} ${await request.text()}`);
      return answers.shift()!;
    };
    const retrying = retryingFetch(base, { retries: 2 });
    const ok = await retrying('http://127.0.0.1:9/x', {
      method: 'POST',
      headers: { 'Idempotency-Key': 'k1' },
      body: 'same body',
    });
    expect(ok.status).to.equal(200);
    expect(seen).to.deep.equal(['POST k1 same body', 'POST k1 same body', 'POST k1 same body']);

    answers.push(new Response('{}', { status: 503, headers: { 'Retry-After': '0' } }));
    const once = await retrying('http://127.0.0.1:9/x', { method: 'POST', body: 'no key' });
    expect(once.status, 'a POST without a key is never repeated').to.equal(503);
    expect(seen).to.have.length(4);
  });
});
