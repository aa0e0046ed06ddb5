import Joi from 'joi';
import { jsonResponse } from '../openapi/components';
import { defineRoute } from '../http/route';

/** Newest messages kept by the outbox driver, for local development and end-to-end tests. */
const OUTBOX_LIMIT = 100;

/** Development-only routes; api/routes.ts leaves them out when NODE_ENV=production (CONTRACT section 6). */
export const devRoutes = [
  defineRoute({
    method: 'get',
    path: '/__dev/outbox',
    interface: 'platform',
    operationId: 'getDevOutbox',
    summary: 'Messages sent by the outbox driver',
    description:
      'What the `outbox` messaging driver "sent" to one number, newest first (at most 100). An OTP body ' +
      'holds the code as its only run of exactly 4 digits. Absent in production.',
    request: {
      query: Joi.object<{ to: string }, true>({
        to: Joi.string()
          .pattern(/^\d{6,20}$/)
          .required()
          .messages({ 'string.pattern.base': 'to must be the country code and number, digits only' })
          .description('Country code and number, digits only.'),
      }),
    },
    responses: {
      200: jsonResponse(
        'The messages.',
        {
          type: 'object',
          required: ['messages'],
          properties: {
            messages: {
              type: 'array',
              items: {
                type: 'object',
                required: ['to', 'channel', 'body', 'created_at'],
                properties: {
                  to: { type: 'string' },
                  channel: { type: 'string', examples: ['whatsapp', 'sms'] },
                  body: { type: ['string', 'null'] },
                  created_at: { type: 'string', format: 'date-time' },
                },
              },
            },
          },
        },
        {
          messages: [
            {
              to: '966500000001',
              channel: 'whatsapp',
              body: 'Your code is 4821',
              created_at: '2026-01-01T12:00:00.000Z',
            },
          ],
        },
      ),
    },
    handler: async (ctx, { query }) => {
      const rows = await ctx.deps
        .knex('outbound_messages')
        .where({ to: query.to, driver: 'outbox' })
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
    },
  }),
];
