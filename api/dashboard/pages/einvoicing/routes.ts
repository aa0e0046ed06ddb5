import Joi from 'joi';
import type { AppContext } from '../../../context';
import { DomainError } from '../../../../shared/errors';
import { documentXml, einvoicingOverview } from '../../../../shared/services/einvoicing/dashboard';
import {
  renewProductionCsid,
  requestComplianceCsid,
  requestProductionCsid,
  runComplianceChecks,
  startOnboarding,
  startRenewal,
} from '../../../../shared/services/einvoicing/onboarding';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, signedIn } from '../../session';
import { formBody, notFound, postAnswers } from '../../forms';
import { einvoicingStrings, einvoicingView } from './view';

/**
 * E-invoicing phase 2 in the dashboard (docs/einvoicing.md): onboarding with ZATCA step by step (address
 * and key, one-time password and compliance CSID, compliance checks and production CSID), renewal, the
 * documents with their reporting status and ZATCA's messages, and each document's signed XML. Owners and
 * managers (settings.edit).
 */

const deps = (ctx: AppContext) => ({
  knex: ctx.deps.knex,
  cipher: ctx.deps.cipher,
  zatcaApiUrl: ctx.deps.config.zatcaApiUrl,
});

async function page(ctx: AppContext, status: number, notice: string | null, error: string | null) {
  const { store, shell } = dashboardOf(ctx);
  const overview = await einvoicingOverview(ctx.deps.knex, store.id);
  sendPage(ctx, { status, html: einvoicingView(shell, overview, { notice, error }) });
}

/** Runs a step; a refusal (ZATCA's or ours) is shown on the page, 422. */
async function step(ctx: AppContext, run: () => Promise<unknown>) {
  const { shell } = dashboardOf(ctx);
  try {
    await run();
  } catch (err) {
    if (err instanceof DomainError) return page(ctx, 422, null, err.message);
    throw err;
  }
  sendPage(ctx, { status: 303, location: `/merchant/einvoicing?done=1&lang=${shell.locale}` });
}

const text = (max: number) => Joi.string().allow('').max(max);

