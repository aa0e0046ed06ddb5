/**
 * What an uploaded file really is, judged by its bytes, not by the name or Content-Type the client sent.
 *
 * - JPG, PNG, GIF, PDF: their magic numbers.
 * - DOC: the OLE compound-file signature (the container of legacy Office documents).
 * - ZIP: the local-file signature and a readable end-of-central-directory record.
 * - DOCX: a ZIP whose central directory lists `[Content_Types].xml` and entries under `word/`.
 * - TXT: valid UTF-8 without NUL bytes.
 *
 * When the file name has an extension, it must agree with the content (a ZIP named `.docx` without
 * `word/` entries, or HTML named `.png`, is refused); without one the content decides.
 */

export type UploadKind = 'jpg' | 'png' | 'gif' | 'pdf' | 'doc' | 'docx' | 'txt' | 'zip';
export type UploadFieldType = 'image' | 'file';

const MiB = 1024 * 1024;

export const KIND_INFO: Readonly<Record<UploadKind, { mime: string; extensions: readonly string[] }>> = {
  jpg: { mime: 'image/jpeg', extensions: ['jpg', 'jpeg'] },
  png: { mime: 'image/png', extensions: ['png'] },
  gif: { mime: 'image/gif', extensions: ['gif'] },
  pdf: { mime: 'application/pdf', extensions: ['pdf'] },
  doc: { mime: 'application/msword', extensions: ['doc'] },
  docx: {
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extensions: ['docx'],
  },
  txt: { mime: 'text/plain', extensions: ['txt'] },
  zip: { mime: 'application/zip', extensions: ['zip'] },
};

/** Spec, Limits: image fields take JPG, PNG, GIF up to 10 MB; file fields PDF, DOC, DOCX, TXT, ZIP up to 20 MB. */
export const UPLOAD_RULES: Readonly<
  Record<
    UploadFieldType,
    { kinds: readonly UploadKind[]; maxBytes: number; extensions: readonly string[]; describe: string }
  >
> = {
  image: {
    kinds: ['jpg', 'png', 'gif'],
    maxBytes: 10 * MiB,
    extensions: ['jpg', 'jpeg', 'png', 'gif'],
    describe: 'a JPG, PNG or GIF image',
  },
  file: {
    kinds: ['pdf', 'doc', 'docx', 'txt', 'zip'],
    maxBytes: 20 * MiB,
    extensions: ['pdf', 'doc', 'docx', 'txt', 'zip'],
    describe: 'a PDF, DOC, DOCX, TXT or ZIP file',
  },
};

/** The largest file any field accepts: the multipart parser stops reading a part beyond it. */
export const MAX_UPLOAD_BYTES = Math.max(UPLOAD_RULES.image.maxBytes, UPLOAD_RULES.file.maxBytes);

const startsWith = (buf: Buffer, bytes: readonly number[]): boolean =>
  buf.length >= bytes.length && bytes.every((b, i) => buf[i] === b);

const JPEG = [0xff, 0xd8, 0xff];
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const GIF87 = [0x47, 0x49, 0x46, 0x38, 0x37, 0x61];
const GIF89 = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61];
const PDF = [0x25, 0x50, 0x44, 0x46, 0x2d];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const ZIP_LOCAL = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY = [0x50, 0x4b, 0x05, 0x06];

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const EOCD_SIZE = 22;

/**
 * Entry names from a ZIP's central directory, or null when the archive's directory cannot be read (not a
 * ZIP, or a truncated one). ZIP64 archives (directory fields saturated) are accepted with no names listed.
 */
export function zipEntryNames(buf: Buffer): string[] | null {
  if (buf.length < EOCD_SIZE) return null;
  const earliest = Math.max(0, buf.length - EOCD_SIZE - 0xffff);
  for (let at = buf.length - EOCD_SIZE; at >= earliest; at -= 1) {
    if (buf.readUInt32LE(at) !== EOCD_SIGNATURE) continue;
    const entries = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 12);
    const offset = buf.readUInt32LE(at + 16);
    if (entries === 0xffff || size === 0xffffffff || offset === 0xffffffff) return [];
    if (offset + size > at) return null;
    const names: string[] = [];
    let p = offset;
    for (let i = 0; i < entries; i += 1) {
      if (p + 46 > at || buf.readUInt32LE(p) !== CENTRAL_SIGNATURE) return null;
      const nameLength = buf.readUInt16LE(p + 28);
      const extraLength = buf.readUInt16LE(p + 30);
      const commentLength = buf.readUInt16LE(p + 32);
      if (p + 46 + nameLength > at) return null;
      names.push(buf.toString('utf8', p + 46, p + 46 + nameLength));
      p += 46 + nameLength + extraLength + commentLength;
    }
    return names;
  }
  return null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function isPlainText(buf: Buffer): boolean {
  if (buf.includes(0)) return false;
  try {
    utf8.decode(buf);
    return true;
  } catch {
    return false;
  }
}

/** Every kind the content can be read as, most specific first (a DOCX is also a ZIP). */
export function detectKinds(buf: Buffer): UploadKind[] {
  if (startsWith(buf, JPEG)) return ['jpg'];
  if (startsWith(buf, PNG)) return ['png'];
  if (startsWith(buf, GIF87) || startsWith(buf, GIF89)) return ['gif'];
  if (startsWith(buf, PDF)) return ['pdf'];
  if (startsWith(buf, OLE)) return ['doc'];
  if (startsWith(buf, ZIP_LOCAL) || startsWith(buf, ZIP_EMPTY)) {
    const names = zipEntryNames(buf);
    if (names === null) return [];
    const isDocx = names.includes('[Content_Types].xml') && names.some((n) => n.startsWith('word/'));
    return isDocx ? ['docx', 'zip'] : ['zip'];
  }
  return isPlainText(buf) ? ['txt'] : [];
}

export function extensionOf(name: string): string | null {
  const base = name.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || dot === base.length - 1) return null;
  return base.slice(dot + 1).toLowerCase();
}

export type UploadVerdict = { ok: true; kind: UploadKind; mime: string } | { ok: false; message: string };

/** Whether `content` (named `originalName` by the client) is acceptable for a field of `fieldType`. */
export function judgeUpload(
  fieldType: UploadFieldType,
  originalName: string,
  content: Buffer,
): UploadVerdict {
  const rule = UPLOAD_RULES[fieldType];
  if (content.length === 0) return { ok: false, message: 'The file is empty.' };
  if (content.length > rule.maxBytes) {
    return { ok: false, message: `The ${fieldType} may not be larger than ${rule.maxBytes / MiB} MB.` };
  }
  const candidates = detectKinds(content).filter((k) => rule.kinds.includes(k));
  if (candidates.length === 0) return { ok: false, message: `The ${fieldType} must be ${rule.describe}.` };
  const extension = extensionOf(originalName);
  const kind =
    extension === null ? candidates[0] : candidates.find((k) => KIND_INFO[k].extensions.includes(extension));
  if (!kind) {
    return {
      ok: false,
      message: `The content of the ${fieldType} does not match its .${extension} extension.`,
    };
  }
  return { ok: true, kind, mime: KIND_INFO[kind].mime };
}
