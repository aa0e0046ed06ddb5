import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';
import { ensureSigned } from './chain';
import { basicAuth, callZatca, messages, securityToken, ZatcaUnreachable } from './client';

/**
 * The `report-einvoices` maintenance task (docs/einvoicing.md, "Reporting"): every pending simplified
 * document, oldest link first, is signed (if nobody has yet) and reported to ZATCA_API_URL's single
 * reporting endpoint with the store's CSID.
 *
 * - 200 / 202 (REPORTED, with or without warnings): `reported`; the warnings are kept and shown.
 * - 400 (NOT_REPORTED): `rejected` with ZATCA's error messages, shown to the merchant and never sent again
 *   by the task (the same document would be refused the same way; a corrected one is a new document).
 * - no answer, 429, 5xx: an outage. The document stays `pending` and its next attempt backs off (1 minute,
 *   doubling, at most 1 hour), well within ZATCA's 24 hours for a short outage.
 * - 401 / 403 (the CSID refused) and other answers: `pending`, the reason kept for the merchant, and the
 *   same back-off; the document is unchanged so a renewed CSID reports it.
 *
 * Documents are claimed before the call (`for update skip locked`, next attempt moved past the call's
 * timeout), so two runs at once never report one document twice.
 */

export interface ReportingDeps {
  knex: Knex;
  cipher: Cipher;
  zatcaApiUrl?: string;
}

export interface ReportingResult {
  reported: number;
  rejected: number;
  deferred: number;
}

export const FIRST_RETRY_MS = 60_000;
export const MAX_RETRY_MS = 3_600_000;
const CLAIM_MS = 5 * 60_000;
const BATCH = 100;

export function retryDelayMs(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(attempts - 1, 0), MAX_RETRY_MS);
}

async function claim(knex: Knex, now: Date): Promise<{ id: number; store_id: number; attempts: number }[]> {
  const result = await knex.raw<{ rows: { id: number; store_id: number; attempts: number }[] }>(
    `update einvoice_documents d set next_attempt_at = :lease, attempts = d.attempts + 1
      where d.id in (select id from einvoice_documents
                      where reporting_status = 'pending' and next_attempt_at <= :now
                      order by store_id, counter limit :batch for update skip locked)
      returning d.id, d.store_id, d.attempts`,
    { now, lease: new Date(now.getTime() + CLAIM_MS), batch: BATCH },
  );
  return result.rows.sort((a, b) => Number(a.id) - Number(b.id));
}

export async function reportEinvoices(deps: ReportingDeps, now: Date = new Date()): Promise<ReportingResult> {
  const out: ReportingResult = { reported: 0, rejected: 0, deferred: 0 };
  // Without ZATCA_API_URL the documents are made and kept; they are reported once it is set.
  if (!deps.zatcaApiUrl) return out;
  const base = deps.zatcaApiUrl;
  const credentials = new Map<number, string>();
  for (const claimed of await claim(deps.knex, now)) {
    const id = Number(claimed.id);
    const storeId = Number(claimed.store_id);
    const defer = async (reason: string) => {
      out.deferred++;
      await deps
        .knex('einvoice_documents')
        .where({ id, reporting_status: 'pending' })
        .update({
          last_error: reason.slice(0, 500),
          next_attempt_at: new Date(now.getTime() + retryDelayMs(Number(claimed.attempts))),
        });
    };
    try {
      const doc = await ensureSigned(deps.knex, deps.cipher, id, now);
      if (!credentials.has(storeId)) {
        const s = await deps
          .knex('einvoice_settings')
          .where({ store_id: storeId })
          .first('certificate', 'csid_secret_encrypted');
        if (!s?.certificate || !s.csid_secret_encrypted) {
          await defer('The store has no production CSID yet: finish onboarding in the dashboard.');
          continue;
        }
        credentials.set(
          storeId,
          basicAuth({
            binarySecurityToken: securityToken(String(s.certificate)),
            secret: deps.cipher.decrypt(String(s.csid_secret_encrypted)),
          }),
        );
      }
      const answer = await callZatca(
        base,
        'POST',
        '/invoices/reporting/single',
        {
          invoiceHash: doc.hash,
          uuid: doc.uuid,
          invoice: Buffer.from(String(doc.xml), 'utf8').toString('base64'),
        },
        { Authorization: credentials.get(storeId)!, 'Clearance-Status': '0' },
      );
      const warnings = messages(answer.body, 'warningMessages');
      const errors = messages(answer.body, 'errorMessages');
      if (
        (answer.status === 200 || answer.status === 202) &&
        answer.body?.reportingStatus !== 'NOT_REPORTED'
      ) {
        out.reported++;
        await deps
          .knex('einvoice_documents')
          .where({ id })
          .update({
            reporting_status: 'reported',
            reported_at: now,
            warnings: JSON.stringify(warnings),
            errors: JSON.stringify([]),
            last_error: null,
          });
      } else if (
        answer.status === 400 ||
        (answer.status === 200 && answer.body?.reportingStatus === 'NOT_REPORTED')
      ) {
        out.rejected++;
        await deps
          .knex('einvoice_documents')
          .where({ id })
          .update({
            reporting_status: 'rejected',
            warnings: JSON.stringify(warnings),
            errors: JSON.stringify(errors),
            last_error: `ZATCA rejected the document (${errors.length} error${errors.length === 1 ? '' : 's'})`,
          });
      } else if (answer.status === 401 || answer.status === 403) {
        await defer(`ZATCA refused the store's CSID (HTTP ${answer.status}): renew it in the dashboard.`);
      } else {
        await defer(`ZATCA answered HTTP ${answer.status}; trying again later.`);
      }
    } catch (err) {
      if (err instanceof ZatcaUnreachable) await defer(err.message);
      else await defer(`Reporting failed: ${(err as Error).message}`);
    }
  }
  return out;
}
