import type { SandboxPayment } from '../../shared/providers/sandbox';
import { escapeHtml, HtmlAnswer, layout } from '../pay/html';
import { formatAmount, STRINGS } from '../pay/i18n';
import { sandboxButtons, View } from '../pay/views';

/** The sandbox provider's own page: what a customer sees on a real provider's hosted payment page. */
export function sandboxPageView(payment: SandboxPayment | null, view: View): HtmlAnswer {
  const t = STRINGS[view.locale];
  const opts = { locale: view.locale, switchHref: view.switchHref };
  if (!payment) {
    return {
      status: 404,
      html: layout(t.paymentNotFound, `<h1>${escapeHtml(t.paymentNotFound)}</h1>`, opts),
    };
  }
  if (payment.card_only) return cardPageView(payment, view);
  const header = `<h1><bdi>${escapeHtml(payment.description)}</bdi></h1>
<p class="amount">${escapeHtml(formatAmount(payment.amount_minor, payment.currency, view.locale))}</p>`;
  if (payment.status !== 'pending') {
    const outcome = payment.status === 'paid' ? t.sandboxPaid : t.sandboxDeclined;
    return {
      status: 200,
      html: layout(
        t.sandboxTitle,
        `${header}<p>${escapeHtml(outcome)}</p><a class="button secondary" href="${escapeHtml(payment.return_url)}">${escapeHtml(t.backToStore)}</a>`,
        opts,
      ),
    };
  }
  return {
    status: 200,
    html: layout(t.sandboxTitle, `${header}${sandboxButtons(view, view.path)}`, opts),
  };
}

const CARD_WORDS = {
  en: {
    title: 'Save a card (sandbox)',
    note: 'Sandbox card page · no card is read and nothing is charged',
    save: 'Save card',
    fail: 'Fail',
    saved: 'The card was saved.',
    failed: 'The card was not saved.',
    back: 'Back',
  },
  ar: {
    title: 'حفظ بطاقة (تجريبي)',
    note: 'صفحة بطاقة تجريبية · لا تُقرأ أي بطاقة ولا يُخصم أي مبلغ',
    save: 'احفظ البطاقة',
    fail: 'فشل',
    saved: 'حُفظت البطاقة.',
    failed: 'لم تُحفظ البطاقة.',
    back: 'رجوع',
  },
};

/** The sandbox's card-saving page (a provider's tokenisation page): Save card or Fail, no amount. */
function cardPageView(payment: SandboxPayment, view: View): HtmlAnswer {
  const w = CARD_WORDS[view.locale];
  const opts = { locale: view.locale, switchHref: view.switchHref };
  const header = `<h1>${escapeHtml(w.title)}</h1><p><bdi>${escapeHtml(payment.description)}</bdi></p><p class="muted">${escapeHtml(w.note)}</p>`;
  if (payment.status !== 'pending') {
    return {
      status: 200,
      html: layout(
        w.title,
        `${header}<p>${escapeHtml(payment.status === 'paid' ? w.saved : w.failed)}</p><a class="button secondary" href="${escapeHtml(payment.return_url)}">${escapeHtml(w.back)}</a>`,
        opts,
      ),
    };
  }
  const action = escapeHtml(view.path);
  return {
    status: 200,
    html: layout(
      w.title,
      `${header}<form method="post" action="${action}"><input type="hidden" name="outcome" value="paid"><button type="submit">${escapeHtml(w.save)}</button></form>
<form method="post" action="${action}"><input type="hidden" name="outcome" value="failed"><button type="submit" class="danger">${escapeHtml(w.fail)}</button></form>`,
      opts,
    ),
  };
}
