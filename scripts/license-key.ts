import { rotateSigningKey } from '../shared/services/licenses/key-rotation';
import { scriptDeps } from './lib/script-deps';

export const LICENSE_KEY_USAGE = `usage:
  npm run license-key -- rotate   replace the license signing key (the old one stays published 31 days)`;

/**
 * The `license-key` command: rotates the Ed25519 key that signs License answers and certificates. Restart
 * the web processes afterwards (each signs with the key it loaded at start); until their certificates
 * expire, the old key stays in GET /verify/public-key `keys`.
 */
async function main(args: string[]): Promise<number> {
  if (args[0] !== 'rotate' || args.length > 1) {
    process.stderr.write(`license-key: ${args[0] ? `unknown action ${args[0]}` : 'an action is required'}\n`);
    process.stderr.write(`${LICENSE_KEY_USAGE}\n`);
    return 1;
  }
  const deps = await scriptDeps('license-key');
  if (!deps) return 1;
  try {
    const { retired, current } = await rotateSigningKey(deps);
    process.stdout.write(`${current}\n`);
    process.stderr.write(
      `license signing key rotated: current kid ${current}` +
        (retired ? `, retired kid ${retired} (published 31 more days)` : '') +
        '.\nRestart the web processes so they sign with the new key.\n',
    );
    return 0;
  } finally {
    await deps.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`license-key: failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
