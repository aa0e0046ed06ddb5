import { isIP } from 'node:net';
import type { Knex } from 'knex';
import { randomToken, safeEqual } from '../../crypto';
import type { TxtResolver } from '../../dns';
import { NotFoundError, ValidationError } from '../../errors';
import type { TxDeps } from '../../unit-of-work';
import { noteStoreChangedOn } from '../catalogue/cache';
import { type Actor, recordAudit } from '../audit';

/**
 * Store domains and their ownership (docs/merchant.md, "Store domains"). A domain a store adds is pending
 * until the DNS TXT record `_matjar-verify.<domain>` holds the value made for that store and domain; only
 * then does it pick the store for Storefront requests (api/middleware/storefront-store.ts). Verification
 * runs in the `verify-domains` maintenance task and on demand. Refused outright: the platform's own host
 * (PUBLIC_BASE_URL), `localhost` and its subdomains, IP addresses, names that are not host names, and a
 * domain another store holds, verified or pending (one row per domain: the unique index decides a race).
 */

/** How many domains (verified and pending) one store may hold. */
export const DOMAIN_LIMIT = 20;

/** A pending domain whose record has not appeared within this many days is dropped, freeing the name. */
export const PENDING_DOMAIN_DAYS = 7;

/** Pending domains looked up per run of the task, and at once. */
const TASK_BATCH = 500;
const TASK_PARALLEL = 8;

const TXT_LABEL = '_matjar-verify';

export const txtNameOf = (domain: string): string => `${TXT_LABEL}.${domain}`;

/** 24 random bytes: unguessable, and new for every claim, so an old holder's record proves nothing. */
export const newTxtValue = (): string => randomToken(24, 'matjar-verify=');

export type DomainRefusal = 'syntax' | 'ip' | 'local' | 'platform';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Why `domain` (already lowercased) can never be a store domain, or null. */
export function domainRefusal(domain: string, platformHost: string): DomainRefusal | null {
  const bare = domain.startsWith('[') && domain.endsWith(']') ? domain.slice(1, -1) : domain;
  if (isIP(bare) !== 0) return 'ip';
  const labels = domain.split('.');
  // A name whose last label is all digits is an IPv4 address in one of its short or numeric forms
  // (127.1, 2130706433, 0x7f.0.0.1 ...) to a browser's URL parser; no top-level domain is numeric.
  if (/^(0x[0-9a-f]*|\d+)$/.test(labels[labels.length - 1] ?? '')) return 'ip';
  if (domain.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l))) {
    return domain === 'localhost' ? 'local' : 'syntax';
  }
  if (labels[labels.length - 1] === 'localhost') return 'local';
  if (domain === platformHost) return 'platform';
  return null;
}

const REFUSAL_TEXT: Record<DomainRefusal, string> = {
  syntax: 'is not a host name (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
  ip: 'is an IP address; a store domain is a host name',
  local: 'is a local name; a store domain is a public host name',
  platform: 'is the platform’s own host',
};

