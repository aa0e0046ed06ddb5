import type { StaffMember } from '../../../../shared/services/staff/accounts';
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell } from '../../view-parts';

/** The staff page's content. */

// ---------------------------------------------------------------- staff

/** What an owner grants a support member on top of the role (shared/services/staff/roles.ts). */
function grantsForm(s: Shell, m: StaffMember): string {
  const id = `grant-confirm-${m.id}`;
  const on = m.grants.includes('orders.confirm_payment');
  return `<form method="post" action="/merchant/staff/${m.id}/grants" style="margin:.25rem 0 0">${tokenField(s.formToken)}<label for="${id}" style="font-weight:normal"><input type="checkbox" id="${id}" name="confirm_payment" value="1"${on ? ' checked' : ''}> ${esc(s.t.grantConfirmPayment)}</label> <button type="submit" class="secondary" style="margin:0">${esc(s.t.save)}</button></form>`;
}

export function staffView(
  s: Shell,
  staff: StaffMember[],
  form: {
    values: { name: string; country_code: string; phone: string; role: string };
    error: string | null;
    notice: string | null;
  },
): string {
  const t = s.t;
  const rows = staff
    .map(
      (
        m,
      ) => `<tr><td><bdi>${esc(m.name || '—')}</bdi></td><td><span class="tel">+${esc(m.country_code)} ${esc(m.phone)}</span></td><td>${esc(t.role[m.role] ?? m.role)}${m.role === 'support' ? grantsForm(s, m) : ''}</td>
<td><form method="post" action="/merchant/staff/${m.id}/remove">${tokenField(s.formToken)}<button type="submit" class="secondary" style="margin:0">${esc(t.remove)}</button></form></td></tr>`,
    )
    .join('');
  const v = form.values;
  const roles = ['support', 'manager', 'owner']
    .map((r) => `<option value="${r}"${v.role === r ? ' selected' : ''}>${esc(t.role[r])}</option>`)
    .join('');
  return shellPage(
    { ...s, current: 'staff' },
    t.staff,
    `<h1>${esc(t.staff)}</h1>
${form.notice ? `<p class="notice" role="status">${esc(form.notice)}</p>` : ''}
<section class="card"><div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.name)}</th><th scope="col">${esc(t.phone)}</th><th scope="col">${esc(t.role.owner)} / ${esc(t.role.manager)} / ${esc(t.role.support)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${rows}</tbody></table></div></section>
<form method="post" action="/merchant/staff" class="card" novalidate>
<h2>${esc(t.inviteTitle)}</h2>
<p class="muted">${esc(t.staffRoles)}</p>
${tokenField(s.formToken)}
<label for="staff-name">${esc(t.name)}</label><input id="staff-name" name="name" maxlength="200" autocomplete="off" value="${esc(v.name)}">
<div class="row"><div class="cc"><label for="staff-cc">${esc(t.countryCode)}</label><input id="staff-cc" name="country_code" inputmode="numeric" maxlength="4" dir="ltr" autocomplete="off" value="${esc(v.country_code || '966')}"></div>
<div><label for="staff-phone">${esc(t.phone)}</label><input id="staff-phone" name="phone" type="tel" maxlength="25" dir="ltr" autocomplete="off" value="${esc(v.phone)}"${form.error ? ' aria-invalid="true" aria-describedby="staff-error"' : ''}></div></div>
${form.error ? `<p id="staff-error" class="field-error" role="alert">${esc(form.error)}</p>` : ''}
<label for="staff-role">${esc(t.role.owner)} / ${esc(t.role.manager)} / ${esc(t.role.support)}</label><select id="staff-role" name="role">${roles}</select>
<button type="submit">${esc(t.invite)}</button>
</form>`,
  );
}
