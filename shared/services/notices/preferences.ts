import type { Knex } from 'knex';
import { ValidationError } from '../../errors';
import { recordAudit } from '../audit';

/** The store's reading and notice preferences (docs/dashboard.md, "New-order notices" and "Preferences"). */
export interface StorePreferences {
  /** An IANA time zone (`Asia/Riyadh`, the default): dates people read (receipts) are shown in it. */
  time_zone: string;
  notify_order_message: boolean;
  notify_order_email: boolean;
}

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
    .first<StorePreferences | undefined>('time_zone', 'notify_order_message', 'notify_order_email');
  return {
    time_zone: row?.time_zone ?? 'Asia/Riyadh',
    notify_order_message: row?.notify_order_message !== false,
    notify_order_email: row?.notify_order_email !== false,
  };
}

/**
 * Writes the preferences (a time zone the runtime does not know: 422 naming `time_zone`), with the audit
 * row of a store change (`store.updated`) naming what changed.
 */
export async function writeStorePreferences(
  knex: Knex,
  actor: { storeId: number; tokenId: number | null; name: string },
  storeId: number,
  next: StorePreferences,
): Promise<void> {
  if (!isTimeZone(next.time_zone)) throw ValidationError.field('time_zone', 'is not a known time zone');
  await knex.transaction(async (trx) => {
    const before = await trx('stores')
      .where('id', storeId)
      .forUpdate()
      .first<StorePreferences>('time_zone', 'notify_order_message', 'notify_order_email');
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const key of ['time_zone', 'notify_order_message', 'notify_order_email'] as const) {
      if (before[key] !== next[key]) changes[key] = { from: before[key], to: next[key] };
    }
    if (Object.keys(changes).length === 0) return;
    await trx('stores')
      .where('id', storeId)
      .update({ ...next, updated_at: trx.fn.now() });
    await recordAudit(trx, actor, 'store.updated', { type: 'store', id: storeId }, changes);
  });
}
