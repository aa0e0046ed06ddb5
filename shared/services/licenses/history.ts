import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import { pageMeta } from '../../views';

/**
 * A license's history (license_events): each activation and each reset, who made it and when, for the
 * merchant (GET /shawarma/licenses/{licenseId}/history). Written inside the transaction that made the
 * change, so the history holds exactly what happened.
 */
export type LicenseEventKind = 'activated' | 'reset';
export type LicenseEventActor = 'customer' | 'merchant';

export async function recordLicenseEvent(
  trx: Knex,
  event: {
    licenseId: number;
    kind: LicenseEventKind;
    actor: LicenseEventActor;
    hint?: string | null;
    removed?: number | null;
    at: Date;
  },
): Promise<void> {
  await trx('license_events').insert({
    license_id: event.licenseId,
    kind: event.kind,
    actor: event.actor,
    hint: event.hint ?? null,
    removed: event.removed ?? null,
    created_at: event.at,
  });
}

export interface LicenseEventView {
  id: number;
  kind: LicenseEventKind;
  actor: LicenseEventActor;
  hint: string | null;
  removed: number | null;
  created_at: string;
}

/** Newest first, paged; a license of another store is not found. */
export async function licenseHistory(
  deps: { knex: Knex },
  storeId: number,
  licenseId: number,
  page: { page: number; per_page: number },
): Promise<{
  items: LicenseEventView[];
  meta: { page: number; per_page: number; total: number; last_page: number };
}> {
  const license = await deps.knex('licenses').where({ id: licenseId, store_id: storeId }).first('id');
  if (!license) throw new NotFoundError('License not found');
  const [{ n }] = await deps
    .knex('license_events')
    .where('license_id', licenseId)
    .count<{ n: string }[]>('* as n');
  const rows = await deps
    .knex('license_events')
    .where('license_id', licenseId)
    .orderBy('id', 'desc')
    .limit(page.per_page)
    .offset((page.page - 1) * page.per_page)
    .select<
      {
        id: number;
        kind: LicenseEventKind;
        actor: LicenseEventActor;
        hint: string | null;
        removed: number | null;
        created_at: Date;
      }[]
    >('id', 'kind', 'actor', 'hint', 'removed', 'created_at');
  const total = Number(n);
  return {
    items: rows.map((r) => ({ ...r, id: Number(r.id), created_at: r.created_at.toISOString() })),
    meta: pageMeta(page, total),
  };
}
