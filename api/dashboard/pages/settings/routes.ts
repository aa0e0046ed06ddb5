import Joi from 'joi';
import { NotFoundError, ValidationError } from '../../../../shared/errors';
import { STORE_NAME_MAX } from '../../../../shared/services/staff/accounts';
import { newestProductOnSale } from '../../../../shared/services/catalogue/choices';
import {
  rotateEmbedKey,
  supportEmailSchema,
  updateStoreSettings,
} from '../../../../shared/services/stores/settings';
import {
  DOMAIN_LIMIT,
  domainStates,
  platformHostOf,
  refusedDomains,
  verifyStoreDomain,
} from '../../../../shared/services/stores/domains';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, signedIn } from '../../session';
import { confirmRotateView, settingsView } from './view';
import { formBody, guardedAnswers, postAnswers, notFound, dashboardActor } from '../../forms';

/** The store settings page: name, origins, domains and the embed key. */

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

async function settingsPage(
  ctx: AppContext,
  shell: ReturnType<typeof dashboardOf>['shell'],
  form: Parameters<typeof settingsView>[2],
): Promise<string> {
  const { store } = dashboardOf(ctx);
  const domains = await domainStates(ctx.deps.knex, store.id);
  return settingsView(
    shell,
    {
      name: store.name,
      currency: store.currency,
      embed_key: store.embed_key,
      allowed_origins: store.allowed_origins,
      domains,
      support_email: store.support_email ?? null,
    },
    form,
    `${ctx.deps.config.publicBaseUrl}/widget/v1.js`,
    await newestProductOnSale(ctx.deps.knex, store.id),
  );
}

