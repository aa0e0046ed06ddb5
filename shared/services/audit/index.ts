import type { Knex } from 'knex';
import { paginate, type PageMeta, type PageRequest } from '../../pagination';

/**
 * The merchant's audit log: one row per write through the Merchant API (who, with which token, when,
 * what changed), inserted in the write's own transaction, so a change and its record commit together and
 * a refused or rolled-back write leaves none. Secrets never enter it: a credential or key is recorded as
 * `"set"`.
 */

/** Who is writing: the store, and the token (null for the operator's command-line tools). */
export interface Actor {
  storeId: number;
  tokenId: number | null;
  /** Shown in the log: `token:<name>` or `operator`. */
  name: string;
}

export const operatorActor = (storeId: number): Actor => ({ storeId, tokenId: null, name: 'operator' });

export type Changes = Record<string, { from: unknown; to: unknown }>;

/** Stands in for any secret value in a change. */
export const SECRET = 'set';

function comparable(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  return JSON.stringify(value ?? null);
}

/** The keys of `after` whose value differs from `before` (JSON equality; dates by instant). */
export function diff(before: Record<string, unknown>, after: Record<string, unknown>): Changes {
  const out: Changes = {};
  for (const key of Object.keys(after)) {
    if (comparable(before[key]) !== comparable(after[key])) {
      out[key] = { from: before[key] ?? null, to: after[key] ?? null };
    }
  }
  return out;
}

export async function recordAudit(
  trx: Knex,
  actor: Actor,
  action: string,
  resource: { type: string; id: number | null },
  changes: Changes | Record<string, unknown> = {},
): Promise<void> {
  await trx('merchant_audit_events').insert({
    store_id: actor.storeId,
    merchant_token_id: actor.tokenId,
    actor: actor.name.slice(0, 100),
    action,
    resource_type: resource.type,
    resource_id: resource.id,
    changes: JSON.stringify(changes),
  });
}

export interface AuditFilters {
  resource_type?: string;
  resource_id?: number;
  action?: string;
}

export interface AuditEventView {
  id: number;
  action: string;
  resource: { type: string; id: number | null };
  actor: string;
  token: { id: number; name: string; last4: string | null } | null;
  changes: Record<string, unknown>;
  created_at: string;
}

export async function listAudit(
  knex: Knex,
  storeId: number,
  filters: AuditFilters,
  page: PageRequest,
): Promise<{ items: AuditEventView[]; meta: PageMeta }> {
  const base = knex('merchant_audit_events as e')
    .leftJoin('merchant_tokens as t', 't.id', 'e.merchant_token_id')
    .where('e.store_id', storeId)
    .select('e.*', 't.name as token_name', 't.last4 as token_last4');
  if (filters.resource_type) base.where('e.resource_type', filters.resource_type);
  if (filters.resource_id !== undefined) base.where('e.resource_id', filters.resource_id);
  if (filters.action) base.where('e.action', filters.action);
  const { rows, meta } = await paginate<Record<string, unknown>>(base, page, (q) =>
    q.orderBy([
      { column: 'e.created_at', order: 'desc' },
      { column: 'e.id', order: 'desc' },
    ]),
  );
  return {
    items: rows.map((r) => ({
      id: Number(r.id),
      action: String(r.action),
      resource: { type: String(r.resource_type), id: r.resource_id == null ? null : Number(r.resource_id) },
      actor: String(r.actor),
      token:
        r.merchant_token_id == null
          ? null
          : {
              id: Number(r.merchant_token_id),
              name: String(r.token_name ?? ''),
              last4: (r.token_last4 as string | null) ?? null,
            },
      changes: (r.changes as Record<string, unknown>) ?? {},
      created_at: new Date(r.created_at as Date).toISOString(),
    })),
    meta,
  };
}
