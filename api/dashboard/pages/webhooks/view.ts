import type { DeliveryRow } from '../../../../shared/services/webhooks/replay';
import type { EndpointView } from '../../../../shared/services/webhooks/endpoints';
import { MERCHANT_EVENT_TYPES, SUBSCRIBABLE_EVENTS } from '../../../../shared/services/webhooks/events';
import { formatDate } from '../../i18n';
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell, count } from '../../view-parts';

/** The webhooks page's content. */

export function webhooksView(
  s: Shell,
  endpoints: EndpointView[],
  deliveries: DeliveryRow[],
  opts: { secret: string | null; notice: string | null; error: string | null; url: string; events: string[] },
): string {
  const t = s.t;
  const endpointRows = endpoints
    .map(
      (
        e,
      ) => `<tr><td><code>${esc(e.url)}</code></td><td>${e.events.map((ev) => `<code>${esc(ev)}</code>`).join(' ')}</td>
<td class="num">${e.deliveries.delivered} / ${e.deliveries.failed} / ${e.deliveries.pending}</td>
<td><form method="post" action="/merchant/webhooks/${e.id}/test">${tokenField(s.formToken)}<label for="test-type-${e.id}">${esc(t.testEventType)}</label>
<select id="test-type-${e.id}" name="type" dir="ltr">${MERCHANT_EVENT_TYPES.map((ev) => `<option value="${esc(ev)}">${esc(ev)}</option>`).join('')}</select>
<button type="submit" class="secondary" aria-label="${esc(`${t.sendTest} ${e.url}`)}">${esc(t.sendTest)}</button></form>
<form method="post" action="/merchant/webhooks/${e.id}/delete">${tokenField(s.formToken)}<button type="submit" class="danger" aria-label="${esc(`${t.deleteEndpoint} ${e.url}`)}">${esc(t.deleteEndpoint)}</button></form></td></tr>`,
    )
    .join('');
  const deliveryRows = deliveries
    .map(
      (
        d,
      ) => `<tr><td><code>${esc(d.event_type)}</code><br><span class="muted"><code>${esc(d.endpoint_url)}</code></span></td>
<td>${esc(t.deliveryState[d.status] ?? d.status)}${d.response_status ? ` <span class="num">(${d.response_status})</span>` : ''}${d.last_error ? `<br><span class="muted">${esc(d.last_error)}</span>` : ''}</td>
<td class="num">${esc(count(s, d.attempts))}</td><td class="num">${esc(formatDate(d.created_at, s))}</td>
<td><form method="post" action="/merchant/webhooks/deliveries/${d.id}/replay">${tokenField(s.formToken)}<button type="submit" class="secondary" aria-label="${esc(`${t.replay} #${d.id}`)}">${esc(t.replay)}</button></form></td></tr>`,
    )
    .join('');
  return shellPage(
    { ...s, current: 'webhooks' },
    t.webhooks,
    `<h1>${esc(t.webhooks)}</h1>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${opts.secret ? `<section class="card"><label for="new-secret">${esc(t.newSecret)}</label><input id="new-secret" readonly dir="ltr" class="mono" value="${esc(opts.secret)}"></section>` : ''}
<form method="post" action="/merchant/webhooks" class="card" novalidate><h2>${esc(t.addEndpoint)}</h2>
<p class="muted">${esc(t.webhooksIntro)}</p>${tokenField(s.formToken)}
${opts.error ? `<p class="alert" role="alert" id="endpoint-error">${esc(opts.error)}</p>` : ''}
<label for="endpoint-url">${esc(t.endpointUrl)}</label>
<input id="endpoint-url" name="url" type="url" dir="ltr" required maxlength="2000" autocomplete="off" value="${esc(opts.url)}"${opts.error ? ' aria-invalid="true" aria-describedby="endpoint-error"' : ''}>
<fieldset class="plain"><legend>${esc(t.endpointEvents)}</legend><div class="checks">${SUBSCRIBABLE_EVENTS.map(
      (ev) =>
        `<label class="check"><input type="checkbox" name="events" value="${esc(ev)}"${opts.events.includes(ev) ? ' checked' : ''}> <code>${esc(ev)}</code></label>`,
    ).join('')}</div></fieldset>
<button type="submit">${esc(t.addEndpoint)}</button></form>
<section class="card"><h2>${esc(t.webhooks)}</h2>${
      endpoints.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.endpointUrl)}</th><th scope="col">${esc(t.endpointEvents)}</th><th scope="col">${esc(`${t.deliveryState.delivered} / ${t.deliveryState.failed} / ${t.deliveryState.pending}`)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${endpointRows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noEndpoints)}</p>`
    }</section>
<section class="card"><h2>${esc(t.deliveries)}</h2>${
      deliveries.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.event)}</th><th scope="col">${esc(t.status)}</th><th scope="col">${esc(t.attempts)}</th><th scope="col">${esc(t.date)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${deliveryRows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noDeliveries)}</p>`
    }</section>`,
  );
}
