import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/**
 * A real S3-compatible server (s3rver) on loopback, for the `s3` storage driver's tests: a random port, a
 * temporary directory, one bucket, and the list of requests it received (to see multipart parts go by).
 * s3rver's fixed credentials are S3RVER / S3RVER.
 */
export interface LocalS3 {
  endpoint: string;
  bucket: string;
  env: NodeJS.ProcessEnv;
  requests: { method: string; url: string }[];
  close(): Promise<void>;
}

export async function startLocalS3(bucket = 'matjar-files'): Promise<LocalS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'matjar-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const address = await server.run();
  const requests: LocalS3['requests'] = [];
  server.httpServer.on('request', (req: { method?: string; url?: string }) =>
    requests.push({ method: req.method ?? '', url: req.url ?? '' }),
  );
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    requests,
    env: {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
