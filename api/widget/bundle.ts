import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * The built widget script (dist/widget/v1.js, written by scripts/build-widget.ts) as the API serves it:
 * read once, with its gzip form and a content-hash ETag, and read again when the file changes (a rebuild
 * during development).
 */

function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}

export const WIDGET_FILE = path.join(projectRoot(), 'dist', 'widget', 'v1.js');

export interface LoadedBundle {
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

export class WidgetBundle {
  private cached: (LoadedBundle & { mtimeMs: number }) | null = null;

  constructor(readonly file = WIDGET_FILE) {}

  /** The script, or null when it has not been built. */
  load(): LoadedBundle | null {
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(this.file).mtimeMs;
    } catch {
      return null;
    }
    if (this.cached?.mtimeMs !== mtimeMs) {
      const body = fs.readFileSync(this.file);
      const hash = crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22);
      this.cached = { body, gzip: zlib.gzipSync(body, { level: 9 }), etag: `"${hash}"`, mtimeMs };
    }
    return this.cached;
  }
}
