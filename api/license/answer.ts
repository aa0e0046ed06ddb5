import { sealLicenseAnswer, NONCE_PATTERN } from '../../shared/services/licenses/answer';
import type { AppContext, AppMiddleware } from '../context';
import { envelopes, type ErrorView } from '../envelopes';
import { toErrorView } from '../middleware/error-handler';

/** The product id and nonce as the client sent them, when well-formed (read before or after validation). */
function fromRawBody(ctx: AppContext): { productId: number | null; nonce: string | null } {
  const body: unknown = ctx.request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { productId: null, nonce: null };
  const { product_id: rawId, nonce: rawNonce } = body as Record<string, unknown>;
  const id = typeof rawId === 'string' && /^\d{1,10}$/.test(rawId.trim()) ? Number(rawId) : rawId;
  const productId =
    Number.isInteger(id) && (id as number) > 0 && (id as number) <= 2_147_483_647 ? (id as number) : null;
  const nonce = typeof rawNonce === 'string' && NONCE_PATTERN.test(rawNonce.trim()) ? rawNonce.trim() : null;
  return { productId, nonce };
}

/**
 * Outermost middleware of POST /verify: every answer, success or error (a 429 of the guard, a 422 of the
 * validation, a refusal of the service), leaves through here, in the License envelope, with the nonce and
 * timestamp, encrypted when the product says so, and signed over the exact body (X-Signature).
 */
export function licenseAnswer(): AppMiddleware {
  return async (ctx, next) => {
    let view: ErrorView | null = null;
    try {
      await next();
    } catch (err) {
      view = toErrorView(err);
      if (!view) {
        ctx.deps.logger.error(
          { err, requestId: ctx.state.requestId, method: ctx.method, route: '/verify' },
          'unhandled error',
        );
        view = { status: 500, code: 'UNAVAILABLE', message: 'Internal server error', extra: {} };
      }
    }
    const document = (view ? envelopes.license.error(view) : ctx.body) as Record<string, unknown>;
    const status = view ? view.status : ctx.status;
    const { productId, nonce } = fromRawBody(ctx);
    const sealed = await sealLicenseAnswer(ctx.deps, document, {
      productId,
      nonce,
      rateLimited: status === 429,
    });
    ctx.status = status;
    ctx.type = 'application/json';
    ctx.body = sealed.body;
    ctx.set('X-Signature', sealed.signature);
    ctx.set('X-Signature-Key-Id', sealed.keyId);
    ctx.set('Cache-Control', 'no-store');
  };
}
