import Joi from 'joi';
import { ConflictError, InvalidError, NotFoundError, RateLimitedError } from '../../shared/errors';
import { claimKeyFromAccount } from '../../shared/services/account/claims';
import {
  acceptNewPrice,
  browserCardFormOf,
  CARD_UPDATE_LIMIT,
  completeCardUpdate,
  startCardUpdate,
} from '../../shared/services/account/subscriptions';
import type { AccountStrings } from './i18n';
import { CARD_FORM_SCRIPT, cardFormView } from './card-form';
import { pageScriptRoute } from '../dashboard/forms';
import type { AppContext } from '../context';
import { sendPage } from '../dashboard/layout';
import { formField } from '../dashboard/session';
import { defineRoute } from '../http/route';
import { htmlResponse, redirectResponse } from '../openapi/components';
import { accountOf, accountPage, accountSignedIn } from './session';
import { enforce, form, ID, signedInPost } from './forms';

/**
 * The account's follow-ups (docs/account.md): "This key does not work" on a delivered key (the fraud
 * claims service), "Accept the new price" for an announced rise, and "Update the saved card" through the
 * provider's card-saving page. Handlers call shared/services/account.
 */

export const FOLLOWUP_NOTICES = ['claimed', 'price_accepted', 'card_updated', 'card_failed'] as const;
type FollowupNotice = (typeof FOLLOWUP_NOTICES)[number];

export const followupNotices = (t: AccountStrings): Record<FollowupNotice, string> => ({
  claimed: t.claimSent,
  price_accepted: t.priceAccepted,
  card_updated: t.cardUpdated,
  card_failed: t.cardNotUpdated,
});

interface Helpers {
  back(ctx: AppContext, done: FollowupNotice, anchor?: string): void;
  refused(ctx: AppContext, status: number, message: string): Promise<void>;
  notFoundPage(ctx: AppContext): Promise<void>;
}

const PROVIDERS = ['sandbox', 'moyasar', 'coinbase'];

