import type { LaunchChecklist } from '../../../../shared/services/launch/checklist';
import { esc, tokenField } from '../../layout';
import type { Shell } from '../../view-parts';
import { LAUNCH_TEXT } from './strings';

/**
 * The launch checklist on the home page (docs/dashboard.md, "Launch checklist"): shown until every step
 * is done, each step a link to the page that does it, its state in words (not only a tick mark).
 */
export function launchChecklistView(s: Shell, list: LaunchChecklist, production: boolean): string {
  if (list.done) return '';
  const l = LAUNCH_TEXT[s.locale];
  const items = list.steps
    .map((step) => {
      const hint = step.step === 'payment' && production ? l.hints.paymentProduction : l.hints[step.step];
      return `<li data-step="${step.step}" data-done="${step.done}"><span aria-hidden="true">${step.done ? '✔' : '○'}</span> <a href="${esc(step.href)}">${esc(l.items[step.step])}</a> <span class="badge">${esc(step.done ? l.done : l.todo)}</span><br><span class="muted">${esc(hint)}</span></li>`;
    })
    .join('');
  const count = list.steps.filter((x) => x.done).length;
  return `<section class="card" aria-labelledby="launch-title" data-launch-checklist><h2 id="launch-title">${esc(l.title)} <span class="num muted">${count}/${list.steps.length}</span></h2>
<p class="muted">${esc(l.intro)}</p><ol style="list-style:none;padding:0;margin:0;display:grid;gap:.6rem">${items}</ol></section>`;
}

/**
 * A saved product's widget snippet (the real product id and embed key) and its Copy button. The button
 * is a form (POST /merchant/products/{id}/snippet-copied, which ticks the checklist's "share" step); the
 * page's script (/merchant/assets/launch.js) also puts the snippet on the clipboard. Without the script
 * the form still posts and the text can be selected by hand.
 */
export function snippetSection(s: Shell, productId: number, embedKey: string, publicBaseUrl: string): string {
  const l = LAUNCH_TEXT[s.locale];
  const buy = s.locale === 'ar' ? 'اشترِ الآن' : 'Buy now';
  const snippet = `<script src="${publicBaseUrl}/widget/v1.js" async></script>\n<button data-matjar-product="${productId}" data-matjar-key="${embedKey}">${buy}</button>`;
  return `<section class="card" id="share" data-share><h2><label for="product-snippet">${esc(l.snippetTitle)}</label></h2>
<p class="hint" id="product-snippet-hint">${esc(l.snippetHint)}</p>
<textarea id="product-snippet" readonly rows="3" dir="ltr" class="mono" aria-describedby="product-snippet-hint">${esc(snippet)}</textarea>
<form method="post" action="/merchant/products/${productId}/snippet-copied" data-copy-snippet data-copied-label="${esc(l.copied)}">${tokenField(s.formToken)}<button type="submit" class="secondary">${esc(l.copy)}</button> <span aria-live="polite" data-copy-status></span></form>
<script src="/merchant/assets/launch.js" defer></script></section>`;
}
