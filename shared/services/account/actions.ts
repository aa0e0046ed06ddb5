import type { Knex } from 'knex';
import { InvalidError, NotFoundError } from '../../errors';
import type { LimitDefinition } from '../../rate-limits';
import { noteStoreContentChangedOn } from '../catalogue/cache';
import { issueCertificate } from '../licenses/certificate';
import type { LicenseLocale } from '../licenses/labels';
import { selfResetActivations } from '../licenses/self-reset';
import type { VerifyDeps } from '../licenses/verify';
import type { LimitUse } from '../rate-limiter';
import { cancelSubscription, resumeSubscription, type ChangeDeps } from '../subscriptions/cancel';
import { whereBuyerOwns } from './identity';
import { identityKey, type BuyerIdentity } from './sessions';

/**
 * What a buyer changes from their account (docs/account.md). Each action first finds its object through
 * the buyer's orders (whereBuyerOwns), so another buyer's license, subscription or product answers
 * NotFound exactly as one that does not exist.
 */

/**
 * Deactivate one activation of the buyer's license: the seat is free at once (the /verify count drops),
 * under the product's self-service reset quota (shared/services/licenses/self-reset.ts), as a reset by the
 * key would be.
 */
export async function deactivateActivation(
  deps: VerifyDeps,
  identity: BuyerIdentity,
  activationId: number,
): Promise<Awaited<ReturnType<typeof selfResetActivations>>> {
  const row = (await whereBuyerOwns(
    deps
      .knex('license_activations as a')
      .join('licenses as l', 'l.id', 'a.license_id')
      .join('orders as o', 'o.id', 'l.order_id'),
    identity,
  )
    .where('a.id', activationId)
    .whereIn('o.status', [3, 4])
    .first('l.product_id', 'l.key')) as { product_id: number; key: string } | undefined;
  if (!row) throw new NotFoundError('Activation not found');
  return selfResetActivations(deps, { productId: row.product_id, licenseKey: row.key, activationId });
}

async function ownedSubscription(knex: Knex, identity: BuyerIdentity, id: number): Promise<number> {
  const row = (await whereBuyerOwns(
    knex('subscriptions as sub').join('orders as o', 'o.id', 'sub.order_id'),
    identity,
  )
    .where('sub.id', id)
    .first('sub.id')) as { id: number } | undefined;
  if (!row) throw new NotFoundError('Subscription not found');
  return row.id;
}

/** "Cancel renewal": at the end of the period paid for. */
export async function cancelRenewal(
  deps: ChangeDeps & { knex: Knex },
  identity: BuyerIdentity,
  id: number,
): Promise<{ changed: boolean }> {
  return cancelSubscription(deps, null, await ownedSubscription(deps.knex, identity, id), {
    atPeriodEnd: true,
  });
}

export async function resumeRenewal(
  deps: ChangeDeps & { knex: Knex },
  identity: BuyerIdentity,
  id: number,
): Promise<{ changed: boolean }> {
  return resumeSubscription(deps, await ownedSubscription(deps.knex, identity, id));
}

export const REVIEW_MAX_LENGTH = 2000;
/** Ten review writes (new or edited) an hour per buyer. */
export const REVIEW_LIMIT = Object.freeze({
  name: 'account_review',
  points: 10,
  durationSeconds: 3600,
  scope: 'token',
}) as LimitDefinition;

/**
 * A verified buyer's review of a product they bought (a paid order, not cancelled or refunded): one per
 * product and buyer; writing again edits it, and an edited review waits for the store's moderation again.
 */
export async function writeReview(
  deps: ChangeDeps & { knex: Knex; enforce: (uses: readonly LimitUse[]) => Promise<unknown> },
  identity: BuyerIdentity,
  input: { productId: number; rating: number; comment: string },
): Promise<{ id: number }> {
  const comment = input.comment.trim();
  if (!Number.isInteger(input.rating) || input.rating < 1 || input.rating > 5) {
    throw new InvalidError('rating must be 1 to 5');
  }
  if (comment.length > REVIEW_MAX_LENGTH) throw new InvalidError('comment is too long');
  const bought = (await whereBuyerOwns(
    deps.knex('order_items as oi').join('orders as o', 'o.id', 'oi.order_id'),
    identity,
  )
    .where('oi.product_id', input.productId)
    .whereIn('o.status', [3, 4])
    .orderBy('o.id', 'desc')
    .first('o.id as order_id', 'o.store_id', 'o.customer_id')) as
    { order_id: number; store_id: number; customer_id: number | null } | undefined;
  if (!bought) throw new NotFoundError('Product not found');
  await deps.enforce([{ def: REVIEW_LIMIT, key: identityKey(identity) }]);
  return deps.tx(async (uow) => {
    // One per product and buyer (the partial unique index reviews_one_per_buyer): a second write edits.
    const result = await uow.trx.raw<{ rows: { id: number }[] }>(
      `insert into reviews (store_id, product_id, customer_id, order_id, rating, comment, published, verified, buyer)
       values (?, ?, ?, ?, ?, ?, false, true, ?)
       on conflict (product_id, buyer) where buyer is not null
       do update set rating = excluded.rating, comment = excluded.comment, published = false, updated_at = now()
       returning id`,
      [
        bought.store_id,
        input.productId,
        bought.customer_id,
        bought.order_id,
        input.rating,
        comment || null,
        identityKey(identity),
      ],
    );
    noteStoreContentChangedOn(uow, bought.store_id);
    return { id: Number(result.rows[0]!.id) };
  });
}

/**
 * An offline certificate for one of the buyer's licenses, for the machine they name (its hwid: the account
 * never knows it, activations keep only an HMAC). Exactly POST /verify/certificate for that key: it
 * activates the machine as /verify does and is refused as /verify refuses (docs/license.md).
 */
export async function certificateFor(
  deps: Parameters<typeof issueCertificate>[0],
  identity: BuyerIdentity,
  licenseId: number,
  input: { hwid: string; ip: string; locale: LicenseLocale },
): Promise<{ certificate: string; expiresAt: string }> {
  const row = (await whereBuyerOwns(
    deps.knex('licenses as l').join('orders as o', 'o.id', 'l.order_id'),
    identity,
  )
    .where('l.id', licenseId)
    .whereIn('o.status', [3, 4])
    .whereNot('l.lock_type', 'ip')
    .first('l.product_id', 'l.key')) as { product_id: number; key: string } | undefined;
  if (!row) throw new NotFoundError('License not found');
  const issued = await issueCertificate(deps, {
    productId: row.product_id,
    licenseKey: row.key,
    hwid: input.hwid,
    ip: input.ip,
    locale: input.locale,
    licenseKeyAsSent: row.key,
    hwidAsSent: input.hwid,
  });
  return { certificate: issued.certificate, expiresAt: issued.expires_at };
}
