import { readFile } from 'node:fs/promises';
import { FixtureError } from './fixture-schema';

export { FixtureError, formatPath, validateFixture } from './fixture-schema';
export type { Fixture, StoreFixture } from './fixture-schema';
export { loadFixture, seededStorefrontToken } from './load-fixture';
export type { Manifest, SeedDeps, StoreManifest } from './load-fixture';

/** Reads and parses a fixture file; an unreadable file or invalid JSON is a FixtureError about the whole file. */
export async function readFixtureFile(file: string): Promise<unknown> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    throw new FixtureError('', `cannot read fixture file ${file}: ${code ?? message}`);
  }
  try {
    return JSON.parse(content) as unknown;
  } catch (err) {
    throw new FixtureError('', `fixture file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}
