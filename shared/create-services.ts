import type { Deps } from './deps';
import { unitOfWork } from './unit-of-work';
import { DailySalt } from './services/analytics';
import { AnalyticsBatcher } from './services/analytics/batcher';
import { SigningKeyStore } from './services/licenses/signing';
import { createOtpService } from './services/otp/factory';
import type { OtpService } from './services/otp';
import { createRateLimiter, type RateLimiter } from './services/rate-limiter';

/**
 * The services of one process that keep state between calls (counters' clients, key pairs read once,
 * salts), built once here, next to the connections they use (createDeps), and handed out as
 * `deps.services`. Nothing in shared/services builds them lazily or keeps them in module-level maps
 * (test/unit/wiring.test.ts). Stateless services take the deps object itself.
 */
export interface Services {
  readonly rateLimiter: RateLimiter;
  readonly otp: OtpService;
  /** The Ed25519 key pair that signs License API answers, read (or made) once. */
  readonly licenseSigning: SigningKeyStore;
  /** The day's visitor-hash salt of the analytics collector. */
  readonly analyticsSalt: DailySalt;
  /** The analytics collector's per-process micro-batch (one queue add for the requests of a few ms). */
  readonly analyticsBatcher: AnalyticsBatcher;
}

/** What the services are built from: every connection of the process. */
export type ServiceParts = Omit<Deps, 'services' | 'tx' | 'close'>;

export function createServices(parts: ServiceParts): Services {
  const rateLimiter = createRateLimiter(parts);
  return {
    rateLimiter,
    otp: createOtpService(parts, rateLimiter),
    licenseSigning: new SigningKeyStore(parts),
    analyticsSalt: new DailySalt(parts.redis, parts.config.queuePrefix),
    analyticsBatcher: new AnalyticsBatcher(parts),
  };
}

/**
 * The same wiring with some connections replaced (a test pointing Redis at a dead port): the services are
 * built again over the new parts, so none keeps the connection it replaced.
 */
export function rewire(deps: Deps, patch: Partial<ServiceParts>): Deps {
  const parts = { ...deps, ...patch };
  const next: Deps = { ...parts, services: createServices(parts), tx: (work) => unitOfWork(next, work) };
  return next;
}
