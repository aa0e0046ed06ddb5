import type { LaunchChecklist } from '../../../../shared/services/launch/checklist';
import { esc } from '../../layout';
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