export const accountFollowupRoutes = ({ back, refused, notFoundPage }: Helpers) => [
  defineRoute({
    method: 'post',
    path: '/account/keys/{keyId}/claim',
    interface: 'platform',
    operationId: 'accountClaimKey',
    summary: 'Buyer account: this key does not work',
    description:
      'A replacement claim on one delivered code key of the buyer’s paid order (form field `note`, up to 1000 ' +
      'characters), through the fraud claims service: the store approves (a new key from stock) or declines ' +
      'with a note; the account shows the claim’s status and history. One open or approved claim per key (409).',
    guards: accountSignedIn(),
    request: {
      params: Joi.object<{ keyId: number }, true>({ keyId: ID }),
      ...form({ note: Joi.string().allow('').max(1000) }),
    },
    responses: {
      ...signedInPost,
      409: htmlResponse('The key already has a claim, or can no longer be claimed (the account, saying so).'),
    },
    handler: async (ctx, { params }) => {
      const p = await accountPage(ctx);
      try {
        await claimKeyFromAccount(ctx.deps, accountOf(ctx).session.identity, params.keyId, {
          note: formField(ctx, 'note') ?? null,
          locale: p.locale,
        });
      } catch (err) {
        if (err instanceof NotFoundError) return notFoundPage(ctx);
        if (err instanceof ConflictError) return refused(ctx, 409, p.t.claimExists);
        if (err instanceof InvalidError) return refused(ctx, 409, p.t.claimRefused);
        throw err;
      }
      back(ctx, 'claimed', `#key-${params.keyId}`);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/subscriptions/{subscriptionId}/accept-price',
    interface: 'platform',
    operationId: 'accountAcceptPrice',
    summary: 'Buyer account: accept a subscription’s new price',
    description:
      'The buyer accepts the announced price rise: recorded on its notice (once), in the store’s audit log ' +
      '(`subscription.price_accepted`) and shown by the Merchant API as `next_price.accepted_at`. No rise ' +
      'waiting: 409.',
    guards: accountSignedIn(),
    request: { params: Joi.object<{ subscriptionId: number }, true>({ subscriptionId: ID }), ...form({}) },
    responses: { ...signedInPost, 409: htmlResponse('No new price is waiting.') },
    handler: async (ctx, { params }) => {
      try {
        await acceptNewPrice(ctx.deps, accountOf(ctx).session.identity, params.subscriptionId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFoundPage(ctx);
        if (err instanceof InvalidError) return refused(ctx, 409, err.message);
        throw err;
      }
      back(ctx, 'price_accepted', `#subscription-${params.subscriptionId}`);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/subscriptions/{subscriptionId}/card',
    interface: 'platform',
    operationId: 'accountUpdateCard',
    summary: 'Buyer account: update the saved card',
    description:
      'Opens a card-saving page at the subscription’s provider (the sandbox; a provider’s tokenisation) that ' +
      'saves a card without charging, and answers 303 to it. The card is typed there, never here; the new ' +
      'token reaches the subscription from the provider (its signed webhook, or the return to ' +
      '`/account/card/{provider}/return`). Five a quarter hour per subscription (429).',
    guards: accountSignedIn(),
    request: { params: Joi.object<{ subscriptionId: number }, true>({ subscriptionId: ID }), ...form({}) },
    responses: {
      ...signedInPost,
      303: redirectResponse('To the provider’s card page.'),
      409: htmlResponse('The subscription’s provider cannot save a card here, or it has ended.'),
      429: htmlResponse('Asked too often (with Retry-After).'),
    },
    handler: async (ctx, { params }) => {
      let started: { redirectUrl: string };
      try {
        await enforce(ctx)([{ def: CARD_UPDATE_LIMIT, key: String(params.subscriptionId) }]);
        started = await startCardUpdate(ctx.deps, accountOf(ctx).session.identity, params.subscriptionId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFoundPage(ctx);
        if (err instanceof RateLimitedError) {
          ctx.set('Retry-After', String(err.retryAfterSeconds));
          return refused(ctx, 429, (await accountPage(ctx)).t.tooMany);
        }
        if (err instanceof InvalidError) return refused(ctx, 409, err.message);
        throw err;
      }
      sendPage(ctx, { status: 303, location: started.redirectUrl });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/account/card/{provider}/form/{reference}',
    interface: 'platform',
    operationId: 'accountCardForm',
    summary: 'Buyer account: the card page of a browser tokenisation',
    description:
      'For a provider whose tokenisation runs in the buyer’s browser (Moyasar): the card inputs (no `name`, ' +
      'so no form carries them) and the page’s own script, which posts the card with the store’s ' +
      'publishable key straight to the provider (`connect-src` allows that one origin on this page only) and ' +
      'follows its 3-D Secure address. Only the buyer who started the update sees it.',
    guards: accountSignedIn(),
    request: {
      params: Joi.object<{ provider: string; reference: string }, true>({
        provider: Joi.string()
          .valid(...PROVIDERS)
          .required(),
        reference: Joi.string()
          .pattern(/^cu_[A-Za-z0-9_-]{10,60}$/)
          .required(),
      }),
    },
    responses: {
      200: htmlResponse('The card page.'),
      302: redirectResponse('Not signed in: to /account.'),
      404: htmlResponse('No pending card update of this buyer has that reference.'),
    },
    handler: async (ctx, { params }) => {
      let form: Awaited<ReturnType<typeof browserCardFormOf>>;
      try {
        form = await browserCardFormOf(
          ctx.deps,
          accountOf(ctx).session.identity,
          params.provider,
          params.reference,
        );
      } catch (err) {
        if (err instanceof NotFoundError) return notFoundPage(ctx);
        throw err;
      }
      const p = await accountPage(ctx);
      const callbackUrl = `${ctx.deps.config.publicBaseUrl}/account/card/${params.provider}/return?ref=${params.reference}`;
      sendPage(ctx, {
        status: 200,
        html: cardFormView(p, { ...form, callbackUrl, update: params.reference }),
      });
      // The dashboard's CSP, with the provider's tokens origin as the one place this page may connect to.
      const csp = ctx.response.get('Content-Security-Policy');
      ctx.set(
        'Content-Security-Policy',
        csp.replace("connect-src 'self'", `connect-src 'self' ${new URL(form.tokensUrl).origin}`),
      );
    },
  }),
  pageScriptRoute({
    path: '/account/assets/card-form.js',
    operationId: 'accountCardFormScript',
    summary: 'Buyer account: the card page’s script',
    description:
      'Posts the card from the buyer’s browser straight to the provider’s tokens address and follows its ' +
      '3-D Secure address; nothing of the card goes to the platform.',
    source: CARD_FORM_SCRIPT,
  }),
  defineRoute({
    method: 'get',
    path: '/account/card/{provider}/return',
    interface: 'platform',
    operationId: 'accountCardReturn',
    summary: 'Buyer account: back from the provider’s card page',
    description:
      'Where the provider sends the buyer back (`id`: its card-saving session). The session’s outcome is read ' +
      'from the provider, never from this address; a saved card is put on the subscription once (the webhook ' +
      'may have done it first). Answers 303 to the account, saying whether the card was saved.',
    request: {
      params: Joi.object<{ provider: string }, true>({
        provider: Joi.string()
          .valid(...PROVIDERS)
          .required(),
      }),
      query: Joi.object<{ id: string; ref?: string; status?: string; message?: string }, true>({
        id: Joi.string().max(200).required(),
        ref: Joi.string().max(100),
        status: Joi.string().max(50),
        message: Joi.string().max(500),
      }).unknown(true),
    },
    responses: {
      303: redirectResponse('Back to the account.'),
      404: htmlResponse('No card update of this platform has that id.'),
    },
    handler: async (ctx, { params, query }) => {
      const returned = query as Record<string, string>;
      // The provider's own session id (the sandbox's), else the platform's (`ref`, Moyasar's token flow).
      let outcome = await completeCardUpdate(ctx.deps, params.provider, query.id, returned);
      if (outcome === 'unknown' && typeof returned.ref === 'string') {
        outcome = await completeCardUpdate(ctx.deps, params.provider, returned.ref, returned);
      }
      if (outcome === 'unknown') return notFoundPage(ctx);
      const done = outcome === 'saved' ? 'card_updated' : outcome === 'failed' ? 'card_failed' : null;
      sendPage(ctx, { status: 303, location: done ? `/account?done=${done}` : '/account' });
    },
  }),
];
