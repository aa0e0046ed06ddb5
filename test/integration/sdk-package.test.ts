import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Customer, Order, Product, Store } from '../../db/models';
import { signatureHeader } from '../../shared/services/webhooks/deliver';
import { processors } from '../../workers/processors';
import { WorkerPool } from '../../workers/worker-pool';
import { createProduct, createStore } from '../helpers/builders';
import { hostedMethod, paymentsSuite, PaymentsSuite } from './payments/support';

const ROOT = path.resolve(__dirname, '../..');
const SDK = path.join(ROOT, 'integrations', 'sdk');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment without the `npm_*` variables an outer `npm test` sets (npm_config_prefix and the like),
 * so the scratch project's npm works on the scratch project and never on the repository's node_modules.
 */
function withoutNpmSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^npm_/i.test(name)));
}

/** Runs a command without blocking the event loop: the platform under test answers from this process. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: { ...withoutNpmSettings(process.env), ...env }, maxBuffer: 10_000_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) || 1 : 0, stdout, stderr }),
    );
  });
}

async function ok(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  const ran = await run(command, args, cwd, env);
  expect(ran.code, `${command} ${args.join(' ')}\n${ran.stdout}\n${ran.stderr}`).to.equal(0);
  return ran.stdout;
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * The SDK as a package (integrations/sdk/package.json, docs/sdk.md): `npm pack` builds it (prepack) into a
 * tarball, which a scratch project installs with no network and compiles a purchase against, once under
 * `moduleResolution: nodenext` and once under `bundler`; each build then buys for real from the platform
 * on a loopback port: OTP sign-in with the code from the development outbox, a guest checkout, the sandbox
 * payment, and the payment status until paid; and reads a signed webhook delivery as a typed event.
 */
