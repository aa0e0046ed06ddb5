import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';
import { randomToken, sha256 } from '../../crypto';
import { InvalidError, NotFoundError } from '../../errors';
import type { PaymentProviders } from '../../providers';
import { isCardSavingProvider, isHostedProvider } from '../../providers/types';
import type { LimitDefinition } from '../../rate-limits';
import type { TxDeps } from '../../unit-of-work';
import { listAudit, recordAudit, type Actor, type AuditEventView } from '../audit';
import { credentialsFor } from '../payment-records/credentials';
import { providerOffered, type MethodOffer } from '../payment-methods';
import { whereBuyerOwns } from './identity';
import { identityKey, type BuyerIdentity } from './sessions';

/**
 * A subscriber's own changes from the account (docs/account.md, "Subscriptions"): accepting an announced
 * price rise, and replacing the saved card through the provider's tokenisation. Each finds its
 * subscription through the buyer's orders (whereBuyerOwns); another buyer's answers NotFound.
 */

/** Who the merchant's audit log names for a buyer's own change (never their phone or address). */
const buyerActor = (storeId: number): Actor => ({ storeId, tokenId: null, name: 'buyer (account)' });

interface OwnedSubscription {
  id: number;
  store_id: number;
  status: string;
  cancel_at_period_end: boolean;
  price_minor: string | null;
  next_price_minor: string | null;
  payment_method: string | null;
  provider: string | null;
  product_name: string;
}

async function owned(knex: Knex, identity: BuyerIdentity, id: number): Promise<OwnedSubscription> {
  const row = (await whereBuyerOwns(
    knex('subscriptions as sub').join('orders as o', 'o.id', 'sub.order_id'),
    identity,
  )
    .join('products as p', 'p.id', 'sub.product_id')
    .where('sub.id', id)
    .first(
      'sub.id',
      'sub.store_id',
      'sub.status',
      'sub.cancel_at_period_end',
      'sub.price_minor',
      'sub.next_price_minor',
      'sub.payment_method',
      'sub.provider',
      'p.name as product_name',
    )) as OwnedSubscription | undefined;
  if (!row) throw new NotFoundError('Subscription not found');
  return row;
}

const isLive = (s: Pick<OwnedSubscription, 'status'>) => s.status === 'active' || s.status === 'past_due';

export const NO_PRICE_WAITING = 'No new price is waiting for this subscription';

/**
 * "Accept the new price": the buyer's consent to the announced rise, recorded on its notice
 * (`subscription_price_notices.accepted_at`, once: accepting again changes nothing) and in the store's
 * audit log (`subscription.price_accepted`); the Merchant API shows it as `next_price.accepted_at`. The rise
 * applies from the date it was announced for either way; accepting is the buyer saying yes.
 */
export async function acceptNewPrice(
  deps: TxDeps & { knex: Knex },
  identity: BuyerIdentity,
  subscriptionId: number,
  now: Date = new Date(),
): Promise<{ changed: boolean }> {
  await owned(deps.knex, identity, subscriptionId);
  return deps.tx(async ({ trx }) => {
    const sub = (await trx('subscriptions')
      .where('id', subscriptionId)
      .forUpdate()
      .first(
        'id',
        'store_id',
        'status',
        'cancel_at_period_end',
        'price_minor',
        'next_price_minor',
      )) as OwnedSubscription;
    if (!isLive(sub) || sub.cancel_at_period_end || sub.next_price_minor === null) {
      throw new InvalidError(NO_PRICE_WAITING);
    }
    const notice = (await trx('subscription_price_notices')
      .where({ subscription_id: subscriptionId, to_price_minor: sub.next_price_minor })
      .orderBy('id', 'desc')
      .first('id', 'from_price_minor', 'to_price_minor', 'currency', 'accepted_at')) as
      | {
          id: number;
          from_price_minor: string;
          to_price_minor: string;
          currency: string;
          accepted_at: Date | null;
        }
      | undefined;
    if (!notice) throw new InvalidError(NO_PRICE_WAITING);
    if (notice.accepted_at) return { changed: false };
    await trx('subscription_price_notices')
      .where('id', notice.id)
      .update({ accepted_at: now, accepted_by: identityKey(identity).slice(0, 300) });
    await recordAudit(
      trx,
      buyerActor(Number(sub.store_id)),
      'subscription.price_accepted',
      { type: 'subscription', id: subscriptionId },
      {
        notice_id: Number(notice.id),
        from_price_minor: Number(notice.from_price_minor),
        to_price_minor: Number(notice.to_price_minor),
        currency: notice.currency,
        accepted_at: now.toISOString(),
      },
    );
    return { changed: true };
  });
}

