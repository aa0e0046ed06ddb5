import { readFile } from 'node:fs/promises';
import type { CustomField } from '../../../db/models';
import { FieldErrors, messagesOf } from '../../errors';
import { judgeUpload, UPLOAD_RULES, UploadKind, UploadVerdict } from './uploads';

/**
 * Custom field values of a checkout (spec: Product custom field values). Values arrive in an object keyed
 * by the field's index in the product's `fields`; image and file fields arrive as multipart parts named
 * `field_files.{index}`. Errors are keyed `fields.{index}` and `field_files.{index}`, all reported at once.
 *
 * | type     | accepted value                                                       |
 * |----------|----------------------------------------------------------------------|
 * | text     | a string (a number is taken as its text), at most 1000 characters    |
 * | number   | a finite number, or a string holding one (multipart sends strings)   |
 * | date     | `YYYY-MM-DD`, a real calendar date                                   |
 * | datetime | ISO 8601: `YYYY-MM-DDTHH:MM[:SS[.fff]]` with `Z` or an offset, or none |
 * | color    | `#rgb` or `#rrggbb` (stored lower-case)                               |
 * | select   | the index of an option (integer or digit string); its price is added per unit |
 * | image    | file part: JPG, PNG, GIF, up to 10 MB                                |
 * | file     | file part: PDF, DOC, DOCX, TXT, ZIP, up to 20 MB                     |
 *
 * An empty string or null counts as no value. Indexes the product does not have are refused.
 */

export const TEXT_MAX_LENGTH = 1000;

/** One file part of a multipart request, already spooled to a temporary file by the HTTP tier. */
export interface IncomingUpload {
  /** The multipart part name, e.g. `field_files.2`. */
  partName: string;
  originalName: string;
  tempPath: string;
  size: number;
}

/** An upload that passed its checks, ready to be stored. */
export interface AcceptedUpload {
  fieldIndex: number;
  originalName: string;
  tempPath: string;
  size: number;
  kind: UploadKind;
  mime: string;
}

/** What the checkout keeps per field: the label beside the value, so later product edits change nothing. */
export type StoredFieldValue =
  | { type: 'text' | 'date' | 'datetime' | 'color'; label: string; value: string }
  | { type: 'number'; label: string; value: number }
  | { type: 'select'; label: string; value: number; option: string; price_minor: number }
  | { type: 'image' | 'file'; label: string; file: { name: string; mime_type: string; size_bytes: number } };

export interface FieldCheckResult {
  values: Record<string, StoredFieldValue>;
  /** Sum of the chosen select options' prices, per unit. */
  addonsMinor: number;
  uploads: AcceptedUpload[];
  errors: FieldErrors;
}

const FILE_PART = /^field_files(?:\.(\d+)|\[(\d+)\])$/;

/** The field index a file part names, or null when the part is not a `field_files.{index}` part. */
export function filePartIndex(partName: string): number | null {
  const match = FILE_PART.exec(partName);
  if (!match) return null;
  const index = Number(match[1] ?? match[2]);
  return Number.isSafeInteger(index) ? index : null;
}

const isBlank = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

function isRealDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/i;
const COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const NUMBER = /^-?\d+(?:\.\d+)?$/;
const INDEX = /^\d{1,6}$/;

type Checked = { ok: true; value: StoredFieldValue; addon: number } | { ok: false; message: string };

function checkValue(field: CustomField, raw: unknown): Checked {
  const label = field.label;
  switch (field.type) {
    case 'text': {
      if (typeof raw !== 'string' && typeof raw !== 'number')
        return { ok: false, message: `${label} must be text.` };
      const value = String(raw).trim();
      if (value.length > TEXT_MAX_LENGTH) {
        return { ok: false, message: `${label} may not be longer than ${TEXT_MAX_LENGTH} characters.` };
      }
      return { ok: true, value: { type: 'text', label, value }, addon: 0 };
    }
    case 'number': {
      const value =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && NUMBER.test(raw.trim())
            ? Number(raw)
            : NaN;
      if (!Number.isFinite(value)) return { ok: false, message: `${label} must be a number.` };
      return { ok: true, value: { type: 'number', label, value }, addon: 0 };
    }
    case 'date': {
      const match = typeof raw === 'string' ? DATE.exec(raw.trim()) : null;
      if (!match || !isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
        return { ok: false, message: `${label} must be a date (YYYY-MM-DD).` };
      }
      return { ok: true, value: { type: 'date', label, value: match[0] }, addon: 0 };
    }
    case 'datetime': {
      const match = typeof raw === 'string' ? DATETIME.exec(raw.trim()) : null;
      if (!match || !isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
        return { ok: false, message: `${label} must be an ISO 8601 date and time.` };
      }
      return { ok: true, value: { type: 'datetime', label, value: match[0] }, addon: 0 };
    }
    case 'color': {
      if (typeof raw !== 'string' || !COLOR.test(raw.trim())) {
        return { ok: false, message: `${label} must be a colour such as #1a2b3c.` };
      }
      return { ok: true, value: { type: 'color', label, value: raw.trim().toLowerCase() }, addon: 0 };
    }
    case 'select': {
      const options = field.options ?? [];
      const index =
        typeof raw === 'number' ? raw : typeof raw === 'string' && INDEX.test(raw.trim()) ? Number(raw) : NaN;
      const option = Number.isInteger(index) ? options[index] : undefined;
      if (!option) {
        return {
          ok: false,
          message: `${label} must be the index of one of its options (0 to ${options.length - 1}).`,
        };
      }
      return {
        ok: true,
        value: { type: 'select', label, value: index, option: option.label, price_minor: option.price_minor },
        addon: option.price_minor,
      };
    }
    case 'image':
    case 'file':
      return { ok: false, message: `Send ${label} as the file part field_files.{index}.` };
  }
}

