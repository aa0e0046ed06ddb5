import path from 'node:path';
import type { OrderStatus } from '../../../db/models';
import { checkoutDepsOf } from '../../../shared/services/checkout/factory';
import { createMerchantOrder, MerchantOrderBody } from '../../../shared/services/merchant/create-order';
import { listOrders, orderDetail, orderUpload } from '../../../shared/services/merchant/orders';
import { updateOrderStatus } from '../../../shared/services/merchant/transitions';
import { createStorage } from '../../../shared/storage';
import { AppContext, input, respond } from '../../context';
import { pageBody } from '../common';
import type { ListQuery } from './schemas';

export async function list(ctx: AppContext): Promise<void> {
  const { query } = input<unknown, ListQuery>(ctx);
  const { page, per_page, ...filters } = query;
  respond(ctx, pageBody(await listOrders(ctx.deps.knex, ctx.state.store!.id, filters, { page, per_page })));
}

export async function show(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, { id: number }>(ctx);
  respond(
    ctx,
    await orderDetail(ctx.deps.knex, ctx.state.store!.id, params.id, ctx.deps.config.publicBaseUrl),
  );
}

/** 201 when created now; 200 with Idempotent-Replayed when the same request had created it before. */
export async function create(ctx: AppContext): Promise<void> {
  const { body } = input<MerchantOrderBody>(ctx);
  const key = ctx.state.idempotencyKey as string | undefined;
  const result = await createMerchantOrder(
    { ...checkoutDepsOf(ctx.deps), cipher: ctx.deps.cipher },
    ctx.state.store!,
    body,
    key,
  );
  if (!result.created) ctx.set('Idempotent-Replayed', 'true');
  const message = result.data.order_id !== null ? 'Order created' : 'Checkout created: send payment_url to the customer';
  respond(ctx, result.data, { status: result.created ? 201 : 200, message });
}

export async function updateStatus(ctx: AppContext): Promise<void> {
  const { body, params } = input<{ status: OrderStatus }, unknown, { id: number }>(ctx);
  const result = await updateOrderStatus(ctx.deps, ctx.state.store!.id, params.id, body.status, {
    merchantTokenId: ctx.state.merchantToken?.id ?? null,
  });
  respond(ctx, result, { message: result.changed ? 'Order status updated' : 'Order already has this status' });
}

/** The file a buyer uploaded in a custom field, streamed to the merchant as an attachment. */
export async function upload(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, { id: number; index: number }>(ctx);
  const file = await orderUpload(ctx.deps.knex, ctx.state.store!.id, params.id, params.index);
  ctx.status = 200;
  ctx.type = file.mime_type;
  ctx.attachment(path.basename(file.original_name));
  ctx.body = await createStorage(ctx.deps.config).read(file.storage_key);
}
