import type Router from '@koa/router';
import { analyticsEventsLimit, analyticsGuards } from '../../guards';
import type { Deps } from '../../../shared/deps';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/**
 * POST /api/storefront/analytics/collect and /collect/batch: no token, the store from Host or Origin (400
 * when neither names one), 120 events a minute per IP where each event of a batch counts. Answers 202
 * once the events are handed to the analytics queue.
 */
export function registerAnalyticsRoutes(router: Router, deps: Deps): void {
  router.post(
    '/storefront/analytics/collect',
    ...analyticsGuards(deps),
    analyticsEventsLimit(() => 1),
    validate({ body: schemas.eventSchema }),
    handlers.collect,
  );
  router.post(
    '/storefront/analytics/collect/batch',
    ...analyticsGuards(deps),
    handlers.keepFirstEvents(),
    analyticsEventsLimit(handlers.eventCount),
    validate({ body: schemas.batchBody }),
    handlers.collectBatch,
  );
}
