import Joi from 'joi';
import type { RedisNodeAddress } from './redis';

/**
 * Process configuration, read once from the environment (docs/operations.md).
 * A bad value stops the process with a message naming the variable.
 */
export interface Config {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly port: number;
  readonly databaseUrl: string;
  /** DATABASE_READ_URL: replicas for reads that tolerate a bounded lag (shared/read-replicas.ts); empty: none. */
  readonly databaseReadUrls: readonly string[];
  /**
   * DATABASE_READ_MAX_LAG_SECONDS: a replica further behind is not read, and a store's lag-tolerant reads
   * go to the primary for this long after its write (read your writes).
   */
  readonly databaseReadMaxLagSeconds: number;
  /** ANALYTICS_RETENTION_DAYS: raw analytics events are kept this many days (daily rollups stay). */
  readonly analyticsRetentionDays: number;
  readonly redisUrl: string;
  /** REDIS_CLUSTER_NODES: seed nodes of a Redis Cluster; when set every Redis user connects through it. */
  readonly redisClusterNodes?: readonly RedisNodeAddress[];
  readonly publicBaseUrl: string;
  /** ZATCA_API_URL: ZATCA's e-invoicing API (docs/einvoicing.md); unset: phase-2 documents are kept, not reported. */
  readonly zatcaApiUrl?: string;
  /**
   * STORE_DOMAIN_SUFFIX: a domain whose subdomains are stores' addresses, `{slug}.<suffix>` (a wildcard DNS
   * record points them here); unset: none (docs/store-pages.md).
   */
  readonly storeDomainSuffix?: string;
  readonly trustProxy: boolean;
  readonly queuePrefix: string;
  readonly otpTtlSeconds: number;
  readonly otpResendCooldownSeconds: number;
  readonly checkoutTtlSeconds: number;
  /** OTP messages (first sends and resends) one store may cause per UTC day; 0 turns the budget off. */
  readonly otpStoreDailyMessages: number;
  /** Unpaid checkouts holding keys, stock or coupon uses at once per store and client IP / buyer phone (0: off). */
  readonly checkoutHoldsPerIp: number;
  readonly checkoutHoldsPerPhone: number;
  readonly rateLimitsEnabled: boolean;
  /** Scales every rate-limit window (tests use a small factor to avoid waiting minutes). */
  readonly rateLimitWindowScale: number;
  readonly messagingDriver: 'twilio' | 'outbox';
  readonly twilio: {
    readonly accountSid?: string;
    readonly authToken?: string;
    readonly whatsappFrom?: string;
    readonly smsFrom?: string;
    /** Overrides https://api.twilio.com (a local Twilio-shaped server in tests). */
    readonly apiBaseUrl?: string;
  };
  /**
   * E-mail to buyers (docs/email.md): EMAIL_DRIVER `smtp` sends through SMTP_URL, `outbox` records the
   * message for GET /__dev/outbox. `from` is EMAIL_FROM's address; the store's name is the display name.
   */
  readonly email: {
    readonly driver: 'smtp' | 'outbox';
    readonly smtpUrl?: string;
    readonly from: string;
    /** EMAIL_RETRY_DELAY_MS: first back-off after a 4xx or connection error, doubled per attempt. */
    readonly retryDelayMs: number;
  };
  readonly dashboardUser?: string;
  readonly dashboardPassword?: string;
  /**
   * Key for HMACs and at-rest encryption; required in production (loadConfig refuses a production start
   * without it). Elsewhere, when unset, one is generated once and kept in `.data/app-secret`
   * (shared/secrets.ts), never in the database.
   */
  readonly appSecret?: string;
  /** Earlier APP_SECRET values, still read (docs/security.md, "Rotating APP_SECRET"); empty when unset. */
  readonly appSecretPrevious: readonly string[];
  readonly logLevel: string;
  /**
   * The access log at high rates (api/middleware/access-log.ts): success lines beyond `fullPerSecond` a
   * second are written one in `sampleOneIn`; errors always.
   */
  readonly accessLog: { readonly fullPerSecond: number; readonly sampleOneIn: number };
  readonly workerQueues?: readonly string[];
  /**
   * Jobs one worker process runs at once: `all` from WORKER_CONCURRENCY, `byQueue` from
   * WORKER_CONCURRENCY_<QUEUE> (queue name upper-cased, `-` as `_`), keyed by queue name. Unset: each
   * queue's built-in concurrency (workers/processors). The worker checks the names (workers/worker-pool.ts).
   */
  readonly workerConcurrency: {
    readonly all?: number;
    readonly byQueue: Readonly<Record<string, number>>;
  };
  readonly uploadDir: string;
  /**
   * Where merchants' files (product downloads, product images, buyers' uploads) live
   * (shared/storage, docs/downloads.md): `local` under `dir`, or any S3-compatible store.
   */
  readonly storage: {
    readonly driver: 'local' | 's3';
    readonly dir: string;
    readonly s3?: {
      readonly endpoint?: string;
      readonly bucket: string;
      readonly region: string;
      readonly accessKeyId?: string;
      readonly secretAccessKey?: string;
    };
    /** Largest file a merchant may upload (MAX_UPLOAD_BYTES). */
    readonly maxUploadBytes: number;
    /** Bytes of product files one store may keep (STORE_STORAGE_BYTES). */
    readonly storeBytes: number;
  };
  readonly shutdownTimeoutMs: number;
  /** Payment providers (shared/providers): API bases (local provider-shaped servers in tests) and the client timeout. */
  readonly payments: {
    readonly moyasarApiUrl: string;
    readonly coinbaseApiUrl: string;
    /** Where the sandbox provider posts its webhooks; unset: the address the sandbox page was served on. */
    readonly sandboxWebhookUrl?: string;
    readonly providerTimeoutMs: number;
  };
  /**
   * With trustProxy: how many proxies in front of the app append to X-Forwarded-For. The client is the
   * address the outermost trusted proxy saw, this many entries from the right (Koa's maxIpsCount).
   */
  readonly trustProxyHops: number;
  /** Postgres connections each process may hold (DATABASE_POOL_MAX). */
  readonly databasePoolMax: number;
  /** Bearer token /metrics requires; unset: /metrics is open outside production and off in production. */
  readonly metricsToken?: string;
  /**
   * The sandbox payment provider: its pages, payment-page actions, webhook and methods. On outside
   * production, off in production unless SANDBOX_ENABLED=1.
   */
  readonly sandboxEnabled: boolean;
  /** Bounds on waiting for Postgres, Redis and clients (docs/outages.md). */
  readonly timeouts: {
    /** Web tier: one Redis command, one Postgres connect, pool acquire or query. */
    readonly dependencyMs: number;
    /** Worker, scheduler and scripts: one Postgres query (batches may legitimately take longer). */
    readonly workerQueryMs: number;
    /** A request older than this starts no new work (no job enqueued); it answers 503. */
    readonly requestDeadlineMs: number;
    /**
     * Web tier: how long a dependency's breaker fails calls at once after a timeout before one probe goes
     * through (0: no breaker).
     */
    readonly breakerOpenMs: number;
    /** Node's http server: time to receive the headers / the whole request, body included. */
    readonly httpHeadersMs: number;
    readonly httpRequestMs: number;
    /** Longest delay between retries of a job whose dependency is down (attempts are not spent). */
    readonly transientRetryMaxDelayMs: number;
    /** How long after it was added a job may wait out an outage; after that its failures spend attempts. */
    readonly transientDeferralLimitMs: number;
    /**
     * BullMQ job lock (renewed every half of it); the stalled-job check runs every two thirds of it, so a
     * killed worker's jobs are back in the wait list within 5/3 of it (25 s at the default 15 s).
     */
    readonly jobLockMs: number;
  };
  /** First retry delay of a merchant webhook delivery (doubling, 12 attempts: about a day at 42 s). */
  readonly merchantWebhookRetryDelayMs: number;
  /** First back-off of a refund's provider call (REFUND_RETRY_DELAY_MS), doubled per attempt. */
  readonly refundRetryDelayMs: number;
  /** Time a merchant's endpoint has to answer one delivery. */
  readonly merchantWebhookTimeoutMs: number;
  /** FiveM queue: how long a listed command is reserved for its server, and the longest `next_check`. */
  readonly fivem: {
    readonly leaseSeconds: number;
    readonly pollSeconds: number;
  };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid configuration: ${variable} ${detail}`);
    this.name = 'ConfigError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

const uri = (schemes: string[]) => Joi.string().uri({ scheme: schemes });
const positiveInt = Joi.number().integer().positive();

const schema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'production', 'test').default('development'),
  // 0 would make the OS pick a port that PUBLIC_BASE_URL (http://localhost:$PORT) cannot name.
  PORT: Joi.number().port().min(1).default(3000),
  DATABASE_URL: uri(['postgres', 'postgresql']).default('postgres://postgres@127.0.0.1:5432/commerce'),
  // A comma list; each entry is checked as a Postgres URL below, so the message names the variable.
  DATABASE_READ_URL: Joi.string(),
  DATABASE_READ_MAX_LAG_SECONDS: positiveInt.max(3600).default(5),
  ANALYTICS_RETENTION_DAYS: positiveInt.max(3650).default(90),
  REDIS_URL: uri(['redis', 'rediss']).default('redis://127.0.0.1:6379'),
  PUBLIC_BASE_URL: uri(['http', 'https']),
  ZATCA_API_URL: uri(['http', 'https']),
  STORE_DOMAIN_SUFFIX: Joi.string().lowercase().hostname().max(200).pattern(/\./).messages({
    'string.hostname': 'must be a domain name such as shops.example.com',
    'string.pattern.base': 'must be a domain name with at least one dot, such as shops.example.com',
  }),
  TRUST_PROXY: Joi.string().valid('0', '1', 'true', 'false').default('0'),
  QUEUE_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9_.:-]+$/)
    .max(64)
    .default('commerce'),
  OTP_TTL_SECONDS: positiveInt.default(300),
  OTP_RESEND_COOLDOWN_SECONDS: Joi.number().integer().min(0).default(30),
  CHECKOUT_TTL_SECONDS: positiveInt.default(3600),
  OTP_STORE_DAILY_MESSAGES: Joi.number().integer().min(0).default(1000),
  CHECKOUT_HOLDS_PER_IP: Joi.number().integer().min(0).default(30),
  CHECKOUT_HOLDS_PER_PHONE: Joi.number().integer().min(0).default(10),
  RATE_LIMITS: Joi.string().default('on'),
  RATE_LIMIT_WINDOW_SCALE: Joi.number().positive().max(1).default(1),
  MESSAGING_DRIVER: Joi.string().valid('twilio', 'outbox'),
  TWILIO_ACCOUNT_SID: Joi.string().pattern(/^AC[0-9a-fA-F]{32}$/),
  TWILIO_AUTH_TOKEN: Joi.string().min(8),
  TWILIO_WHATSAPP_FROM: Joi.string(),
  TWILIO_SMS_FROM: Joi.string(),
  TWILIO_API_BASE_URL: uri(['http', 'https']),
  EMAIL_DRIVER: Joi.string().valid('smtp', 'outbox'),
  SMTP_URL: uri(['smtp', 'smtps']),
  // A bare address: the display name is each store's own name (docs/email.md).
  EMAIL_FROM: Joi.string().email({ tlds: false }).default('no-reply@localhost'),
  EMAIL_RETRY_DELAY_MS: positiveInt.max(3_600_000).default(60_000),
  DASHBOARD_USER: Joi.string().allow(''),
  DASHBOARD_PASSWORD: Joi.string().allow(''),
  APP_SECRET: Joi.string().min(32),
  APP_SECRET_PREVIOUS: Joi.string(),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  ACCESS_LOG_FULL_PER_SECOND: Joi.number().integer().min(0).default(100),
  ACCESS_LOG_SAMPLE: positiveInt.max(1_000_000).default(100),
  WORKER_QUEUES: Joi.string().pattern(/^[a-z0-9_-]+(,[a-z0-9_-]+)*$/),
  WORKER_CONCURRENCY: positiveInt.max(1000),
  UPLOAD_DIR: Joi.string().default('.data/uploads'),
  STORAGE_DRIVER: Joi.string().valid('local', 's3').default('local'),
  STORAGE_DIR: Joi.string(),
  S3_ENDPOINT: uri(['http', 'https']),
  S3_BUCKET: Joi.string()
    .pattern(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/)
    .message('must be an S3 bucket name (3 to 63 lowercase letters, digits, dots and hyphens)'),
  S3_REGION: Joi.string()
    .pattern(/^[a-z0-9-]{2,32}$/)
    .default('us-east-1'),
  S3_ACCESS_KEY_ID: Joi.string(),
  S3_SECRET_ACCESS_KEY: Joi.string(),
  // 2 GiB by default; at most 5 TiB (the largest object S3 stores).
  MAX_UPLOAD_BYTES: positiveInt.max(5 * 1024 ** 4).default(2 * 1024 ** 3),
  STORE_STORAGE_BYTES: positiveInt.max(1024 ** 5).default(50 * 1024 ** 3),
  SHUTDOWN_TIMEOUT_MS: positiveInt.max(60000).default(8000),
  MOYASAR_API_URL: uri(['http', 'https']).default('https://api.moyasar.com'),
  COINBASE_API_URL: uri(['http', 'https']).default('https://api.commerce.coinbase.com'),
  SANDBOX_WEBHOOK_URL: uri(['http', 'https']),
  PAYMENT_PROVIDER_TIMEOUT_MS: positiveInt.max(120000).default(15000),
  TRUST_PROXY_HOPS: positiveInt.max(10).default(1),
  DATABASE_POOL_MAX: positiveInt.max(200).default(10),
  METRICS_TOKEN: Joi.string().min(16),
  SANDBOX_ENABLED: Joi.string().valid('0', '1', 'true', 'false'),
  DEPENDENCY_TIMEOUT_MS: positiveInt.max(60000).default(1500),
  WORKER_QUERY_TIMEOUT_MS: positiveInt.max(600000).default(30000),
  REQUEST_DEADLINE_MS: positiveInt.max(600000).default(10000),
  DEPENDENCY_BREAKER_OPEN_MS: Joi.number().integer().min(0).max(60000).default(2000),
  HTTP_HEADERS_TIMEOUT_MS: positiveInt.max(600000).default(10000),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.max(600000).default(30000),
  TRANSIENT_RETRY_MAX_DELAY_MS: positiveInt.max(3600000).default(30000),
  TRANSIENT_DEFERRAL_LIMIT_MS: Joi.number()
    .integer()
    .min(0)
    .max(7 * 86_400_000)
    .default(86_400_000),
  JOB_LOCK_DURATION_MS: positiveInt.min(1000).max(600000).default(15000),
  MERCHANT_WEBHOOK_RETRY_DELAY_MS: positiveInt.max(3_600_000).default(42_000),
  REFUND_RETRY_DELAY_MS: positiveInt.max(3_600_000).default(30_000),
  MERCHANT_WEBHOOK_TIMEOUT_MS: positiveInt.max(60_000).default(10_000),
  FIVEM_LEASE_SECONDS: positiveInt.max(3600).default(60),
  FIVEM_POLL_SECONDS: positiveInt.max(3600).default(30),
}).unknown(true);

/**
 * Why production refuses to start without APP_SECRET: a secret generated into .data/app-secret belongs to
 * one filesystem, and on dynos or containers every replica would make its own and could not read what
 * another sealed (the operator contract, docs/operations.md).
 */
export const APP_SECRET_MISSING =
  'is required in production (at least 32 characters; make one with `openssl rand -hex 32`) and must be ' +
  'the same for every process and replica: the secret generated into .data/app-secret is for development ' +
  'only, since each host or container would generate its own and could not read what another sealed.';

/** The queue dashboard's password in production: long enough that the login limit makes guessing hopeless. */
export const MIN_DASHBOARD_PASSWORD_LENGTH = 16;

/** APP_SECRET_PREVIOUS: a comma list of earlier secrets, each as long as APP_SECRET must be. */
function parseSecretList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const secrets = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (secrets.some((s) => s.length < 32))
    throw new ConfigError(
      'APP_SECRET_PREVIOUS',
      'must be a comma list of earlier APP_SECRET values, each at least 32 characters',
    );
  return secrets;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings are treated as unset, as a shell `FOO=` usually means "no value".
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env))
    if (value !== undefined && value !== '') cleaned[key] = value;

  const { error, value } = schema.validate(cleaned, { abortEarly: true, convert: true });
  if (error) {
    const detail = error.details[0];
    const variable = String(detail.path[0] ?? detail.context?.key ?? 'environment');
    throw new ConfigError(variable, detail.message.replace(/^"[^"]+"\s*/, ''));
  }
  const v = value as Record<string, string | number | undefined>;
  const port = Number(v.PORT);
  const hasTwilio = Boolean(v.TWILIO_ACCOUNT_SID && v.TWILIO_AUTH_TOKEN);
  const messagingDriver =
    (v.MESSAGING_DRIVER as Config['messagingDriver'] | undefined) ?? (hasTwilio ? 'twilio' : 'outbox');
  if (messagingDriver === 'twilio' && !hasTwilio) {
    throw new ConfigError(
      'MESSAGING_DRIVER',
      'is twilio but TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are not set',
    );
  }
  if (messagingDriver === 'twilio' && !v.TWILIO_SMS_FROM && !v.TWILIO_WHATSAPP_FROM) {
    throw new ConfigError(
      'TWILIO_SMS_FROM',
      'must be set (or TWILIO_WHATSAPP_FROM) when MESSAGING_DRIVER is twilio',
    );
  }
  const emailDriver =
    (v.EMAIL_DRIVER as Config['email']['driver'] | undefined) ?? (v.SMTP_URL ? 'smtp' : 'outbox');
  if (emailDriver === 'smtp' && !v.SMTP_URL) {
    throw new ConfigError(
      'SMTP_URL',
      'must be set (e.g. smtp://user:pass@host:587) when EMAIL_DRIVER is smtp',
    );
  }
  const databaseReadUrls = String(v.DATABASE_READ_URL ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const readUrl of databaseReadUrls) {
    const { error: bad } = uri(['postgres', 'postgresql']).validate(readUrl);
    if (bad) throw new ConfigError('DATABASE_READ_URL', 'must be a comma list of postgres:// URLs');
  }
  const redisClusterNodes = parseClusterNodes(cleaned.REDIS_CLUSTER_NODES);
  const workerConcurrency = parseWorkerConcurrency(cleaned, v.WORKER_CONCURRENCY);
  const appSecretPrevious = parseSecretList(v.APP_SECRET_PREVIOUS as string | undefined);
  if (appSecretPrevious.length > 0 && !v.APP_SECRET)
    throw new ConfigError(
      'APP_SECRET_PREVIOUS',
      'is set but APP_SECRET is not: set APP_SECRET to the new secret and keep the old ones here',
    );
  if (v.STORAGE_DRIVER === 's3' && !v.S3_BUCKET)
    throw new ConfigError('S3_BUCKET', 'must be set when STORAGE_DRIVER is s3');
  if (Boolean(v.S3_ACCESS_KEY_ID) !== Boolean(v.S3_SECRET_ACCESS_KEY))
    throw new ConfigError(
      v.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID',
      'must be set together with the other (or both left unset for the SDK default credentials)',
    );
  const publicBaseUrl = String(v.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  if (v.NODE_ENV === 'production') {
    if (!v.APP_SECRET) throw new ConfigError('APP_SECRET', APP_SECRET_MISSING);
    const password = v.DASHBOARD_PASSWORD as string | undefined;
    if (password && password.length < MIN_DASHBOARD_PASSWORD_LENGTH) {
      throw new ConfigError(
        'DASHBOARD_PASSWORD',
        `must be at least ${MIN_DASHBOARD_PASSWORD_LENGTH} characters in production (or unset: the dashboard then answers 401)`,
      );
    }
  }

  return Object.freeze({
    nodeEnv: v.NODE_ENV as Config['nodeEnv'],
    port,
    databaseUrl: String(v.DATABASE_URL),
    databaseReadUrls: Object.freeze(databaseReadUrls),
    databaseReadMaxLagSeconds: Number(v.DATABASE_READ_MAX_LAG_SECONDS),
    analyticsRetentionDays: Number(v.ANALYTICS_RETENTION_DAYS),
    redisUrl: String(v.REDIS_URL),
    redisClusterNodes,
    publicBaseUrl,
    zatcaApiUrl: (v.ZATCA_API_URL as string | undefined)?.replace(/\/+$/, ''),
    ...(v.STORE_DOMAIN_SUFFIX ? { storeDomainSuffix: String(v.STORE_DOMAIN_SUFFIX) } : {}),
    trustProxy: v.TRUST_PROXY === '1' || v.TRUST_PROXY === 'true',
    queuePrefix: String(v.QUEUE_PREFIX),
    otpTtlSeconds: Number(v.OTP_TTL_SECONDS),
    otpResendCooldownSeconds: Number(v.OTP_RESEND_COOLDOWN_SECONDS),
    checkoutTtlSeconds: Number(v.CHECKOUT_TTL_SECONDS),
    otpStoreDailyMessages: Number(v.OTP_STORE_DAILY_MESSAGES),
    checkoutHoldsPerIp: Number(v.CHECKOUT_HOLDS_PER_IP),
    checkoutHoldsPerPhone: Number(v.CHECKOUT_HOLDS_PER_PHONE),
    rateLimitsEnabled: String(v.RATE_LIMITS).toLowerCase() !== 'off',
    rateLimitWindowScale: Number(v.RATE_LIMIT_WINDOW_SCALE),
    messagingDriver,
    twilio: Object.freeze({
      accountSid: v.TWILIO_ACCOUNT_SID as string | undefined,
      authToken: v.TWILIO_AUTH_TOKEN as string | undefined,
      whatsappFrom: v.TWILIO_WHATSAPP_FROM as string | undefined,
      smsFrom: v.TWILIO_SMS_FROM as string | undefined,
      apiBaseUrl: v.TWILIO_API_BASE_URL as string | undefined,
    }),
    email: Object.freeze({
      driver: emailDriver,
      smtpUrl: v.SMTP_URL as string | undefined,
      from: String(v.EMAIL_FROM),
      retryDelayMs: Number(v.EMAIL_RETRY_DELAY_MS),
    }),
    dashboardUser: (v.DASHBOARD_USER as string | undefined) || undefined,
    dashboardPassword: (v.DASHBOARD_PASSWORD as string | undefined) || undefined,
    appSecret: v.APP_SECRET as string | undefined,
    appSecretPrevious: Object.freeze(appSecretPrevious.filter((old) => old !== v.APP_SECRET)),
    logLevel: String(v.LOG_LEVEL),
    accessLog: Object.freeze({
      fullPerSecond: Number(v.ACCESS_LOG_FULL_PER_SECOND),
      sampleOneIn: Number(v.ACCESS_LOG_SAMPLE),
    }),
    workerQueues: v.WORKER_QUEUES ? Object.freeze(String(v.WORKER_QUEUES).split(',')) : undefined,
    workerConcurrency,
    uploadDir: String(v.UPLOAD_DIR),
    storage: Object.freeze({
      driver: v.STORAGE_DRIVER as 'local' | 's3',
      // Earlier releases kept every stored file under UPLOAD_DIR: a deployment that set only that keeps
      // reading them there (docs/downloads.md).
      dir: String(v.STORAGE_DIR ?? cleaned.UPLOAD_DIR ?? '.data/files'),
      s3: v.S3_BUCKET
        ? Object.freeze({
            endpoint: v.S3_ENDPOINT as string | undefined,
            bucket: String(v.S3_BUCKET),
            region: String(v.S3_REGION),
            accessKeyId: v.S3_ACCESS_KEY_ID as string | undefined,
            secretAccessKey: v.S3_SECRET_ACCESS_KEY as string | undefined,
          })
        : undefined,
      maxUploadBytes: Number(v.MAX_UPLOAD_BYTES),
      storeBytes: Number(v.STORE_STORAGE_BYTES),
    }),
    shutdownTimeoutMs: Number(v.SHUTDOWN_TIMEOUT_MS),
    payments: Object.freeze({
      moyasarApiUrl: String(v.MOYASAR_API_URL).replace(/\/+$/, ''),
      coinbaseApiUrl: String(v.COINBASE_API_URL).replace(/\/+$/, ''),
      sandboxWebhookUrl: v.SANDBOX_WEBHOOK_URL as string | undefined,
      providerTimeoutMs: Number(v.PAYMENT_PROVIDER_TIMEOUT_MS),
    }),
    trustProxyHops: Number(v.TRUST_PROXY_HOPS),
    databasePoolMax: Number(v.DATABASE_POOL_MAX),
    metricsToken: v.METRICS_TOKEN as string | undefined,
    // Anyone can mark a sandbox payment paid: on outside production, off in production unless
    // SANDBOX_ENABLED=1 (the operator contract, docs/operations.md; announced at start when on).
    sandboxEnabled:
      v.SANDBOX_ENABLED === undefined
        ? v.NODE_ENV !== 'production'
        : v.SANDBOX_ENABLED === '1' || v.SANDBOX_ENABLED === 'true',
    timeouts: Object.freeze({
      dependencyMs: Number(v.DEPENDENCY_TIMEOUT_MS),
      workerQueryMs: Number(v.WORKER_QUERY_TIMEOUT_MS),
      requestDeadlineMs: Number(v.REQUEST_DEADLINE_MS),
      breakerOpenMs: Number(v.DEPENDENCY_BREAKER_OPEN_MS),
      httpHeadersMs: Number(v.HTTP_HEADERS_TIMEOUT_MS),
      // Node requires the request timeout to be at least the headers timeout.
      httpRequestMs: Math.max(Number(v.HTTP_REQUEST_TIMEOUT_MS), Number(v.HTTP_HEADERS_TIMEOUT_MS)),
      transientRetryMaxDelayMs: Number(v.TRANSIENT_RETRY_MAX_DELAY_MS),
      transientDeferralLimitMs: Number(v.TRANSIENT_DEFERRAL_LIMIT_MS),
      jobLockMs: Number(v.JOB_LOCK_DURATION_MS),
    }),
    merchantWebhookRetryDelayMs: Number(v.MERCHANT_WEBHOOK_RETRY_DELAY_MS),
    refundRetryDelayMs: Number(v.REFUND_RETRY_DELAY_MS),
    merchantWebhookTimeoutMs: Number(v.MERCHANT_WEBHOOK_TIMEOUT_MS),
    fivem: Object.freeze({
      leaseSeconds: Number(v.FIVEM_LEASE_SECONDS),
      pollSeconds: Number(v.FIVEM_POLL_SECONDS),
    }),
  });
}

/**
 * REDIS_CLUSTER_NODES: `host:port` pairs separated by commas (spaces allowed); a host may be a name, an
 * IPv4 address or a bracketed IPv6 address. Unset or empty: no cluster.
 */
export function parseClusterNodes(value: string | undefined): readonly RedisNodeAddress[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const nodes = value.split(',').map((part) => {
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(part.trim());
    const port = match ? Number(match[2]) : 0;
    if (!match || port < 1 || port > 65535) {
      throw new ConfigError(
        'REDIS_CLUSTER_NODES',
        `must be a comma list of host:port (e.g. 10.0.0.5:6379,10.0.0.6:6379); "${part.trim()}" is not`,
      );
    }
    return Object.freeze({ host: match[1]!.replace(/^\[|\]$/g, ''), port });
  });
  return Object.freeze(nodes);
}

const CONCURRENCY_PREFIX = 'WORKER_CONCURRENCY_';

/** WORKER_CONCURRENCY and every WORKER_CONCURRENCY_<QUEUE>: whole numbers from 1 to 1000. */
function parseWorkerConcurrency(
  env: Record<string, string>,
  all: string | number | undefined,
): Config['workerConcurrency'] {
  const byQueue: Record<string, number> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(CONCURRENCY_PREFIX)) continue;
    const count = Number(value);
    if (!/^\d+$/.test(value.trim()) || count < 1 || count > 1000) {
      throw new ConfigError(name, 'must be a whole number from 1 to 1000');
    }
    byQueue[name.slice(CONCURRENCY_PREFIX.length).toLowerCase().replace(/_/g, '-')] = count;
  }
  return Object.freeze({
    all: all === undefined ? undefined : Number(all),
    byQueue: Object.freeze(byQueue),
  });
}

/** Builds a config for tests and scripts: the environment's values overridden by `overrides`. */
export function configWith(overrides: NodeJS.ProcessEnv, base: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig({ ...base, ...overrides });
}

/**
 * What a production start must say out loud: settings that open something up. The web
 * process logs each as a warning right after its ready line.
 */
export function startupWarnings(config: Config): string[] {
  if (config.nodeEnv !== 'production') return [];
  const warnings: string[] = [];
  if (config.sandboxEnabled) {
    warnings.push(
      'SANDBOX_ENABLED=1: the sandbox payment provider is on (/sandbox, the sandbox Pay page, its webhook): ' +
        'anyone can mark paid the payments of methods a store configured with provider "sandbox". Unset it ' +
        '(or set 0) to turn it off.',
    );
  }
  if (!config.metricsToken) warnings.push('METRICS_TOKEN is not set: /metrics is not served.');
  return warnings;
}
