import {
  DependencyUnavailableError,
  isTransientDependencyError,
  RETRY_AFTER_SECONDS,
} from '../../shared/dependency-errors';
import type { Deps } from '../../shared/deps';
import { bindingOf, sealLicenseAnswer } from '../../shared/services/licenses/answer';
import { productAnswerSettings } from '../../shared/services/licenses/product-settings';
import { signingKeys } from '../../shared/services/licenses/signing';
import type { AppContext, AppMiddleware } from '../context';
import { envelopes, type ErrorView } from '../envelopes';
import { toErrorView } from '../middleware/error-handler';

/**
 * Reads the platform's signing key into memory. The web process calls it at start (api/server.ts), so that
 * signing an answer never waits on Postgres: an outage is answered with a signed 503 like any other answer.
 */
export async function prepareLicenseAnswers(deps: Deps): Promise<void> {
  await signingKeys(deps);
}

/** What a failure becomes: a domain error as mapped, an outage a 503, anything else a logged 500. */
function viewOf(ctx: AppContext, err: unknown): ErrorView {
  const view = toErrorView(err);
  if (view) return view;
  if (isTransientDependencyError(err)) {
    ctx.deps.logger.warn(
      { err: (err as Error).message, requestId: ctx.state.requestId, route: ctx.path },
      'dependency unavailable',
    );
    return toErrorView(new DependencyUnavailableError('request'))!;
  }
  ctx.deps.logger.error(
    { err, requestId: ctx.state.requestId, method: ctx.method, route: ctx.path },
    'unhandled error',
  );
  return {
    status: 500,
    code: 'UNAVAILABLE',
    message: 'Internal server error',
    extra: {},
    errorCode: 'internal_error',
  };
}

/**
 * Sends `view` (an error) or the handler's body as a License answer: bound to the request, stamped,
 * encrypted when the product says so, signed.
 *
 * A 429 and a 503 are never encrypted: they say only "try again later", and neither may wait on a
 * database read (a 429 is decided before anything is read; a 503 is an outage, during which whether the
 * product encrypts may be unknown). Every other answer needs the product's setting; when it cannot be
 * read, the answer becomes that 503: never a plain answer where the client expects an encrypted one.
 */
async function answer(ctx: AppContext, failure: ErrorView | null): Promise<void> {
  let view = failure;
  const { request, nonce } = bindingOf(ctx.request.body);
  let encryptionKey: Buffer | null = null;
  const status = view ? view.status : ctx.status;
  if (status !== 429 && status !== 503 && request.product_id !== null) {
    try {
      encryptionKey = (await productAnswerSettings(ctx.deps, request.product_id))?.encryptionKey ?? null;
    } catch (err) {
      view = viewOf(ctx, err);
    }
  }
  const document = (view ? envelopes.license.error(view) : ctx.body) as Record<string, unknown>;
  const sealed = sealLicenseAnswer(await signingKeys(ctx.deps), document, { request, nonce, encryptionKey });
  ctx.status = view ? view.status : ctx.status;
  if (ctx.status === 503) ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
  if (view?.code === 'RATE_LIMITED' && Number.isFinite(Number(view.extra.retry_after)))
    ctx.set('Retry-After', String(view.extra.retry_after));
  ctx.type = 'application/json';
  ctx.body = sealed.body;
  ctx.set('X-Signature', sealed.signature);
  ctx.set('X-Signature-Key-Id', sealed.keyId);
  ctx.set('Cache-Control', 'no-store');
}

/**
 * Outermost middleware of POST /verify and /verify/reset: every answer, success or error (a 429 of the
 * guard, a 422 of the validation, a refusal of the service, an outage), leaves through here, in the License
 * envelope, with the request binding, nonce and timestamp, encrypted when the product says so, and signed
 * over the exact body (X-Signature).
 */
export function licenseAnswer(): AppMiddleware {
  return async (ctx, next) => {
    let view: ErrorView | null = null;
    try {
      await next();
    } catch (err) {
      view = viewOf(ctx, err);
    }
    await answer(ctx, view);
  };
}

const SIGNED_PATHS: ReadonlySet<string> = new Set([
  '/verify',
  '/verify/reset',
  '/verify/certificate',
  '/verify/heartbeat',
]);

/**
 * Placed ahead of the body parser (api/app.ts): a POST to a /verify route refused before its
 * route runs (a body that is not JSON, too large, of another type, bytes Postgres cannot store) is answered
 * as a signed License answer too, bound to an unknown request (every field null).
 */
export function licenseAnswerBeforeRoute(): AppMiddleware {
  const signed: AppMiddleware = async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      ctx.state.interface = 'license';
      ctx.request.body = undefined;
      await answer(ctx, viewOf(ctx, err));
    }
  };
  return (ctx, next) => (ctx.method !== 'POST' || !SIGNED_PATHS.has(ctx.path) ? next() : signed(ctx, next));
}
