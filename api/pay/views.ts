import type {
  CheckoutPage,
  Delivery,
  ManualInstructions,
  PageAction,
  PaymentPage,
  Summary,
  Withdrawn,
} from '../../shared/services/payments';
import type { DocumentLink } from '../../shared/services/invoices/read';
import { PAYMENT_METHOD_NAMES } from '../../shared/services/payment-methods';
import type { PaymentMethodId } from '../../db/models';
import { escapeHtml, HtmlAnswer, layout } from './html';
import { formatAmount, formatDeadline, Locale, type Reading, Strings, STRINGS } from './i18n';
import { methodMark } from './marks';
import type { RevealAnswer } from '../../shared/services/reveal/reveal';
import { goodsHtml, withdrawnText } from './reveal-view';

/** How often a waiting page reloads itself (the payment status clients poll every 2 to 3 s as well). */
const REFRESH_SECONDS = 2;

/** What every view needs from the request: the language, the switch's address, this page's address. */
export interface View {
  locale: Locale;
  switchHref: string;
  /** This page's path, without a query: where its forms post. */
  path: string;
}

const strings = (view: View): Strings => STRINGS[view.locale];

/** The services' messages to the buyer are English; the ones a buyer meets most read in Arabic too. */
const ARABIC_MESSAGES: Readonly<Record<string, string>> = {
  'The payment was not completed.': 'لم تكتمل عملية الدفع.',
  'The payment was declined (sandbox)': 'تم رفض الدفعة (تجريبي).',
  'This payment session has expired.': 'انتهت صلاحية جلسة الدفع هذه.',
  'The payment provider refused to start this payment.': 'رفض مزوّد الدفع بدء هذه العملية.',
  'The payment provider could not be reached.': 'تعذّر الوصول إلى مزوّد الدفع.',
  'Invalid payment method': 'طريقة دفع غير صالحة',
  'Order already created for this checkout': 'تم إنشاء طلب لهذه العملية مسبقاً',
};

function localizedMessage(message: string, locale: Locale): string {
  return locale === 'ar' ? (ARABIC_MESSAGES[message] ?? message) : message;
}

export function methodLabel(method: PaymentMethodId, locale: Locale): string {
  const names = PAYMENT_METHOD_NAMES[method];
  return locale === 'ar' ? names.name_ar : names.name_en;
}

function page(
  view: View,
  title: string,
  body: string,
  extra: { refresh?: boolean; refreshUrl?: string } = {},
): string {
  return layout(title, body, {
    locale: view.locale,
    switchHref: view.switchHref,
    ...(extra.refresh ? { refreshSeconds: REFRESH_SECONDS, refreshUrl: extra.refreshUrl } : {}),
  });
}

/** How the summary's numbers are written: the page's language with the store's digits. */
const readingOf = (s: Summary, view: View): Reading => ({
  locale: view.locale,
  ...(s.digits ? { digits: s.digits } : {}),
});

/** The product's name in the page's language (docs/store-pages.md: name_ar for Arabic readers). */
const productNameOf = (s: Summary, view: View): string =>
  view.locale === 'ar' && s.productNameAr ? s.productNameAr : s.productName;

function summary(s: Summary, view: View): string {
  const renews = s.renews ? `\n<p class="renews">${escapeHtml(strings(view).renews(s.renews))}</p>` : '';
  return `<p class="muted"><bdi>${escapeHtml(s.storeName)}</bdi></p>
<h1><bdi>${escapeHtml(productNameOf(s, view))}</bdi>${s.quantity > 1 ? ` &times; ${s.quantity}` : ''}</h1>
<p class="amount">${escapeHtml(formatAmount(s.amountMinor, s.currency, readingOf(s, view)))}</p>${renews}`;
}

function notFound(view: View): HtmlAnswer {
  const t = strings(view);
  return {
    status: 404,
    html: page(
      view,
      t.checkoutNotFound,
      `<h1>${escapeHtml(t.checkoutNotFound)}</h1><p class="muted">${escapeHtml(t.checkoutNotFoundText)}</p>`,
    ),
  };
}

