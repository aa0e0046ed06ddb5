import { DomainError, ValidationError } from '../../../shared/errors';
import type { AppMiddleware } from '../../context';
import { codesFromCsv } from '../../../shared/services/catalogue/codes';

/** A CSV of keys may be this large: 10,000 keys of up to 500 characters, with line ends. */
const MAX_CSV_BYTES = 6 * 1024 * 1024;

/**
 * `POST /shawarma/products/{id}/codes` also takes the keys as a CSV file (`Content-Type: text/csv` or
 * `text/plain`): one key per line, first column, an optional `code` header. The app's body parser leaves
 * these types alone; this reads the body (at most 6 MB) and turns it into `{codes: [...]}` for the schema.
 */
export function csvCodesBody(): AppMiddleware {
  return async (ctx, next) => {
    if (!ctx.is('text/csv', 'text/plain')) return next();
    const declared = Number(ctx.get('content-length'));
    if (Number.isFinite(declared) && declared > MAX_CSV_BYTES) {
      throw new DomainError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > MAX_CSV_BYTES) {
        ctx.req.resume();
        throw new DomainError('PAYLOAD_TOO_LARGE', 'Request body is too large');
      }
      chunks.push(chunk as Buffer);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      throw ValidationError.field('codes', 'the CSV file must be UTF-8 text');
    }
    if (text.includes('\u0000')) throw ValidationError.field('codes', 'the CSV file must not hold NUL bytes');
    ctx.request.body = { codes: codesFromCsv(text.replace(/^\uFEFF/, '')) };
    await next();
  };
}
