import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { expect } from 'chai';
import Koa from 'koa';
import type { AppContextExtras, AppState } from '../../../api/context';
import { receiveFile } from '../../../api/merchant/files/receive';

/**
 * The upload's flow control (api/merchant/files/receive.ts, docs/downloads.md "Memory"), counted in bytes
 * rather than read from RSS: a store slower than the client (one chunk per millisecond) takes a 32 MiB
 * upload, and the bytes waiting in the file part's stream are read at every chunk the store takes. The
 * request must be read only as fast as the store goes: what waits stays within a few chunks. Before, each
 * write formidable made let two or three more in, and 10 to 30 MiB waited in the stream by the end.
 */

const MiB = 1024 * 1024;
const TOTAL = 32 * MiB;

describe('A merchant upload is read only as fast as the store takes it', function () {
  this.timeout(60_000);
  let server: http.Server;
  let port: number;
  let mostWaiting = 0;
  let stored = 0;

  before(async () => {
    const app = new Koa<AppState, AppContextExtras & Koa.DefaultContext>();
    app.use(async (ctx) => {
      const result = await receiveFile(
        ctx,
        { maxUploadBytes: TOTAL * 2, storeBytes: TOTAL * 2 },
        async ({ body }) => {
          const part = body as PassThrough;
          const slowStore = new Writable({
            write(chunk: Buffer, _encoding, done) {
              stored += chunk.length;
              mostWaiting = Math.max(mostWaiting, part.writableLength + part.readableLength);
              setTimeout(done, 1);
            },
          });
          await pipeline(body, slowStore);
          return { stored };
        },
      );
      ctx.body = result;
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('keeps at most a few chunks waiting between the request and a slow store', async () => {
    const boundary = `bp${crypto.randomBytes(8).toString('hex')}`;
    const block = crypto.randomBytes(MiB);
    const parts = function* (): Generator<Buffer> {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\n\r\n`,
      );
      for (let i = 0; i < TOTAL / MiB; i += 1) yield block;
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    };
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/',
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      pipeline(Readable.from(parts()), req).catch(reject);
    });
    expect(answer.status, answer.body).to.equal(200);
    expect(JSON.parse(answer.body)).to.deep.equal({ stored: TOTAL });
    // One request chunk (64 KiB, cut in two or three pieces by the parser) and the store's own: a few.
    expect(mostWaiting).to.be.above(0);
    expect(mostWaiting).to.be.at.most(512 * 1024);
  });
});
