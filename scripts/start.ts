import { ChildProcessByStdio, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ClientInterface, mountedInterfaces } from '../api/mounted';
import { allRoutes } from '../api/routes';
import { Config, ConfigError, loadConfig } from '../shared/config';
import { buildWidget, describeBuild } from './build-widget';
import { buildIsCurrent, recordBuild, sourcesDigest } from './lib/build-stamp';
import { box, eachLine, humanize, prefixFor, seconds } from './lib/output';
import { readProcfile } from './lib/procfile';
import { provision, Provisioned } from './lib/provision';
import { portIsFree, sleep } from './lib/services';

/**
 * `npm start`: build, provide Postgres and Redis, migrate, seed the demo store, then run the Procfile's web,
 * worker and scheduler together with prefixed output until Ctrl-C or SIGTERM. run.mjs has installed the
 * dependencies before this runs.
 */

const root = path.resolve(__dirname, '..');
const DEMO_FIXTURE = 'fixtures/demo.json';
const APP_PROCESSES = ['web', 'worker', 'scheduler'] as const;
const STOP_GRACE_MS = 12_000;
const HEALTH_TIMEOUT_MS = 60_000;

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

type Json = Record<string, unknown>;
const asRecord = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {});
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What the address box shows of the demo store: read from the fixture and the manifest, not repeated here. */
interface DemoStore {
  ref: string;
  /** The store page's address `/s/{slug}` (the fixture's `slug`, else its `ref`). */
  slug: string;
  embedKey?: string;
  merchantToken?: string;
  fivemSecret?: string;
  customerPhone?: string;
  storefrontToken?: string;
  /** The store owner's phone (country code and number, digits): signs in to the merchant dashboard. */
  ownerPhone?: string;
}

function demoStore(fixtureFile: string, manifest: Json): DemoStore {
  const fixture = asRecord(JSON.parse(fs.readFileSync(fixtureFile, 'utf8')));
  const store = asRecord(asList(fixture.stores)[0]);
  const ref = asText(store.ref) ?? '';
  const entry = asRecord(asRecord(manifest.stores)[ref]);
  const customer = asRecord(asList(store.customers)[0]);
  const customerRef = asText(customer.ref) ?? '';
  return {
    ref,
    slug: asText(store.slug) ?? ref,
    embedKey: asText(entry.embed_key) ?? asText(store.embed_key),
    merchantToken: asText(asList(store.merchant_tokens)[0]),
    fivemSecret: asText(store.fivem_secret),
    customerPhone:
      customer.phone !== undefined
        ? `${asText(customer.country_code) ?? ''}${asText(customer.phone) ?? ''}`
        : undefined,
    storefrontToken: asText(asRecord(asRecord(entry.customers)[customerRef]).storefront_token),
    ownerPhone:
      asRecord(store.owner).phone !== undefined
        ? `${asText(asRecord(store.owner).country_code) ?? ''}${asText(asRecord(store.owner).phone) ?? ''}`
        : undefined,
  };
}

function manifestSummary(manifest: Json): string[] {
  return Object.entries(asRecord(manifest.stores)).map(([ref, value]) => {
    const store = asRecord(value);
    const count = (key: string): number => Object.keys(asRecord(store[key])).length;
    return (
      `seed: store "${ref}" id ${String(store.id)}, embed key ${String(store.embed_key)}: ` +
      `${count('products')} products, ${count('categories')} categories, ${count('coupons')} coupons, ` +
      `${count('customers')} customers, ${count('licenses')} licenses`
    );
  });
}

/** The banner's line per client interface (only those `interfaces` names, in their order). */
export function interfaceRows(
  base: string,
  demo: Pick<DemoStore, 'embedKey' | 'merchantToken' | 'fivemSecret'>,
  interfaces: readonly ClientInterface[],
): Array<readonly [string, string]> {
  const rows: Record<ClientInterface, readonly [string, string]> = {
    embed: ['Embed API', `${base}/api/embed   (header X-Embed-Key: ${demo.embedKey ?? '-'})`],
    storefront: ['Storefront API', `${base}/api   (store found from the Host: localhost / 127.0.0.1)`],
    merchant: ['Merchant API', `${base}/shawarma   (Authorization: Bearer ${demo.merchantToken ?? '-'})`],
    license: ['License API', `${base}/verify`],
    fivem: ['FiveM API', `${base}/api/fivem   (header X-FiveM-Secret: ${demo.fivemSecret ?? '-'})`],
  };
  return interfaces.map((name) => rows[name]);
}

