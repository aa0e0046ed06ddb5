import { esc, shellPage, ShellContext, tokenField } from '../../layout';

type Shell = Omit<ShellContext, 'current'>;

/**
 * The key upload page of a code product. Works as a plain multipart form; with scripts allowed, the
 * page's own script (/merchant/assets/keys.js, same origin) sends the keys in parts and moves the
 * progress bar, with the running count of added and skipped keys.
 */
export function keysView(
  s: Shell,
  product: { id: number; name: string; available: number },
  result: { added: number; skipped: number } | null,
  error: string | null,
): string {
  const t = s.t;
  return shellPage(
    { ...s, current: 'products' },
    t.uploadKeys,
    `<p><a href="/merchant/products/${product.id}">${t.dir === 'rtl' ? '→' : '←'} <bdi>${esc(product.name)}</bdi></a></p>
<h1>${esc(t.uploadKeys)}</h1>
<p class="muted" data-available>${esc(t.keysInStock(product.available))}</p>
<p class="notice" role="status" data-keys-result${result ? '' : ' hidden'}>${result ? esc(t.keysResult(result.added, result.skipped)) : ''}</p>
${error ? `<p class="alert" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/merchant/products/${product.id}/keys" enctype="multipart/form-data" class="card" data-keys-upload data-result-template="${esc(t.keysResult(111111, 222222).replace('111111', '{added}').replace('222222', '{skipped}'))}">
${tokenField(s.formToken)}
<label for="keys-file">${esc(t.keysFile)}</label>
<input type="file" id="keys-file" name="csv" accept=".csv,.txt,text/csv,text/plain" aria-describedby="keys-file-hint">
<span id="keys-file-hint" class="hint">${esc(t.keysFileHint)}</span>
<label for="keys-paste">${esc(t.pasteKeys)}</label>
<textarea id="keys-paste" name="codes" rows="6" dir="ltr" aria-describedby="keys-paste-hint"></textarea>
<span id="keys-paste-hint" class="hint">${esc(t.pasteKeysHint)}</span>
<label for="keys-progress">${esc(t.uploadProgress)}</label>
<progress id="keys-progress" max="1" value="${result ? 1 : 0}"></progress>
<button type="submit">${esc(t.addKeys)}</button>
</form>
<script src="/merchant/assets/keys.js" defer></script>`,
  );
}
