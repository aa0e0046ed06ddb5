import { expect } from 'chai';
import type http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../api/app';
import { createHttpServer } from '../../../api/http-server';
import { isolatedDeps } from '../../helpers/deps';

/**
 * A client that sends its headers or its body slowly (or never finishes) is answered
 * 408 and disconnected once HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS have passed, instead of
 * holding a connection of the web process. The bounds are shortened here so the test does not wait 30 s.
 */
describe('slow clients: header and body time limits', function () {
  this.timeout(15_000);
  let server: http.Server;
  let port: number;

  before(async () => {
    const deps = await isolatedDeps({ HTTP_HEADERS_TIMEOUT_MS: '600', HTTP_REQUEST_TIMEOUT_MS: '1200' });
    server = createHttpServer(createApp(deps), deps.config.timeouts).server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Writes `raw` and never anything more; resolves with what the server sent until it closed the socket. */
  function stall(raw: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('utf8')));
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
    });
  }

  it('answers 408 and closes a connection whose body never completes', async () => {
    const partial = [
      'POST /webhooks/sandbox HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      'Content-Length: 200',
      '',
      '{"id": "evt_1", "type": "payment.pa',
    ].join('\r\n');
    expect(await stall(partial)).to.match(/^HTTP\/1\.1 408 /);
  });

  it('answers 408 and closes a connection whose headers never complete', async () => {
    expect(await stall('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1')).to.match(/^HTTP\/1\.1 408 /);
  });

  it('keeps serving other clients meanwhile', async () => {
    const held = stall(
      'POST /webhooks/sandbox HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        'Content-Length: 10\r\n\r\n{"a',
    );
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ status: 'ok' });
    expect(await held).to.match(/^HTTP\/1\.1 408 /);
  });
});