const push = (errors: FieldErrors, key: string, message: string): void => {
  messagesOf(errors, key).push(message);
};

/**
 * Checks values and uploads against the product's fields. Files are read to judge their content; nothing
 * is stored here.
 */
export async function checkCustomFields(
  fields: readonly CustomField[],
  rawValues: Record<string, unknown>,
  incoming: readonly IncomingUpload[],
): Promise<FieldCheckResult> {
  const errors: FieldErrors = {};
  const values: Record<string, StoredFieldValue> = {};
  const uploads: AcceptedUpload[] = [];
  let addonsMinor = 0;

  for (const key of Object.keys(rawValues)) {
    const index = /^\d+$/.test(key) ? Number(key) : NaN;
    const field = fields[index];
    if (!field) push(errors, `fields.${key}`, `The product has no field ${key}.`);
    else if (field.type === 'image' || field.type === 'file') {
      if (!isBlank(rawValues[key]))
        push(errors, `fields.${key}`, `Send ${field.label} as the file part field_files.${key}.`);
    }
  }

  const filesByIndex = new Map<number, IncomingUpload>();
  for (const upload of incoming) {
    const index = filePartIndex(upload.partName);
    const field = index === null ? undefined : fields[index];
    if (index === null) {
      push(errors, upload.partName, 'Files are accepted only in parts named field_files.{index}.');
    } else if (!field || (field.type !== 'image' && field.type !== 'file')) {
      push(errors, `field_files.${index}`, `The product has no image or file field ${index}.`);
    } else if (filesByIndex.has(index)) {
      push(errors, `field_files.${index}`, 'Send one file per field.');
    } else {
      filesByIndex.set(index, upload);
    }
  }

  for (const [index, field] of fields.entries()) {
    if (field.type === 'image' || field.type === 'file') {
      const upload = filesByIndex.get(index);
      if (!upload) {
        if (field.required) push(errors, `field_files.${index}`, `${field.label} is required.`);
        continue;
      }
      const rule = UPLOAD_RULES[field.type];
      // Size first, from the spooled length: an oversize file is never read into memory.
      const verdict: UploadVerdict =
        upload.size > rule.maxBytes
          ? {
              ok: false,
              message: `The ${field.type} may not be larger than ${rule.maxBytes / (1024 * 1024)} MB.`,
            }
          : judgeUpload(field.type, upload.originalName, await readFile(upload.tempPath));
      if (!verdict.ok) {
        push(errors, `field_files.${index}`, verdict.message);
        continue;
      }
      uploads.push({
        fieldIndex: index,
        originalName: upload.originalName,
        tempPath: upload.tempPath,
        size: upload.size,
        kind: verdict.kind,
        mime: verdict.mime,
      });
      values[String(index)] = {
        type: field.type,
        label: field.label,
        file: { name: upload.originalName, mime_type: verdict.mime, size_bytes: upload.size },
      };
      continue;
    }

    const raw = rawValues[String(index)];
    if (isBlank(raw)) {
      if (field.required) push(errors, `fields.${index}`, `${field.label} is required.`);
      continue;
    }
    const checked = checkValue(field, raw);
    if (!checked.ok) {
      push(errors, `fields.${index}`, checked.message);
      continue;
    }
    values[String(index)] = checked.value;
    addonsMinor += checked.addon;
  }

  return { values, addonsMinor, uploads, errors };
}
