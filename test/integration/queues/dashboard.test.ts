import { expect } from 'chai';
import { UnrecoverableError, Worker } from 'bullmq';
import type { Deps } from '../../../shared/deps';
import { createRedis } from '../../../shared/redis';
import { bullPrefix, enqueue } from '../../../shared/queues';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { waitFor } from './support';

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('queue dashboard at /admin/queues', () => {
  describe('with credentials configured', () => {
    let deps: Deps;
    let server: TestServer;
    const auth = { Authorization: basic('ops', 'correct horse battery') };

    before(async () => {
      deps = await isolatedDeps({ DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'correct horse battery' });
      server = await startServer(deps);
    });
    after(() => server.close());

    it('asks for basic auth without credentials and refuses wrong ones', async () => {
      const attempts: Record<string, string>[] = [
        {},
        { Authorization: basic('ops', 'wrong') },
        { Authorization: basic('someone', 'correct horse battery') },
        { Authorization: 'Bearer correct horse battery' },
      ];
      for (const headers of attempts) {
        const res = await server.request('/admin/queues', { headers });
        expect(res.status, JSON.stringify(headers)).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal('Basic realm="queues"');
        expect(res.body).to.deep.equal({
          error_code: 'unauthenticated',
          message: 'Authentication required',
          doc_url: '/docs/errors.md#unauthenticated',
        });
      }
      // The JSON API behind the UI is guarded as well.
      const api = await server.request('/admin/queues/api/queues');
      expect(api.status).to.equal(401);
    });

    it('serves the board UI and lists every platform queue', async () => {
      const page = await server.request('/admin/queues', { headers: auth });
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/text\/html/);
      expect(page.text).to.include('Commerce queues');

      const api = await server.request(
        '/admin/queues/api/queues?activeQueue=maintenance&status=failed&page=1',
        {
          headers: auth,
        },
      );
      expect(api.status).to.equal(200);
      const names = (api.body.queues as { name: string }[]).map((q) => q.name).sort();
      expect(names).to.deep.equal(Object.keys(deps.queues).sort());
    });

    it('lets an operator retry a failed job, which goes back to waiting', async () => {
      const connection = createRedis(deps.config.redisUrl, 'worker');
      const worker = new Worker(
        'maintenance',
        async () => {
          throw new UnrecoverableError('task blew up');
        },
        { connection, prefix: bullPrefix(deps.config.queuePrefix) },
      );
      try {
        await enqueue(
          deps.queues,
          'maintenance',
          { task: 'expire-licenses', tick: 'test' },
          { jobId: 'to-retry' },
        );
        await waitFor('the job to fail', async () => {
          const job = await deps.queues.maintenance.getJob('to-retry');
          return (await job?.getState()) === 'failed';
        });
      } finally {
        await worker.close();
        connection.disconnect();
      }

      const refused = await server.request('/admin/queues/api/queues/maintenance/to-retry/retry', {
        method: 'PUT',
      });
      expect(refused.status).to.equal(401);
      expect(await (await deps.queues.maintenance.getJob('to-retry'))?.getState()).to.equal('failed');

      const res = await server.request('/admin/queues/api/queues/maintenance/to-retry/retry', {
        method: 'PUT',
        headers: auth,
      });
      expect(res.status).to.equal(204);
      const job = await deps.queues.maintenance.getJob('to-retry');
      expect(await job?.getState()).to.equal('waiting');
    });
  });

  describe('cross-site requests', () => {
    let deps: Deps;
    let server: TestServer;
    const auth = { Authorization: basic('ops', 'correct horse battery') };

    before(async () => {
      deps = await isolatedDeps({ DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'correct horse battery' });
      server = await startServer(deps);
    });
    after(() => server.close());

    it('refuses every action from another origin (403, nothing done); the board’s own origin retries', async () => {
      // A job waiting an hour: promoting it is the action a forged request would take.
      await enqueue(
        deps.queues,
        'maintenance',
        { task: 'expire-licenses', tick: 'csrf' },
        { jobId: 'csrf', delay: 3_600_000 },
      );
      const stateOf = async () => (await deps.queues.maintenance.getJob('csrf'))?.getState();
      expect(await stateOf()).to.equal('delayed');
      const promote = '/admin/queues/api/queues/maintenance/csrf/promote';
      const crossSite: Record<string, string>[] = [
        { Origin: 'https://evil.example' },
        { Origin: 'null' },
        { Origin: server.url.replace('127.0.0.1', 'localhost') },
        { 'Sec-Fetch-Site': 'cross-site' },
        { 'Sec-Fetch-Site': 'same-site' },
        { 'Sec-Fetch-Site': 'none' },
        { 'Sec-Fetch-Site': 'cross-site', Origin: server.url },
      ];
      for (const headers of crossSite) {
        for (const method of ['PUT', 'POST']) {
          const res = await server.request(promote, { method, headers: { ...auth, ...headers } });
          expect(res.status, `${method} ${JSON.stringify(headers)}`).to.equal(403);
          expect(res.body).to.deep.equal({
            error_code: 'forbidden',
            message: 'Cross-site request refused',
            doc_url: '/docs/errors.md#forbidden',
          });
        }
      }
      expect(await stateOf()).to.equal('delayed');
      // Reading stays open to the board's own page and to links.
      const read = await server.request('/admin/queues/api/queues', {
        headers: { ...auth, 'Sec-Fetch-Site': 'cross-site' },
      });
      expect(read.status).to.equal(200);

      const own = await server.request(promote, {
        method: 'PUT',
        headers: { ...auth, Origin: server.url, 'Sec-Fetch-Site': 'same-origin' },
      });
      expect(own.status, own.text).to.equal(204);
      expect(await stateOf()).to.equal('waiting');
    });
  });

  describe('with no credentials configured', () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(await isolatedDeps({ DASHBOARD_USER: '', DASHBOARD_PASSWORD: '' }));
    });
    after(() => server.close());

    it('answers 401 to everyone', async () => {
      const attempts: Record<string, string>[] = [
        {},
        { Authorization: basic('', '') },
        { Authorization: basic('admin', 'admin') },
      ];
      for (const headers of attempts) {
        const res = await server.request('/admin/queues', { headers });
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal('Basic realm="queues"');
      }
    });
  });
});
