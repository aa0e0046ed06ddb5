import { ValidationError } from '../../../shared/errors';
import { createEndpoint, deleteEndpoint, listEndpoints } from '../../../shared/services/merchant/webhooks/endpoints';
import { AppContext, input, respond } from '../../context';
import { pageBody } from '../common';

export async function create(ctx: AppContext): Promise<void> {
  const { body } = input<{ url: string; events: string[]; description?: string }>(ctx);
  if (ctx.deps.config.nodeEnv === 'production' && !body.url.startsWith('https://')) {
    throw ValidationError.field('url', 'The webhook url must use https.');
  }
  const endpoint = await createEndpoint(ctx.deps, ctx.state.store!.id, {
    ...body,
    description: body.description || undefined,
  });
  respond(ctx, endpoint, { status: 201, message: 'Webhook endpoint created: keep the secret, it is shown once' });
}

export async function list(ctx: AppContext): Promise<void> {
  const { query } = input<unknown, { page: number; per_page: number }>(ctx);
  respond(ctx, pageBody(await listEndpoints(ctx.deps.knex, ctx.state.store!.id, query)));
}

export async function remove(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, { id: number }>(ctx);
  await deleteEndpoint(ctx.deps.knex, ctx.state.store!.id, params.id);
  respond(ctx, null, { message: 'Webhook endpoint deleted' });
}
