import { formatDisplay } from '../../shared/money';
import type { SandboxPayment } from '../../shared/providers/sandbox';
import { escapeHtml, HtmlAnswer, layout } from '../pay/html';

/** The sandbox provider's own page: what a customer sees on a real provider's hosted payment page. */
export function sandboxPageView(payment: SandboxPayment | null, action: string): HtmlAnswer {
  if (!payment) {
    return { status: 404, html: layout('Payment not found', '<h1>Payment not found</h1>') };
  }
  const header = `<p class="muted">Sandbox payment provider &middot; no real money moves</p>
<h1>${escapeHtml(payment.description)}</h1>
<p class="amount">${escapeHtml(formatDisplay(payment.amount_minor, payment.currency))}</p>`;
  if (payment.status !== 'pending') {
    const outcome = payment.status === 'paid' ? 'This payment was paid.' : 'This payment was declined.';
    return {
      status: 200,
      html: layout(
        'Sandbox payment',
        `${header}<p>${outcome}</p><a class="button secondary" href="${escapeHtml(payment.return_url)}">Back to the store</a>`,
      ),
    };
  }
  return {
    status: 200,
    html: layout(
      'Sandbox payment',
      `${header}
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="outcome" value="paid"><button type="submit">Pay</button></form>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="outcome" value="failed"><button type="submit" class="danger">Fail</button></form>`,
    ),
  };
}

export function sandboxRefusedView(status: number, message: string): HtmlAnswer {
  return {
    status,
    html: layout('Sandbox payment', `<h1>Sandbox payment</h1><p class="error">${escapeHtml(message)}</p>`),
  };
}
