import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { AppContextExtras, AppState } from '../../../api/context';
import { errorHandler } from '../../../api/middleware/error-handler';
import { requestId } from '../../../api/middleware/request-id';
import type { Deps } from '../../../shared/deps';
import { createLogger } from '../../../shared/logger';
import { sharedDeps } from '../../helpers/deps';

/**
 * What a client sees when something breaks that no domain error names: a generic 500 in the envelope of
 * the interface, with the request id; the logs get the error, the client never a stack or SQL.
 */
describe('unexpected errors', () => {
  const logged: Record<string, unknown>[] = [];
  let server: http.Server;
  let base: string;
  let deps: Deps;

  before(async () => {
    deps = await sharedDeps();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const app = new Koa<AppState, AppContextExtras>();
    app.silent = true;
    const router = new Router<AppState, AppContextExtras>();
    // A real database failure: the message names a table and carries the SQL.
    const broken = async (): Promise<void> => {
      await deps.knex.raw('select secret_column from table_that_does_not_exist');
    };
    router.get('/api/embed/broken', broken);
    router.get('/shawarma/broken', broken);
    router.get('/api/broken', broken);
    router.get('/verify/broken', broken);
    app.use(requestId());
    app.use(errorHandler(createLogger('error', 'web', sink)));
    app.use(koaBody());
    app.use(router.routes());
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers 500 in each interface envelope with no stack or SQL, and logs the error with the request id', async () => {
    const expected: Record<string, unknown> = {
      '/api/embed/broken': { success: false, message: 'Internal server error', error_code: 'internal_error' },
      '/api/broken': {
        success: false,
        data: null,
        message: 'Internal server error',
        error_code: 'internal_error',
      },
      '/verify/broken': { success: false, message: 'Internal server error', error_code: 'SERVER_ERROR' },
    };
    for (const path of ['/api/embed/broken', '/shawarma/broken', '/api/broken', '/verify/broken']) {
      const res = await fetch(base + path, { headers: { 'X-Request-Id': `req-${path.length}-abcdef` } });
      const text = await res.text();
      expect(res.status, path).to.equal(500);
      expect(text).to.not.match(/table_that_does_not_exist|secret_column|select |at .*\.ts:\d+/);
      const body = JSON.parse(text) as Record<string, unknown>;
      if (expected[path]) expect(body, path).to.deep.equal(expected[path]);
      else
        expect(body).to.include({
          message: 'Internal server error',
          data: null,
          api: 'merchant',
          error: true,
          error_code: 'internal_error',
        });
    }
    const entry = logged.find((line) => line.msg === 'unhandled error' && line.requestId === 'req-17-abcdef');
    expect(entry, 'the error is logged with its request id').to.exist;
    expect(JSON.stringify(entry)).to.include('table_that_does_not_exist');
  });

  it('answers malformed JSON with 400 in the envelope, not 500', async () => {
    const res = await fetch(`${base}/api/embed/broken`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"product_id": 1,',
    });
    expect(res.status).to.equal(400);
    expect(await res.json()).to.deep.equal({
      success: false,
      error_code: 'malformed_json',
      message: 'Malformed JSON body',
    });
  });
});
