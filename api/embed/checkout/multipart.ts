import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import formidable, { errors as formidableErrors } from 'formidable';
import type { IncomingMessage } from 'node:http';
import { DomainError, InvalidError, ValidationError } from '../../../shared/errors';
import type { IncomingUpload } from '../../../shared/services/custom-fields';
import { MAX_UPLOAD_BYTES } from '../../../shared/services/custom-fields/uploads';
import type { AppContext, AppMiddleware } from '../../context';
import { assertStorable } from '../../middleware/storable-input';

/**
 * multipart/form-data for the checkout routes only (the app's body parser leaves multipart alone).
 *
 * Text parts become the body: `fields[0]=…` and `fields.0=…` set one custom field value; a part named
 * `fields` holding JSON sets several (the keyed parts win over it). File parts are spooled to a temporary
 * directory under UPLOAD_DIR and passed on as uploads; that directory is removed when the request ends,
 * whatever the outcome, so a refused upload leaves nothing behind. The checkout service judges the files
 * and copies the accepted ones into storage.
 *
 * A part larger than the largest upload any field accepts (20 MB) is a 422 naming that part.
 */

const MiB = 1024 * 1024;
/** Everything one checkout request may carry: a few files of the largest size, plus the text parts. */
export const MAX_MULTIPART_BYTES = 4 * MAX_UPLOAD_BYTES + MiB;
const MAX_FILES = 20;

// Per request, not per process: the files one request carried, keyed on its own Koa context and gone with
// it. No service is built here (services are built once, in shared/create-services.ts).
const uploadsByContext = new WeakMap<AppContext, IncomingUpload[]>();

/** The file parts of this request (none for JSON bodies). */
export function uploadsOf(ctx: AppContext): IncomingUpload[] {
  return uploadsByContext.get(ctx) ?? [];
}

const FIELD_KEY = /^fields(?:\[(\d{1,6})\]|\.(\d{1,6}))$/;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Turns the text parts into the body object the schemas validate. */
export function bodyFromParts(parts: readonly [string, string][]): { [key: string]: Json } {
  const body: { [key: string]: Json } = {};
  const keyed: { [key: string]: Json } = {};
  let jsonFields: string | undefined;
  for (const [name, value] of parts) {
    const match = FIELD_KEY.exec(name);
    if (match) keyed[match[1] ?? match[2]] = value;
    else if (name === 'fields') jsonFields = value;
    else body[name] = value;
  }
  if (jsonFields !== undefined) {
    try {
      // JSON.parse yields JSON by definition.
      body.fields = JSON.parse(jsonFields) as Json;
    } catch {
      // Left as text: the schema answers "fields must be an object keyed by field index".
      body.fields = jsonFields;
    }
  }
  if (Object.keys(keyed).length > 0) {
    const base = body.fields;
    const merged: { [key: string]: Json } =
      base !== null && typeof base === 'object'
        ? Array.isArray(base)
          ? Object.fromEntries(base.map((v, i) => [String(i), v]))
          : { ...base }
        : {};
    body.fields = { ...merged, ...keyed };
  }
  return body;
}

interface Parsed {
  body: { [key: string]: Json };
  uploads: IncomingUpload[];
}

function parse(req: IncomingMessage, dir: string): Promise<Parsed> {
  const form = formidable({
    uploadDir: dir,
    maxFileSize: MAX_UPLOAD_BYTES,
    maxTotalFileSize: MAX_MULTIPART_BYTES,
    maxFiles: MAX_FILES,
    maxFields: 200,
    maxFieldsSize: MiB,
    allowEmptyFiles: true,
    minFileSize: 0,
  });
  const parts: [string, string][] = [];
  const uploads: IncomingUpload[] = [];
  let current: string | null = null;
  form.on('fileBegin', (name) => {
    current = name;
  });
  form.on('field', (name, value) => parts.push([name, value]));
  form.on('file', (name, file) => {
    uploads.push({
      partName: name,
      originalName: file.originalFilename ?? '',
      tempPath: file.filepath,
      size: file.size,
    });
  });
  return form.parse(req).then(
    () => ({ body: bodyFromParts(parts), uploads }),
    (err: unknown) => {
      // Formidable stops reading on error; the rest of the body is drained so the answer reaches the client.
      req.resume();
      throw mapParseError(err, current);
    },
  );
}

function mapParseError(err: unknown, part: string | null): Error {
  const code = (err as { code?: number }).code;
  if (
    code === formidableErrors.biggerThanMaxFileSize ||
    code === formidableErrors.biggerThanTotalMaxFileSize
  ) {
    return ValidationError.field(
      part ?? 'field_files',
      code === formidableErrors.biggerThanMaxFileSize
        ? `The file may not be larger than ${MAX_UPLOAD_BYTES / MiB} MB.`
        : `The files may not be larger than ${MAX_MULTIPART_BYTES / MiB} MB together.`,
    );
  }
  if (code === formidableErrors.maxFilesExceeded) {
    return ValidationError.field('field_files', `At most ${MAX_FILES} files may be sent.`);
  }
  if (code === formidableErrors.maxFieldsExceeded || code === formidableErrors.maxFieldsSizeExceeded) {
    return new DomainError('PAYLOAD_TOO_LARGE', 'Request body is too large');
  }
  return new InvalidError('Malformed multipart body');
}

/**
 * The checkout body parser. JSON is already parsed by the app. A urlencoded form is read again from its
 * raw text with the multipart rules, because the app's generic parser turns `fields[2]=x` into a compacted
 * array (index 0). Multipart is parsed here.
 */
export function formBody(): AppMiddleware {
  return async (ctx, next) => {
    if (ctx.is('application/x-www-form-urlencoded')) {
      ctx.request.body = bodyFromParts([...new URLSearchParams(ctx.request.rawBody ?? '')]);
      assertStorable(ctx.request.body);
      return next();
    }
    if (!ctx.is('multipart/form-data')) return next();
    const declared = Number(ctx.get('content-length'));
    if (Number.isFinite(declared) && declared > MAX_MULTIPART_BYTES) {
      throw new DomainError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    }
    const incoming = path.resolve(ctx.deps.config.uploadDir, '.incoming');
    await mkdir(incoming, { recursive: true });
    const dir = await mkdtemp(path.join(incoming, 'req-'));
    try {
      const parsed = await parse(ctx.req, dir);
      ctx.request.body = parsed.body;
      assertStorable(parsed.body);
      uploadsByContext.set(ctx, parsed.uploads);
      await next();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