/** A renewal's payment link voided by the subscription's cancellation: 410, it cannot be paid. */
function subscriptionCancelled(view: View): HtmlAnswer {
  const t = strings(view);
  return {
    status: 410,
    html: page(
      view,
      t.renewalCancelledTitle,
      `<h1>${escapeHtml(t.renewalCancelledTitle)}</h1><p class="error" data-renewal-cancelled>${escapeHtml(t.renewalCancelledText)}</p>`,
    ),
  };
}

function instructions(i: ManualInstructions, view: View): string {
  const t = strings(view);
  const amount = formatAmount(i.amountMinor, i.currency, view.locale);
  if (i.deadline.passed) return `<p class="error">${escapeHtml(t.paymentDeadlinePassed)}</p>`;
  const deadline = `<p class="deadline"><strong>${escapeHtml(
    t.payWithin(i.deadline.days, formatDeadline(i.deadline.at, view.locale)),
  )}</strong></p>`;
  if (i.kind === 'bank_transfer') {
    const d = i.details;
    return `${deadline}<p>${escapeHtml(t.transferTo(amount))}</p>
<dl><dt>${escapeHtml(t.bank)}</dt><dd><bdi>${escapeHtml(d.bank_name)}</bdi></dd><dt>${escapeHtml(t.accountName)}</dt><dd><bdi>${escapeHtml(d.account_name)}</bdi></dd>
<dt>${escapeHtml(t.accountNumber)}</dt><dd class="ltr" dir="ltr">${escapeHtml(d.account_number)}</dd><dt>${escapeHtml(t.iban)}</dt><dd class="ltr" dir="ltr">${escapeHtml(d.iban)}</dd></dl>
<p class="muted">${escapeHtml(t.confirmedOnTransfer)}</p>`;
  }
  const link = i.link
    ? `<a class="button" href="${escapeHtml(i.link)}" rel="noreferrer">${escapeHtml(t.payWithPaypal)}</a>`
    : '';
  const email = i.email ? `<p>${escapeHtml(t.sendByPaypal(amount, i.email))}</p>` : '';
  return `${deadline}${email}${link}<p class="muted">${escapeHtml(t.confirmedOnPayment)}</p>`;
}

/** What was bought, the order number, and how and where the goods arrive. */
function successPage(
  view: View,
  s: Summary,
  order: { id: number; number: number } | null,
  delivery: Delivery,
  document: DocumentLink | null,
  goods: RevealAnswer | null = null,
): HtmlAnswer {
  const t = strings(view);
  const phone = `\u2066${delivery.phoneMasked}\u2069`;
  const lines: string[] = [];
  if (delivery.keys) lines.push(t.keysBy(phone));
  if (delivery.license) lines.push(t.licenseBy(phone));
  if (delivery.inGame) lines.push(t.inGame(delivery.inGame.player));
  if (delivery.service) lines.push(t.service);
  if (delivery.subscription) lines.push(t.subscription);
  if (lines.length === 0) lines.push(t.confirmationBy(phone));
  // The store's own number leads (the one its merchant and messages use); the platform's id is the
  // reference beneath it (docs/dashboard.md, "Order numbers").
  const orderLine =
    order !== null
      ? `<p>${escapeHtml(t.orderNumber)}: <span class="order" data-order-id="${order.id}" data-order-number="${order.number}">#${order.number}</span></p>
<p class="muted">${escapeHtml(t.orderReference(order.id))}</p>`
      : '';
  const body = `<p class="muted"><bdi>${escapeHtml(s.storeName)}</bdi></p>
<h1 class="ok">${escapeHtml(t.paidTitle)}</h1>
${orderLine}
${/* The goods revealed to the browser that paid (keys, downloads) belong here, under the order. */ ''}<h2>${escapeHtml(t.youBought)}</h2>
<p><bdi>${escapeHtml(productNameOf(s, view))}</bdi>${s.quantity > 1 ? ` &times; ${s.quantity}` : ''} &middot; <span class="ltr">${escapeHtml(formatAmount(s.amountMinor, s.currency, readingOf(s, view)))}</span></p>
${goodsHtml(goods, view.locale)}
<h2>${escapeHtml(t.deliveryTitle)}</h2>
${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
<p class="muted">${escapeHtml(t.keepNumber)}</p>
<p><a href="/account?lang=${view.locale}" data-account-link>${escapeHtml(t.accountLink)}</a></p>${
    document
      ? `\n<a class="button secondary" href="${escapeHtml(document.url)}" data-invoice-link>${escapeHtml(document.kind === 'invoice' ? t.invoiceLink : t.receiptLink)}</a>`
      : ''
  }`;
  return { status: 200, html: page(view, t.paidTitle, body) };
}

