import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../shared/config';

/** loadConfig on exactly `env`: nothing of the machine's environment leaks in. */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('configuration (docs/operations.md)', () => {
  it('has the contract’s defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).to.include({
      nodeEnv: 'development',
      port: 3000,
      publicBaseUrl: 'http://localhost:3000',
      trustProxy: false,
      queuePrefix: 'commerce',
      otpTtlSeconds: 300,
      otpResendCooldownSeconds: 30,
      checkoutTtlSeconds: 3600,
      rateLimitsEnabled: true,
      messagingDriver: 'outbox',
      dashboardUser: undefined,
      dashboardPassword: undefined,
    });
    expect(Object.isFrozen(config)).to.equal(true);
    expect(config.storage).to.deep.equal({
      driver: 'local',
      dir: '.data/files',
      s3: undefined,
      maxUploadBytes: 2 * 1024 ** 3,
      storeBytes: 50 * 1024 ** 3,
    });
  });

  it('keeps files under UPLOAD_DIR when only that is set, as earlier releases did', () => {
    expect(loadConfig({ UPLOAD_DIR: '/srv/uploads' }).storage.dir).to.equal('/srv/uploads');
    expect(loadConfig({ UPLOAD_DIR: '/srv/uploads', STORAGE_DIR: '/srv/files' }).storage.dir).to.equal(
      '/srv/files',
    );
  });

  it('reads the s3 storage settings (docs/downloads.md)', () => {
    const config = loadConfig({
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: 'https://acct.r2.cloudflarestorage.com',
      S3_BUCKET: 'shop-files',
      S3_REGION: 'auto',
      S3_ACCESS_KEY_ID: 'key-id',
      S3_SECRET_ACCESS_KEY: 'key-secret',
    });
    expect(config.storage.driver).to.equal('s3');
    expect(config.storage.s3).to.deep.equal({
      endpoint: 'https://acct.r2.cloudflarestorage.com',
      bucket: 'shop-files',
      region: 'auto',
      accessKeyId: 'key-id',
      secretAccessKey: 'key-secret',
    });
  });

  it('derives PUBLIC_BASE_URL from PORT, and keeps a given one without its trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).publicBaseUrl).to.equal('http://localhost:8080');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://shop.example.test/' }).publicBaseUrl).to.equal(
      'https://shop.example.test',
    );
  });

  it('reads the switches as the contract words them', () => {
    expect(loadConfig({ RATE_LIMITS: 'off' }).rateLimitsEnabled).to.equal(false);
    expect(loadConfig({ RATE_LIMITS: 'OFF' }).rateLimitsEnabled).to.equal(false);
    expect(loadConfig({ RATE_LIMITS: 'yes' }).rateLimitsEnabled).to.equal(true);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).to.equal(true);
    expect(loadConfig({ NODE_ENV: 'production', APP_SECRET: 'x'.repeat(32) }).nodeEnv).to.equal('production');
    expect(loadConfig({ QUEUE_PREFIX: 'shop-2' }).queuePrefix).to.equal('shop-2');
  });

  it('reads DATABASE_READ_URL as a comma list of replicas, none when unset', () => {
    expect(loadConfig({}).databaseReadUrls).to.deep.equal([]);
    expect(
      loadConfig({ DATABASE_READ_URL: 'postgres://r1:5432/shop, postgresql://r2:5432/shop' })
        .databaseReadUrls,
    ).to.deep.equal(['postgres://r1:5432/shop', 'postgresql://r2:5432/shop']);
    expect(loadConfig({})).to.include({ databaseReadMaxLagSeconds: 5, analyticsRetentionDays: 90 });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', DASHBOARD_USER: '', OTP_TTL_SECONDS: '' })).to.include({
      port: 3000,
      dashboardUser: undefined,
      otpTtlSeconds: 300,
    });
  });

  it('picks twilio when Twilio credentials are set, and outbox without them', () => {
    const twilio = {
      TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
      TWILIO_AUTH_TOKEN: 'auth-token-0001',
      TWILIO_SMS_FROM: '+15005550006',
    };
    expect(loadConfig(twilio).messagingDriver).to.equal('twilio');
    expect(loadConfig({ ...twilio, MESSAGING_DRIVER: 'outbox' }).messagingDriver).to.equal('outbox');
    expect(loadConfig({ TWILIO_SMS_FROM: '+15005550006' }).messagingDriver).to.equal('outbox');
  });

  describe('refuses a bad value, naming the variable', () => {
    const cases: Array<[string, NodeJS.ProcessEnv]> = [
      ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://root@127.0.0.1/commerce' }],
      ['REDIS_URL', { REDIS_URL: 'http://127.0.0.1:6379' }],
      ['PORT', { PORT: 'eighty' }],
      ['PORT', { PORT: '70000' }],
      ['PORT', { PORT: '0' }],
      ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'shop.example.test' }],
      ['NODE_ENV', { NODE_ENV: 'prod' }],
      ['TRUST_PROXY', { TRUST_PROXY: 'maybe' }],
      ['QUEUE_PREFIX', { QUEUE_PREFIX: 'has space' }],
      ['OTP_TTL_SECONDS', { OTP_TTL_SECONDS: '-1' }],
      ['OTP_TTL_SECONDS', { OTP_TTL_SECONDS: '0' }],
      ['OTP_RESEND_COOLDOWN_SECONDS', { OTP_RESEND_COOLDOWN_SECONDS: '-5' }],
      ['CHECKOUT_TTL_SECONDS', { CHECKOUT_TTL_SECONDS: '1.5' }],
      ['MESSAGING_DRIVER', { MESSAGING_DRIVER: 'pigeon' }],
      ['MESSAGING_DRIVER', { MESSAGING_DRIVER: 'twilio' }],
      ['TWILIO_ACCOUNT_SID', { TWILIO_ACCOUNT_SID: 'not-a-sid' }],
      [
        'TWILIO_SMS_FROM',
        {
          MESSAGING_DRIVER: 'twilio',
          TWILIO_ACCOUNT_SID: `AC${'1'.repeat(32)}`,
          TWILIO_AUTH_TOKEN: 'token-0001',
        },
      ],
      ['APP_SECRET', { APP_SECRET: 'short' }],
      ['APP_SECRET', { NODE_ENV: 'production' }],
      [
        'DASHBOARD_PASSWORD',
        { NODE_ENV: 'production', APP_SECRET: 'x'.repeat(32), DASHBOARD_PASSWORD: 'x'.repeat(15) },
      ],
      ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
      ['WORKER_QUEUES', { WORKER_QUEUES: 'otp,,payments' }],
      ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: '-100' }],
      ['RATE_LIMIT_WINDOW_SCALE', { RATE_LIMIT_WINDOW_SCALE: '2' }],
      ['MOYASAR_API_URL', { MOYASAR_API_URL: 'ftp://api.example.test' }],
      ['SANDBOX_WEBHOOK_URL', { SANDBOX_WEBHOOK_URL: 'not a url' }],
      ['PAYMENT_PROVIDER_TIMEOUT_MS', { PAYMENT_PROVIDER_TIMEOUT_MS: '-1' }],
      ['DATABASE_READ_URL', { DATABASE_READ_URL: 'postgres://replica-1/db,redis://replica-2' }],
      ['DATABASE_READ_MAX_LAG_SECONDS', { DATABASE_READ_MAX_LAG_SECONDS: '0' }],
      ['ANALYTICS_RETENTION_DAYS', { ANALYTICS_RETENTION_DAYS: '-1' }],
      ['REDIS_CLUSTER_NODES', { REDIS_CLUSTER_NODES: '10.0.0.5' }],
      ['REDIS_CLUSTER_NODES', { REDIS_CLUSTER_NODES: '10.0.0.5:6379,,10.0.0.6:6379' }],
      ['REDIS_CLUSTER_NODES', { REDIS_CLUSTER_NODES: 'redis://10.0.0.5:6379' }],
      ['REDIS_CLUSTER_NODES', { REDIS_CLUSTER_NODES: '10.0.0.5:70000' }],
      ['WORKER_CONCURRENCY', { WORKER_CONCURRENCY: '0' }],
      ['WORKER_CONCURRENCY', { WORKER_CONCURRENCY: 'many' }],
      ['WORKER_CONCURRENCY_PAYMENTS', { WORKER_CONCURRENCY_PAYMENTS: '-2' }],
      ['WORKER_CONCURRENCY_OTP', { WORKER_CONCURRENCY_OTP: '1.5' }],
      ['STORAGE_DRIVER', { STORAGE_DRIVER: 'ftp' }],
      ['S3_BUCKET', { STORAGE_DRIVER: 's3' }],
      ['S3_BUCKET', { STORAGE_DRIVER: 's3', S3_BUCKET: 'Not_A_Bucket' }],
      ['S3_ENDPOINT', { STORAGE_DRIVER: 's3', S3_BUCKET: 'files', S3_ENDPOINT: 'minio:9000' }],
      ['S3_SECRET_ACCESS_KEY', { STORAGE_DRIVER: 's3', S3_BUCKET: 'files', S3_ACCESS_KEY_ID: 'AKIA0001' }],
      ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '-1' }],
      ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '2GB' }],
      ['STORE_STORAGE_BYTES', { STORE_STORAGE_BYTES: '0' }],
    ];
    for (const [variable, env] of cases) {
      it(`${variable} (${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')})`, () => {
        const err = configError(env);
        expect(err.variable).to.equal(variable);
        expect(err.message).to.match(new RegExp(`^Invalid configuration: ${variable} `));
      });
    }
  });

  it('reads REDIS_CLUSTER_NODES as the seed nodes of a cluster, and no cluster when it is unset', () => {
    expect(loadConfig({}).redisClusterNodes).to.equal(undefined);
    expect(
      loadConfig({ REDIS_CLUSTER_NODES: 'redis-a.internal:6379, 10.0.0.6:7000,[::1]:7001' })
        .redisClusterNodes,
    ).to.deep.equal([
      { host: 'redis-a.internal', port: 6379 },
      { host: '10.0.0.6', port: 7000 },
      { host: '::1', port: 7001 },
    ]);
  });

  it('reads WORKER_CONCURRENCY and WORKER_CONCURRENCY_<QUEUE> by queue name', () => {
    expect(loadConfig({}).workerConcurrency).to.deep.equal({ all: undefined, byQueue: {} });
    expect(
      loadConfig({
        WORKER_CONCURRENCY: '4',
        WORKER_CONCURRENCY_PAYMENTS: '20',
        WORKER_CONCURRENCY_MERCHANT_WEBHOOKS: '3',
      }).workerConcurrency,
    ).to.deep.equal({ all: 4, byQueue: { payments: 20, 'merchant-webhooks': 3 } });
  });

  it('takes a dashboard password of any length outside production, and of 16 or more in production', () => {
    expect(loadConfig({ DASHBOARD_PASSWORD: 'short' }).dashboardPassword).to.equal('short');
    const production = { NODE_ENV: 'production', APP_SECRET: 'x'.repeat(32) };
    expect(
      loadConfig({ ...production, DASHBOARD_PASSWORD: 'p'.repeat(16) }).dashboardPassword,
    ).to.have.length(16);
    expect(loadConfig(production).dashboardPassword, 'unset: the dashboard answers 401').to.equal(undefined);
    const err = configError({ ...production, DASHBOARD_PASSWORD: 'fifteen-chars-1' });
    expect(err.message).to.not.contain('fifteen-chars-1');
  });

  it('does not echo a refused secret in its message', () => {
    const err = configError({ DATABASE_URL: 'postgres//admin:hunter2-secret@db' });
    expect(err.message).to.not.contain('hunter2-secret');
  });
});
