import Joi from 'joi';
import { jsonResponse } from '../openapi/components';
import { defineRoute } from '../http/route';
import { renewSubscription } from '../../shared/services/subscriptions/renew';
import { SandboxGateway } from '../../shared/providers/sandbox';
import { NotFoundError } from '../../shared/errors';
import { outboxMessages } from '../../shared/messaging/outbox';
import { sandboxCardOf } from '../../shared/services/subscriptions/sandbox-card';
import { outboxEmails } from '../../shared/services/emails';
import { maintenanceContext, maintenanceRunner } from '../../shared/services/maintenance';

/** Newest messages kept by the outbox driver, for local development and end-to-end tests. */
const OUTBOX_LIMIT = 100;

/** Development-only routes; api/routes.ts leaves them out when NODE_ENV=production (docs/operations.md). */
export const devRoutes = [
  defineRoute({
    method: 'post',
    path: '/__dev/subscriptions/{id}/renew',
    interface: 'platform',
    operationId: 'devRenewSubscription',
    summary: "Run a subscription's renewal now",
    description:
      'Runs the renewal the scheduler would run when the period ends, now: charges the saved card (or ' +
      'sends the renewal link) and answers once the renewal is decided. A subscription in dunning is ' +
      'tried again at once. `outcome`: `renewed` (order_id: the renewal order), `link_sent`, `failed`, ' +
      'or `not_due` (cancelled, expired, lifetime). Running it again for a period already renewed moves ' +
      'to the next period. Absent in production.',
    request: {
      params: Joi.object<{ id: number }, true>({
        id: Joi.number().integer().min(1).max(2_147_483_647).required().description('The subscription id.'),
      }),
    },
    responses: {
      200: jsonResponse(
        'How the renewal was decided.',
        {
          type: 'object',
          required: ['outcome', 'order_id'],
          properties: {
            outcome: { type: 'string', enum: ['renewed', 'link_sent', 'failed', 'not_due'] },
            order_id: { type: ['integer', 'null'] },
          },
        },
        { outcome: 'renewed', order_id: 42 },
      ),
      404: 'PlatformError',
    },
    handler: async (ctx, { params }) => {
      ctx.body = await renewSubscription(ctx.deps, params.id, { force: true });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/__dev/subscriptions/{id}/sandbox-card',
    interface: 'platform',
    operationId: 'devDeclineSandboxCard',
    summary: 'Make a subscription’s saved sandbox card decline',
    description:
      'Body `{"decline_next": N}`: the next N charges of the subscription’s saved sandbox card are ' +
      'declined (0 restores it), as a card without funds would; for trying renewals and dunning. 404 when ' +
      'the subscription has no saved sandbox card. Absent in production.',
    request: {
      params: Joi.object<{ id: number }, true>({
        id: Joi.number().integer().min(1).max(2_147_483_647).required().description('The subscription id.'),
      }),
      body: Joi.object<{ decline_next: number }, true>({
        decline_next: Joi.number().integer().min(0).max(1000).required(),
      }),
      example: { decline_next: 4 },
    },
    responses: {
      200: jsonResponse(
        'The card’s setting.',
        {
          type: 'object',
          required: ['decline_next'],
          properties: { decline_next: { type: 'integer' } },
        },
        { decline_next: 4 },
      ),
      404: 'PlatformError',
    },
    handler: async (ctx, { params, body }) => {
      const card = await sandboxCardOf(ctx.deps.knex, params.id);
      if (!card) throw new NotFoundError('This subscription has no saved sandbox card');
      const gateway = new SandboxGateway(ctx.deps.knex, ctx.deps.appSecret, ctx.deps.logger);
      await gateway.declineNextCharges(ctx.deps.cipher.decrypt(card), body.decline_next);
      ctx.body = { decline_next: body.decline_next };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/__dev/tasks/{name}',
    interface: 'platform',
    operationId: 'devRunMaintenanceTask',
    summary: 'Run a maintenance task now',
    description:
      'Runs the scheduler’s maintenance task `name` (any task of the schedule, e.g. `verify-domains`, ' +
      '`expire-checkouts`) once, now, in this process with its wiring (a test’s DNS resolver included), ' +
      'and answers `{"ran": name}` once it has finished. An unknown name is a 404. Absent in production.',
    request: {
      params: Joi.object<{ name: string }, true>({
        name: Joi.string().max(100).required().description('The task, as the schedule names it.'),
      }),
    },
    responses: {
      200: jsonResponse(
        'The task has finished.',
        { type: 'object', required: ['ran'], properties: { ran: { type: 'string' } } },
        { ran: 'verify-domains' },
      ),
      404: 'PlatformError',
    },
    handler: async (ctx, { params }) => {
      const run = maintenanceRunner(params.name);
      if (!run) throw new NotFoundError(`No maintenance task is named "${params.name}"`);
      const result = await run(ctx.deps.knex, undefined, maintenanceContext(ctx.deps));
      ctx.deps.logger.info({ task: params.name, ...result }, `maintenance ${params.name} done (dev route)`);
      ctx.body = { ran: params.name };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/__dev/outbox',
    interface: 'platform',
    operationId: 'getDevOutbox',
    summary: 'Messages sent by the outbox driver',
    description:
      'What the `outbox` messaging driver "sent" to one number, newest first (at most 100). An OTP body ' +
      'holds the code as its only run of exactly 4 digits; a merchant dashboard sign-in code is the ' +
      'body’s only run of 4 to 8 digits (6 today). With an e-mail address (anything with an `@`): what ' +
      'the `outbox` e-mail driver sent to it, each with `subject`, `attachments` (file names), `channel` ' +
      '`email` and `body` the text part (docs/email.md). Absent in production.',
    request: {
      query: Joi.object<{ to: string }, true>({
        to: Joi.string()
          .trim()
          .max(254)
          .pattern(/^(\d{6,20}|[^\s@<>"]+@[^\s@<>"]+)$/)
          .required()
          .messages({
            'string.pattern.base':
              'to must be the country code and number, digits only, or an e-mail address',
          })
          .description('Country code and number, digits only; or an e-mail address.'),
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
                  channel: { type: 'string', examples: ['whatsapp', 'sms', 'email'] },
                  body: { type: ['string', 'null'] },
                  subject: { type: 'string', description: 'E-mails only.' },
                  attachments: {
                    type: 'array',
                    items: { type: 'string' },
                    description: 'E-mails only: the file names.',
                  },
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
      if (query.to.includes('@')) {
        ctx.body = { messages: await outboxEmails(ctx.deps.knex, query.to, OUTBOX_LIMIT) };
        return;
      }
      const rows = await outboxMessages(ctx.deps.knex, query.to, OUTBOX_LIMIT);
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