type Child = ChildProcessByStdio<null, Readable, Readable>;

interface StepResult {
  code: number | null;
  stdout: string;
}

class Launcher {
  private readonly children = new Map<string, Child>();
  private services?: Provisioned;
  private shuttingDown = false;
  private finish: (code: number) => void = () => undefined;
  private readonly finished = new Promise<number>((resolve) => {
    this.finish = resolve;
  });

  /** `startedAt`: when run.mjs began, so "ready in" includes installing the dependencies. */
  constructor(private readonly startedAt: number) {}

  async run(): Promise<number> {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (this.shuttingDown) return;
      say(`\n${signal}: stopping the platform`);
      void this.shutdown(0);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    this.setUp().catch((err: Error) => {
      if (err instanceof Cancelled || this.shuttingDown) return;
      say(`\nstart: ${err.message}`);
      void this.shutdown(1);
    });
    const code = await this.finished;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    return code;
  }

  private checkpoint(): void {
    if (this.shuttingDown) throw new Cancelled();
  }

  private async setUp(): Promise<void> {
    const procfile = readProcfile(path.join(root, 'Procfile'));
    const env: NodeJS.ProcessEnv = { ...process.env };
    let config: Config;
    try {
      config = loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) throw new Error(err.message, { cause: err });
      throw err;
    }
    if (!(await portIsFree(config.port))) {
      throw new Error(`port ${config.port} is already in use: stop what listens there or set PORT`);
    }

    let step = Date.now();
    if (buildIsCurrent(root)) {
      say('build: dist/ is up to date with the sources (nothing to compile)');
    } else {
      // Taken before compiling: a source edited while tsc runs makes the next start build again.
      const digest = sourcesDigest(root);
      const build = await this.step(
        'build',
        [process.execPath, 'node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
        env,
      );
      if (build.code !== 0) throw new Error('the TypeScript build failed (see above)');
      say(`build: dist/ compiled in ${seconds(step)}`);
      say(describeBuild(await buildWidget()));
      recordBuild(root, digest);
    }
    this.checkpoint();

    this.services = await provision({
      root,
      env,
      databaseVariables: ['DATABASE_URL'],
      database: 'commerce',
      log: say,
    });
    this.checkpoint();
    env.DATABASE_URL = this.services.databaseUrl;
    env.REDIS_URL = this.services.redisUrl;
    const generated = !(env.DASHBOARD_USER && env.DASHBOARD_PASSWORD);
    if (generated) {
      env.DASHBOARD_USER = 'admin';
      env.DASHBOARD_PASSWORD = crypto.randomBytes(18).toString('base64url'); // 24 characters: production takes 16 or more
    }

    step = Date.now();
    const release = await this.step('release', this.command(procfile, 'release'), env);
    if (release.code !== 0) throw new Error('the migrations failed (see above)');
    this.checkpoint();

    const seed = await this.step('seed', [process.execPath, 'dist/scripts/seed.js', DEMO_FIXTURE], env, true);
    if (seed.code !== 0) throw new Error(`seeding ${DEMO_FIXTURE} failed (see above)`);
    const manifest = asRecord(JSON.parse(seed.stdout));
    for (const line of manifestSummary(manifest)) say(line);
    say(`setup: migrated and seeded in ${seconds(step)}`);
    this.checkpoint();

    for (const name of APP_PROCESSES) this.startApp(name, this.command(procfile, name), env);
    // The banner lists what web mounts (the same route list), so it never names an interface that is a 404.
    await this.waitHealthy(config.port);
    const interfaces = mountedInterfaces(allRoutes(config));
    this.checkpoint();

    const demo = demoStore(path.join(root, DEMO_FIXTURE), manifest);
    say('');
    say(
      this.addressBox(
        config,
        demo,
        {
          user: env.DASHBOARD_USER ?? '',
          password: env.DASHBOARD_PASSWORD ?? '',
          generated,
        },
        interfaces,
      ),
    );
    say(`ready in ${seconds(this.startedAt)}. Ctrl-C stops everything.`);
  }

  private command(procfile: Map<string, string[]>, name: string): string[] {
    const argv = procfile.get(name);
    if (!argv) throw new Error(`the Procfile has no "${name}" entry`);
    return argv[0] === 'node' ? [process.execPath, ...argv.slice(1)] : argv;
  }

