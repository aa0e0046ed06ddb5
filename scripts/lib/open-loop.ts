import http from 'node:http';

/**
 * An open-loop load generator for the bench's fixed-rate scenarios: request i is due at start + i / rate,
 * evenly spaced, whether or not earlier answers came back, and its latency is measured from the moment it
 * was due. So a slow answer delays no later request's start, and time a request spent waiting for a free
 * socket counts in its latency (no coordinated omission).
 *
 * autocannon, which measures the closed-loop scenarios, gives each connection `rate / connections`
 * requests a second on a timer of its own, all started at once: at 200 req/s over 20 connections, 20
 * requests arrive at the same instant ten times a second. That measured bursts of 20, not a rate.
 */

export interface OpenLoopRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface OpenLoopAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Milliseconds from when the request was due to its answer's last byte. */
  ms: number;
  /** What `requestFor` returned for it, handed back with the answer. */
  request: OpenLoopRequest;
}

export interface OpenLoopResult {
  answers: OpenLoopAnswer[];
  /** Requests that failed without an answer (connection refused or reset, timeout). */
  errors: number;
  /** Answers a second over the run (from the first request due to the last answer). */
  rps: number;
}

export async function runOpenLoop(opts: {
  base: string;
  rate: number;
  seconds: number;
  requestFor: (n: number) => OpenLoopRequest;
  /** Longest wait for one answer (default 10 s). */
  timeoutMs?: number;
}): Promise<OpenLoopResult> {
  const url = new URL(opts.base);
  // Sockets are opened as requests need them: at most as many as requests in flight.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.max(1, Math.round(opts.rate * opts.seconds));
  const answers: OpenLoopAnswer[] = [];
  let errors = 0;
  const started = performance.now();
  const pending: Promise<void>[] = [];

  const send = (request: OpenLoopRequest, due: number): Promise<void> =>
    new Promise((resolve) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: request.method,
          path: request.path,
          headers: {
            ...request.headers,
            ...(request.body === undefined ? {} : { 'content-length': Buffer.byteLength(request.body) }),
          },
          agent,
          timeout: opts.timeoutMs ?? 10_000,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            answers.push({
              status: res.statusCode ?? 0,
              headers: res.headers,
              ms: performance.now() - due,
              request,
            });
            resolve();
          });
          res.on('error', () => {
            errors += 1;
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(request.body);
    });

  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / opts.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(send(opts.requestFor(i), due));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return { answers, errors, rps: answers.length / elapsed };
}
