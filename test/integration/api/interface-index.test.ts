import { expect } from 'chai';
import { sharedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';

/** The base addresses the start banner prints answer with an index of their interface, not a 404. */
describe('interface indexes at the base addresses', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(await sharedDeps());
  });
  after(() => server.close());

  const bases: Array<[string, string, string]> = [
    ['/api/embed', 'Embed', '/api/embed/product/{productId}'],
    ['/api', 'Storefront', '/api/products'],
    ['/shawarma', 'Merchant', '/shawarma/orders'],
    ['/verify', 'License', '/verify'],
    ['/api/fivem', 'FiveM', '/api/fivem/queue'],
  ];

  for (const [base, name, sample] of bases) {
    it(`GET ${base} lists the ${name} operations with no credentials`, async () => {
      const res = await server.request(base);
      expect(res.status).to.equal(200);
      expect(res.body.interface).to.equal(name);
      expect(res.body.openapi).to.equal('/openapi.json');
      const paths = (res.body.routes as Array<{ path: string }>).map((r) => r.path);
      expect(paths).to.include(sample);
      // Only this interface's own operations.
      for (const path of paths) expect(path.startsWith(base)).to.equal(true);
    });
  }

  it('the Storefront index does not list the Embed or FiveM operations', async () => {
    const res = await server.request('/api');
    const paths = (res.body.routes as Array<{ path: string }>).map((r) => r.path);
    expect(paths.some((p) => p.startsWith('/api/embed') || p.startsWith('/api/fivem'))).to.equal(false);
  });
});
