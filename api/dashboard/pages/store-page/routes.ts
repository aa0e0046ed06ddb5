import Joi from 'joi';
import { ValidationError } from '../../../../shared/errors';
import { storePageKeys, storeSlug } from '../../../../shared/services/catalogue/store-schema';
import { storeSettings, updateStoreSettings } from '../../../../shared/services/stores/settings';
import type { Locale } from '../../../pay/i18n';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { esc, sendPage, shellPage, tokenField } from '../../layout';
import { dashboardOf, formField, signedIn } from '../../session';
import { dashboardActor, formBody, postAnswers } from '../../forms';
import type { Shell } from '../../view-parts';

/**
 * The store page's settings (docs/store-pages.md): its address (`slug`), short description, logo, accent
 * colour and the policies page, written through the Merchant API's own store writer (same rules: a slug
 * another store holds is refused). Owners and managers; linked from the settings page.
 */

const TEXT = {
  en: {
    title: 'Store page',
    address: 'Store page address',
    open: 'Open the store page',
    slug: 'Address (slug)',
    slugHint: 'Lower-case letters, digits and hyphens; your page is at /s/<slug>.',
    description: 'Short description',
    logo: 'Logo address (https)',
    accent: 'Accent colour',
    policies: 'Policies (refunds, contact)',
    save: 'Save',
    saved: 'Saved.',
    fix: 'Please correct the marked fields.',
  },
  ar: {
    title: 'صفحة المتجر',
    address: 'عنوان صفحة المتجر',
    open: 'فتح صفحة المتجر',
    slug: 'العنوان (slug)',
    slugHint: 'حروف إنجليزية صغيرة وأرقام وشرطات؛ صفحتك على /s/<slug>.',
    description: 'وصف قصير',
    logo: 'عنوان الشعار (https)',
    accent: 'اللون المميز',
    policies: 'السياسات (الاسترجاع، التواصل)',
    save: 'حفظ',
    saved: 'تم الحفظ.',
    fix: 'يرجى تصحيح الحقول المعلّمة.',
  },
} as const;

type Values = { slug: string; description: string; logo_url: string; accent_color: string; policies: string };

function view(
  s: Shell,
  base: string,
  values: Values,
  errors: Record<string, string>,
  notice: string | null,
): string {
  const t = TEXT[s.locale as Locale];
  const url = `${base.replace(/\/+$/, '')}/s/${values.slug}`;
  const field = (key: keyof Values, label: string, input: string) =>
    `<label for="${key}">${esc(label)}</label>${input}${errors[key] ? `<p id="${key}-error" class="field-error">${esc(errors[key])}</p>` : ''}`;
  const invalid = (key: keyof Values) =>
    errors[key] ? ` aria-invalid="true" aria-describedby="${key}-error"` : '';
  return shellPage(
    { ...s, current: 'settings' },
    t.title,
    `<h1>${esc(t.title)}</h1>
${notice ? `<p class="notice" role="status">${esc(notice)}</p>` : ''}
${Object.keys(errors).length ? `<p class="error" role="alert">${esc(t.fix)}</p>` : ''}
<section class="card"><p>${esc(t.address)}: <a href="${esc(url)}" data-store-url dir="ltr">${esc(url)}</a></p></section>
<form method="post" action="/merchant/store-page" class="card" novalidate>
${tokenField(s.formToken)}
${field('slug', t.slug, `<input id="slug" name="slug" required maxlength="63" dir="ltr" value="${esc(values.slug)}"${invalid('slug')}><span class="hint">${esc(t.slugHint)}</span>`)}
${field('description', t.description, `<textarea id="description" name="description" rows="2" maxlength="500"${invalid('description')}>${esc(values.description)}</textarea>`)}
${field('logo_url', t.logo, `<input id="logo_url" name="logo_url" type="url" maxlength="2000" dir="ltr" value="${esc(values.logo_url)}"${invalid('logo_url')}>`)}
${field('accent_color', t.accent, `<input id="accent_color" name="accent_color" type="color" value="${esc(values.accent_color || '#0b6bcb')}"${invalid('accent_color')}>`)}
${field('policies', t.policies, `<textarea id="policies" name="policies" rows="8" maxlength="20000"${invalid('policies')}>${esc(values.policies)}</textarea>`)}
<button type="submit">${esc(t.save)}</button>
</form>`,
  );
}

const patchSchema = Joi.object({ slug: storeSlug().required(), ...storePageKeys });

export const dashboardStorePageRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/store-page',
    interface: 'platform',
    operationId: 'dashboardStorePage',
    summary: 'Merchant dashboard: store page settings',
    description: 'The store page’s address, description, logo, accent colour and policies.',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<{ lang?: string; saved?: string }, true>({
        lang: Joi.string().valid('ar', 'en'),
        saved: Joi.string().max(2),
      }),
    },
    responses: {
      200: htmlResponse('The form.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Not allowed for this role.'),
    },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const settings = await storeSettings(ctx.deps, store.id);
      const values: Values = {
        slug: settings.slug,
        description: settings.description ?? '',
        logo_url: settings.logo_url ?? '',
        accent_color: settings.accent_color ?? '',
        policies: settings.policies ?? '',
      };
      const notice = query.saved === '1' ? TEXT[shell.locale as Locale].saved : null;
      sendPage(ctx, { status: 200, html: view(shell, ctx.deps.config.publicBaseUrl, values, {}, notice) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/store-page',
    interface: 'platform',
    operationId: 'dashboardStorePageSave',
    summary: 'Merchant dashboard: save the store page settings',
    description:
      'Form fields `slug`, `description`, `logo_url`, `accent_color`, `policies` (as `PATCH /shawarma/store`). ' +
      'Saved: 303 to the form; refused: the form again (422) naming each bad field.',
    guards: signedIn('settings.edit'),
    request: formBody({
      slug: Joi.string().allow('').max(200),
      description: Joi.string().allow('').max(2_000),
      logo_url: Joi.string().allow('').max(4_000),
      accent_color: Joi.string().allow('').max(20),
      policies: Joi.string().allow('').max(40_000),
    }),
    responses: {
      303: redirectResponse('Saved: to the form.'),
      422: htmlResponse('The form again, each bad field named.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values: Values = {
        slug: formField(ctx, 'slug').trim(),
        description: formField(ctx, 'description').trim(),
        logo_url: formField(ctx, 'logo_url').trim(),
        accent_color: formField(ctx, 'accent_color').trim(),
        policies: formField(ctx, 'policies'),
      };
      const again = (errors: Record<string, string>) =>
        sendPage(ctx, {
          status: 422,
          html: view(shell, ctx.deps.config.publicBaseUrl, values, errors, null),
        });
      const checked = patchSchema.validate(values, { abortEarly: false });
      if (checked.error) {
        const errors: Record<string, string> = {};
        for (const d of checked.error.details)
          errors[String(d.path[0])] ??= d.message.replace(/^"[^"]*" /, '');
        return again(errors);
      }
      try {
        await updateStoreSettings(ctx.deps, dashboardActor(store.id, s.user), store.id, checked.value);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        return again(Object.fromEntries(Object.entries(err.errors).map(([k, m]) => [k, m[0] ?? ''])));
      }
      sendPage(ctx, { status: 303, location: '/merchant/store-page?saved=1' });
    },
  }),
];
