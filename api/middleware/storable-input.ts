import { isUtf8 } from 'node:buffer';
import { FieldErrors, messagesOf, ValidationError } from '../../shared/errors';
import type { AppMiddleware } from '../context';

/**
 * One layer, in front of every route, that refuses what Postgres cannot store, so no
 * handler, service or query ever sees it:
 *
 * - a NUL character (U+0000) anywhere in the path, the query string or a string (key or value) of the
 *   parsed body: Postgres text cannot hold it and answers an error the app would turn into a 500;
 * - bytes that are not UTF-8 in the path or the query string (percent-encoded or raw);
 * - a body whose text is not UTF-8. The body parser decodes bytes to text before this layer sees them,
 *   replacing each invalid sequence with U+FFFD, so a body whose raw text holds U+FFFD is refused: a
 *   client that sends that character on purpose is vanishingly rare, and one that does has already lost
 *   text to a bad decode;
 * - a body nested deeper than MAX_DEPTH: stored as JSON (custom fields, analytics properties) it would
 *   overflow the serializer's stack long before any schema could object.
 *
 * Every refusal is a 422 naming what was wrong (`path`, the query parameter, the body field), the shape of
 * every validation answer, in the interface's envelope, written by the error handler. Multipart bodies are
 * parsed later, by the routes that accept them, which run `assertStorable` on their text parts.
 */

export const MAX_DEPTH = 32;
export const NUL_MESSAGE = 'must not contain a NUL character';
export const UTF8_MESSAGE = 'must be valid UTF-8 text';
export const DEPTH_MESSAGE = `must not be nested more than ${MAX_DEPTH} levels deep`;

/** The bytes a URL part stands for: percent escapes decoded, other characters as sent (latin1 from Node). */
export function urlBytes(text: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (ch === 0x25 && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      out.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (ch < 0x100) {
      out.push(ch);
    } else {
      // Node hands raw URL bytes over as latin1; anything wider came from elsewhere and is re-encoded.
      out.push(...Buffer.from(text[i], 'utf8'));
    }
  }
  return Buffer.from(out);
}

function urlPartProblem(text: string): string | null {
  if (!text) return null;
  const bytes = urlBytes(text);
  if (bytes.includes(0)) return NUL_MESSAGE;
  if (!isUtf8(bytes)) return UTF8_MESSAGE;
  return null;
}

/**
 * Walks a parsed body (iteratively: its depth is what is being checked) and reports every string that
 * holds NUL, named by its path (`fields.0`, `events.3.title`), and any branch deeper than MAX_DEPTH.
 */
export function storableProblems(value: unknown, root = ''): FieldErrors {
  const errors: FieldErrors = {};
  const add = (path: string, message: string): void => {
    const key = path || 'body';
    const messages = messagesOf(errors, key);
    if (!messages.includes(message)) messages.push(message);
  };
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  let reported = 0;
  while (stack.length > 0 && reported < 50) {
    const item = stack.pop()!;
    const { path, depth } = item;
    if (typeof item.value === 'string') {
      if (item.value.includes('\u0000')) {
        add(path, NUL_MESSAGE);
        reported += 1;
      }
      continue;
    }
    if (item.value === null || typeof item.value !== 'object') continue;
    if (depth >= MAX_DEPTH) {
      add(path, DEPTH_MESSAGE);
      reported += 1;
      continue;
    }
    const entries = Array.isArray(item.value)
      ? item.value.map((v, i) => [String(i), v] as const)
      : Object.entries(item.value as Record<string, unknown>);
    for (const [key, child] of entries) {
      const childPath = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) {
        add(path, NUL_MESSAGE);
        reported += 1;
        continue;
      }
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return errors;
}

/** Throws the 422 of this layer when `value` holds something Postgres cannot store. */
export function assertStorable(value: unknown): void {
  const errors = storableProblems(value);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** A query parameter's name as the client meant it; as sent when it does not decode (`a%zz`). */
function readableName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** Printable ASCII without percent escapes: no NUL, valid UTF-8, nothing to decode (most requests). */
const PLAIN_URL = /^[\x21-\x24\x26-\x7e]*$/;

/** Before the body parser: the path and the query string, as raw bytes. */
export function storableUrl(): AppMiddleware {
  const check: AppMiddleware = async (ctx, next) => {
    const raw = ctx.url;
    const q = raw.indexOf('?');
    const errors: FieldErrors = {};
    const pathProblem = urlPartProblem(q === -1 ? raw : raw.slice(0, q));
    if (pathProblem) errors.path = [pathProblem];
    for (const pair of q === -1 ? [] : raw.slice(q + 1).split('&')) {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      const problem = urlPartProblem(pair.replace(/\+/g, ' '));
      if (!problem) continue;
      // The parameter's name when it is itself readable, so the answer says which one.
      const label = urlPartProblem(name) ? 'query' : readableName(name);
      const messages = messagesOf(errors, label);
      if (!messages.includes(problem)) messages.push(problem);
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    await next();
  };
  return (ctx, next) => (PLAIN_URL.test(ctx.url) ? next() : check(ctx, next));
}

/** After the body parser: every string of the parsed JSON or form body, and the raw text's encoding. */
export function storableBody(): AppMiddleware {
  return async (ctx, next) => {
    const rawBody: unknown = ctx.request.rawBody;
    if (typeof rawBody === 'string' && rawBody.includes('\uFFFD')) {
      throw new ValidationError({ body: [UTF8_MESSAGE] });
    }
    assertStorable(ctx.request.body);
    await next();
  };
}
