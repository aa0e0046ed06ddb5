import type { Knex } from 'knex';
import { ValidationError } from '../../errors';
import { unitOfWork, type UnitOfWorkDeps } from '../../unit-of-work';
import { STORES, storeCounter } from '../catalogue/cache';
import { recordAudit } from '../audit';

/** The store's reading and notice preferences (docs/dashboard.md, "New-order notices" and "Preferences"). */
export interface StorePreferences {
  /** An IANA time zone (`Asia/Riyadh`, the default): dates people read (receipts) are shown in it. */
  time_zone: string;
  notify_order_message: boolean;
  notify_order_email: boolean;
  /** The digits of the store's Arabic pages (dashboard, store pages, widget): `western` (default) or `arabic_indic`. */
  digits: 'western' | 'arabic_indic';
}

const DIGITS = ['western', 'arabic_indic'] as const;
const FIELDS = ['time_zone', 'notify_order_message', 'notify_order_email', 'digits'] as const;

/** Whether `zone` is a time zone this runtime knows (the IANA database, as Intl reads it). */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+){0,2}$/.test(zone) || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export async function storePreferences(knex: Knex, storeId: number): Promise<StorePreferences> {
  const row = await knex('stores')
    .where('id', storeId)
    .first<StorePreferences | undefined>(...FIELDS);
  return {
    time_zone: row?.time_zone ?? 'Asia/Riyadh',
    notify_order_message: row?.notify_order_message !== false,
    notify_order_email: row?.notify_order_email !== false,
    digits: row?.digits === 'arabic_indic' ? 'arabic_indic' : 'western',
  };
}

/**
 * Writes the preferences (a time zone the runtime does not know: 422 naming `time_zone`), with the audit
 * row of a store change (`store.updated`) naming what changed; the store's cached answers are renewed.
 */
export async function writeStorePreferences(
  deps: UnitOfWorkDeps,
  actor: { storeId: number; tokenId: number | null; name: string },
  storeId: number,
  next: StorePreferences,
): Promise<void> {
  if (!isTimeZone(next.time_zone)) throw ValidationError.field('time_zone', 'is not a known time zone');
  if (!DIGITS.includes(next.digits)) throw ValidationError.field('digits', 'must be western or arabic_indic');
  await unitOfWork(deps, async (uow) => {
    const trx = uow.trx;
    const before = await trx('stores')
      .where('id', storeId)
      .forUpdate()
      .first<StorePreferences>(...FIELDS);
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const key of FIELDS) {
      if (before[key] !== next[key]) changes[key] = { from: before[key], to: next[key] };
    }
    if (Object.keys(changes).length === 0) return;
    // The digits show in the Embed API's product answer (the widget reads them): its caches hear of it.
    uow.bump([STORES, storeCounter(storeId)]);
    await trx('stores')
      .where('id', storeId)
      .update({ ...next, updated_at: trx.fn.now() });
    await recordAudit(trx, actor, 'store.updated', { type: 'store', id: storeId }, changes);
  });
}
