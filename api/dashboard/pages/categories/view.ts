import { count } from '../../view-parts';
import { esc, shellPage, ShellContext, tokenField } from '../../layout';

/** The categories page's content. */

type Shell = Omit<ShellContext, 'current'>;

export function categoriesView(
  s: Shell,
  categories: { id: number; name: string; name_ar: string | null; slug: string; product_count: number }[],
  opts: {
    notice: string | null;
    errors: Record<string, string>;
    name: string;
    name_ar: string;
    slug: string;
  },
): string {
  const t = s.t;
  const err = (k: string) =>
    opts.errors[k] ? `<p id="category-${k}-error" class="field-error">${esc(opts.errors[k])}</p>` : '';
  const aria = (k: string, hint = '') => {
    const ids = [hint, opts.errors[k] ? `category-${k}-error` : ''].filter(Boolean).join(' ');
    return `${ids ? ` aria-describedby="${ids}"` : ''}${opts.errors[k] ? ' aria-invalid="true"' : ''}`;
  };
  const rows = categories
    .map(
      (
        c,
      ) => `<tr><td><bdi>${esc(c.name)}</bdi></td><td>${c.name_ar ? `<bdi lang="ar" dir="rtl">${esc(c.name_ar)}</bdi>` : ''}</td><td><code>${esc(c.slug)}</code></td><td class="num">${esc(count(s, c.product_count))}</td>
<td><form method="post" action="/merchant/categories/${c.id}/delete">${tokenField(s.formToken)}<button type="submit" class="danger" aria-label="${esc(`${t.deleteEndpoint} ${c.name}`)}">${esc(t.deleteEndpoint)}</button></form></td></tr>`,
    )
    .join('');
  return shellPage(
    { ...s, current: 'categories' },
    t.categories,
    `<h1>${esc(t.categories)}</h1>${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
<form method="post" action="/merchant/categories" class="card" novalidate><h2>${esc(t.addCategory)}</h2>${tokenField(s.formToken)}
<label for="category-name">${esc(t.categoryName)}</label><input id="category-name" name="name" required maxlength="200" value="${esc(opts.name)}"${aria('name')}>${err('name')}
<label for="category-name-ar">${esc(t.categoryNameAr)}</label><input id="category-name-ar" name="name_ar" lang="ar" dir="rtl" maxlength="200" value="${esc(opts.name_ar)}"${aria('name_ar', 'category-name-ar-hint')}><span id="category-name-ar-hint" class="hint">${esc(t.categoryNameArHint)}</span>${err('name_ar')}
<label for="category-slug">${esc(t.categorySlug)}</label><input id="category-slug" name="slug" dir="ltr" required maxlength="200" autocomplete="off" value="${esc(opts.slug)}"${aria('slug', 'category-slug-hint')}><span id="category-slug-hint" class="hint">${esc(t.categorySlugHint)}</span>${err('slug')}
<button type="submit">${esc(t.addCategory)}</button></form>
<section class="card">${
      categories.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.categoryName)}</th><th scope="col">${esc(t.categoryNameAr)}</th><th scope="col">${esc(t.categorySlug)}</th><th scope="col">${esc(t.productsCount)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noCategories)}</p>`
    }</section>`,
  );
}