describe('SDK package (npm pack, installed in a scratch project)', function () {
  this.timeout(90_000);

  let suite: PaymentsSuite;
  let otpWorkers: WorkerPool;
  let store: Store;
  let product: Product;
  let scratch: string;

  before(async () => {
    suite = await paymentsSuite({ RATE_LIMITS: 'off' });
    // The sign-in code goes out through the OTP queue and the outbox driver, as in development.
    otpWorkers = await WorkerPool.start(suite.deps, { registry: processors, queues: ['otp'] });
    store = await createStore({ name: 'SDK Package Store' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    product = await createProduct(store, { name: 'Packed course', price_minor: 4_250 });
    // Inside the repository, so the scratch project finds TypeScript and @types/node in the root
    // node_modules as a customer's project finds its own; it installs nothing from a registry.
    scratch = fs.mkdtempSync(path.join(ROOT, '.sdk-scratch-'));
    // A project of its own from the start, so no npm command run in it reaches the repository's.
    fs.writeFileSync(
      path.join(scratch, 'package.json'),
      JSON.stringify({ name: 'sdk-scratch', private: true, type: 'module' }),
    );
  });
  after(async () => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    await otpWorkers?.close(1_000);
    await suite?.close();
  });

  it('installs from its tarball, buys and reads a typed webhook under nodenext and bundler resolution', async () => {
    // The SDK's tarball (prepack builds dist/), and its one runtime dependency packed from the root
    // node_modules (the version the root lock file pins), so `npm install --offline` needs no cache.
    await ok(npm, ['pack', '--pack-destination', scratch, '--no-fund'], SDK);
    await ok(
      npm,
      [
        'pack',
        path.join(ROOT, 'node_modules', 'openapi-fetch'),
        path.join(ROOT, 'node_modules', 'openapi-typescript-helpers'),
        '--ignore-scripts',
        '--pack-destination',
        scratch,
      ],
      scratch,
    );
    const manifest = (
      dir: string,
    ): { name: string; version: string; dependencies?: Record<string, string> } =>
      JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const sdkPackage = manifest(SDK);
    const fetchVersion = manifest(path.join(ROOT, 'node_modules', 'openapi-fetch')).version;
    const helpersVersion = manifest(path.join(ROOT, 'node_modules', 'openapi-typescript-helpers')).version;
    expect(
      sdkPackage.dependencies,
      'integrations/sdk/package.json depends on the openapi-fetch the root lock file installs',
    ).to.deep.equal({ 'openapi-fetch': fetchVersion });
    const tarball = `${sdkPackage.name.replace('@', '').replace('/', '-')}-${sdkPackage.version}.tgz`;
    const tarballs = fs.readdirSync(scratch).filter((f) => f.endsWith('.tgz'));
    expect(tarballs).to.have.members([
      tarball,
      `openapi-fetch-${fetchVersion}.tgz`,
      `openapi-typescript-helpers-${helpersVersion}.tgz`,
    ]);

    await ok(
      npm,
      [
        'install',
        ...tarballs.map((t) => `./${t}`),
        '--prefix',
        scratch,
        '--offline',
        '--no-audit',
        '--no-fund',
      ],
      scratch,
    );
    const installed = path.join(scratch, 'node_modules', '@matjar', 'sdk');
    expect(fs.readdirSync(installed).sort()).to.deep.equal(['README.md', 'dist', 'package.json']);
    expect(fs.readdirSync(path.join(installed, 'dist')).sort()).to.deep.equal([
      'index.d.ts',
      'index.js',
      'openapi.d.ts',
      'openapi.js',
    ]);

    for (const example of ['purchase.ts', 'webhook-receiver.ts']) {
      fs.copyFileSync(path.join(SDK, 'examples', example), path.join(scratch, example));
    }
    // A delivery as the platform signs it, and the same body altered.
    const secret = 'whsec_scratch';
    const delivery = JSON.stringify({
      id: 'order.paid:1001',
      type: 'order.paid',
      created_at: new Date().toISOString(),
      store_id: store.id,
      data: { order_id: 1001, status: 3, total: '42.50', currency: 'SAR', source: 'embed' },
    });
    const signature = signatureHeader(secret, Math.floor(Date.now() / 1000), delivery);
    const builds = [
      // nodenext also checks the package's .d.ts files under a customer's strictest settings.
      { resolution: 'nodenext', module: 'nodenext', skipLibCheck: false, phone: '500000811' },
      { resolution: 'bundler', module: 'preserve', skipLibCheck: true, phone: '500000812' },
    ];
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    for (const build of builds) {
      const config = `tsconfig.${build.resolution}.json`;
      fs.writeFileSync(
        path.join(scratch, config),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: build.module,
            moduleResolution: build.resolution,
            lib: ['ES2022', 'DOM'],
            types: ['node'],
            strict: true,
            noUncheckedIndexedAccess: true,
            exactOptionalPropertyTypes: true,
            skipLibCheck: build.skipLibCheck,
            outDir: `out-${build.resolution}`,
          },
          files: ['purchase.ts', 'webhook-receiver.ts'],
        }),
      );
      await ok(process.execPath, [tsc, '-p', config], scratch);

      const receiver = `out-${build.resolution}/webhook-receiver.js`;
      const understood = await ok(process.execPath, [receiver], scratch, {
        WEBHOOK_SECRET: secret,
        WEBHOOK_BODY: delivery,
        WEBHOOK_SIGNATURE: signature,
      });
      expect(understood, build.resolution).to.equal('order 1001 paid 42.50 SAR\n');
      const altered = await ok(process.execPath, [receiver], scratch, {
        WEBHOOK_SECRET: secret,
        WEBHOOK_BODY: delivery.replace('42.50', '0.01'),
        WEBHOOK_SIGNATURE: signature,
      });
      expect(altered, build.resolution).to.equal('refused\n');

      const stdout = await ok(process.execPath, [`out-${build.resolution}/purchase.js`], scratch, {
        MATJAR_BASE_URL: suite.server.url,
        MATJAR_EMBED_KEY: store.embed_key,
        MATJAR_PRODUCT_ID: String(product.id),
        BUYER_PHONE: build.phone,
      });
      const bought = JSON.parse(stdout) as {
        customer_id: number;
        checkout_id: number;
        amount: string;
        order_id: number;
      };
      expect(bought.amount, build.resolution).to.equal('42.50');
      const order = await Order.query().findById(bought.order_id);
      expect(order, `${build.resolution}: the order`).to.include({
        store_id: store.id,
        checkout_id: bought.checkout_id,
        total_minor: 4_250,
        customer_phone: build.phone,
      });
      const customer = await Customer.query().findById(bought.customer_id);
      expect(customer, `${build.resolution}: the signed-in customer`).to.include({
        store_id: store.id,
        phone: build.phone,
      });
    }
  });
});
