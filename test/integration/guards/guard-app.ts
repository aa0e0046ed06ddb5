import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Joi from 'joi';
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { AppContext, AppContextExtras, AppState } from '../../../api/context';
import { respond } from '../../../api/context';
import {
  analyticsEventsLimit,
  analyticsGuards,
  embedGuards,
  licenseGuards,
  merchantGuards,
  storefrontGuards,
} from '../../../api/guards';
import { customerAuth } from '../../../api/middleware/customer-auth';
import { browserCors } from '../../../api/middleware/cors';
import { errorHandler } from '../../../api/middleware/error-handler';
import { byBodyField, byClientIp, rateLimit } from '../../../api/middleware/rate-limit';
import { requestId } from '../../../api/middleware/request-id';
import { validate } from '../../../api/middleware/validate';
import type { Deps } from '../../../shared/deps';
import { LIMITS, LimitDefinition } from '../../../shared/rate-limits';

/** A 5-per-minute limit, small enough to exhaust in a few requests. */
export const SMALL_LIMIT: LimitDefinition = Object.freeze({
  name: 'test_small',
  points: 5,
  durationSeconds: 60,
  scope: 'ip',
});

const storeAndCustomer = (ctx: AppContext): Record<string, unknown> => ({
  store_id: ctx.state.store?.id ?? null,
  customer_id: ctx.state.customer?.id ?? null,
});

function guardRouter(deps: Deps): Router<AppState, AppContextExtras> {
  const router = new Router<AppState, AppContextExtras>();
  const echo = (ctx: AppContext): void => respond(ctx, storeAndCustomer(ctx));

  router.get('/api/embed/echo', ...embedGuards(deps), echo);
  router.post('/api/embed/echo', ...embedGuards(deps), echo);
  router.post(
    '/api/embed/checkout-probe',
    ...embedGuards(deps),
    customerAuth({ kind: 'embed', abilities: ['embed:checkout'] }),
    echo,
  );
  router.post(
    '/api/embed/validate-probe',
    ...embedGuards(deps),
    validate({ body: Joi.object({ product_id: Joi.number().integer().required() }) }),
    echo,
  );
  router.post(
    '/api/embed/phone-probe',
    rateLimit([{ def: LIMITS.otpResendPerPhone, key: byBodyField('phone') }]),
    echo,
  );
  router.get('/api/embed/small-probe', rateLimit([{ def: SMALL_LIMIT, key: byClientIp }]), echo);

  router.get('/api/store-probe', ...storefrontGuards(deps), echo);
  router.get('/api/wishlist-probe', ...storefrontGuards(deps), customerAuth({ kind: 'storefront' }), echo);
  router.post(
    '/api/storefront/analytics/collect/batch',
    ...analyticsGuards(deps),
    analyticsEventsLimit((ctx) => {
      const events = (ctx.request.body as { events?: unknown } | undefined)?.events;
      return Array.isArray(events) ? Math.min(events.length, 30) : 0;
    }),
    (ctx) => respond(ctx, null, { status: 202 }),
  );

  router.get('/shawarma/store', ...merchantGuards(deps), echo);
  router.post('/verify', ...licenseGuards(deps), echo);
  return router;
}

/** The real request-id, error handler, CORS and body parser of createApp() in front of the probe routes. */
function guardApp(deps: Deps): Koa<AppState, AppContextExtras> {
  const app = new Koa<AppState, AppContextExtras>({ proxy: deps.config.trustProxy });
  app.context.deps = deps;
  app.silent = true;
  app.use(requestId());
  app.use(errorHandler(deps.logger));
  app.use(browserCors());
  app.use(koaBody({ json: true, text: false, multipart: false }));
  const router = guardRouter(deps);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

export interface ProbeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  text: string;
}

export interface ProbeServer {
  request(
    path: string,
    init?: { method?: string; headers?: Record<string, string>; json?: unknown },
  ): Promise<ProbeResponse>;
  close(): Promise<void>;
}

/**
 * Serves the probe app on an ephemeral port. Requests go through node:http rather than fetch so a test
 * can set Host, Origin and Referer freely.
 */
export async function startGuardServer(deps: Deps): Promise<ProbeServer> {
  const server = http.createServer(guardApp(deps).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 100 });

  return {
    request(path, init = {}) {
      const payload = init.json === undefined ? undefined : JSON.stringify(init.json);
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      if (payload !== undefined) {
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(payload));
      }
      return new Promise<ProbeResponse>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers, agent },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let body: Record<string, unknown> = {};
              if (text) body = JSON.parse(text) as Record<string, unknown>;
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