export interface CardUpdateDeps extends TxDeps {
  knex: Knex;
  cipher: Cipher;
  providers: PaymentProviders;
  config: MethodOffer & { publicBaseUrl: string };
}

/** Five card-saving pages a quarter hour per subscription. */
export const CARD_UPDATE_LIMIT = Object.freeze({
  name: 'account_card_update',
  points: 5,
  durationSeconds: 900,
  scope: 'token',
}) as LimitDefinition;

export const CARD_UPDATE_UNAVAILABLE = 'This subscription’s card cannot be updated here';

/** Whether the account offers "Update the saved card" for a subscription paid through `provider`. */
export function cardUpdatable(
  deps: Pick<CardUpdateDeps, 'providers' | 'config'>,
  sub: { status: string; provider: string | null },
): boolean {
  return (
    isLive(sub) &&
    sub.provider !== null &&
    isHostedProvider(sub.provider) &&
    providerOffered(deps.config, sub.provider) &&
    isCardSavingProvider(deps.providers[sub.provider])
  );
}

/**
 * "Update the saved card": opens a card-saving session at the subscription's provider (a hosted page that
 * saves a card token without charging) and answers where to send the buyer. The card never passes here:
 * the provider's page takes it; the session's reference is kept only as its SHA-256.
 */
export async function startCardUpdate(
  deps: CardUpdateDeps,
  identity: BuyerIdentity,
  subscriptionId: number,
): Promise<{ redirectUrl: string }> {
  const sub = await owned(deps.knex, identity, subscriptionId);
  if (!cardUpdatable(deps, sub) || !sub.payment_method) throw new InvalidError(CARD_UPDATE_UNAVAILABLE);
  const provider = deps.providers[sub.provider as keyof PaymentProviders];
  if (!isCardSavingProvider(provider)) throw new InvalidError(CARD_UPDATE_UNAVAILABLE);
  const credentials = await credentialsFor(deps, {
    store_id: sub.store_id,
    method: sub.payment_method as never,
    provider: sub.provider!,
  });
  // A provider whose card form runs in the browser needs the store's publishable key: without it, no page.
  if (provider.browserCardForm) {
    try {
      provider.browserCardForm(credentials);
    } catch {
      throw new InvalidError(CARD_UPDATE_UNAVAILABLE);
    }
  }
  const setupId = randomToken(16, 'cu_');
  const setup = await provider.createCardSetup(
    {
      storeId: sub.store_id,
      description: sub.product_name,
      // The platform's own session id rides on the return for providers that answer with their token's id.
      returnUrl: `${deps.config.publicBaseUrl}/account/card/${sub.provider}/return?ref=${setupId}`,
      setupId,
      formUrl: `${deps.config.publicBaseUrl}/account/card/${sub.provider}/form/${setupId}`,
    },
    credentials,
  );
  await deps.knex('subscription_card_updates').insert({
    subscription_id: sub.id,
    store_id: sub.store_id,
    provider: sub.provider,
    provider_ref_hash: sha256(setup.reference),
    requested_by: identityKey(identity).slice(0, 300),
  });
  return { redirectUrl: setup.redirectUrl };
}

/** The pending-or-done card update a provider's reference names, or null when it names none of ours. */
export async function cardUpdateOf(
  knex: Knex,
  provider: string,
  reference: string,
): Promise<{ id: number; store_id: number; subscription_id: number; status: string } | null> {
  const row = (await knex('subscription_card_updates')
    .where({ provider, provider_ref_hash: sha256(reference) })
    .first('id', 'store_id', 'subscription_id', 'status')) as
    { id: number; store_id: number; subscription_id: number; status: string } | undefined;
  return row ?? null;
}

/** The store, method and provider whose credentials verify a card update's webhook. */
export async function cardUpdateTarget(
  knex: Knex,
  update: { store_id: number; subscription_id: number },
  provider: string,
): Promise<{ store_id: number; method: never; provider: string }> {
  const sub = (await knex('subscriptions').where('id', update.subscription_id).first('payment_method')) as
    { payment_method: string | null } | undefined;
  return { store_id: update.store_id, method: (sub?.payment_method ?? 'card') as never, provider };
}

export type CardUpdateOutcome = 'saved' | 'failed' | 'pending' | 'unknown';

