import { HttpMethodEnum, koaBody } from 'koa-body';
import type { Deps } from '../../shared/deps';
import {
  acknowledgeCommands,
  FIVEM_PLAYERS_LIMIT,
  listOfflineCommands,
  listPlayerCommands,
} from '../../shared/services/fivem';
import type { AppMiddleware } from '../context';
import { defineRoute } from '../http/route';
import { fivemGuards } from '../guards';
import { fivemServerOf } from '../middleware/fivem-secret';
import { fivemOk, fivemRefused, nextCheckSchema, queuedCommandSchema } from './responses';
import { acknowledgeBody, playerParams } from './schemas';

/**
 * The app-wide body parser reads POST, PUT and PATCH bodies only; the acknowledgement is a DELETE with a
 * JSON body, so it is parsed here (JSON only, at most 64 kB).
 */
function deleteBodyGuards(deps: Deps): AppMiddleware[] {
  const parse = koaBody({
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: '64kb',
    parsedMethods: [HttpMethodEnum.DELETE],
    onError: (err) => {
      throw Object.assign(err, { status: (err as { status?: number }).status ?? 400, expose: true });
    },
  }) as unknown as AppMiddleware;
  return [...fivemGuards(deps), parse];
}

const commands = { type: 'array', items: queuedCommandSchema } as const;
const LEASE_NOTE =
  'Each command listed is leased to this game server (`FIVEM_LEASE_SECONDS`, 60 s by default): no listing ' +
  'shows it again meanwhile, to this server or any other; acknowledge it with DELETE /api/fivem/queue once ' +
  'it ran, or it is listed again when the lease ends. At most 100 commands per answer (then `next_check` is ' +
  'short). ';

export const fivemRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/fivem/queue',
    interface: 'fivem',
    operationId: 'fivemQueue',
    summary: 'Commands to run now, and players with commands waiting',
    description:
      LEASE_NOTE +
      '`data.commands`: the due commands that need no online player. `data.players`: the ids of players who ' +
      `have due commands waiting until they are online (at most ${FIVEM_PLAYERS_LIMIT}); ask for those with ` +
      'GET /api/fivem/queue/online/{playerId} when such a player is on the server. `data.next_check`: seconds ' +
      'until the next poll.',
    guards: fivemGuards,
    responses: {
      200: fivemOk(
        'The commands now leased to this server, the waiting players, and when to ask again.',
        {
          type: 'object',
          required: ['commands', 'players', 'next_check'],
          properties: {
            commands,
            players: { type: 'array', items: { type: 'string' } },
            next_check: nextCheckSchema,
          },
        },
        {
          success: true,
          data: {
            commands: [
              {
                id: 41,
                command: 'announce Thanks Sara Ali for order 1207',
                player: 'license:abc123',
                order_id: 1207,
                require_online: false,
                inventory_slots: null,
                lease_expires_at: '2026-11-23T20:01:00.000Z',
              },
            ],
            players: ['license:abc123'],
            next_check: 30,
          },
        },
      ),
    },
    handler: (ctx) => listOfflineCommands(ctx.deps.knex, fivemServerOf(ctx), ctx.deps.config.fivem),
  }),
  defineRoute({
    method: 'get',
    path: '/api/fivem/queue/online/{playerId}',
    interface: 'fivem',
    operationId: 'fivemPlayerQueue',
    summary: 'Commands waiting for an online player',
    description:
      LEASE_NOTE +
      'The due commands waiting for this player to be online, in `data.commands`; the resource asks when the ' +
      'player joins and while the player is on. A player the store never queued a command for answers 404.',
    guards: fivemGuards,
    request: { params: playerParams },
    responses: {
      200: fivemOk('The player’s commands, now leased to this server.', {
        type: 'object',
        required: ['commands', 'next_check'],
        properties: { commands, next_check: nextCheckSchema },
      }),
      404: fivemRefused(
        'No command was ever queued for this player in this store.',
        'not_found',
        'Unknown player: no command was ever queued for this player',
      ),
    },
    handler: (ctx, { params }) =>
      listPlayerCommands(ctx.deps.knex, fivemServerOf(ctx), params.playerId, ctx.deps.config.fivem),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/fivem/queue',
    interface: 'fivem',
    operationId: 'fivemAcknowledge',
    summary: 'Acknowledge commands that ran',
    description:
      'Marks the listed commands executed; no listing shows them again. Idempotent: ids that cannot be taken ' +
      'are reported in `data.ignored` with a reason, never as an error (`executed`: acknowledged before, e.g. ' +
      'a retry after a lost answer; `withdrawn`: the order was cancelled or refunded; `expired`; `failed`; ' +
      '`not_listed`: never handed to a game server; `unknown`: no such command in this store).',
    guards: deleteBodyGuards,
    request: { body: acknowledgeBody, example: { ids: [41, 42] } },
    responses: {
      200: fivemOk(
        'What was marked executed and what was ignored.',
        {
          type: 'object',
          required: ['executed', 'ignored', 'next_check'],
          properties: {
            executed: { type: 'array', items: { type: 'integer' } },
            ignored: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'reason'],
                properties: {
                  id: { type: 'integer' },
                  reason: {
                    type: 'string',
                    enum: ['unknown', 'not_listed', 'executed', 'withdrawn', 'expired', 'failed'],
                  },
                },
              },
            },
            next_check: nextCheckSchema,
          },
        },
        {
          success: true,
          data: { executed: [41], ignored: [{ id: 42, reason: 'executed' }], next_check: 30 },
        },
      ),
      400: fivemRefused('The body is not JSON.', 'malformed_json', 'Malformed JSON body'),
      413: fivemRefused('The body is larger than 64 kB.', 'payload_too_large', 'Request body is too large'),
    },
    handler: (ctx, { body }) =>
      acknowledgeCommands(ctx.deps.knex, fivemServerOf(ctx), body.ids, ctx.deps.config.fivem),
  }),
];
