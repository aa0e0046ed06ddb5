import Router from '@koa/router';
import Joi from 'joi';
import type { Deps } from '../../shared/deps';
import { input, type AppContext } from '../context';
import { validate } from '../middleware/validate';

const outboxQuery = Joi.object<{ to: string }>({
  to: Joi.string()
    .pattern(/^\d{6,20}$/)
    .required()
    .messages({ 'string.pattern.base': 'to must be the country code and number, digits only' }),
});

/** Newest messages kept by the outbox driver, for local development and end-to-end tests. */
const OUTBOX_LIMIT = 100;

/** CONTRACT section 6: what the outbox driver "sent" to one number, newest first. */
async function outbox(ctx: AppContext): Promise<void> {
  const { to } = input<unknown, { to: string }>(ctx).query;
  const rows = await ctx.deps
    .knex('outbound_messages')
    .where({ to, driver: 'outbox' })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(OUTBOX_LIMIT)
    .select<{ to: string; channel: string; body: string | null; created_at: Date }[]>(
      'to',
      'channel',
      'body',
      'created_at',
    );
  ctx.body = {
    messages: rows.map((r) => ({
      to: r.to,
      channel: r.channel,
      body: r.body,
      created_at: r.created_at.toISOString(),
    })),
  };
}

/** Development-only routes; routes.ts leaves this router out when NODE_ENV=production. */
export function devRouter(_deps: Deps): Router {
  const router = new Router();
  router.get('/__dev/outbox', validate({ query: outboxQuery }), outbox);
  return router;
}
