import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { randomToken } from './crypto';

/** Where a development install keeps the secret it generated for itself (gitignored, like all of .data). */
export const DEV_APP_SECRET_FILE = '.data/app-secret';

/** The row earlier versions kept the generated secret in, in plain text. */
const LEGACY_KEY = 'app_secret';

/**
 * The platform secret keys every HMAC (OTP codes, payment page references) and at-rest encryption.
 *
 * APP_SECRET wins when set, and production refuses to start without it (shared/config.ts). Without it
 * (development, tests) one is generated once and kept in `file`, readable by its owner only, so every
 * process started from this checkout shares it. It is never written to the database: a copy of the
 * database must not carry the key to its own encrypted columns.
 *
 * Earlier versions kept a generated secret in `platform_settings` in plain text. That row is moved out:
 * into the file when no APP_SECRET is set (so nothing encrypted with it is lost), or deleted when the
 * APP_SECRET given is that same value. A row that differs from the APP_SECRET given is left for the
 * operator, who is told (the data encrypted with it needs that value).
 */
export async function resolveAppSecret(
  knex: Knex,
  fromEnv?: string,
  opts: { file?: string; warn?: (message: string) => void } = {},
): Promise<string> {
  const legacy = await knex('platform_settings').where({ key: LEGACY_KEY }).first<{ value: string }>('value');
  if (fromEnv) {
    if (legacy?.value === fromEnv) await knex('platform_settings').where({ key: LEGACY_KEY }).delete();
    else if (legacy)
      opts.warn?.(
        'platform_settings holds a plain-text app_secret from an earlier version that differs from APP_SECRET; ' +
          'data encrypted before needs that value. Set APP_SECRET to it, or delete the row once it is not needed.',
      );
    return fromEnv;
  }
  const file = path.resolve(opts.file ?? DEV_APP_SECRET_FILE);
  await mkdir(path.dirname(file), { recursive: true });
  try {
    // 'wx': the first process to get here writes it; the others read what it wrote.
    await writeFile(file, legacy?.value ?? randomToken(48), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let secret = '';
  // Another process may have created the file a moment ago and still be writing it.
  for (let attempt = 0; attempt < 20 && secret.length < 32; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    secret = (await readFile(file, 'utf8')).trim();
  }
  if (secret.length < 32)
    throw new Error(`${file} holds no usable secret (32+ characters); delete it or set APP_SECRET`);
  if (legacy?.value === secret) await knex('platform_settings').where({ key: LEGACY_KEY }).delete();
  return secret;
}
