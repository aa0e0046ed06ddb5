import {
  DependencyUnavailableError,
  isTransientDependencyError,
  RETRY_AFTER_SECONDS,
} from '../../shared/dependency-errors';
import type { Logger } from '../../shared/logger';
import { DomainError, ErrorCode, NotFoundError } from '../../shared/errors';
import type { AppContext, AppMiddleware } from '../context';
import { DEFAULT_ERROR_CODE, PublicErrorCode } from '../../shared/error-codes';
import { buyerErrorMessage, ERROR_MESSAGES_AR, TranslatedCode } from '../../shared/i18n/buyer-messages';
import { embedErrorCode, envelopes, ErrorView } from '../envelopes';
import type { InterfaceName } from '../interfaces';
import { fromAcceptLanguage } from '../pay/i18n';
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
  CERTIFICATE_VOID: 403,
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
  const view = (code: ErrorCode, message: string, errorCode: PublicErrorCode): ErrorView => ({
    status,
    code,
    message,
    extra: {},
    errorCode,
  });
  if (status === 413) return view('PAYLOAD_TOO_LARGE', 'Request body is too large', 'payload_too_large');
  if (status === 415)
    return view('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type', 'unsupported_media_type');
  if (status === 400 && (err.type === 'entity.parse.failed' || /json/i.test(err.message ?? ''))) {
    return view('INVALID', 'Malformed JSON body', 'malformed_json');
  }
  if (status === 405) return view('INVALID', 'Method not allowed', 'method_not_allowed');
  if (status === 501) return view('INVALID', 'Method not implemented', 'method_not_implemented');
  const code: ErrorCode = status === 404 ? 'NOT_FOUND' : status === 401 ? 'UNAUTHENTICATED' : 'INVALID';
  return view(code, err.expose && err.message ? err.message : 'Bad request', DEFAULT_ERROR_CODE[code]);
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
      errorCode: err.errorCode ?? DEFAULT_ERROR_CODE[err.code],
      params: err.params,
    };
  }
  if (err && typeof err === 'object') return fromHttpError(err as HttpLikeError);
  return null;
}

/** The challenge of a 401, by interface (RFC 9110 asks one of every 401). */
function challengeOf(view: ErrorView, iface: InterfaceName): string {
  if (iface === 'embed') {
    return view.errorCode === 'embed_key_required' || view.errorCode === 'embed_key_invalid'
      ? 'EmbedKey realm="embed", header="X-Embed-Key"'
      : 'Bearer realm="embed"';
  }
  if (iface === 'fivem') return 'FiveMSecret realm="fivem", header="X-FiveM-Secret"';
  return `Bearer realm="${iface === 'platform' ? 'matjar' : iface}"`;
}

/** The interfaces a buyer reads: their messages follow Accept-Language (English stays the default). */
const BUYER_INTERFACES: ReadonlySet<InterfaceName> = new Set<InterfaceName>(['embed', 'storefront']);

/** The Arabic message when the client asks for Arabic on a buyer interface; the English one otherwise. */
function localized(view: ErrorView, ctx: AppContext, iface: InterfaceName): string {
  if (!BUYER_INTERFACES.has(iface) || fromAcceptLanguage(ctx.get('Accept-Language')) !== 'ar') {
    return view.message;
  }
  const code = embedErrorCode(view) as TranslatedCode;
  if (!(code in ERROR_MESSAGES_AR)) return view.message;
  return buyerErrorMessage('ar', code, view.message, {
    ...(view.params ?? {}),
    ...(Object.fromEntries(
      Object.entries(view.extra).filter(([, v]) => typeof v === 'number' || typeof v === 'string'),
    ) as Record<string, string | number>),
  });
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
        view = {
          status: 500,
          code: 'UNAVAILABLE',
          message: 'Internal server error',
          extra: {},
          errorCode: 'internal_error',
        };
      }
      if (view.code === 'RATE_LIMITED' || view.code === 'COOLDOWN_ACTIVE') {
        const retryAfter = Number(view.extra.retry_after);
        if (Number.isFinite(retryAfter)) ctx.set('Retry-After', String(retryAfter));
      }
      if (view.status === 503) ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
      const iface = ctx.state.interface ?? 'platform';
      if (view.status === 401 && !ctx.response.get('WWW-Authenticate')) {
        ctx.set('WWW-Authenticate', challengeOf(view, iface));
      }
      view.message = localized(view, ctx, iface);
      ctx.status = view.status;
      ctx.body = envelopes[iface].error(view);
    }
  };
}
