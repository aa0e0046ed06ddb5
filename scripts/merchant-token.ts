import { DomainError } from '../shared/errors';
import { scriptDeps } from './lib/script-deps';
import {
  createMerchantToken,
  listMerchantTokens,
  revokeMerchantToken,
} from '../shared/services/tokens/merchant';

const USAGE = `usage:
  merchant-token create --store STORE_ID [--name NAME] [--scope write|read]
                                                        prints the new token once (keep it: it is stored hashed);
                                                        a read token may only use GET routes
  merchant-token revoke --id TOKEN_ID                   revokes a token by its id
  merchant-token revoke --token TOKEN                   revokes a token by its value
  merchant-token list --store STORE_ID                  lists a store's tokens (never their values)`;

/** Parses `--flag value` pairs; unknown flags and missing values are errors. */
export function parseArgs(args: string[]): { command: string; flags: Record<string, string> } {
  const [command = '', ...rest] = args;
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i]!;
    const value = rest[i + 1];
    if (!/^--(store|name|id|token|scope)$/.test(flag) || value === undefined) throw new Error(USAGE);
    flags[flag.slice(2)] = value;
  }
  return { command, flags };
}

function positiveId(text: string | undefined): number {
  if (!text || !/^[1-9]\d{0,9}$/.test(text)) throw new Error(USAGE);
  return Number(text);
}

/**
 * `npm run merchant-token -- create|revoke|list ...`: the operator's way to give a merchant (of a paid
 * plan store) a Merchant API token. stdout carries the result only; logs go to stderr.
 */
export async function main(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(args);
    const { command, flags } = parsed;
    // Every argument is checked before connecting anywhere.
    if (flags.scope !== undefined && flags.scope !== 'read' && flags.scope !== 'write')
      throw new Error(USAGE);
    if (command === 'create' || command === 'list') positiveId(flags.store);
    else if (command === 'revoke') {
      if (!flags.token) positiveId(flags.id);
    } else throw new Error(USAGE);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
  const deps = await scriptDeps('merchant-token');
  if (!deps) return 1;
  try {
    const { command, flags } = parsed;
    if (command === 'create') {
      const scope = flags.scope === 'read' ? 'read' : 'write';
      const { id, token } = await createMerchantToken(deps.knex, positiveId(flags.store), flags.name, scope);
      const plan = (await deps.knex('stores').where('id', positiveId(flags.store)).first('plan'))?.plan;
      process.stdout.write(`${JSON.stringify({ id, store_id: positiveId(flags.store), scope, token })}\n`);
      process.stderr.write('This token is shown once: only its hash is stored.\n');
      if (plan !== 'paid')
        process.stderr.write(
          'Note: this store is on the free plan; the Merchant API answers 403 until it is on a paid plan.\n',
        );
    } else if (command === 'revoke') {
      const which = flags.token ? { token: flags.token } : { id: positiveId(flags.id) };
      const revoked = await revokeMerchantToken(deps.knex, which);
      process.stdout.write(`${JSON.stringify({ revoked })}\n`);
      if (!revoked) return 1;
    } else {
      process.stdout.write(
        `${JSON.stringify(await listMerchantTokens(deps.knex, positiveId(flags.store)))}\n`,
      );
    }
    return 0;
  } catch (err) {
    if (err instanceof DomainError || (err as Error).message === USAGE) {
      process.stderr.write(`merchant-token: ${(err as Error).message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await deps.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`merchant-token: failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
