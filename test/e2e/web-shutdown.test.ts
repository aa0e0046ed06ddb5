import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Deps } from '../../shared/deps';
import { sandboxWebhookKey, signSandboxWebhook } from '../../shared/providers/sandbox';
import { isolatedDeps } from '../helpers/deps';
import { waitFor } from '../integration/queues/support';
import { freePort, launch, Running, untilReady } from './support';

/** One HTTP exchange over its own raw socket: what the client sent and everything it received. */
interface Exchange {
  /** The whole answer, once the server closed the connection or the answer was complete. */
  answer: Promise<{ raw: string; error?: string }>;
  socket: net.Socket;
}

/** Opens a connection and writes `head` (more may be written later); collects the answer. */
function open(port: number, head: string): Exchange {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(head);
  const answer = new Promise<{ raw: string; error?: string }>((resolve) => {
    let raw = '';
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => resolve({ raw, error }));
  });
  return { answer, socket };
}

/** A complete HTTP/1.1 answer: a status line, headers, and the whole Content-Length body. */
function parse(raw: string): { status: number; headers: Record<string, string>; body: string } | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const body = raw.slice(end + 4);
  if (!status || Number(headers['content-length']) !== Buffer.byteLength(body)) return null;
  return { status, headers, body };
}

/**
 * SIGTERM on a real web process (api/server.ts) under load (docs/operations.md, "Stopping"): every request
 * accepted before the signal gets its complete answer, whether it was being handled, its body was still
 * arriving, or its connection had just been opened; no client sees a reset; new connections are refused;
 * the process exits 0 within 10 s. The sandbox provider's webhook deliveries still pending are handed back
 * to Postgres and delivered by the next web process.
 */
