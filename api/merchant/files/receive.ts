import { PassThrough, type Readable } from 'node:stream';
import formidable, { errors as formidableErrors } from 'formidable';
import { ValidationError } from '../../../shared/errors';
import { tooLarge, type UploadLimits } from '../../../shared/services/files/upload';
import type { AppContext } from '../../context';

/**
 * Formidable pauses the request for each piece of a file part it writes and resumes it when that one
 * write's callback fires. One request chunk makes two or three pieces (the parser keeps a boundary's
 * length back), so every write taken let two or three more in: with a store slower than the client the
 * writes queued up in the part's stream without bound (146 MiB held at once during a 512 MiB upload,
 * measured; docs/downloads.md, "Memory"). Here the request resumes only once the stream has taken
 * everything written to it (its `drain`), or when it is gone (a failed store), so at most one request
 * chunk waits in it.
 */
function resumeOnlyWhenDrained(form: { resume: () => boolean }, body: PassThrough): void {
  const resume = form.resume.bind(form);
  let waiting = false;
  form.resume = () => {
    if (body.destroyed || !body.writableNeedDrain) return resume();
    if (!waiting) {
      waiting = true;
      const go = (): void => {
        body.off('drain', go);
        body.off('close', go);
        waiting = false;
        resume();
      };
      body.on('drain', go);
      body.on('close', go);
    }
    return true;
  };
}

/**
 * Reads the multipart part named `file` of a merchant's upload and hands it, as a stream, to `accept`,
 * which stores it while it arrives (shared/services/files/upload.ts). Nothing is spooled to disk here and
 * at most a few chunks are held: the request is read only as fast as the store takes the file
 * (`resumeOnlyWhenDrained`), so a slow store slows the client instead of filling memory. Other parts are
 * read and dropped.
 */
export async function receiveFile<T>(
  ctx: AppContext,
  limits: UploadLimits,
  accept: (file: { name: string; body: Readable }) => Promise<T>,
): Promise<T> {
  // Another body (JSON, a form) was read by the app's body parser already, or is not a file at all: the
  // parser would wait for a multipart stream that never comes.
  if (!ctx.is('multipart')) {
    throw ValidationError.field('file', 'Send the file as multipart/form-data, in the part named "file".');
  }
  let accepted: Promise<T> | undefined;
  const form = formidable({
    maxFiles: 1,
    maxFileSize: limits.maxUploadBytes,
    maxTotalFileSize: limits.maxUploadBytes,
    maxFields: 20,
    maxFieldsSize: 64 * 1024,
    allowEmptyFiles: true,
    minFileSize: 0,
    filter: ({ name }) => name === 'file',
    fileWriteStreamHandler: (file) => {
      const body = new PassThrough();
      accepted = accept({ name: utf8Name(file?.toJSON().originalFilename ?? ''), body });
      // A store that fails stops the parser too (else it would wait for the stream to drain).
      accepted.catch((err: Error) => body.destroy(err));
      // formidable's own resume(), which its type declarations leave out.
      resumeOnlyWhenDrained(form as typeof form & { resume: () => boolean }, body);
      return body;
    },
  });
  // Formidable takes a part without its own Content-Type for a text field; clients such as Python's
  // requests send files that way, so a part with a file name is a file whatever its headers say.
  form.onPart = (part) => {
    if (part.originalFilename !== null && part.originalFilename !== undefined && !part.mimetype)
      part.mimetype = 'application/octet-stream';
    return form._handlePart(part);
  };
  try {
    await form.parse(ctx.req);
  } catch (err) {
    ctx.req.resume();
    await accepted?.catch(() => undefined);
    const code = (err as { code?: number }).code;
    if (
      code === formidableErrors.biggerThanMaxFileSize ||
      code === formidableErrors.biggerThanTotalMaxFileSize
    )
      throw tooLarge(limits);
    if (code === formidableErrors.maxFilesExceeded)
      throw ValidationError.field('file', 'Send one file per request.');
    // The store's own refusal (limits, a broken connection) wins over the parser's echo of it.
    if (accepted) await accepted;
    throw ValidationError.field('file', 'The multipart body could not be read.');
  }
  if (!accepted) throw ValidationError.field('file', 'Send the file as the multipart part named "file".');
  return accepted;
}

/**
 * Browsers and fetch send the file name's UTF-8 bytes as they are; the parser reads the header as Latin-1,
 * so a name such as "كتاب.pdf" arrives as mojibake and is read back here.
 */
function utf8Name(raw: string): string {
  const codes = [...raw].map((ch) => ch.codePointAt(0)!);
  if (!codes.some((c) => c >= 0x80) || codes.some((c) => c > 0xff)) return raw;
  const decoded = Buffer.from(raw, 'latin1').toString('utf8');
  return decoded.includes('\ufffd') ? raw : decoded;
}
