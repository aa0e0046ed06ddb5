import { RateLimitedError } from '../../errors';
import type { LimitDefinition } from '../../rate-limits';
import type { UnitOfWorkDeps } from '../../unit-of-work';
import type { DeliveryDeps } from '../fulfilment/delivery';
import {
  resendDelivery,
  ResendRefusedError,
  resendNonce,
  type ResendChannel,
  type ResendRefusal,
} from '../fulfilment/resend';
import type { Actor } from '../audit';
import type { LimitUse } from '../rate-limiter';

/**
 * "Send again" from the buyer's account (docs/account.md): the order's goods once more, by message (to the
 * order's phone) or by e-mail (to the order's address), never to anywhere else. It is the dashboard's
 * resend (shared/services/fulfilment/resend.ts, `resendDelivery`): the same key
 * (`order-delivery-resend:{order}:{channel}:{nonce}`, the nonce drawn when the account page was rendered,
 * so a double click sends once), the same message job and e-mail, the same audit row
 * (`order.delivery_resent`, by "buyer (account)"). The account adds its own limit: three a quarter hour
 * per order and channel.
 */
export const RESEND_LIMIT = Object.freeze({
  name: 'account_resend',
  points: 3,
  durationSeconds: 900,
  scope: 'token',
}) as LimitDefinition;

export type { ResendChannel };

/** Who the store's audit log names for a resend the buyer asked for (never their phone or address). */
const buyerActor = (storeId: number): Actor => ({ storeId, tokenId: null, name: 'buyer (account)' });

export type SendAgainOutcome =
  | { kind: 'queued' | 'duplicate' }
  | { kind: 'refused'; reason: ResendRefusal }
  | { kind: 'rate_limited'; retryAfter: number };

/** `order` is the buyer's own (found through whereBuyerOwns by the caller). */
export async function requestSendAgain(
  deps: DeliveryDeps & UnitOfWorkDeps & { enforce: (uses: readonly LimitUse[]) => Promise<unknown> },
  order: { id: number; store_id: number },
  channel: ResendChannel,
  nonce: string | undefined,
): Promise<SendAgainOutcome> {
  try {
    await deps.enforce([{ def: RESEND_LIMIT, key: `${order.id}:${channel}` }]);
  } catch (err) {
    if (err instanceof RateLimitedError) return { kind: 'rate_limited', retryAfter: err.retryAfterSeconds };
    throw err;
  }
  try {
    // A form without a nonce (an older page) is a new send of its own.
    const kind = await resendDelivery(
      deps,
      buyerActor(order.store_id),
      order.id,
      channel,
      nonce || resendNonce(),
    );
    return { kind };
  } catch (err) {
    if (err instanceof ResendRefusedError) return { kind: 'refused', reason: err.reason };
    throw err;
  }
}