  private spawnChild(name: string, argv: string[], env: NodeJS.ProcessEnv, captureStdout: boolean): Child {
    const child = spawn(argv[0], argv.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const prefix = prefixFor(name);
    if (!captureStdout) eachLine(child.stdout, (line) => say(prefix + humanize(line)));
    eachLine(child.stderr, (line) => say(prefix + humanize(line)));
    this.children.set(name, child);
    child.once('exit', () => this.children.delete(name));
    return child;
  }

  /** A one-shot command (build, release, seed), its output prefixed; stdout kept when `captureStdout`. */
  private step(
    name: string,
    argv: string[],
    env: NodeJS.ProcessEnv,
    captureStdout = false,
  ): Promise<StepResult> {
    return new Promise((resolve, reject) => {
      const child = this.spawnChild(name, argv, env, captureStdout);
      let stdout = '';
      if (captureStdout) child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout }));
    });
  }

  private startApp(name: string, argv: string[], env: NodeJS.ProcessEnv): void {
    const child = this.spawnChild(name, argv, env, false);
    child.once('exit', (code, signal) => {
      if (this.shuttingDown) return;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      say('');
      say('!'.repeat(72));
      say(`!! ${name} ${how}: stopping the whole platform (see its lines above)`);
      say('!'.repeat(72));
      void this.shutdown(1);
    });
  }

  private async waitHealthy(port: number): Promise<void> {
    const deadline = Date.now() + HEALTH_TIMEOUT_MS;
    while (Date.now() < deadline) {
      this.checkpoint();
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(300);
    }
    throw new Error(`web did not answer /healthz on port ${port} within ${HEALTH_TIMEOUT_MS / 1000} s`);
  }

  private addressBox(
    config: Config,
    demo: DemoStore,
    dashboard: { user: string; password: string; generated: boolean },
    interfaces: readonly ClientInterface[],
  ): string {
    const base = config.publicBaseUrl;
    const rows: Array<readonly [string, string]> = [
      ...interfaceRows(base, demo, interfaces),
      ['', ''],
      ['API docs', `${base}/docs`],
      ['OpenAPI document', `${base}/openapi.json`],
      [
        'Queue dashboard',
        `${base}/admin/queues   (user ${dashboard.user}, password ${dashboard.generated ? dashboard.password : 'from DASHBOARD_PASSWORD'})`,
      ],
      ['Metrics', `${base}/metrics`],
    ];
    rows.push([
      'Merchant dashboard',
      `${base}/merchant${demo.ownerPhone && config.nodeEnv !== 'production' ? `   (demo owner's phone +${demo.ownerPhone}, code in the dev outbox)` : ''}`,
    ]);
    rows.push(['Store page', `${base}/s/${demo.slug}   (buy links: /s/${demo.slug}/p/{product slug})`]);
    rows.push([
      'Buyer account',
      `${base}/account${demo.customerPhone && config.nodeEnv !== 'production' ? "   (the demo buyer's phone, code in the dev outbox)" : ''}`,
    ]);
    rows.push(['Checkout widget', `${base}/widget/v1.js`]);
    if (config.nodeEnv !== 'production') rows.push(['Widget demo page', `${base}/demo/widget`]);
    if (config.nodeEnv !== 'production' && demo.customerPhone) {
      rows.push(['Dev outbox (OTPs)', `${base}/__dev/outbox?to=${demo.customerPhone}`]);
    }
    rows.push(['', ''], ['Demo embed key', demo.embedKey ?? '-']);
    if (demo.storefrontToken) rows.push(['Demo customer token', demo.storefrontToken]);
    if (dashboard.generated) {
      rows.push(
        ['', ''],
        ['', 'The dashboard password is new on every start; set DASHBOARD_USER/PASSWORD to keep one.'],
      );
    }
    return box(`Commerce platform: demo store "${demo.ref}"`, rows);
  }

  private async shutdown(code: number): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    const live = [...this.children.entries()];
    // The app processes go first: they need Postgres and Redis to finish or hand back their work.
    await Promise.all(
      live.map(async ([name, child]) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const inTime = await Promise.race([exited.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
        if (!inTime) {
          say(`${name} did not stop within ${STOP_GRACE_MS / 1000} s; killing it`);
          child.kill('SIGKILL');
          await exited;
        }
      }),
    );
    if (this.services) {
      try {
        await this.services.stop();
      } catch (err) {
        say(`stopping the databases failed: ${(err as Error).message}`);
      }
    }
    say(code === 0 ? 'stopped.' : 'stopped after a failure.');
    this.finish(code);
  }
}

export async function main(_args: string[], startedAt = Date.now()): Promise<number> {
  return new Launcher(startedAt).run();
}