export const dashboardEinvoicingRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/einvoicing',
    interface: 'platform',
    operationId: 'dashboardEinvoicing',
    summary: 'Merchant dashboard: e-invoicing (ZATCA phase 2)',
    description:
      'Onboarding with ZATCA step by step, the certificate’s expiry and renewal, and the latest documents with ' +
      'their reporting status (pending, reported, rejected) and ZATCA’s warnings and errors.',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<{ done?: string; lang?: string }, true>({
        done: Joi.string().max(2),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: {
      200: htmlResponse('The e-invoicing page.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Not allowed for this role.'),
    },
    handler: async (ctx, { query }) => {
      const { shell } = dashboardOf(ctx);
      await page(ctx, 200, query.done === '1' ? einvoicingStrings[shell.locale].saved : null, null);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/einvoicing/onboard',
    interface: 'platform',
    operationId: 'dashboardEinvoicingOnboard',
    summary: 'Merchant dashboard: e-invoicing address, key and CSR',
    description:
      'Form fields `crn` (optional), `street`, `building_number` (4 digits), `district`, `city`, `postal_zone` ' +
      '(5 digits), `branch_name`, `location`, `industry`. Makes a new secp256k1 key (sealed) and the CSR.',
    guards: signedIn('settings.edit'),
    request: formBody({
      crn: text(20),
      street: text(127),
      building_number: text(10),
      district: text(127),
      city: text(127),
      postal_zone: text(10),
      branch_name: text(64),
      location: text(64),
      industry: text(64),
    }),
    responses: {
      303: redirectResponse('Done: to the e-invoicing page.'),
      422: htmlResponse('The page again, naming what is wrong.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell } = dashboardOf(ctx);
      const f = (n: string) => formField(ctx, n).trim();
      const address = {
        crn: f('crn') || null,
        street: f('street'),
        building_number: f('building_number'),
        district: f('district'),
        city: f('city'),
        postal_zone: f('postal_zone'),
        branch_name: f('branch_name'),
        location: f('location'),
        industry: f('industry'),
      };
      const filled = [
        address.street,
        address.district,
        address.city,
        address.branch_name,
        address.location,
        address.industry,
      ].every((v) => v.length > 0);
      if (
        !filled ||
        !/^\d{4}$/.test(address.building_number) ||
        !/^\d{5}$/.test(address.postal_zone) ||
        (address.crn !== null && !/^\d{10}$/.test(address.crn))
      ) {
        return page(ctx, 422, null, einvoicingStrings[shell.locale].fieldsError);
      }
      await step(ctx, () => startOnboarding(deps(ctx), store.id, address));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/einvoicing/compliance',
    interface: 'platform',
    operationId: 'dashboardEinvoicingCompliance',
    summary: 'Merchant dashboard: e-invoicing compliance CSID',
    description: 'Form field `otp`: the one-time password from ZATCA’s Fatoora portal (6 digits).',
    guards: signedIn('settings.edit'),
    request: formBody({ otp: text(20) }),
    responses: {
      303: redirectResponse('Done: to the e-invoicing page.'),
      422: htmlResponse('The page again with ZATCA’s refusal.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store } = dashboardOf(ctx);
      await step(ctx, () => requestComplianceCsid(deps(ctx), store.id, formField(ctx, 'otp').trim()));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/einvoicing/activate',
    interface: 'platform',
    operationId: 'dashboardEinvoicingActivate',
    summary: 'Merchant dashboard: e-invoicing compliance checks and production CSID',
    description:
      'Runs ZATCA’s compliance checks (sample invoice, credit note, debit note), then obtains the production CSID.',
    guards: signedIn('settings.edit'),
    request: formBody({}),
    responses: {
      303: redirectResponse('Done: to the e-invoicing page.'),
      422: htmlResponse('The page again with ZATCA’s messages.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store } = dashboardOf(ctx);
      await step(ctx, async () => {
        const current = await einvoicingOverview(ctx.deps.knex, store.id, 0);
        if (current.settings?.status !== 'checked') await runComplianceChecks(deps(ctx), store.id);
        await requestProductionCsid(deps(ctx), store.id);
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/einvoicing/renew',
    interface: 'platform',
    operationId: 'dashboardEinvoicingRenew',
    summary: 'Merchant dashboard: renew the e-invoicing certificate',
    description:
      'Form field `otp` (6 digits, from the Fatoora portal): a new key and CSR, then the renewed production CSID.',
    guards: signedIn('settings.edit'),
    request: formBody({ otp: text(20) }),
    responses: {
      303: redirectResponse('Done: to the e-invoicing page.'),
      422: htmlResponse('The page again with ZATCA’s refusal.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store } = dashboardOf(ctx);
      const otp = formField(ctx, 'otp').trim();
      await step(ctx, async () => {
        const current = await einvoicingOverview(ctx.deps.knex, store.id, 0);
        if (!current.settings?.renewing) await startRenewal(deps(ctx), store.id);
        await renewProductionCsid(deps(ctx), store.id, otp);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/einvoicing/documents/{documentId}/xml',
    interface: 'platform',
    operationId: 'dashboardEinvoiceXml',
    summary: 'Merchant dashboard: a document’s signed XML',
    description:
      'The signed UBL 2.1 document as an attachment (application/xml). 404 for another store’s document.',
    guards: signedIn('settings.edit'),
    request: {
      params: Joi.object({
        documentId: Joi.number().integer().min(1).max(9_007_199_254_740_991).required(),
      }) as Joi.ObjectSchema<{ documentId: number }>,
    },
    responses: {
      200: {
        description: 'The XML document.',
        content: { 'application/xml': { schema: { type: 'string' } } },
      },
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Not allowed for this role.'),
      404: htmlResponse('No such document in this store.'),
    },
    handler: async (ctx, { params }) => {
      const { store } = dashboardOf(ctx);
      const doc = await documentXml(ctx.deps.knex, ctx.deps.cipher, store.id, params.documentId);
      if (!doc) return notFound(ctx);
      ctx.status = 200;
      ctx.type = 'application/xml; charset=utf-8';
      ctx.attachment(doc.name);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = doc.xml;
      return undefined;
    },
  }),
];
