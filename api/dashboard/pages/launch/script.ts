/**
 * The product page's snippet Copy button, served at /merchant/assets/launch.js (same origin: the
 * dashboard's CSP allows script files from 'self' only). Plain ES5. Copies the snippet to the clipboard
 * and tells the server (the same form post, by fetch) so that the launch checklist ticks "share".
 */
export const LAUNCH_SCRIPT = String.raw`(function () {
  'use strict';
  var form = document.querySelector('form[data-copy-snippet]');
  var text = document.getElementById('product-snippet');
  if (!form || !text || !window.fetch) return;
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var status = form.querySelector('[data-copy-status]');
    var done = function () { status.textContent = form.getAttribute('data-copied-label'); };
    var copy = navigator.clipboard && navigator.clipboard.writeText
      ? navigator.clipboard.writeText(text.value)
      : Promise.reject(new Error('no clipboard'));
    copy.then(done, function () { text.select(); done(); });
    fetch(form.action, {
      method: 'POST',
      body: new URLSearchParams(new FormData(form)),
      credentials: 'same-origin',
      redirect: 'manual'
    });
  });
})();
`;
