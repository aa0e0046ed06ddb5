import type { Knex } from 'knex';
import { Cipher, SealError } from '../../crypto';
import {
  SEALED_COLUMNS,
  SEAL_CHECK_SETTING,
  SEAL_CHECK_TEXT,
  SealedColumn,
  sealedColumnName,
} from '../../sealed-columns';

/**
 * What a start says when the database's sealed values open under none of the secrets it was given: never a
 * bare crypto error (the operator contract, docs/operations.md; docs/security.md, "Rotating APP_SECRET").
 */
export const WRONG_APP_SECRET =
  'APP_SECRET does not open the data sealed in this database, and neither does any value of ' +
  'APP_SECRET_PREVIOUS: start with the APP_SECRET it was sealed under, or, to rotate, set APP_SECRET to the ' +
  'new secret and APP_SECRET_PREVIOUS to the old one (docs/security.md, "Rotating APP_SECRET")';

/** The sealed text of column `c`, as a select expression. */
function sealedExpr(knex: Knex, c: SealedColumn): Knex.Raw {
  return c.jsonField ? knex.raw('??->>?', [c.column, c.jsonField]) : knex.raw('??', [c.column]);
}

function rowsOf(knex: Knex, c: SealedColumn): Knex.QueryBuilder {
  const q = knex(c.table).whereRaw('? is not null', [sealedExpr(knex, c)]);
  if (c.where) q.where(c.where);
  return q;
}

function opens(cipher: Cipher, sealed: string): boolean {
  try {
    cipher.decrypt(sealed);
    return true;
  } catch (err) {
    if (err instanceof SealError) return false;
    throw err;
  }
}

/**
 * The start's probe: the check value kept in platform_settings opens (or, on a database from before it
 * existed, one value of each small sealed table does), else the start stops with WRONG_APP_SECRET. A
 * database that passes gets the check value, sealed under the current secret, if it had none. A few
 * indexed reads: cheap enough for every start of every process.
 */
export async function checkSealedData(knex: Knex, cipher: Cipher): Promise<{ ok: true } | { ok: false }> {
  const check = await knex('platform_settings')
    .where({ key: SEAL_CHECK_SETTING })
    .first<{ value: string }>('value');
  if (check) {
    let text: string | null = null;
    try {
      text = cipher.decrypt(check.value);
    } catch (err) {
      if (!(err instanceof SealError)) throw err;
    }
    return text === SEAL_CHECK_TEXT ? { ok: true } : { ok: false };
  }
  for (const c of SEALED_COLUMNS) {
    if (!c.probe) continue;
    const row = await rowsOf(knex, c).first<{ sealed: string } | undefined>(
      knex.raw('? as sealed', [sealedExpr(knex, c)]),
    );
    if (row && !opens(cipher, row.sealed)) return { ok: false };
  }
  await knex('platform_settings')
    .insert({ key: SEAL_CHECK_SETTING, value: cipher.encrypt(SEAL_CHECK_TEXT) })
    .onConflict('key')
    .ignore();
  return { ok: true };
}

export interface ColumnReport {
  column: string;
  /** Already sealed under the current APP_SECRET: left as they are. */
  current: number;
  /** Opened under a previous secret (or sealed before key ids) and sealed again under APP_SECRET. */
  resealed: number;
  /** Changed by the platform between the read and the write: the newer value is kept. */
  changed: number;
  /** Open under none of the secrets given. */
  unreadable: number;
}

/**
 * Re-seals every sealed value (SEALED_COLUMNS) under the current secret, a batch of rows at a time.
 *
 * Each row is written by compare-and-swap: `update ... where key = ? and value = <what was read>`. A value
 * the platform wrote in between (a new card, a new webhook secret) is sealed under the current secret
 * already and is never replaced by the old one re-sealed; no lock is held across a batch, so the platform
 * serves meanwhile. Values already under the current secret are not touched, so a second run writes
 * nothing.
 */
export async function resealAll(
  knex: Knex,
  cipher: Cipher,
  opts: { batchSize?: number; progress?: (line: string) => void } = {},
): Promise<ColumnReport[]> {
  const batchSize = opts.batchSize ?? 500;
  const reports: ColumnReport[] = [];
  for (const c of SEALED_COLUMNS) {
    const report: ColumnReport = {
      column: sealedColumnName(c),
      current: 0,
      resealed: 0,
      changed: 0,
      unreadable: 0,
    };
    let after: string | number | null = null;
    for (;;) {
      const q = rowsOf(knex, c)
        .select(knex.raw('?? as k', [c.key]), knex.raw('? as sealed', [sealedExpr(knex, c)]))
        .orderBy(c.key)
        .limit(batchSize);
      if (after !== null) q.where(c.key, '>', after);
      const rows = (await q) as { k: string | number; sealed: string }[];
      if (rows.length === 0) break;
      for (const row of rows) {
        if (cipher.isCurrent(row.sealed)) {
          report.current += 1;
          continue;
        }
        let plain: string;
        try {
          plain = cipher.decrypt(row.sealed);
        } catch (err) {
          if (!(err instanceof SealError)) throw err;
          report.unreadable += 1;
          continue;
        }
        const resealed = cipher.encrypt(plain);
        const swap = knex(c.table)
          .where(c.key, row.k)
          .whereRaw('? = ?', [sealedExpr(knex, c), row.sealed]);
        const written = await (c.jsonField
          ? swap.update({
              [c.column]: knex.raw('jsonb_set(??, ?, to_jsonb(?::text))', [
                c.column,
                `{${c.jsonField}}`,
                resealed,
              ]),
            })
          : swap.update({ [c.column]: resealed }));
        if (written === 1) report.resealed += 1;
        else report.changed += 1;
      }
      after = rows[rows.length - 1]!.k;
      opts.progress?.(
        `${report.column}: ${report.current + report.resealed + report.changed + report.unreadable} read, ` +
          `${report.resealed} re-sealed`,
      );
      if (rows.length < batchSize) break;
    }
    reports.push(report);
  }
  return reports;
}
