import type { ProductFileView } from '../../../../shared/services/files/catalogue';
import { esc, type ShellContext, shellPage, tokenField } from '../../layout';
import { FILES_TEXT, sizeText } from './strings';

/** The files page of a product: its files (name, size, date, a remove button) and the upload form. */
export function filesView(
  s: Omit<ShellContext, 'current'>,
  product: { id: number; name: string },
  files: ProductFileView[],
  opts: { maxUploadBytes: number; notice?: string | null; error?: string | null },
): string {
  const t = FILES_TEXT[s.locale];
  const rows = files
    .map(
      (f) => `<tr><td><bdi>${esc(f.name)}</bdi></td><td class="num">${esc(sizeText(f.size))}</td>
<td class="num">${esc(f.created_at.slice(0, 10))}</td>
<td><form method="post" action="/merchant/products/${product.id}/files/${f.id}/remove">${tokenField(s.formToken)}<button type="submit" class="secondary" aria-label="${esc(`${t.remove} ${f.name}`)}">${esc(t.remove)}</button></form></td></tr>`,
    )
    .join('');
  const table = files.length
    ? `<table><thead><tr><th>${esc(t.name)}</th><th>${esc(t.size)}</th><th>${esc(t.uploaded)}</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
    : `<p class="muted">${esc(t.empty)}</p>`;
  // The form token rides in the address: the body is streamed into storage and read after the guard.
  const action = `/merchant/products/${product.id}/files?_csrf=${encodeURIComponent(s.formToken)}`;
  return shellPage(
    { ...s, current: 'products' },
    `${t.title} · ${product.name}`,
    `<p><a href="/merchant/products/${product.id}">${s.t.dir === 'rtl' ? '→' : '←'} ${esc(t.back)}</a></p>
<h1>${esc(t.title)} · <bdi>${esc(product.name)}</bdi></h1>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${opts.error ? `<p class="error" role="alert">${esc(t.failed)} ${esc(opts.error)}</p>` : ''}
<p class="muted">${esc(t.intro)}</p>
${table}
<form method="post" action="${esc(action)}" enctype="multipart/form-data" class="card" data-file-upload data-failed="${esc(t.failed)}">
<label for="file-input">${esc(t.chooseFile)}</label>
<input id="file-input" type="file" name="file" required aria-describedby="file-note">
<p id="file-note" class="hint">${esc(t.limitNote(sizeText(opts.maxUploadBytes)))}</p>
<progress id="file-progress" aria-label="${esc(t.progress)}" value="0" max="1" hidden></progress>
<p data-file-status role="status" hidden></p>
<button type="submit">${esc(t.upload)}</button>
</form>
<script src="/merchant/assets/files.js"></script>`,
  );
}
