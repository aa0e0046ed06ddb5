import { acknowledgeCommands, listOfflineCommands, listPlayerCommands } from '../../shared/services/fivem';
import { AppContext, input, respond } from '../context';
import { fivemServerOf } from './auth';
import type { AcknowledgeBody, PlayerParams } from './schemas';

export async function queue(ctx: AppContext): Promise<void> {
  const server = fivemServerOf(ctx);
  respond(ctx, await listOfflineCommands(ctx.deps.knex, server, ctx.deps.config.fivem));
}

export async function online(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, PlayerParams>(ctx);
  const server = fivemServerOf(ctx);
  respond(ctx, await listPlayerCommands(ctx.deps.knex, server, params.playerId, ctx.deps.config.fivem));
}

export async function acknowledge(ctx: AppContext): Promise<void> {
  const { body } = input<AcknowledgeBody>(ctx);
  const server = fivemServerOf(ctx);
  respond(ctx, await acknowledgeCommands(ctx.deps.knex, server, body.ids, ctx.deps.config.fivem));
}
