/**
 * The key upload page's script, served at /merchant/assets/keys.js (same origin: the dashboard's CSP
 * allows script files from 'self' only, never inline). Kept as a string so the build carries it with the
 * code; plain ES5 so any browser runs it.
 */
export const KEYS_SCRIPT = String.raw`// The key upload page's progress bar (docs/dashboard.md). Without this script the form posts as a plain
// multipart form and the page answers with the counts; with it, the keys go up in parts of 500 lines and
// the bar and the added/skipped counts move after each part.
(function () {
  'use strict';
  var form = document.querySelector('form[data-keys-upload]');
  if (!form || !window.fetch || !window.FormData) return;
  var PART = 500;
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var file = form.querySelector('input[type=file]').files[0];
    var pasted = form.querySelector('textarea').value;
    var read = file ? file.text() : Promise.resolve('');
    read.then(function (csv) {
      var parts = [];
      var split = function (text, field) {
        var lines = text.split(/\r?\n/).filter(function (l) { return l.trim() !== ''; });
        for (var i = 0; i < lines.length; i += PART) parts.push([field, lines.slice(i, i + PART).join('\n')]);
      };
      split(csv, 'csv');
      split(pasted, 'codes');
      if (parts.length === 0) return form.submit();
      var bar = document.getElementById('keys-progress');
      var result = document.querySelector('[data-keys-result]');
      var button = form.querySelector('button[type=submit]');
      var token = form.querySelector('input[name=_csrf]').value;
      var added = 0;
      var skipped = 0;
      bar.max = parts.length;
      bar.value = 0;
      button.disabled = true;
      var show = function () {
        result.hidden = false;
        result.textContent = form.dataset.resultTemplate
          .replace('{added}', String(added))
          .replace('{skipped}', String(skipped));
      };
      var send = function (i) {
        if (i >= parts.length) {
          button.disabled = false;
          return;
        }
        var body = new URLSearchParams();
        body.set('_csrf', token);
        body.set(parts[i][0], parts[i][1]);
        return fetch(form.action, {
          method: 'POST',
          body: body,
          headers: { Accept: 'application/json' },
          credentials: 'same-origin',
        })
          .then(function (res) {
            if (!res.ok) throw new Error(String(res.status));
            return res.json();
          })
          .then(function (counts) {
            added += counts.added;
            skipped += counts.skipped;
            bar.value = i + 1;
            show();
            var available = document.querySelector('[data-available]');
            if (available && counts.available_text) available.textContent = counts.available_text;
            return send(i + 1);
          })
          .catch(function () {
            // The plain form still works: fall back to it for what is left.
            button.disabled = false;
            form.submit();
          });
      };
      return send(0);
    });
  });
})();
`;
