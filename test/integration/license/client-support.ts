import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Loopback helpers for the license clients' tests: a relay between client and platform, a dead address. */

export type Relay = (req: { path: string; body: Record<string, unknown> }) => Promise<{
  status: number;
  headers: Record<string, string>;
  body: string;
}>;

/** A loopback server standing between client and platform, doing whatever `relay` does to each call. */
export async function stub(relay: Relay): Promise<{ url: string; close(): Promise<void> }> {
  const srv = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      relay({ path: req.url ?? '/', body: JSON.parse(raw || '{}') as Record<string, unknown> })
        .then((out) => {
          res.writeHead(out.status, { 'Content-Type': 'application/json', ...out.headers });
          res.end(out.body);
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => srv.close(() => resolve())),
  };
}

/** An address where nothing listens: the network is gone. */
export async function deadAddress(): Promise<string> {
  const srv = http.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
