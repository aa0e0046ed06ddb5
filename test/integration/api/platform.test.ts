import { expect } from 'chai';
import { sharedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';

describe('platform routes and envelopes', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer(await sharedDeps());
  });
  after(() => server.close());

  it('answers /healthz and /readyz with both dependencies checked', async () => {
    expect((await server.request('/healthz')).body).to.deep.equal({ status: 'ok' });
    const ready = await server.request('/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body).to.deep.equal({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('answers unknown paths with a JSON 404 in the envelope of the interface', async () => {
    const embed = await server.request('/api/embed/nothing-here');
    expect(embed.status).to.equal(404);
    expect(embed.body).to.deep.equal({ success: false, error_code: 'not_found', message: 'Not found' });

    const merchant = await server.request('/shawarma/nothing-here');
    expect(merchant.status).to.equal(404);
    expect(merchant.body).to.include({ message: 'Not found', data: null, api: 'merchant', error: true });
    expect(merchant.body.timestamp).to.be.a('number');

    const storefront = await server.request('/api/nothing-here');
    expect(storefront.body).to.deep.equal({
      success: false,
      data: null,
      error_code: 'not_found',
      message: 'Not found',
    });

    const other = await server.request('/nothing-here');
    expect(other.status).to.equal(404);
    expect(other.headers.get('content-type')).to.match(/application\/json/);
  });

  it('gives every response a request id, echoing a well-formed incoming one', async () => {
    const res = await server.request('/healthz', { headers: { 'X-Request-Id': 'req-abc-12345' } });
    expect(res.headers.get('x-request-id')).to.equal('req-abc-12345');
    const fresh = await server.request('/healthz', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(fresh.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
