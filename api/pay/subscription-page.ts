import Joi from 'joi';
import { cancelFromPage, subscriptionPage, SubscriptionPage } from '../../shared/services/subscriptions/page';
import { paymentStatusGuards } from '../guards';
import { defineRoute } from '../http/route';
import { htmlResponse } from '../openapi/components';
import { escapeHtml, HtmlAnswer, layout, sendHtml } from './html';
import { STRINGS } from './i18n';
import { viewOf } from './routes';
import type { View } from './views';

/** The buyer's subscription page (the capability link of renewal messages): see the service's comment. */

function pageView(result: SubscriptionPage, view: View, justCancelled = false): HtmlAnswer {
  const t = STRINGS[view.locale];
  if (result.kind === 'not_found') {
    const body = `<h1>${escapeHtml(t.checkoutNotFound)}</h1>`;
    return {
      status: 404,
      html: layout(t.subscriptionTitle, body, { locale: view.locale, switchHref: view.switchHref }),
    };
  }
  const date = result.periodEnd ? new Date(result.periodEnd).toISOString().slice(0, 10) : null;
  const lines: string[] = [`<p><strong>${escapeHtml(t.subscriptionState(result.status))}</strong></p>`];
  if (date && result.cancelAtPeriodEnd) lines.push(`<p>${escapeHtml(t.subscriptionEndsAt(date))}</p>`);
  else if (date && (result.status === 'active' || result.status === 'past_due'))
    lines.push(`<p>${escapeHtml(t.subscriptionUntil(date))}</p>`);
  if (result.price && (result.status === 'active' || result.status === 'past_due')) {
    lines.push(`<p>${escapeHtml(t.subscriptionPrice(result.price))}</p>`);
    if (result.nextPrice && !result.cancelAtPeriodEnd) {
      const from = new Date(result.nextPrice.from).toISOString().slice(0, 10);
      lines.push(
        `<p data-next-price>${escapeHtml(t.subscriptionNextPrice(result.nextPrice.price, from))}</p>`,
      );
    }
  }
  if (justCancelled) lines.push(`<p class="ok">${escapeHtml(t.subscriptionCancelled)}</p>`);
  if (result.cancellable) {
    lines.push(
      `<form method="post" action="${escapeHtml(view.path)}"><button type="submit" class="danger">${escapeHtml(t.subscriptionCancelNow)}</button></form>`,
    );
  }
  // The buyer's account (docs/account.md) is where every subscription is managed; this link-only page stays
  // for the addresses already sent in messages.
  lines.push(`<p><a href="/account?lang=${view.locale}">${escapeHtml(t.subscriptionAccount)}</a></p>`);
  const body = `<p class="muted"><bdi>${escapeHtml(result.storeName)}</bdi></p>
<h1><bdi>${escapeHtml(result.productName)}</bdi> (<bdi>${escapeHtml(result.planName)}</bdi>)</h1>
${lines.join('\n')}`;
  return {
    status: 200,
    html: layout(t.subscriptionTitle, body, { locale: view.locale, switchHref: view.switchHref }),
  };
}

const refParams = Joi.object<{ subscriptionRef: string }, true>({
  subscriptionRef: Joi.string().max(200).required().description('The subscription id and its signature.'),
});

export const subscriptionPageRoutes = [
  defineRoute({
    method: 'get',
    path: '/pay/subscriptions/{subscriptionRef}',
    interface: 'platform',
    operationId: 'buyerSubscriptionPage',
    summary: 'The buyer’s subscription page',
    description:
      'The link in every renewal message: the plan, its state and period, and a button that stops the ' +
      'renewals. The link itself is the key (no sign-in). Arabic or English like the payment pages.',
    guards: paymentStatusGuards,
    request: {
      params: refParams,
      query: Joi.object<{ lang?: string }, true>({ lang: Joi.string().valid('ar', 'en') }),
    },
    responses: { 200: htmlResponse('The subscription.'), 404: htmlResponse('Unknown or forged link.') },
    handler: async (ctx, { params }) => {
      sendHtml(ctx, pageView(await subscriptionPage(ctx.deps, params.subscriptionRef), viewOf(ctx)));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/pay/subscriptions/{subscriptionRef}',
    interface: 'platform',
    operationId: 'buyerCancelSubscription',
    summary: 'The buyer cancels the renewal',
    description:
      'Stops the renewals: an active subscription stays active until its period ends, then is cancelled; a ' +
      'past-due one is cancelled now. Answers the page. Pressing it again changes nothing.',
    guards: paymentStatusGuards,
    request: { params: refParams },
    responses: {
      200: htmlResponse('The subscription, cancelled.'),
      404: htmlResponse('Unknown or forged link.'),
    },
    handler: async (ctx, { params }) => {
      const page = await cancelFromPage(ctx.deps, params.subscriptionRef);
      sendHtml(ctx, pageView(page, viewOf(ctx), page.kind === 'subscription' && !page.cancellable));
    },
  }),
];
