import {
  DependencyUnavailableError,
  isTransientDependencyError,
  RETRY_AFTER_SECONDS,
} from '../../shared/dependency-errors';
import type { Logger } from '../../shared/logger';
import { DomainError, ErrorCode, NotFoundError } from '../../shared/errors';
import type { AppMiddleware } from '../context';
import { envelopes, ErrorView } from '../envelopes';
import { routeLabel } from '../metrics/http-metrics';

/** The one table from domain error codes to HTTP statuses. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 422,
  NOT_FOUND: 404,
  INVALID: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  ORIGIN_NOT_ALLOWED: 403,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNAVAILABLE: 503,
  PHONE_BLOCKED: 403,
  COOLDOWN_ACTIVE: 429,
  SESSION_EXPIRED: 400,
  INVALID_CODE: 400,
  MAX_ATTEMPTS_REACHED: 400,
  LICENSE_NOT_FOUND: 404,
  LICENSE_EXPIRED: 403,
  LICENSE_SUSPENDED: 403,
  LICENSE_REVOKED: 403,
  LICENSE_NOT_ACTIVE: 403,
  HWID_REQUIRED: 400,
  ACTIVATION_LIMIT_REACHED: 403,
  RESET_LIMIT_REACHED: 403,
};

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  type?: string;
}

/** Errors raised by Koa and koa-body for malformed requests (bad JSON, too large, wrong type). */
function fromHttpError(err: HttpLikeError): ErrorView | null {
  const status = err.status ?? err.statusCode;
  // 501: a method no route knows (the router's allowedMethods); every other 5xx is ours to log.
  if (!status || (status >= 500 && status !== 501) || status < 400) return null;
  if (status === 413)
    return { status, code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large', extra: {} };
  if (status === 415)
    return { status, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported content type', extra: {} };
  if (status === 400 && (err.type === 'entity.parse.failed' || /json/i.test(err.message ?? ''))) {
    return { status: 400, code: 'INVALID', message: 'Malformed JSON body', extra: {} };
  }
  const code: ErrorCode = status === 404 ? 'NOT_FOUND' : status === 401 ? 'UNAUTHENTICATED' : 'INVALID';
  if (status === 405 || status === 501) {
    return {
      status,
      code,
      message: status === 405 ? 'Method not allowed' : 'Method not implemented',
      extra: {},
    };
  }
  return { status, code, message: err.expose && err.message ? err.message : 'Bad request', extra: {} };
}

export function toErrorView(err: unknown): ErrorView | null {
  if (err instanceof DomainError) {
    const errors = (err.extra.errors as ErrorView['errors']) ?? undefined;
    return {
      status: STATUS_BY_CODE[err.code],
      code: err.code,
      message: err.message,
      extra: err.extra,
      errors,
    };
  }
  if (err && typeof err === 'object') return fromHttpError(err as HttpLikeError);
  return null;
}

/**
 * Outermost middleware: turns every failure into the interface's envelope. Unknown errors are logged with
 * the request id and answered as a generic 500: never a stack trace or a database message.
 */
export function errorHandler(logger: Logger): AppMiddleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new NotFoundError('Not found');
    } catch (err) {
      let view = toErrorView(err);
      // Postgres or Redis out of reach (refused, timed out): a 503 the client may retry, not a 500.
      if (!view && isTransientDependencyError(err)) {
        logger.warn(
          { err: (err as Error).message, requestId: ctx.state.requestId, route: routeLabel(ctx) },
          'dependency unavailable',
        );
        view = toErrorView(new DependencyUnavailableError('request'));
      }
      if (!view) {
        logger.error(
          { err, requestId: ctx.state.requestId, method: ctx.method, route: routeLabel(ctx) },
          'unhandled error',
        );
        view = { status: 500, code: 'UNAVAILABLE', message: 'Internal server error', extra: {} };
      }
      if (view.code === 'RATE_LIMITED' || view.code === 'COOLDOWN_ACTIVE') {
        const retryAfter = Number(view.extra.retry_after);
        if (Number.isFinite(retryAfter)) ctx.set('Retry-After', String(retryAfter));
      }
      if (view.status === 503) ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
      ctx.status = view.status;
      ctx.body = envelopes[ctx.state.interface ?? 'platform'].error(view);
    }
  };
}
