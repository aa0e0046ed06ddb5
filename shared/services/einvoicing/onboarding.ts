import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';
import { InvalidError } from '../../errors';
import { formatAmount } from '../invoices/amounts';
import { inclusiveVat } from '../invoices/amounts';
import { isoSeconds, toSecond } from '../invoices/issue';
import { activeSellerFor } from './seller';
import {
  basicAuth,
  callZatca,
  certificateFromToken,
  Csid,
  messages,
  securityToken,
  ZatcaAnswer,
  ZatcaUnreachable,
} from './client';
import { buildCsr, certificateInfo, generateKeyPair } from './keys';
import { signDocument } from './sign';
import { csrFields, EinvoiceAddress, egsSerial } from './settings';
import { DocumentInput, FIRST_PREVIOUS_HASH } from './ubl';

/**
 * Onboarding a store's EGS unit with ZATCA (docs/einvoicing.md, "Onboarding"), one step per call, as the
 * dashboard's e-invoicing page drives it:
 *
 * 1. `startOnboarding`: the seller's address, a new secp256k1 key (sealed) and the CSR.
 * 2. `requestComplianceCsid`: the CSR and the one-time password from ZATCA's Fatoora portal -> the
 *    compliance CSID (certificate and secret; the secret sealed).
 * 3. `runComplianceChecks`: a sample simplified invoice, credit note and debit note, signed with the
 *    compliance certificate, checked by ZATCA's compliance endpoint; all three must pass.
 * 4. `requestProductionCsid`: the production CSID; the store is `active` and its documents are reported.
 * 5. renewal before the certificate expires: `startRenewal` (a new key and CSR kept pending) then
 *    `renewProductionCsid` with a new one-time password; the new key and certificate replace the old.
 */

export interface OnboardingDeps {
  knex: Knex;
  cipher: Cipher;
  zatcaApiUrl?: string;
}

/** The certificate template ZATCA's environment signs: its simulation, its developer portal, or production. */
export function certificateTemplate(zatcaApiUrl: string | undefined): string {
  if (zatcaApiUrl?.includes('simulation')) return 'PREZATCA-Code-Signing';
  if (zatcaApiUrl?.includes('developer-portal')) return 'TSTZATCA-Code-Signing';
  return 'ZATCA-Code-Signing';
}

function base(deps: OnboardingDeps): string {
  if (!deps.zatcaApiUrl)
    throw new InvalidError('E-invoicing is not connected to ZATCA on this platform (ZATCA_API_URL).');
  return deps.zatcaApiUrl;
}

