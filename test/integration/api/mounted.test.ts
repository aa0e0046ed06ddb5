import { expect } from 'chai';
import { CLIENT_INTERFACES, mountedInterfaces } from '../../../api/mounted';
import { allRoutes } from '../../../api/routes';
import { interfaceRows } from '../../../scripts/start';
import { sharedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';

/**
 * The start banner lists the interfaces the app mounts, read from the same router list `createApp` uses:
 * every interface it names has routes, and every one it leaves out answers 404 at its prefix.
 */
describe('honest start: the interfaces the banner lists', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(await sharedDeps());
  });
  after(() => server.close());

  const PROBES: Record<(typeof CLIENT_INTERFACES)[number], string> = {
    embed: '/api/embed/payment/status/x',
    storefront: '/api/products',
    merchant: '/shawarma/orders',
    license: '/verify',
    fivem: '/api/fivem/queue',
  };

  it('names the mounted ones, and every interface left out answers 404 at its prefix', async () => {
    const mounted = mountedInterfaces(allRoutes({ nodeEnv: 'test' }));
    expect(mounted).to.include.members(['embed', 'storefront']);
    for (const name of CLIENT_INTERFACES.filter((n) => !mounted.includes(n))) {
      for (const method of ['GET', 'POST']) {
        const res = await server.request(PROBES[name], {
          method,
          headers: { 'X-Forwarded-For': randomIp() },
        });
        expect(res.status, `${method} ${PROBES[name]} (${name} is not mounted)`).to.equal(404);
      }
    }
  });

  it('the banner has a line for each interface it is given and none for the others', () => {
    const rows = interfaceRows('http://localhost:3000', { embedKey: 'emb_pk_x' }, ['embed', 'storefront']);
    expect(rows.map(([label]) => label)).to.deep.equal(['Embed API', 'Storefront API']);
    const all = interfaceRows('http://localhost:3000', {}, CLIENT_INTERFACES);
    expect(all.map(([label]) => label)).to.deep.equal([
      'Embed API',
      'Storefront API',
      'Merchant API',
      'License API',
      'FiveM API',
    ]);
  });
});
