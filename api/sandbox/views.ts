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
