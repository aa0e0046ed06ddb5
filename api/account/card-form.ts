import { esc } from '../dashboard/layout';
import type { AccountPage } from './session';
import { accountDocument } from './view';

/**
 * The platform's card page for a provider whose tokenisation runs in the buyer's browser (Moyasar, docs/
 * account.md, "Update the saved card"). The inputs have no `name`: no form submission can carry the card
 * anywhere. The page's own script (CARD_FORM_SCRIPT, served from the platform: the CSP allows no inline
 * script) posts the card, form-encoded, straight to the provider's tokens address with the store's
 * publishable key, then follows the provider's 3-D Secure address; the provider sends the buyer back to the
 * return address with its token's id, which the platform reads back from the provider.
 */
export function cardFormView(
  p: AccountPage,
  form: {
    tokensUrl: string;
    publishableKey: string;
    description: string;
    callbackUrl: string;
    update: string;
  },
): string {
  const t = p.t;
  const field = (id: string, label: string, attrs: string) =>
    `<label for="${id}">${esc(label)}</label><input id="${id}" ${attrs} required dir="ltr">`;
  return accountDocument(
    p,
    t.updateCard,
    `<div class="narrow"><div class="card"><h1>${esc(t.updateCard)}</h1><p><bdi>${esc(form.description)}</bdi></p>
<p class="muted">${esc(t.cardBrowserNote)}</p>
<form id="card-form" data-tokens-url="${esc(form.tokensUrl)}" data-key="${esc(form.publishableKey)}" data-callback="${esc(form.callbackUrl)}" data-update="${esc(form.update)}" data-failed="${esc(t.cardFormFailed)}" novalidate>
${field('card-name', t.cardName, 'autocomplete="cc-name" maxlength="100"')}
${field('card-number', t.cardNumber, 'autocomplete="cc-number" inputmode="numeric" maxlength="23"')}
${field('card-month', t.cardMonth, 'autocomplete="cc-exp-month" inputmode="numeric" maxlength="2"')}
${field('card-year', t.cardYear, 'autocomplete="cc-exp-year" inputmode="numeric" maxlength="4"')}
${field('card-cvc', t.cardCvc, 'autocomplete="cc-csc" inputmode="numeric" maxlength="4"')}
<p id="card-error" class="field-error" role="alert" hidden></p>
<button type="submit" class="wide">${esc(t.cardSave)}</button>
</form>
<noscript><p class="alert">${esc(t.cardNeedsScript)}</p></noscript>
<p><a href="/account">${esc(t.home)}</a></p></div></div>
<script src="/account/assets/card-form.js"></script>`,
  );
}

/** The card page's script: no card value ever goes to the platform. */
export const CARD_FORM_SCRIPT = `(function () {
  'use strict';
  var form = document.getElementById('card-form');
  if (!form) return;
  var error = document.getElementById('card-error');
  var value = function (id) { return document.getElementById(id).value.trim(); };
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var body = new URLSearchParams();
    body.set('publishable_api_key', form.dataset.key);
    body.set('name', value('card-name'));
    body.set('number', value('card-number').replace(/\\s+/g, ''));
    body.set('month', value('card-month'));
    body.set('year', value('card-year'));
    body.set('cvc', value('card-cvc'));
    body.set('save_only', 'true');
    body.set('callback_url', form.dataset.callback);
    body.set('metadata[card_update]', form.dataset.update);
    var button = form.querySelector('button');
    button.disabled = true;
    error.hidden = true;
    fetch(form.dataset.tokensUrl, { method: 'POST', body: body, credentials: 'omit', referrerPolicy: 'no-referrer' })
      .then(function (res) {
        return res.json().then(function (json) { return { ok: res.ok, json: json }; });
      })
      .then(function (answer) {
        var token = answer.json || {};
        if (answer.ok && typeof token.verification_url === 'string' && /^https?:\\/\\//.test(token.verification_url)) {
          window.location.assign(token.verification_url);
          return;
        }
        if (answer.ok && token.status === 'active' && typeof token.id === 'string') {
          var back = new URL(form.dataset.callback);
          back.searchParams.set('id', token.id);
          back.searchParams.set('status', 'active');
          window.location.assign(back.toString());
          return;
        }
        throw new Error(typeof token.message === 'string' ? token.message : '');
      })
      .catch(function (err) {
        error.textContent = form.dataset.failed + (err && err.message ? ' (' + err.message + ')' : '');
        error.hidden = false;
        button.disabled = false;
      });
  });
})();
`;
