import type { Logger } from '../../shared/logger';
import { recordAudit, SECRET } from '../../shared/services/audit';
import type { AppContext } from '../context';

/**
 * The audit log's net under every Merchant API write. Services that know what they change record their
 * own event, with the change, inside their transaction; a handler marks that by taking its actor
 * (`actorOf`). Any other successful write (an order status, a merchant order, a webhook endpoint, a
 * license action, ...) is recorded here once it has committed: the route, the resource id from the path,
 * and the request body with anything secret-looking replaced by "set".
 */

const selfAudited = new WeakSet<AppContext>();

export function markSelfAudited(ctx: AppContext): void {
  selfAudited.add(ctx);
}

const SECRET_KEY = /secret|password|token|key|credential|iban|account_number/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 5) return '…';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        SECRET_KEY.test(k) ? SECRET : redact(v, depth + 1),
      ]),
    );
  }
  return typeof value === 'string' && value.length > 500 ? `${value.slice(0, 500)}…` : value;
}

/** After a successful write that recorded nothing itself: one generic audit event. */
export async function auditOtherWrite(ctx: AppContext, logger: Logger): Promise<void> {
  if (selfAudited.has(ctx) || ctx.status >= 400) return;
  const store = ctx.state.store;
  if (!store) return;
  const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? ctx.path;
  const resource = /^\/shawarma\/([a-z-]+)/.exec(route)?.[1] ?? 'store';
  const id = Number((ctx as unknown as { params?: Record<string, string> }).params?.id);
  const token = ctx.state.merchantToken;
  try {
    await recordAudit(
      ctx.deps.knex,
      { storeId: store.id, tokenId: token?.id ?? null, name: token ? `token:${token.name}` : 'operator' },
      `${ctx.method} ${route}`.slice(0, 50),
      { type: resource.replace(/s$/, '').slice(0, 30), id: Number.isInteger(id) && id > 0 ? id : null },
      { request: redact(ctx.request.body ?? {}) as Record<string, unknown> },
    );
  } catch (err) {
    logger.warn({ err: (err as Error).message, route }, 'merchant write not recorded in the audit log');
  }
}
