import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import type { Deps } from '../../shared/deps';

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
    url,
    async request(path, init = {}) {
      const headers = new Headers(init.headers);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('Content-Type', 'application/json');
        body = JSON.stringify(init.json);
      }
      const res = await fetch(url + path, { ...init, headers, body });
      const text = await res.text();
      let parsed: TestResponse['body'] = {};
      try {
        parsed = text ? JSON.parse(text) : {};
      } catch {
        parsed = {};
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
