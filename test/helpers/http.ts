import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import type { Deps } from '../../shared/deps';
import { checkAnswer } from './contract';

export interface TestServer {
  url: string;
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // Tests read arbitrary JSON bodies; assertions check their shape.
  body: Record<string, unknown> & { data?: unknown };
  text: string;
}

/** Starts the real app on an ephemeral port, so tests send real (and real concurrent) HTTP requests. */
export async function startServer(deps: Deps): Promise<TestServer> {
  const server = http.createServer(createApp(deps).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ...httpClient(url, deps.config.nodeEnv),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Requests to the app at `url`, each answer checked against the OpenAPI document like startServer's: for
 * an app this test process started, or a `web` process it spawned (test/e2e; its `close` stops nothing,
 * the process is stopped by whoever started it).
 */
export function httpClient(url: string, nodeEnv: Deps['config']['nodeEnv']): TestServer {
  return {
    url,
    close: () => Promise.resolve(),
    async request(path, init = {}) {
      const headers = new Headers(init.headers);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('Content-Type', 'application/json');
        body = JSON.stringify(init.json);
      }
      // fetch() drops a Host header; the Storefront finds its store by Host, so send with node:http.
      const host = headers.get('host');
      const method = init.method ?? 'GET';
      let res: TestResponse;
      if (host) res = await requestWithHost(url + path, host, method, headers, body);
      else {
        const answer = await fetch(url + path, { ...init, headers, body });
        res = toTestResponse(answer.status, answer.headers, await answer.text());
      }
      checkAnswer(nodeEnv, method, path, res.status, res.headers.get('content-type'), res.text);
      return res;
    },
  };
}

function toTestResponse(status: number, headers: Headers, text: string): TestResponse {
  let parsed: TestResponse['body'];
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = {};
  }
  return { status, headers, body: parsed, text };
}

function requestWithHost(
  target: string,
  host: string,
  method: string,
  headers: Headers,
  body: RequestInit['body'],
): Promise<TestResponse> {
  const outgoing: Record<string, string> = {};
  headers.forEach((value, key) => {
    outgoing[key] = value;
  });
  outgoing.host = host;
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method, headers: outgoing }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(key, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve(toTestResponse(res.statusCode ?? 0, responseHeaders, Buffer.concat(chunks).toString('utf8')));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (typeof body === 'string') req.write(body);
    req.end();
  });
}