export const dashboardSettingsRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/settings',
    interface: 'platform',
    operationId: 'dashboardSettings',
    summary: 'Merchant dashboard: settings',
    description:
      'Store name, allowed origins and domains (editable; each pending domain with the DNS TXT record that ' +
      'proves it and a verify button); currency, embed key and the buy button snippet.',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<
        { saved?: string; rotated?: string; domain?: 'verified' | 'pending'; lang?: string },
        true
      >({
        saved: Joi.string().max(2),
        rotated: Joi.string().max(2),
        domain: Joi.string().valid('verified', 'pending'),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: { 200: htmlResponse('The settings page.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const t = shell.t;
      const notice =
        query.saved === '1'
          ? t.saved
          : query.rotated === '1'
            ? t.keyRotated
            : query.domain === 'verified'
              ? t.domainNowVerified
              : query.domain === 'pending'
                ? t.domainStillPending
                : null;
      sendPage(ctx, {
        status: 200,
        html: await settingsPage(ctx, shell, {
          name: store.name,
          origins: store.allowed_origins.join('\n'),
          errors: {},
          notice,
        }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/settings',
    interface: 'platform',
    operationId: 'dashboardSettingsSave',
    summary: 'Merchant dashboard: save settings',
    description:
      'Form fields `name`, `allowed_origins` (one origin a line), `domains` (one host name a line, the whole ' +
      'list; left out: unchanged; new ones pending until proven), `support_email` (the Reply-To of the ' +
      'store’s e-mails; empty: none; left out: unchanged). Written as `PATCH /shawarma/store` writes ' +
      'them, with its audit row. 303 back to settings; 422 with the form naming a refused domain.',
    guards: signedIn('settings.edit'),
    request: formBody({
      name: Joi.string().allow('').max(400),
      allowed_origins: Joi.string().allow('').max(20_000),
      domains: Joi.string().allow('').max(20_000),
      support_email: Joi.string().allow('').max(1_000),
    }),
    responses: {
      303: redirectResponse('Saved.'),
      422: htmlResponse('The form again, naming the bad field.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const name = formField(ctx, 'name').trim();
      const originsText = formField(ctx, 'allowed_origins');
      const lines = (text: string) => [
        ...new Set(
          text
            .split(/\r?\n/)
            .map((o) => o.trim())
            .filter(Boolean),
        ),
      ];
      const origins = lines(originsText);
      const domainsGiven = Object.hasOwn((ctx.request.body as object | undefined) ?? {}, 'domains');
      const domainsText = formField(ctx, 'domains');
      const domains = lines(domainsText).map((d) => d.toLowerCase());
      const supportGiven = Object.hasOwn((ctx.request.body as object | undefined) ?? {}, 'support_email');
      const supportText = formField(ctx, 'support_email').trim();
      const supportEmail = supportText === '' ? null : supportText.toLowerCase();
      const errors: { name?: string; origins?: string; domains?: string; supportEmail?: string } = {};
      if (!name || name.length > STORE_NAME_MAX) errors.name = shell.t.errStoreName;
      if (supportEmail !== null && supportEmailSchema.validate(supportEmail).error) {
        errors.supportEmail = shell.t.errSupportEmail;
      }
      if (origins.length > 50 || origins.some((o) => !isOrigin(o))) errors.origins = shell.t.errOrigins;
      if (domainsGiven) {
        // Only new claims are checked, as the service does: a domain the store holds stays.
        const held = new Set((await domainStates(ctx.deps.knex, store.id)).map((d) => d.domain));
        const refused = refusedDomains(
          domains.filter((d) => !held.has(d)),
          platformHostOf(ctx.deps.config.publicBaseUrl),
        );
        if (domains.length > DOMAIN_LIMIT || refused.some((r) => r.reason === 'syntax')) {
          errors.domains = shell.t.errDomains;
        } else if (refused.length > 0) errors.domains = shell.t.errDomainReserved;
      }
      const again = () =>
        settingsPage(ctx, shell, {
          name,
          origins: originsText,
          domains: domainsGiven ? domainsText : undefined,
          supportEmail: supportGiven ? supportText : undefined,
          errors,
          notice: null,
        }).then((html) => sendPage(ctx, { status: 422, html }));
      if (errors.name || errors.origins || errors.domains || errors.supportEmail) return again();
      try {
        await updateStoreSettings(ctx.deps, dashboardActor(store.id, s.user), store.id, {
          name,
          allowed_origins: origins,
          ...(domainsGiven ? { domains } : {}),
          ...(supportGiven ? { support_email: supportEmail } : {}),
        });
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        errors.domains = shell.t.errDomainTaken;
        return again();
      }
      sendPage(ctx, { status: 303, location: '/merchant/settings?saved=1' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/settings/domains/verify',
    interface: 'platform',
    operationId: 'dashboardVerifyDomain',
    summary: 'Merchant dashboard: verify a domain now',
    description:
      'Form field `domain`: looks its DNS TXT record up now, as `POST /shawarma/store/domains/{domain}/verify` ' +
      'does. 303 to settings, saying whether the domain is verified; a domain the store does not hold is a 404.',
    guards: signedIn('settings.edit'),
    request: formBody({ domain: Joi.string().allow('').max(300) }),
    responses: {
      303: redirectResponse('Looked up: to settings, with the outcome.'),
      404: htmlResponse('The store holds no such domain.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, signedIn: s } = dashboardOf(ctx);
      const domain = formField(ctx, 'domain').trim().toLowerCase();
      let state: Awaited<ReturnType<typeof verifyStoreDomain>>;
      try {
        state = await verifyStoreDomain(ctx.deps, dashboardActor(store.id, s.user), store.id, domain);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        throw err;
      }
      sendPage(ctx, { status: 303, location: `/merchant/settings?domain=${state.status}` });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/settings/embed-key',
    interface: 'platform',
    operationId: 'dashboardRotateEmbedKey',
    summary: 'Merchant dashboard: rotate the embed key',
    description:
      'Form field `_csrf`; first answers a confirmation page, the confirmed form adds `confirm=1`. Same as ' +
      '`POST /shawarma/store/embed-key`: the old key is refused at once. 303 to settings.',
    guards: signedIn('settings.edit'),
    request: formBody({ confirm: Joi.string().max(2) }),
    responses: {
      200: htmlResponse('The confirmation page.'),
      303: redirectResponse('Rotated: to settings, showing the new key.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      if (formField(ctx, 'confirm') !== '1') {
        return sendPage(ctx, { status: 200, html: confirmRotateView(shell) });
      }
      await rotateEmbedKey(ctx.deps, dashboardActor(store.id, s.user), store.id);
      sendPage(ctx, { status: 303, location: '/merchant/settings?rotated=1' });
    },
  }),
];
