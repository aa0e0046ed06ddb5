/**
 * The product page's Copy buttons (the "Share and sell" card, api/dashboard/pages/products/share.ts),
 * served at /merchant/assets/launch.js (same origin: the dashboard's CSP allows script files from 'self'
 * only). Plain ES5. Each `form[data-copy-form]` names the input whose text it copies: the text goes to the
 * clipboard, the form's status says "Copied", and the same form post is sent by fetch so that the launch
 * checklist ticks "share". Without the script the form posts as a form.
 */
export const LAUNCH_SCRIPT = String.raw`(function () {
  'use strict';
  if (!window.fetch) return;
  var forms = document.querySelectorAll('form[data-copy-form]');
  Array.prototype.forEach.call(forms, function (form) {
    var text = document.getElementById(form.getAttribute('data-copy-form'));
    if (!text) return;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var status = form.querySelector('[data-copy-status]');
      var done = function () { if (status) status.textContent = form.getAttribute('data-copied-label'); };
      var copy = navigator.clipboard && navigator.clipboard.writeText
        ? navigator.clipboard.writeText(text.value)
        : Promise.reject(new Error('no clipboard'));
      copy.then(done, function () {
        text.select();
        try { document.execCommand('copy'); } catch (e) { /* selected for the merchant to copy */ }
        done();
      });
      fetch(form.action, {
        method: 'POST',
        body: new URLSearchParams(new FormData(form)),
        credentials: 'same-origin',
        redirect: 'manual'
      });
    });
  });
})();
`;
