/**
 * The files page's script, served at /merchant/assets/files.js (the dashboard's CSP allows script files
 * from 'self' only). Without it the form posts as a plain multipart form and the page comes back; with it
 * the file goes up by XMLHttpRequest, whose upload events move the progress bar. Plain ES5.
 */
export const FILES_SCRIPT = String.raw`// The files page's upload progress bar (docs/downloads.md).
(function () {
  'use strict';
  var form = document.querySelector('form[data-file-upload]');
  if (!form || !window.XMLHttpRequest || !window.FormData) return;
  form.addEventListener('submit', function (event) {
    var input = form.querySelector('input[type=file]');
    if (!input.files || !input.files[0]) return;
    event.preventDefault();
    var bar = document.getElementById('file-progress');
    var status = document.querySelector('[data-file-status]');
    var button = form.querySelector('button[type=submit]');
    var data = new FormData();
    data.append('file', input.files[0]);
    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('Accept', 'application/json');
    bar.hidden = false;
    bar.max = input.files[0].size || 1;
    bar.value = 0;
    button.disabled = true;
    xhr.upload.addEventListener('progress', function (e) {
      if (e.lengthComputable) {
        bar.max = e.total;
        bar.value = e.loaded;
      }
    });
    xhr.addEventListener('load', function () {
      if (xhr.status === 201) {
        window.location.reload();
        return;
      }
      button.disabled = false;
      var message = '';
      try {
        message = JSON.parse(xhr.responseText).message || '';
      } catch (err) {
        message = String(xhr.status);
      }
      status.hidden = false;
      status.textContent = form.dataset.failed + ' ' + message;
    });
    xhr.addEventListener('error', function () {
      button.disabled = false;
      status.hidden = false;
      status.textContent = form.dataset.failed;
    });
    xhr.send(data);
  });
})();
`;
