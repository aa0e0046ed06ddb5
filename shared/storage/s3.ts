import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { StorageDriver } from './index';

/**
 * The `s3` driver: AWS S3, Cloudflare R2, MinIO and other S3-compatible stores through the official SDK
 * (docs/downloads.md). With `endpoint` set the bucket is addressed path-style (`{endpoint}/{bucket}/{key}`),
 * which every S3-compatible server accepts; without it, AWS's own virtual-hosted addresses.
 *
 * Uploads of unknown length stream as a multipart upload: one part (`partBytes`, 8 MiB; S3's minimum is
 * 5 MiB) is held in memory at a time, so a 2 GiB file costs the web process a few MB, and a failed upload
 * is aborted so no parts are left billed in the bucket.
 */
export interface S3Settings {
  readonly endpoint?: string;
  readonly bucket: string;
  readonly region: string;
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  /** Bytes per part of a multipart upload (tests make it S3's minimum, 5 MiB). */
  readonly partBytes?: number;
}

const MiB = 1024 * 1024;

export class S3Storage implements StorageDriver {
  readonly name = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly partBytes: number;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.partBytes = Math.max(settings.partBytes ?? 8 * MiB, 5 * MiB);
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: Boolean(settings.endpoint),
      credentials:
        settings.accessKeyId && settings.secretAccessKey
          ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
          : undefined,
      // Checksums only where S3 requires them: R2, MinIO and older S3-compatible servers refuse the
      // trailing checksums the SDK otherwise adds to every upload.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  put(key: string, sourcePath: string, contentType: string): Promise<void> {
    return this.write(key, createReadStream(sourcePath), contentType);
  }

  async write(key: string, body: Readable, contentType: string): Promise<void> {
    const parts = chunksOf(body, this.partBytes);
    const first = await parts.next();
    const firstPart = first.done ? Buffer.alloc(0) : first.value;
    const second = first.done ? first : await parts.next();
    if (second.done) {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: firstPart, ContentType: contentType }),
      );
      return;
    }
    const { UploadId } = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
    );
    const done: { ETag: string; PartNumber: number }[] = [];
    try {
      const upload = async (part: Buffer): Promise<void> => {
        const PartNumber = done.length + 1;
        const { ETag } = await this.client.send(
          new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId, PartNumber, Body: part }),
        );
        done.push({ ETag: ETag ?? '', PartNumber });
      };
      await upload(firstPart);
      await upload(second.value);
      for (let next = await parts.next(); !next.done; next = await parts.next()) await upload(next.value);
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: done },
        }),
      );
    } catch (err) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId }))
        .catch(() => undefined);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async read(key: string): Promise<Readable> {
    const { Body } = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    return Body as Readable;
  }

  async readRange(key: string, start: number, end: number): Promise<Readable> {
    const { Body } = await this.client.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end}` }),
    );
    return Body as Readable;
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (err) {
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
        return false;
      throw err;
    }
  }

  presignedDownload(key: string, fileName: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        // The type is never trusted from the name (docs/security.md): an attachment of opaque bytes.
        ResponseContentType: 'application/octet-stream',
        ResponseContentDisposition: contentDisposition(fileName),
      }),
      { expiresIn: expiresInSeconds },
    );
  }
}

/** `attachment` naming the file: an ASCII fallback and the exact name in RFC 5987 form. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/**
 * The stream cut into parts of exactly `size` bytes (the last one shorter), copied into two buffers made
 * once and used in turn: a part yielded stays intact until the part after next is asked for, by which time
 * `write` has sent it (it holds the first two parts before it knows whether the file needs a multipart
 * upload, and sends each part before asking for another). Copying into kept buffers, rather than
 * concatenating a new 8 MiB buffer per part, leaves the garbage collector nothing large to catch up with:
 * a 2 GiB upload made 256 of them, and the process grew by 80 to 95 MiB until they were collected
 * (docs/downloads.md, "Memory").
 */
async function* chunksOf(body: Readable, size: number): AsyncGenerator<Buffer, void> {
  const buffers: Buffer[] = [];
  let turn = 0;
  let current: Buffer | null = null;
  let filled = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    let rest = chunk;
    while (rest.length > 0) {
      if (!current) {
        buffers[turn] ??= Buffer.allocUnsafe(size);
        current = buffers[turn]!;
        filled = 0;
      }
      const take = Math.min(size - filled, rest.length);
      rest.copy(current, filled, 0, take);
      filled += take;
      rest = rest.subarray(take);
      if (filled === size) {
        yield current;
        current = null;
        turn = 1 - turn;
      }
    }
  }
  if (current && filled > 0) yield current.subarray(0, filled);
}
