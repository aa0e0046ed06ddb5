import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { TEST_ENV } from '../helpers/env';

const ROOT = path.resolve(__dirname, '../..');

/** Starts a Procfile entry as the operator would (through tsx, from the sources) and waits for its exit. */
function start(entry: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), [entry], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    // A process that did not refuse would be listening: stop it, and the test fails on its exit code.
    const timer = setTimeout(() => child.kill('SIGTERM'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** The test environment, as production, without the variables a case leaves out. */
function productionEnv(without: string[], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  Object.assign(env, TEST_ENV, { NODE_ENV: 'production', PORT: '1', LOG_LEVEL: 'error' }, extra);
  for (const name of without) delete env[name];
  return env;
}

/**
 * A production start refuses what would make it unsafe (the operator contract, docs/operations.md): no
 * APP_SECRET (each replica would generate its own), a short DASHBOARD_PASSWORD. Each process exits non-zero
 * before connecting anywhere, with a message that names the variable.
 */
describe('production start: required settings', function () {
  this.timeout(60_000);

  for (const entry of ['api/server.ts', 'workers/index.ts', 'workers/scheduler.ts']) {
    it(`${entry} exits non-zero without APP_SECRET, naming it`, async () => {
      const { code, stderr } = await start(entry, productionEnv(['APP_SECRET']));
      expect(code, stderr).to.equal(1);
      expect(stderr).to.include('APP_SECRET').and.to.include('required in production');
    });
  }

  it('exits non-zero with a DASHBOARD_PASSWORD shorter than 16 characters, naming it', async () => {
    const { code, stderr } = await start(
      'api/server.ts',
      productionEnv([], { DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'fifteen-chars-1' }),
    );
    expect(code, stderr).to.equal(1);
    expect(stderr).to.include('DASHBOARD_PASSWORD').and.to.include('16 characters');
  });
});
