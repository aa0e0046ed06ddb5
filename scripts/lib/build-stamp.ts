import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Whether dist/ is up to date with the sources, so `npm start` can skip a build that would change nothing
 * (the TypeScript build is most of a second start's time). The stamp, written after a successful build,
 * records a digest of every input's path, size and modification time: an edited, added, removed or
 * renamed source, a changed tsconfig or a new lock file (another TypeScript) all change the digest, and
 * then the build runs. A fresh clone has no stamp, so it always builds.
 */

const INPUT_DIRS = ['api', 'workers', 'shared', 'db', 'scripts', 'widget'];
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const STAMP = path.join('dist', '.build-stamp');

function walk(root: string, dir: string, out: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(root, rel, out);
    else if (entry.isFile()) out.push(rel);
  }
}

/** The digest of every build input as it is now on disk. */
export function sourcesDigest(root: string): string {
  const files: string[] = [];
  for (const dir of INPUT_DIRS) walk(root, dir, files);
  for (const file of INPUT_FILES) if (fs.existsSync(path.join(root, file))) files.push(file);
  const hash = crypto.createHash('sha256');
  for (const file of files.sort()) {
    const stat = fs.statSync(path.join(root, file));
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** True when the last successful build was made from exactly the sources on disk. */
export function buildIsCurrent(root: string): boolean {
  try {
    return fs.readFileSync(path.join(root, STAMP), 'utf8').trim() === sourcesDigest(root);
  } catch {
    return false;
  }
}

/** Records that dist/ was built from the sources on disk now (call after a successful build). */
export function recordBuild(root: string, digest = sourcesDigest(root)): void {
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(root, STAMP), `${digest}\n`);
}