export function checkoutPageView(result: CheckoutPage, view: View): HtmlAnswer {
  const t = strings(view);
  switch (result.kind) {
    case 'not_found':
      return notFound(view);
    case 'subscription_cancelled':
      return subscriptionCancelled(view);
    case 'paid':
      return successPage(
        view,
        result.summary,
        { id: result.orderId, number: result.orderNumber },
        result.delivery,
        result.document,
      );
    case 'withdrawn':
      return withdrawnPage(view, result);
    case 'under_review':
      return {
        status: 200,
        html: page(
          view,
          t.waitingReviewTitle,
          `${summary(result.summary, view)}<p>${escapeHtml(t.waitingReview(result.orderId))}</p>${result.instructions ? instructions(result.instructions, view) : ''}`,
        ),
      };
    case 'choose': {
      if (result.methods.length === 0) {
        return {
          status: 200,
          html: page(
            view,
            t.chooseTitle,
            `${summary(result.summary, view)}<p class="error">${escapeHtml(t.noMethod)}</p>`,
          ),
        };
      }
      // One form, one radio per method (mark and localized name), one Pay button: works without JavaScript.
      const options = result.methods
        .map(
          (m, i) =>
            `<label class="method"><input type="radio" name="payment_method" value="${escapeHtml(m.id)}"${i === 0 ? ' checked' : ''} required>${methodMark(m.id)}<span>${escapeHtml(methodLabel(m.id, view.locale))}</span></label>`,
        )
        .join('\n');
      const amount = formatAmount(
        result.summary.amountMinor,
        result.summary.currency,
        readingOf(result.summary, view),
      );
      const body = `${summary(result.summary, view)}
<form method="post" action="${escapeHtml(view.path)}">
<fieldset><legend>${escapeHtml(t.payMethod)}</legend>
${options}
</fieldset>
<button type="submit">${escapeHtml(t.payButton(amount))}</button>
</form>`;
      return { status: 200, html: page(view, t.chooseTitle, body) };
    }
  }
}

/** The sandbox provider's Pay and Fail, posting `outcome` to `action` (docs/operations.md). */
export function sandboxButtons(view: View, action: string): string {
  const t = strings(view);
  return `<p class="muted">${escapeHtml(t.sandboxNote)}</p>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="outcome" value="paid"><button type="submit">${escapeHtml(t.sandboxPay)}</button></form>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="outcome" value="failed"><button type="submit" class="danger">${escapeHtml(t.sandboxFail)}</button></form>`;
}

/** A refunded or cancelled order's page: says so, never "payment received". */
function withdrawnPage(view: View, w: Withdrawn): HtmlAnswer {
  const words = withdrawnText(w.status, view.locale, w.soldOut);
  return {
    status: 200,
    html: page(
      view,
      words.title,
      `<p class="muted"><bdi>${escapeHtml(w.summary.storeName)}</bdi></p>
<h1 data-order-state="${w.soldOut ? 'sold-out' : w.status === 6 ? 'refunded' : 'cancelled'}">${escapeHtml(words.title)}</h1>
<p><span class="order" data-order-id="${w.orderId}">#${w.orderNumber}</span> · <bdi>${escapeHtml(w.summary.productName)}</bdi></p>
<p>${escapeHtml(words.message)}</p>`,
    ),
  };
}

