import http from 'node:http';
import net from 'node:net';
import type { Socket } from 'node:net';
import type { Config } from '../shared/config';
import type { App } from './app';

/**
 * How long a connection that is open but idle when the drain starts may still begin a request: a client
 * that connected (or took a keep-alive socket from its pool) just before SIGTERM and is about to write.
 */
export const DRAIN_IDLE_GRACE_MS = 1_000;
/** How long the listening socket keeps taking connections after the drain starts. */
export const DRAIN_ACCEPT_GRACE_MS = 250;
/** How often the drain looks for idle connections to close. */
const DRAIN_SWEEP_MS = 50;

interface Connection {
  /** Responses of this connection not yet closed (more than one only when requests are pipelined). */
  readonly responses: Set<http.ServerResponse>;
  /** socket.bytesRead when the connection last fell idle: more read since then is a request arriving. */
  idleAt: number;
}

/** The web process's HTTP server, with a drain for SIGTERM (docs/operations.md, "Stopping"). */
export interface WebServer {
  readonly server: http.Server;
  /**
   * Stops taking connections and answers every request accepted before: the listening socket is closed
   * (new connections are refused), every answer from now on says `Connection: close`, idle connections
   * are closed once they stayed idle for DRAIN_IDLE_GRACE_MS, busy ones as soon as their answer is out.
   * Resolves once none is left, or after `deadlineMs`, when the remaining ones are cut. Returns how many
   * connections were cut that way.
   */
  drain(deadlineMs: number): Promise<number>;
}

/**
 * The web process's HTTP server, with bounds on slow clients (docs/outages.md): the headers must arrive
 * within HTTP_HEADERS_TIMEOUT_MS and the whole request, body included, within HTTP_REQUEST_TIMEOUT_MS;
 * otherwise Node answers 408 and closes the connection, so a client trickling a partial body cannot hold
 * a socket (or koa-body's read) for long. Node checks these every `connectionsCheckingInterval`.
 */
export function createHttpServer(app: App, timeouts: Config['timeouts']): WebServer {
  const connections = new Map<Socket, Connection>();
  let draining = false;
  const handle = app.callback();
  const server = http.createServer(
    {
      headersTimeout: timeouts.httpHeadersMs,
      requestTimeout: timeouts.httpRequestMs,
      connectionsCheckingInterval: Math.min(1_000, timeouts.httpHeadersMs),
    },
    (req, res) => {
      const connection = connections.get(req.socket);
      if (connection) {
        connection.responses.add(res);
        res.once('close', () => {
          connection.responses.delete(res);
          connection.idleAt = req.socket.bytesRead;
        });
      }
      // Node then writes `Connection: close` and ends the socket once this answer is out.
      if (draining) res.shouldKeepAlive = false;
      void handle(req, res);
    },
  );
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { responses: new Set(), idleAt: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  // Keep-alive sockets are closed once idle during the drain; until then they stay open 5 s between requests.
  server.keepAliveTimeout = 5_000;

  const idle = (socket: Socket, connection: Connection): boolean =>
    connection.responses.size === 0 && socket.bytesRead === connection.idleAt;

  async function drain(deadlineMs: number): Promise<number> {
    draining = true;
    const started = Date.now();
    for (const connection of connections.values()) {
      for (const res of connection.responses) if (!res.headersSent) res.shouldKeepAlive = false;
    }
    // The listening socket stays open a moment: connections the kernel completed before the signal but the
    // process had not taken from its backlog yet would be reset by closing it (seen on a busy process:
    // most of a burst sent just before SIGTERM). Answers given meanwhile say `Connection: close`.
    await new Promise<void>((resolve) => setTimeout(resolve, DRAIN_ACCEPT_GRACE_MS));
    // The listening socket only: http.Server#close would also destroy every connection whose request has
    // not begun (closeIdleConnections), among them those whose request bytes are still unread: the client
    // saw a reset for a request it had sent.
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    const firstIdle = new Map<Socket, number>();
    while (connections.size > 0 && Date.now() - started < deadlineMs) {
      const now = Date.now();
      for (const [socket, connection] of connections) {
        if (!idle(socket, connection)) {
          firstIdle.delete(socket);
          continue;
        }
        const since = firstIdle.get(socket) ?? now;
        firstIdle.set(socket, since);
        // Idle for the whole grace (no request begun, nothing read): closed, which its client reads as
        // "open a new connection" (and finds it refused, so it goes to another instance).
        if (now - since >= DRAIN_IDLE_GRACE_MS) socket.destroy();
      }
      await new Promise<void>((resolve) => setTimeout(resolve, DRAIN_SWEEP_MS));
    }
    const cut = connections.size;
    for (const socket of connections.keys()) socket.destroy();
    await closed;
    return cut;
  }

  return { server, drain };
}
