import { formatDisplay } from '../../shared/money';
import type {
  CheckoutPage,
  ManualInstructions,
  PageAction,
  PaymentPage,
  Summary,
} from '../../shared/services/payments';
import { escapeHtml, HtmlAnswer, layout } from './html';

/** How often a waiting page reloads itself (the payment status clients poll every 2 to 3 s as well). */
const REFRESH_SECONDS = 2;

function summary(s: Summary): string {
  return `<p class="muted">${escapeHtml(s.storeName)}</p>
<h1>${escapeHtml(s.productName)}${s.quantity > 1 ? ` &times; ${s.quantity}` : ''}</h1>
<p class="amount">${escapeHtml(formatDisplay(s.amountMinor, s.currency))}</p>`;
}

function notFound(): HtmlAnswer {
  return {
    status: 404,
    html: layout(
      'Checkout not found',
      '<h1>Checkout not found</h1><p class="muted">This payment link has expired or does not exist. Please start the purchase again.</p>',
    ),
  };
}

function instructions(i: ManualInstructions): string {
  const amount = escapeHtml(formatDisplay(i.amountMinor, i.currency));
  if (i.kind === 'bank_transfer') {
    const d = i.details;
    return `<p>Transfer <strong>${amount}</strong> to:</p>
<dl><dt>Bank</dt><dd>${escapeHtml(d.bank_name)}</dd><dt>Account name</dt><dd>${escapeHtml(d.account_name)}</dd>
<dt>Account number</dt><dd>${escapeHtml(d.account_number)}</dd><dt>IBAN</dt><dd>${escapeHtml(d.iban)}</dd></dl>
<p class="muted">Your order is confirmed once the store has received the transfer.</p>`;
  }
  const link = i.link
    ? `<a class="button" href="${escapeHtml(i.link)}" rel="noreferrer">Pay with PayPal</a>`
    : '';
  const email = i.email
    ? `<p>Send <strong>${amount}</strong> by PayPal to <strong>${escapeHtml(i.email)}</strong>.</p>`
    : '';
  return `${email}${link}<p class="muted">Your order is confirmed once the store has received the payment.</p>`;
}

export function checkoutPageView(page: CheckoutPage, formAction: string): HtmlAnswer {
  switch (page.kind) {
    case 'not_found':
      return notFound();
    case 'paid':
      return {
        status: 200,
        html: layout(
          'Payment received',
          `${summary(page.summary)}<p>Payment received. Your order number is <strong>#${page.orderId}</strong>.</p>`,
        ),
      };
    case 'under_review':
      return {
        status: 200,
        html: layout(
          'Waiting for your payment',
          `${summary(page.summary)}<p>Order <strong>#${page.orderId}</strong> is waiting for your payment.</p>${page.instructions ? instructions(page.instructions) : ''}`,
        ),
      };
    case 'choose': {
      const buttons = page.methods
        .map(
          (m) => `<form method="post" action="${escapeHtml(formAction)}">
<input type="hidden" name="payment_method" value="${escapeHtml(m.id)}"><button type="submit">Pay with ${escapeHtml(m.name)}</button></form>`,
        )
        .join('\n');
      const body =
        page.methods.length > 0
          ? buttons
          : '<p class="error">No payment method is available for this order.</p>';
      return { status: 200, html: layout('Choose how to pay', `${summary(page.summary)}${body}`) };
    }
  }
}

export function paymentPageView(page: PaymentPage, retryAction: string): HtmlAnswer {
  switch (page.kind) {
    case 'not_found':
      return notFound();
    case 'forward':
      return { status: 302, location: page.url };
    case 'waiting': {
      const text =
        page.reason === 'creating'
          ? 'Preparing your payment&hellip; you will be taken to the payment page in a moment.'
          : 'Confirming your payment&hellip; this page updates by itself.';
      const resume = page.continueUrl
        ? `<a class="button secondary" href="${escapeHtml(page.continueUrl)}" rel="noreferrer">Back to the payment page</a>`
        : '';
      return {
        status: 200,
        html: layout('Payment in progress', `${summary(page.summary)}<p>${text}</p>${resume}`, {
          refreshSeconds: REFRESH_SECONDS,
        }),
      };
    }
    case 'paid':
      return {
        status: 200,
        html: layout(
          'Payment received',
          `${summary(page.summary)}<p>Payment received.${page.orderId ? ` Your order number is <strong>#${page.orderId}</strong>.` : ''}</p>`,
        ),
      };
    case 'closed':
      return {
        status: 200,
        html: layout(
          'Order placed',
          `${summary(page.summary)}<p>Order <strong>#${page.orderId}</strong> was already placed for this checkout.</p>`,
        ),
      };
    case 'failed': {
      const retry = page.retryable
        ? `<form method="post" action="${escapeHtml(retryAction)}"><button type="submit">Retry with ${escapeHtml(page.method)}</button></form>`
        : '<p class="muted">This checkout can no longer be paid. Please start the purchase again.</p>';
      return {
        status: 200,
        html: layout(
          'Payment not completed',
          `${summary(page.summary)}<p class="error">${escapeHtml(page.message)}</p>${retry}`,
        ),
      };
    }
  }
}

/** The answer to a form post: 303 to where the payment goes on, manual instructions, or an error page. */
export function pageActionView(action: PageAction): HtmlAnswer {
  switch (action.kind) {
    case 'redirect':
      return { status: 303, location: action.url };
    case 'manual':
      return {
        status: 200,
        html: layout(
          'Complete your payment',
          `${summary(action.summary)}<p>Order <strong>#${action.orderId}</strong> is waiting for your payment.</p>${instructions(action.instructions)}`,
        ),
      };
    case 'error':
      return {
        status: action.status,
        html: layout(
          'Payment not started',
          `<h1>Payment not started</h1><p class="error">${escapeHtml(action.message)}</p>`,
        ),
      };
  }
}