/** The platform's own host, from PUBLIC_BASE_URL. */
export function platformHostOf(publicBaseUrl: string): string {
  try {
    return new URL(publicBaseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}

/** Each domain of the list that can never be a store domain, with why (the cap is the caller's). */
export function refusedDomains(
  domains: readonly string[],
  platformHost: string,
): { domain: string; reason: DomainRefusal }[] {
  return domains.flatMap((domain) => {
    const reason = domainRefusal(domain, platformHost);
    return reason ? [{ domain, reason }] : [];
  });
}

export interface PendingDomainView {
  domain: string;
  txt_name: string;
  txt_value: string;
}

export interface DomainStateView extends PendingDomainView {
  status: 'verified' | 'pending';
  verified_at: string | null;
  checked_at: string | null;
}

type DomainRow = {
  id: number;
  store_id: number;
  domain: string;
  txt_value: string;
  verified_at: Date | null;
  checked_at: Date | null;
  created_at: Date;
};

function stateOf(row: DomainRow): DomainStateView {
  return {
    domain: row.domain,
    status: row.verified_at ? 'verified' : 'pending',
    txt_name: txtNameOf(row.domain),
    txt_value: row.txt_value,
    verified_at: row.verified_at ? new Date(row.verified_at).toISOString() : null,
    checked_at: row.checked_at ? new Date(row.checked_at).toISOString() : null,
  };
}

/** Every domain of the store, in the order added, with its state and TXT record. */
export async function domainStates(knex: Knex, storeId: number): Promise<DomainStateView[]> {
  const rows = (await knex('store_domains').where('store_id', storeId).orderBy('id')) as DomainRow[];
  return rows.map(stateOf);
}

/** The store's verified domains, and its pending ones with the TXT record each needs. */
export async function storeDomainLists(
  knex: Knex,
  storeId: number,
): Promise<{ domains: string[]; pending_domains: PendingDomainView[] }> {
  const states = await domainStates(knex, storeId);
  return {
    domains: states.filter((d) => d.status === 'verified').map((d) => d.domain),
    pending_domains: states
      .filter((d) => d.status === 'pending')
      .map(({ domain, txt_name, txt_value }) => ({ domain, txt_name, txt_value })),
  };
}

/** A refusal of the `domains` field: one message per domain, naming it. */
export function domainsError(messages: string[]): ValidationError {
  return new ValidationError({ domains: messages }, 'A domain cannot be used by this store');
}

export const TAKEN_MESSAGE = 'is held by another store';

/**
 * Makes the store's domains exactly `wanted` (lowercased host names): domains left out are removed,
 * verified or pending; new ones are added pending with a fresh TXT value; kept ones keep their state.
 * Inside the caller's transaction (store row locked by it). Answers the lists before and after.
 */
export async function writeDomains(
  trx: Knex,
  storeId: number,
  wanted: readonly string[],
  platformHost: string,
): Promise<{ from: string[]; to: string[] }> {
  const list = [...new Set(wanted)];
  const before = (await trx('store_domains')
    .where('store_id', storeId)
    .orderBy('id')
    .pluck('domain')) as string[];
  // Only a new claim is checked: a domain the store already holds stays (a fixture's `localhost` in
  // development, say), so saving the list with one more domain never trips over the ones it had.
  const fresh = list.filter((d) => !before.includes(d));
  const messages = refusedDomains(fresh, platformHost).map((r) => `${r.domain} ${REFUSAL_TEXT[r.reason]}`);
  if (list.length > DOMAIN_LIMIT) messages.push(`a store holds at most ${DOMAIN_LIMIT} domains`);
  if (messages.length > 0) throw domainsError(messages);
  const taken = (await trx('store_domains')
    .whereIn('domain', fresh.length > 0 ? fresh : [''])
    .whereNot('store_id', storeId)
    .pluck('domain')) as string[];
  if (taken.length > 0) throw domainsError(taken.map((d) => `${d} ${TAKEN_MESSAGE}`));
  await trx('store_domains')
    .where('store_id', storeId)
    .whereNotIn('domain', list.length > 0 ? list : [''])
    .delete();
  if (fresh.length > 0) {
    // Two stores claiming one domain at once: the unique index on `domain` lets one insert through; the
    // other fails with a unique violation, answered as the same refusal by the caller.
    await trx('store_domains').insert(
      fresh.map((domain) => ({ store_id: storeId, domain, txt_value: newTxtValue() })),
    );
  }
  return { from: before, to: list };
}

/** True when one of the TXT records of `txt_name` is exactly `txt_value`; a failed lookup is false. */
async function recordHolds(resolveTxt: TxtResolver, row: DomainRow): Promise<boolean> {
  let records: string[][];
  try {
    records = await resolveTxt(txtNameOf(row.domain));
  } catch {
    // No such name, no TXT records, a timeout: not proven (yet).
    return false;
  }
  // A long TXT record arrives as several character strings; together they are the value.
  return records.some((chunks) => safeEqual(chunks.join(''), row.txt_value));
}

export interface VerifyDeps extends TxDeps {
  knex: Knex;
  resolveTxt: TxtResolver;
}

/** Looks one pending domain's record up; marks it verified when it holds. Answers whether it did. */
async function checkOne(deps: VerifyDeps, row: DomainRow, actor: Actor | null, now: Date): Promise<boolean> {
  const holds = await recordHolds(deps.resolveTxt, row);
  if (!holds) {
    await deps.knex('store_domains').where('id', row.id).whereNull('verified_at').update({ checked_at: now });
    return false;
  }
  return deps.tx(async (uow) => {
    // Re-checked here: a domain removed (or removed and claimed again) meanwhile is left alone.
    const marked = await uow
      .trx('store_domains')
      .where({ id: row.id, txt_value: row.txt_value })
      .whereNull('verified_at')
      .update({ verified_at: now, checked_at: now });
    if (marked === 0) return false;
    await recordAudit(
      uow.trx,
      actor ?? { storeId: row.store_id, tokenId: null, name: 'verify-domains' },
      'store.domain_verified',
      { type: 'store', id: row.store_id },
      { domain: row.domain },
    );
    // The Storefront's host lookups (catalogue/store-cache.ts) see the domain from the next request on.
    noteStoreChangedOn(uow, row.store_id);
    return true;
  });
}

/**
 * `POST /shawarma/store/domains/{domain}/verify`: looks the domain's TXT record up now (a verified domain
 * is answered as it is). A domain the store does not hold is a NotFoundError.
 */
export async function verifyStoreDomain(
  deps: VerifyDeps,
  actor: Actor,
  storeId: number,
  domain: string,
): Promise<DomainStateView> {
  const find = async (): Promise<DomainRow | undefined> =>
    (await deps.knex('store_domains').where({ store_id: storeId, domain }).first()) as DomainRow | undefined;
  const row = await find();
  if (!row) throw new NotFoundError('This store holds no such domain');
  if (row.verified_at) return stateOf(row);
  await checkOne(deps, row, actor, new Date());
  const after = await find();
  if (!after) throw new NotFoundError('This store holds no such domain');
  return stateOf(after);
}

/**
 * The `verify-domains` maintenance task: every pending domain's record looked up (least recently checked
 * first, a few at a time), and pending domains older than PENDING_DOMAIN_DAYS dropped, so a name claimed
 * by a store that cannot prove it is free again for its owner.
 */
export async function verifyPendingDomains(
  deps: VerifyDeps,
  now: Date = new Date(),
): Promise<Record<string, number>> {
  const cutoff = new Date(now.getTime() - PENDING_DOMAIN_DAYS * 24 * 3600 * 1000);
  const expired = await deps
    .knex('store_domains')
    .whereNull('verified_at')
    .where('created_at', '<', cutoff)
    .delete();
  const rows = (await deps
    .knex('store_domains')
    .whereNull('verified_at')
    .orderByRaw('checked_at asc nulls first, id asc')
    .limit(TASK_BATCH)) as DomainRow[];
  let verified = 0;
  for (let i = 0; i < rows.length; i += TASK_PARALLEL) {
    const done = await Promise.all(
      rows.slice(i, i + TASK_PARALLEL).map((row) => checkOne(deps, row, null, now)),
    );
    verified += done.filter(Boolean).length;
  }
  return { checked: rows.length, verified, expired };
}
