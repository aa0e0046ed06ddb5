import {
  addToCart,
  applyCartCoupon,
  CartView,
  clearCart,
  getCart,
  removeCartCoupon,
  removeLine,
  setQuantity,
} from '../../../shared/services/cart';
import { AppContext, input, respond } from '../../context';
import { CART_ID_HEADER, ownerOf } from './owner';
import type { AddBody, CouponBody, ItemParams, QuantityBody } from './schemas';

/** Every cart answer is the whole cart, priced now; an anonymous cart's id is also sent as X-Cart-Id. */
function answer(ctx: AppContext, cart: CartView): void {
  if (cart.cart_id) ctx.set(CART_ID_HEADER, cart.cart_id);
  respond(ctx, cart);
}

const args = (ctx: AppContext) => [ctx.deps.knex, ctx.state.store!, ownerOf(ctx)] as const;

export async function show(ctx: AppContext): Promise<void> {
  answer(ctx, await getCart(...args(ctx)));
}

export async function add(ctx: AppContext): Promise<void> {
  const { body } = input<AddBody>(ctx);
  answer(ctx, await addToCart(...args(ctx), body));
}

export async function update(ctx: AppContext): Promise<void> {
  const { body, params } = input<QuantityBody, unknown, ItemParams>(ctx);
  answer(ctx, await setQuantity(...args(ctx), params.itemId, body.quantity));
}

export async function remove(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, ItemParams>(ctx);
  answer(ctx, await removeLine(...args(ctx), params.itemId));
}

export async function applyCoupon(ctx: AppContext): Promise<void> {
  const { body } = input<CouponBody>(ctx);
  answer(ctx, await applyCartCoupon(...args(ctx), body.code));
}

export async function removeCoupon(ctx: AppContext): Promise<void> {
  answer(ctx, await removeCartCoupon(...args(ctx)));
}

export async function clear(ctx: AppContext): Promise<void> {
  answer(ctx, await clearCart(...args(ctx)));
}