async function zatca(
  deps: OnboardingDeps,
  method: 'POST' | 'PATCH',
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<ZatcaAnswer> {
  try {
    return await callZatca(base(deps), method, path, body, headers);
  } catch (err) {
    if (err instanceof ZatcaUnreachable)
      throw new InvalidError('ZATCA could not be reached. Try again in a few minutes.');
    throw err;
  }
}

function refusal(what: string, answer: ZatcaAnswer): InvalidError {
  const errs = messages(answer.body, 'errorMessages').map((m) => m.message ?? m.code);
  const direct = answer.body?.errors ?? answer.body?.message ?? answer.body?.dispositionMessage;
  const detail =
    errs.length > 0
      ? errs.join('; ')
      : typeof direct === 'string'
        ? direct
        : Array.isArray(direct)
          ? direct.join('; ')
          : '';
  return new InvalidError(`ZATCA refused the ${what} (HTTP ${answer.status})${detail ? `: ${detail}` : '.'}`);
}

function csidFrom(answer: ZatcaAnswer): { certificate: string; secret: string; requestId: string } {
  const token = answer.body?.binarySecurityToken;
  const secret = answer.body?.secret;
  if (typeof token !== 'string' || typeof secret !== 'string') throw refusal('request', answer);
  const certificate = certificateFromToken(token);
  certificateInfo(certificate); // refuses anything that is not a certificate
  return { certificate, secret, requestId: String(answer.body?.requestID ?? '') };
}

async function settingsOf(knex: Knex, storeId: number) {
  const row = await knex('einvoice_settings').where({ store_id: storeId }).first();
  if (!row) throw new InvalidError('Start e-invoicing onboarding first.');
  return row;
}

const OTP = /^\d{6}$/;

export async function startOnboarding(
  deps: OnboardingDeps,
  storeId: number,
  address: EinvoiceAddress,
): Promise<{ csr: string }> {
  const store = await activeSellerFor(deps.knex, storeId);
  const current = await deps.knex('einvoice_settings').where({ store_id: storeId }).first('status', 'mode');
  if (current?.status === 'active' && current.mode === 'zatca') {
    throw new InvalidError('This store is onboarded already: renew its certificate instead.');
  }
  const keys = generateKeyPair();
  const serial = egsSerial();
  const csr = buildCsr(
    keys.privateKeyPem,
    csrFields(store, address, serial, certificateTemplate(deps.zatcaApiUrl)),
  );
  const row = {
    mode: 'zatca',
    status: 'keys',
    ...address,
    egs_serial: serial,
    private_key_encrypted: deps.cipher.encrypt(keys.privateKeyPem),
    csr,
    compliance_certificate: null,
    compliance_secret_encrypted: null,
    compliance_request_id: null,
    compliance_checks: JSON.stringify({}),
    certificate: null,
    csid_secret_encrypted: null,
    certificate_expires_at: null,
    pending_private_key_encrypted: null,
    pending_csr: null,
    updated_at: new Date(),
  };
  await deps
    .knex('einvoice_settings')
    .insert({ store_id: storeId, ...row })
    .onConflict('store_id')
    .merge(row);
  return { csr };
}

export async function requestComplianceCsid(
  deps: OnboardingDeps,
  storeId: number,
  otp: string,
): Promise<void> {
  if (!OTP.test(otp))
    throw new InvalidError('The one-time password is the 6 digits ZATCA’s Fatoora portal shows.');
  const s = await settingsOf(deps.knex, storeId);
  if (s.status !== 'keys' || !s.csr) throw new InvalidError('Generate the key and CSR first.');
  const answer = await zatca(
    deps,
    'POST',
    '/compliance',
    { csr: Buffer.from(String(s.csr)).toString('base64') },
    { OTP: otp },
  );
  if (answer.status !== 200) throw refusal('one-time password or CSR', answer);
  const csid = csidFrom(answer);
  await deps
    .knex('einvoice_settings')
    .where({ store_id: storeId })
    .update({
      status: 'compliance',
      compliance_certificate: csid.certificate,
      compliance_secret_encrypted: deps.cipher.encrypt(csid.secret),
      compliance_request_id: csid.requestId,
      updated_at: new Date(),
    });
}

/** The three samples ZATCA's compliance step asks of an EGS that issues simplified documents. */
function samples(seller: DocumentInput['seller'], now: Date): DocumentInput[] {
  const issuedAt = toSecond(now);
  const line = { name: 'Compliance sample', quantity: 1, totalMinor: 11_500 };
  const common = {
    issuedAt,
    seller,
    lines: [line],
    totalMinor: 11_500,
    vatMinor: inclusiveVat(11_500, 1500),
    rateBp: 1500,
  };
  return [
    {
      ...common,
      kind: 'invoice',
      id: 'SME-1',
      uuid: crypto.randomUUID(),
      counter: 1,
      previousHash: FIRST_PREVIOUS_HASH,
    },
    {
      ...common,
      kind: 'credit_note',
      id: 'SME-2',
      uuid: crypto.randomUUID(),
      counter: 2,
      previousHash: '',
      billingReference: 'SME-1',
      reason: 'Compliance sample refund',
    },
    {
      ...common,
      kind: 'debit_note',
      id: 'SME-3',
      uuid: crypto.randomUUID(),
      counter: 3,
      previousHash: '',
      billingReference: 'SME-1',
      reason: 'Compliance sample charge',
    },
  ];
}

export async function runComplianceChecks(
  deps: OnboardingDeps,
  storeId: number,
  now: Date = new Date(),
): Promise<Record<string, string>> {
  const s = await settingsOf(deps.knex, storeId);
  if (s.status !== 'compliance' || !s.compliance_certificate)
    throw new InvalidError('Obtain the compliance CSID first.');
  const store = await activeSellerFor(deps.knex, storeId);
  const cert = certificateInfo(String(s.compliance_certificate));
  const signer = { privateKeyPem: deps.cipher.decrypt(String(s.private_key_encrypted)), certificate: cert };
  const auth = basicAuth({
    binarySecurityToken: securityToken(String(s.compliance_certificate)),
    secret: deps.cipher.decrypt(String(s.compliance_secret_encrypted)),
  } satisfies Csid);
  const seller = {
    legalName: store.legal_name ?? store.name,
    vatNumber: store.vat_number,
    crn: s.crn ?? null,
    address: {
      street: s.street,
      buildingNumber: s.building_number,
      district: s.district,
      city: s.city,
      postalZone: s.postal_zone,
    },
  };
  const results: Record<string, string> = {};
  let previous = FIRST_PREVIOUS_HASH;
  for (const input of samples(seller, now)) {
    input.previousHash = previous;
    const signed = signDocument(
      input,
      {
        sellerName: seller.legalName,
        vatNumber: seller.vatNumber,
        timestamp: isoSeconds(input.issuedAt),
        total: formatAmount(input.totalMinor, 'SAR'),
        vat: formatAmount(input.vatMinor, 'SAR'),
      },
      signer,
      now,
    );
    previous = signed.hash;
    const answer = await zatca(
      deps,
      'POST',
      '/compliance/invoices',
      { invoiceHash: signed.hash, uuid: input.uuid, invoice: Buffer.from(signed.xml).toString('base64') },
      { Authorization: auth },
    );
    const status = (answer.body?.validationResults as Record<string, unknown> | undefined)?.status;
    if (
      (answer.status !== 200 && answer.status !== 202) ||
      status === 'ERROR' ||
      answer.body?.reportingStatus === 'NOT_REPORTED'
    ) {
      await deps
        .knex('einvoice_settings')
        .where({ store_id: storeId })
        .update({
          compliance_checks: JSON.stringify({ ...results, [input.kind]: 'ERROR' }),
          updated_at: new Date(),
        });
      throw refusal(`compliance check of the sample ${input.kind.replace('_', ' ')}`, answer);
    }
    results[input.kind] = String(status ?? 'PASS');
  }
  await deps
    .knex('einvoice_settings')
    .where({ store_id: storeId })
    .update({ status: 'checked', compliance_checks: JSON.stringify(results), updated_at: new Date() });
  return results;
}

export async function requestProductionCsid(deps: OnboardingDeps, storeId: number): Promise<void> {
  const s = await settingsOf(deps.knex, storeId);
  if (s.status !== 'checked') throw new InvalidError('Pass the compliance checks first.');
  const auth = basicAuth({
    binarySecurityToken: securityToken(String(s.compliance_certificate)),
    secret: deps.cipher.decrypt(String(s.compliance_secret_encrypted)),
  });
  const answer = await zatca(
    deps,
    'POST',
    '/production/csids',
    { compliance_request_id: s.compliance_request_id },
    { Authorization: auth },
  );
  if (answer.status !== 200) throw refusal('production CSID request', answer);
  const csid = csidFrom(answer);
  await deps
    .knex('einvoice_settings')
    .where({ store_id: storeId })
    .update({
      status: 'active',
      certificate: csid.certificate,
      csid_secret_encrypted: deps.cipher.encrypt(csid.secret),
      certificate_expires_at: certificateInfo(csid.certificate).notAfter,
      updated_at: new Date(),
    });
}

export async function startRenewal(deps: OnboardingDeps, storeId: number): Promise<{ csr: string }> {
  const s = await settingsOf(deps.knex, storeId);
  if (s.status !== 'active' || s.mode !== 'zatca')
    throw new InvalidError('Only an onboarded store renews its certificate.');
  const store = await activeSellerFor(deps.knex, storeId);
  const keys = generateKeyPair();
  const csr = buildCsr(
    keys.privateKeyPem,
    csrFields(store, s, String(s.egs_serial), certificateTemplate(deps.zatcaApiUrl)),
  );
  await deps
    .knex('einvoice_settings')
    .where({ store_id: storeId })
    .update({
      pending_private_key_encrypted: deps.cipher.encrypt(keys.privateKeyPem),
      pending_csr: csr,
      updated_at: new Date(),
    });
  return { csr };
}

export async function renewProductionCsid(deps: OnboardingDeps, storeId: number, otp: string): Promise<void> {
  if (!OTP.test(otp))
    throw new InvalidError('The one-time password is the 6 digits ZATCA’s Fatoora portal shows.');
  const s = await settingsOf(deps.knex, storeId);
  if (!s.pending_csr || !s.pending_private_key_encrypted) throw new InvalidError('Start the renewal first.');
  const auth = basicAuth({
    binarySecurityToken: securityToken(String(s.certificate)),
    secret: deps.cipher.decrypt(String(s.csid_secret_encrypted)),
  });
  const answer = await zatca(
    deps,
    'PATCH',
    '/production/csids',
    { csr: Buffer.from(String(s.pending_csr)).toString('base64') },
    { Authorization: auth, OTP: otp },
  );
  if (answer.status !== 200) throw refusal('renewal', answer);
  const csid = csidFrom(answer);
  // Documents chained but not signed yet are signed with the new key: the hash does not change.
  await deps
    .knex('einvoice_settings')
    .where({ store_id: storeId })
    .update({
      private_key_encrypted: s.pending_private_key_encrypted,
      csr: s.pending_csr,
      pending_private_key_encrypted: null,
      pending_csr: null,
      certificate: csid.certificate,
      csid_secret_encrypted: deps.cipher.encrypt(csid.secret),
      certificate_expires_at: certificateInfo(csid.certificate).notAfter,
      updated_at: new Date(),
    });
}
