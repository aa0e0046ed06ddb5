import { NotFoundError } from '../../../shared/errors';
import {
  addToWishlist,
  clearWishlist,
  inWishlist,
  removeFromWishlist,
  WISHLIST_MESSAGES,
  wishlistCount,
  wishlistItems,
} from '../../../shared/services/wishlist';
import { parseProductId } from '../../../shared/services/catalog';
import { AppContext, input, respond } from '../../context';
import type { AddBody, ProductParams } from './schemas';

const who = (ctx: AppContext) => [ctx.deps.knex, ctx.state.store!, ctx.state.customer!] as const;

export async function list(ctx: AppContext): Promise<void> {
  respond(ctx, await wishlistItems(...who(ctx)));
}

export async function add(ctx: AppContext): Promise<void> {
  const { body } = input<AddBody>(ctx);
  await addToWishlist(...who(ctx), body.product_id);
  respond(ctx, null, { message: WISHLIST_MESSAGES.added });
}

/** A path that cannot name a product cannot be in the wishlist either: 404, as for any other. */
export async function remove(ctx: AppContext): Promise<void> {
  const productId = parseProductId((ctx as unknown as { params: { productId: string } }).params.productId);
  if (productId === null) throw new NotFoundError(WISHLIST_MESSAGES.notIn);
  await removeFromWishlist(...who(ctx), productId);
  respond(ctx, null, { message: WISHLIST_MESSAGES.removed });
}

export async function check(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, ProductParams>(ctx);
  respond(ctx, { in_wishlist: await inWishlist(...who(ctx), params.productId) });
}

export async function count(ctx: AppContext): Promise<void> {
  respond(ctx, { count: await wishlistCount(...who(ctx)) });
}

export async function clear(ctx: AppContext): Promise<void> {
  await clearWishlist(...who(ctx));
  respond(ctx, null, { message: WISHLIST_MESSAGES.cleared });
}