describe('web: SIGTERM under load (real process)', function () {
  this.timeout(60_000);
  let deps: Deps;
  const started: Running[] = [];

  before(async () => {
    deps = await isolatedDeps();
  });
  afterEach(() => {
    for (const run of started.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  });

  async function startWeb(env: NodeJS.ProcessEnv = {}): Promise<{ run: Running; port: number }> {
    const port = await freePort();
    const run = await launch('web', { QUEUE_PREFIX: deps.config.queuePrefix, PORT: String(port), ...env });
    started.push(run);
    await untilReady(run, 'web');
    return { run, port };
  }

  it('answers every accepted request in full, refuses new connections and exits 0', async () => {
    const { run, port } = await startWeb();
    const body = JSON.stringify({ id: 'evt_unsigned', data: { id: 'x' } });
    const get = (path: string, connection: 'keep-alive' | 'close'): string =>
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: ${connection}\r\n\r\n`;
    const post = `POST /webhooks/sandbox HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;

    // Keep-alive connections that already had an answer and sit idle when the signal comes.
    const idleKeepAlive = Array.from({ length: 6 }, () => open(port, get('/healthz', 'keep-alive')));
    await waitFor('the keep-alive answers', async () => {
      for (const c of idleKeepAlive) if (c.socket.bytesRead === 0) return false;
      return true;
    });
    // Slow uploads: headers and half the body now, the rest after SIGTERM.
    const slowBodies = Array.from({ length: 8 }, () => open(port, post + body.slice(0, 10)));
    // A burst of requests sent at once, on fresh connections and keep-alive ones.
    const burst = Array.from({ length: 30 }, (_, i) =>
      open(port, get(i % 3 === 0 ? '/readyz' : '/healthz', i % 2 === 0 ? 'close' : 'keep-alive')),
    );
    // Connections opened before the signal whose request is written only after it.
    const lateWriters = Array.from({ length: 6 }, () => open(port, ''));
    await waitFor('the slow uploads and late connections to be accepted', async () =>
      [...slowBodies, ...lateWriters].every((c) => c.socket.readyState === 'open'),
    );

    const signalled = Date.now();
    run.child.kill('SIGTERM');
    await waitFor('the web process to log that it stops', async () => /web stopping/.test(run.output.stdout));
    for (const c of lateWriters) c.socket.write(get('/healthz', 'keep-alive'));

    // While the uploads are still arriving, the listening socket is closed: new connections are refused.
    await waitFor('new connections to be refused', async () => {
      const attempt = open(port, get('/healthz', 'close'));
      const { raw, error } = await attempt.answer;
      if (error === 'ECONNREFUSED') return true;
      // One still taken during the drain's first moments is answered in full, and told to go elsewhere.
      expect(error, raw).to.equal(undefined);
      expect(parse(raw)?.headers.connection).to.equal('close');
      return false;
    });
    expect(run.child.exitCode, 'still draining the uploads').to.equal(null);
    for (const c of slowBodies) c.socket.end(body.slice(10));

    const { code, at } = await run.exited;
    expect(code, run.output.stderr).to.equal(0);
    expect(at - signalled).to.be.below(10_000);

    // The idle keep-alive connections were closed without a second answer (their first one is complete).
    for (const c of idleKeepAlive) {
      const { raw, error } = await c.answer;
      expect(error, 'idle keep-alive connection').to.equal(undefined);
      expect(parse(raw)?.status).to.equal(200);
    }
    const answered = [...burst, ...slowBodies, ...lateWriters];
    expect(answered).to.have.length(44);
    for (const [i, c] of answered.entries()) {
      const { raw, error } = await c.answer;
      expect(error, `request ${i}: ${raw}`).to.equal(undefined);
      const parsed = parse(raw);
      expect(parsed, `request ${i} got a complete answer: ${raw}`).to.not.equal(null);
      expect(parsed?.status, raw).to.be.within(200, 503);
    }
    // Answers given after the signal tell the client to open a new connection elsewhere.
    for (const c of [...slowBodies, ...lateWriters]) {
      expect(parse((await c.answer).raw)?.headers.connection).to.equal('close');
    }
  });

  it('hands the sandbox’s pending webhook deliveries back, and the next web process delivers them', async () => {
    const received: { body: string; signature: string }[] = [];
    let accept = false;
    const receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        received.push({ body: raw, signature: String(req.headers['x-sandbox-signature']) });
        res.writeHead(accept ? 200 : 503).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/sandbox`;
    try {
      const id = `sbx_handback_${Date.now()}`;
      await deps.knex('sandbox_payments').insert({
        id,
        amount_minor: 1_000,
        currency: 'SAR',
        description: 'hand-back',
        return_url: 'http://127.0.0.1/return',
      });
      const first = await startWeb({ SANDBOX_WEBHOOK_URL: target });
      const res = await fetch(`http://127.0.0.1:${first.port}/sandbox/checkout/${id}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'outcome=paid',
        redirect: 'manual',
      });
      expect(res.status, await res.text()).to.equal(303);
      // The provider's first try was refused; it waits to try again when the process is told to stop.
      await waitFor('the first delivery attempt', async () => received.length >= 1);
      first.run.child.kill('SIGTERM');
      const { code } = await first.run.exited;
      expect(code, first.run.output.stderr).to.equal(0);
      // Other files in this test process may leave hand-backs of their own: this test's go to its receiver.
      const handedBack = await deps
        .knex('sandbox_webhook_handbacks')
        .where('url', target)
        .select('event_id', 'url');
      expect(handedBack).to.have.length(1);
      expect(handedBack[0].url).to.equal(target);
      const attemptsBefore = received.length;

      accept = true;
      await startWeb({ SANDBOX_WEBHOOK_URL: target });
      await waitFor('the handed-back delivery', async () => received.length > attemptsBefore);
      const delivered = received[received.length - 1];
      const event = JSON.parse(delivered.body) as { id: string; type: string; data: { id: string } };
      expect(event).to.deep.include({ id: handedBack[0].event_id, type: 'payment.paid' });
      expect(event.data.id).to.equal(id);
      expect(delivered.signature).to.equal(
        signSandboxWebhook(sandboxWebhookKey(deps.appSecret), delivered.body),
      );
      await waitFor(
        'the hand-back row to be taken',
        async () =>
          Number(
            (
              await deps
                .knex('sandbox_webhook_handbacks')
                .where('url', target)
                .count<{ n: string }[]>('* as n')
            )[0].n,
          ) === 0,
      );
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