export function paymentPageView(
  result: PaymentPage,
  view: View,
  goods: RevealAnswer | null = null,
): HtmlAnswer {
  const t = strings(view);
  switch (result.kind) {
    case 'not_found':
      return notFound(view);
    case 'forward':
      return { status: 302, location: result.url };
    case 'sandbox':
      return {
        status: 200,
        html: page(
          view,
          t.sandboxTitle,
          `${summary(result.summary, view)}${sandboxButtons(view, view.path)}`,
        ),
      };
    case 'waiting': {
      const text = result.reason === 'creating' ? t.creating : t.confirming;
      const resume = result.continueUrl
        ? `<a class="button secondary" href="${escapeHtml(result.continueUrl)}" rel="noreferrer">${escapeHtml(t.backToProvider)}</a>`
        : '';
      return {
        status: 200,
        html: page(
          view,
          t.inProgressTitle,
          `${summary(result.summary, view)}<p>${escapeHtml(text)}</p>${resume}`,
          // Confirming reloads as a return from the provider (which asks it again); creating reloads as is.
          { refresh: true, refreshUrl: result.reason === 'confirming' ? `${view.path}?return=1` : undefined },
        ),
      };
    }
    case 'paid':
      return successPage(
        view,
        result.summary,
        result.orderId !== null && result.orderNumber !== null
          ? { id: result.orderId, number: result.orderNumber }
          : null,
        result.delivery,
        result.document,
        goods,
      );
    case 'withdrawn':
      return withdrawnPage(view, result);
    case 'closed':
      return {
        status: 200,
        html: page(
          view,
          t.placedTitle,
          `${summary(result.summary, view)}<p>${escapeHtml(t.alreadyPlaced(result.orderId))}</p>`,
        ),
      };
    case 'failed': {
      const retry = result.retryable
        ? `<form method="post" action="${escapeHtml(`${view.path}/retry`)}"><button type="submit">${escapeHtml(t.retryWith(methodLabel(result.methodId, view.locale)))}</button></form>`
        : `<p class="muted">${escapeHtml(t.noLongerPayable)}</p>`;
      return {
        status: 200,
        html: page(
          view,
          t.notCompletedTitle,
          `${summary(result.summary, view)}<p class="error">${escapeHtml(localizedMessage(result.message, view.locale))}</p>${retry}`,
        ),
      };
    }
  }
}

/** The answer to a form post: 303 to where the payment goes on, manual instructions, or an error page. */
export function pageActionView(action: PageAction, view: View): HtmlAnswer {
  const t = strings(view);
  switch (action.kind) {
    case 'redirect':
      return { status: 303, location: action.url };
    case 'subscription_cancelled':
      return subscriptionCancelled(view);
    case 'manual':
      return {
        status: 200,
        html: page(
          view,
          t.completeTitle,
          `${summary(action.summary, view)}<p>${escapeHtml(t.waitingReview(action.orderId))}</p>${instructions(action.instructions, view)}`,
        ),
      };
    case 'error':
      return {
        status: action.status,
        html: page(
          view,
          t.notStartedTitle,
          `<h1>${escapeHtml(t.notStartedTitle)}</h1><p class="error">${escapeHtml(localizedMessage(action.message, view.locale))}</p>`,
        ),
      };
  }
}

/** A short page with a title and one message (sandbox refusals). */
export function messageView(view: View, status: number, title: string, message: string): HtmlAnswer {
  return {
    status,
    html: page(view, title, `<h1>${escapeHtml(title)}</h1><p class="error">${escapeHtml(message)}</p>`),
  };
}
