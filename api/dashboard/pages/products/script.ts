/**
 * The product form's script, served at /merchant/assets/product-form.js (same origin: the dashboard's CSP
 * allows script files from 'self' only, never inline). Plain ES5 so any browser runs it.
 */
export const PRODUCT_FORM_SCRIPT = String.raw`// The product form by type (docs/dashboard.md): the sections the selected type has are shown, the
// others hidden and disabled (their inputs are not sent). Without this script the server renders the
// sections a type needs and ignores the others' fields.
(function () {
  'use strict';
  var form = document.querySelector('form[data-product-form]');
  if (!form) return;
  var select = form.querySelector('select[name=type]');
  if (!select) return;
  var sections = form.querySelectorAll('[data-section][data-types]');
  var show = function () {
    var type = select.value;
    for (var i = 0; i < sections.length; i++) {
      var section = sections[i];
      var on = (' ' + section.getAttribute('data-types') + ' ').indexOf(' ' + type + ' ') !== -1;
      section.hidden = !on;
      section.disabled = !on;
      var note = section.querySelector('[data-section-note]');
      if (note) note.hidden = true;
    }
  };
  select.addEventListener('change', show);
  show();
})();
`;