/**
 * Completes a card update from the provider's word, read back from the provider (the redirect's `id` and
 * the webhook only name the session): saved, the new token is sealed onto the subscription
 * (`payment_token_encrypted`) and the store's audit log says `subscription.card_updated`; failed, nothing
 * changes. Once: the row is locked and only a pending one is completed (the redirect and the webhook, or a
 * duplicate webhook, arriving together complete it once). No order or payment is created.
 */
export async function completeCardUpdate(
  deps: Omit<CardUpdateDeps, 'config'>,
  provider: string,
  reference: string,
  returned?: Readonly<Record<string, string>>,
  now: Date = new Date(),
): Promise<CardUpdateOutcome> {
  const update = await cardUpdateOf(deps.knex, provider, reference);
  if (!update) return 'unknown';
  if (update.status !== 'pending') return update.status as CardUpdateOutcome;
  if (!isHostedProvider(provider)) return 'unknown';
  const adapter = deps.providers[provider];
  if (!isCardSavingProvider(adapter)) return 'unknown';
  const sub = (await deps
    .knex('subscriptions')
    .where('id', update.subscription_id)
    .first('payment_method', 'provider')) as { payment_method: string | null; provider: string | null };
  const credentials = await credentialsFor(deps, {
    store_id: update.store_id,
    method: (sub.payment_method ?? 'card') as never,
    provider,
  });
  const state = await adapter.fetchCardSetup(reference, credentials, returned);
  if (state.status === 'pending') return 'pending';
  return deps.tx(async ({ trx }) => {
    const locked = (await trx('subscription_card_updates')
      .where('id', update.id)
      .forUpdate()
      .first('status')) as { status: string };
    if (locked.status !== 'pending') return locked.status as CardUpdateOutcome;
    const saved = state.status === 'saved' && Boolean(state.token) && sub.provider === provider;
    await trx('subscription_card_updates')
      .where('id', update.id)
      .update({ status: saved ? 'saved' : 'failed', completed_at: now });
    if (!saved) return 'failed';
    await trx('subscriptions')
      .where('id', update.subscription_id)
      .update({ payment_token_encrypted: deps.cipher.encrypt(state.token!), updated_at: now });
    await recordAudit(
      trx,
      buyerActor(Number(update.store_id)),
      'subscription.card_updated',
      { type: 'subscription', id: Number(update.subscription_id) },
      { provider },
    );
    return 'saved';
  });
}

/**
 * The platform's card page of a pending update, for a provider whose card form runs in the buyer's browser
 * (Moyasar): where the browser posts the card and with which publishable key. Only the buyer who started
 * the update (signed in as the same identity) gets it; anything else is NotFound.
 */
export async function browserCardFormOf(
  deps: Pick<CardUpdateDeps, 'knex' | 'cipher' | 'providers'>,
  identity: BuyerIdentity,
  provider: string,
  reference: string,
): Promise<{ tokensUrl: string; publishableKey: string; description: string }> {
  const update = await cardUpdateOf(deps.knex, provider, reference);
  const adapter = isHostedProvider(provider) ? deps.providers[provider] : null;
  if (
    !update ||
    update.status !== 'pending' ||
    !isCardSavingProvider(adapter) ||
    !adapter.browserCardForm ||
    !(await deps
      .knex('subscription_card_updates')
      .where({ id: update.id, requested_by: identityKey(identity).slice(0, 300) })
      .first('id'))
  ) {
    throw new NotFoundError('Card update not found');
  }
  const sub = (await deps
    .knex('subscriptions as sub')
    .join('products as p', 'p.id', 'sub.product_id')
    .where('sub.id', update.subscription_id)
    .first('p.name')) as { name: string };
  const credentials = await credentialsFor(deps, await cardUpdateTarget(deps.knex, update, provider));
  return { ...adapter.browserCardForm(credentials), description: sub.name };
}

/**
 * What the buyer changed on the subscriptions an order started (their price acceptances and card updates,
 * as the store's audit log records them), for the dashboard's order page beside the order's own events.
 */
export async function subscriptionAuditOfOrder(
  knex: Knex,
  storeId: number,
  orderId: number,
): Promise<AuditEventView[]> {
  const subs = (await knex('subscriptions').where({ store_id: storeId, order_id: orderId }).select('id')) as {
    id: number;
  }[];
  const pages = await Promise.all(
    subs.map((s) =>
      listAudit(
        knex,
        storeId,
        { resource_type: 'subscription', resource_id: Number(s.id) },
        { page: 1, per_page: 50 },
      ),
    ),
  );
  return pages.flatMap((p) => p.items);
}
