import { expect } from 'chai';
import type { Customer, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import {
  createCustomer,
  createPaymentMethod,
  createProduct,
  createStore,
  customerToken,
} from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';

interface Operation {
  method: string;
  path: string;
}

interface Side {
  store: Store;
  host: string;
  product: Product;
  customer: Customer;
  tokens: { embed: string; storefront: string };
}

/**
 * A customer token is valid only in its own store, on every route of every interface.
 * The routes are read from /openapi.json (every operation whose security names a customer bearer scheme),
 * so a route added later is covered too. Each is called with each token kind of store A while naming
 * store B (embed key, Host), and the other way round; the same call naming the token's own store is the
 * control that shows the token is otherwise accepted there.
 */
describe('customer tokens work only in their own store', () => {
  let deps: Deps;
  let server: TestServer;
  let a: Side;
  let b: Side;
  let operations: Operation[];

  async function side(name: string): Promise<Side> {
    const host = `${name}-${Math.random().toString(36).slice(2, 8)}.tokens.localhost`;
    const store = await createStore({ domains: [host] });
    await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
    const product = await createProduct(store);
    const customer = await createCustomer(store);
    return {
      store,
      host,
      product,
      customer,
      tokens: {
        embed: await customerToken(customer, 'embed'),
        storefront: await customerToken(customer, 'storefront'),
      },
    };
  }

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    a = await side('a');
    b = await side('b');
    const doc = (await server.request('/openapi.json')).body as {
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
      components: {
        securitySchemes: Record<string, { type: string; scheme?: string; description?: string }>;
      };
    };
    const customerSchemes = new Set(
      Object.entries(doc.components.securitySchemes)
        .filter(
          ([name, s]) =>
            s.type === 'http' && s.scheme === 'bearer' && /customer/i.test(name + (s.description ?? '')),
        )
        .map(([name]) => name),
    );
    operations = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op || typeof op !== 'object' || !Array.isArray(op.security)) continue;
        // Sign-out revokes the token the control call sends: test/integration/auth/otp-abuse.test.ts
        // checks it across stores on its own.
        if (path.endsWith('/logout')) continue;
        if (op.security.some((req) => Object.keys(req).some((k) => customerSchemes.has(k))))
          operations.push({ method: method.toUpperCase(), path });
      }
    }
  });
  after(() => server.close());

  function call(op: Operation, token: string, named: Side, product: Product): Promise<TestResponse> {
    const path = op.path.replace(/\{[^}]+\}/g, String(product.id));
    const embed = path.startsWith('/api/embed');
    const withBody = op.method !== 'GET' && op.method !== 'DELETE';
    return server.request(path, {
      method: op.method,
      ...(withBody
        ? { json: { product_id: product.id, quantity: 1, checkout_url: 'x', payment_method: 'card' } }
        : {}),
      headers: {
        Authorization: `Bearer ${token}`,
        'X-Forwarded-For': randomIp(),
        ...(embed ? { 'X-Embed-Key': named.store.embed_key } : { Host: named.host }),
      },
    });
  }

  it('finds the token-taking routes of the document (auth/validate, checkout, payment/initiate at least)', () => {
    const names = operations.map((o) => `${o.method} ${o.path}`);
    expect(names).to.include.members([
      'POST /api/embed/auth/validate',
      'POST /api/embed/checkout',
      'POST /api/embed/payment/initiate',
    ]);
  });

  it('refuses every token of one store on every token route naming the other store, both ways', async () => {
    const refusals: string[] = [];
    for (const op of operations) {
      const kind = op.path.startsWith('/api/embed') ? 'embed' : 'storefront';
      for (const [owner, other] of [
        [a, b],
        [b, a],
      ] as const) {
        // Control: in its own store the token passes the guard (whatever the body then earns).
        const own = await call(op, owner.tokens[kind], owner, owner.product);
        expect([401, 403], `${op.method} ${op.path} in its own store: ${own.text}`).to.not.include(
          own.status,
        );
        for (const token of [owner.tokens.embed, owner.tokens.storefront]) {
          for (const product of [owner.product, other.product]) {
            const res = await call(op, token, other, product);
            if (![401, 403].includes(res.status))
              refusals.push(`${op.method} ${op.path}: ${res.status} ${res.text}`);
            else expect(res.body.success, res.text).to.equal(false);
          }
        }
      }
    }
    expect(refusals, 'calls that were not refused').to.deep.equal([]);
  });

  it('auth/validate with store A’s token and store B’s embed key never answers the customer', async () => {
    const res = await server.request('/api/embed/auth/validate', {
      method: 'POST',
      json: { product_id: a.product.id },
      headers: {
        Authorization: `Bearer ${a.tokens.embed}`,
        'X-Embed-Key': b.store.embed_key,
        'X-Forwarded-For': randomIp(),
      },
    });
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.equal({
      success: false,
      error_code: 'token_not_for_product',
      message: 'Token not valid for this product',
    });
    expect(res.text).to.not.include(a.customer.email);
  });
});
