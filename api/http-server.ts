import http from 'node:http';
import type { Config } from '../shared/config';
import type { App } from './app';

/**
 * The web process's HTTP server, with bounds on slow clients (docs/outages.md): the headers must arrive
 * within HTTP_HEADERS_TIMEOUT_MS and the whole request, body included, within HTTP_REQUEST_TIMEOUT_MS;
 * otherwise Node answers 408 and closes the connection, so a client trickling a partial body cannot hold
 * a socket (or koa-body's read) for long. Node checks these every `connectionsCheckingInterval`.
 */
export function createHttpServer(app: App, timeouts: Config['timeouts']): http.Server {
  const server = http.createServer(
    {
      headersTimeout: timeouts.httpHeadersMs,
      requestTimeout: timeouts.httpRequestMs,
      connectionsCheckingInterval: Math.min(1_000, timeouts.httpHeadersMs),
    },
    app.callback(),
  );
  // Keep-alive sockets would hold server.close() open; they are closed once idle during shutdown.
  server.keepAliveTimeout = 5_000;
  return server;
}
