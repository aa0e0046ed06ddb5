import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeAnswer {
  status: number;
  body: unknown;
  /** Extra headers (a redirect's Location, CORS). */
  headers?: Record<string, string>;
  /** A body sent as is (HTML), instead of `body` as JSON. */
  raw?: { type: string; text: string };
}

/**
 * What the next requests get instead of the normal answer: a 5xx, or no answer at all (a client timeout).
 * `lost`: the request is carried out but its answer never arrives (the connection drops), as when a
 * provider did the work and the network lost the reply.
 */
export type FakeFault = '5xx' | 'timeout' | 'lost';

/**
 * A local HTTP server standing in for a provider's API, for tests. Subclasses answer like the documented
 * API; `failNext` makes the next requests fail the way real outages do. Every request is recorded.
 */
export abstract class FakeServer {
  readonly requests: FakeRequest[] = [];
  url = '';
  private server: http.Server | null = null;
  private readonly sockets = new Set<Socket>();
  private faults: FakeFault[] = [];
  private targeted: { fault: FakeFault; match: (req: FakeRequest) => boolean }[] = [];

  protected abstract handle(req: FakeRequest): FakeAnswer;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request: FakeRequest = {
          method: req.method ?? 'GET',
          path: (req.url ?? '/').split('?')[0],
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(request);
        const aimed = this.targeted.findIndex((t) => t.match(request));
        const fault = aimed >= 0 ? this.targeted.splice(aimed, 1)[0].fault : this.faults.shift();
        // A hung request: the client's timeout has to give up on it.
        if (fault === 'timeout') return;
        if (fault === 'lost') {
          this.handle(request);
          req.socket.destroy();
          return;
        }
        const answer: FakeAnswer =
          fault === '5xx' ? { status: 503, body: { message: 'Service Unavailable' } } : this.handle(request);
        res.writeHead(answer.status, {
          'Content-Type': answer.raw?.type ?? 'application/json',
          ...answer.headers,
        });
        res.end(answer.raw ? answer.raw.text : JSON.stringify(answer.body));
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  failNext(fault: FakeFault, count = 1): void {
    for (let i = 0; i < count; i += 1) this.faults.push(fault);
  }

  /** The outage is over: faults queued by `failNext` and not met yet are dropped. */
  clearFaults(): void {
    this.faults = [];
  }

  /** The next request that `match` accepts gets `fault` (others are answered as usual). */
  failWhen(fault: FakeFault, match: (req: FakeRequest) => boolean): void {
    this.targeted.push({ fault, match });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  protected json(body: string): Record<string, unknown> | null {
    try {
      const parsed: unknown = JSON.parse(body);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : null;
    } catch {
      return null;
    }
  }
}
