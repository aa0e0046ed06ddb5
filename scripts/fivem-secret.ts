import { parseArgs } from 'node:util';
import { DomainError } from '../shared/errors';
import { scriptDeps } from './lib/script-deps';
import { createFivemServer, listFivemServers, revokeFivemServers } from '../shared/services/fivem';
import type { Knex } from 'knex';

export const FIVEM_SECRET_USAGE = `usage:
  npm run fivem-secret -- create --store STORE_ID --name NAME   issue a secret for one game server
  npm run fivem-secret -- revoke --store STORE_ID --id ID        revoke one secret
  npm run fivem-secret -- revoke --store STORE_ID --name NAME    revoke every live secret of that name
  npm run fivem-secret -- list   --store STORE_ID                the store's game servers (no secrets)`;

export interface CliOutput {
  code: number;
  /** What goes to stdout: the new secret alone for `create`, so it can be captured by a shell. */
  stdout: string;
  /** Explanations and errors. */
  stderr: string;
}

const positiveInt = (value: string | undefined): number | null =>
  value !== undefined && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : null;

/**
 * The `fivem-secret` command on a database: registers a game server for a store and prints its secret
 * once (only its SHA-256 is kept), revokes secrets, lists a store's servers.
 */
export async function fivemSecretCommand(knex: Knex, args: string[]): Promise<CliOutput> {
  const usage = (problem: string): CliOutput => ({
    code: 1,
    stdout: '',
    stderr: `fivem-secret: ${problem}\n${FIVEM_SECRET_USAGE}\n`,
  });
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { store: { type: 'string' }, name: { type: 'string' }, id: { type: 'string' } },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const [action, ...extra] = parsed.positionals;
  const { values } = parsed;
  if (extra.length > 0) return usage(`unexpected argument ${extra[0]}`);
  const storeId = positiveInt(values.store);
  if (storeId === null) return usage('--store must be a store id');

  try {
    if (action === 'create') {
      if (!values.name) return usage('--name is required (e.g. the game server’s name)');
      const issued = await createFivemServer(knex, storeId, values.name);
      return {
        code: 0,
        stdout: `${issued.secret}\n`,
        stderr:
          `FiveM secret for store ${storeId}, game server "${issued.name}" (id ${issued.id}) is on stdout.\n` +
          'It is shown only this once: put it in the resource’s config.lua (Config.Secret) or in server.cfg\n' +
          '(set matjar_fivem_secret "..."). Revoke it with: npm run fivem-secret -- revoke ' +
          `--store ${storeId} --id ${issued.id}\n`,
      };
    }
    if (action === 'revoke') {
      const id = values.id === undefined ? undefined : positiveInt(values.id);
      if (id === null) return usage('--id must be a game server id');
      if ((id === undefined) === (values.name === undefined))
        return usage('revoke takes either --id or --name');
      const revoked = await revokeFivemServers(
        knex,
        storeId,
        id !== undefined ? { id } : { name: values.name as string },
      );
      if (revoked.length === 0) {
        return { code: 1, stdout: '', stderr: 'fivem-secret: no live secret matched; nothing revoked\n' };
      }
      return { code: 0, stdout: '', stderr: `revoked game server id(s) ${revoked.join(', ')}\n` };
    }
    if (action === 'list') {
      const servers = await listFivemServers(knex, storeId);
      const lines = servers.map((s) =>
        [
          s.id,
          s.name,
          s.revoked_at ? `revoked ${s.revoked_at.toISOString()}` : 'live',
          `last seen ${s.last_seen_at ? s.last_seen_at.toISOString() : 'never'}`,
        ].join('\t'),
      );
      return { code: 0, stdout: lines.map((l) => `${l}\n`).join(''), stderr: '' };
    }
  } catch (err) {
    if (err instanceof DomainError) return { code: 1, stdout: '', stderr: `fivem-secret: ${err.message}\n` };
    throw err;
  }
  return usage(action ? `unknown action ${action}` : 'an action is required');
}

async function main(args: string[]): Promise<number> {
  if (!['create', 'revoke', 'list'].includes(args[0] ?? '')) {
    // Refused before connecting, so the usage shows even where no database is reachable.
    process.stderr.write(`fivem-secret: an action is required\n${FIVEM_SECRET_USAGE}\n`);
    return 1;
  }
  const deps = await scriptDeps('fivem-secret');
  if (!deps) return 1;
  try {
    const out = await fivemSecretCommand(deps.knex, args);
    process.stdout.write(out.stdout);
    process.stderr.write(out.stderr);
    return out.code;
  } finally {
    await deps.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`fivem-secret: failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
