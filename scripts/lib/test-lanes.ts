import fs from 'node:fs';
import path from 'node:path';

/**
 * The suite's lanes for `npm test`: the browser files (those that drive Chromium, through
 * test/helpers/browser.ts or their own launch) run one after another in a lane of their own, since two Chromiums side by side
 * on two cores make each page's timeouts a matter of luck; every other file runs in Mocha's parallel mode
 * beside them. Each file already makes its own data on a database and Redis prefix of its process
 * (test/helpers/env.ts), so where a file runs does not change what it sees.
 */
export interface Lanes {
  parallel: string[];
  browser: string[];
}

/** A file that imports the shared browser, or launches one of its own through playwright-core. */
const DRIVES_A_BROWSER = /from '(\.\.\/)+helpers\/browser'|import\('playwright-core'\)/;

export function testFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.ts')) found.push(full);
    }
  };
  walk(dir);
  return found.sort();
}

export function splitLanes(root: string): Lanes {
  const lanes: Lanes = { parallel: [], browser: [] };
  for (const file of testFiles(path.join(root, 'test'))) {
    const relative = path.relative(root, file);
    if (DRIVES_A_BROWSER.test(fs.readFileSync(file, 'utf8'))) lanes.browser.push(relative);
    else lanes.parallel.push(relative);
  }
  lanes.parallel = spreadOut(lanes.parallel);
  return lanes;
}

/**
 * The parallel lane's order: the files that start processes of their own (test/e2e/: the bench, crashes,
 * clusters, replicas) spread evenly among the others, so the lane's workers seldom run two of them at once
 * beside the browser lane (in name order they all came first, and two cores starved their processes).
 */
export function spreadOut(files: string[]): string[] {
  const heavy = files.filter((f) => f.startsWith(`test${path.sep}e2e${path.sep}`));
  const light = files.filter((f) => !heavy.includes(f));
  if (heavy.length === 0) return files;
  const every = Math.max(1, Math.floor(light.length / heavy.length));
  const out: string[] = [];
  let h = 0;
  // A few light files first: the lanes start their first files, and Chromium, all at the same moment.
  for (let i = 0; i < light.length; i += every) {
    out.push(...light.slice(i, i + every));
    if (h < heavy.length) out.push(heavy[h++]!);
  }
  out.push(...heavy.slice(h));
  return out;
}
