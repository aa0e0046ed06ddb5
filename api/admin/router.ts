import Router from '@koa/router';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Deps } from '../../shared/deps';
import { dashboardAuth } from './basic-auth';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * The queue dashboard (bull-board) for every queue of the platform, where operators inspect and retry
 * failed jobs. bull-board brings its own Koa sub-app mounted under DASHBOARD_PATH; this router puts basic
 * auth in front of all of it (UI, static files and its JSON API).
 */
export function adminRouter(deps: Deps): Router {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: Object.values(deps.queues).map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Commerce queues' } },
  });
  const router = new Router();
  router.all(
    `${DASHBOARD_PATH}{/*rest}`,
    dashboardAuth(deps.config, 'queues'),
    serverAdapter.registerPlugin(),
  );
  return router;
}
