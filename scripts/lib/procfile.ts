import fs from 'node:fs';

/** Procfile entries as argument vectors: `web: node dist/api/server.js` -> web => [node, dist/api/server.js]. */
export function readProcfile(file: string): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^([A-Za-z0-9_-]+):\s*(.+)$/.exec(line);
    if (!match) throw new Error(`${file}: cannot read the line "${line}"`);
    entries.set(match[1], match[2].split(/\s+/));
  }
  return entries;
}
