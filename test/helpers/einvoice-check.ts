import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Independent checks of a phase-2 document, with tools that share no code with the platform: Python's
 * minidom removes the elements ZATCA's hash leaves out, libxml2's `xmllint --c14n11` canonicalises
 * (Canonical XML 1.1), and `xmllint --xpath` reads elements. The machine needs libxml2-utils.
 */

function tmp(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'einv-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, 'utf8');
  return file;
}

export function c14n11(xml: string): string {
  return execFileSync('xmllint', ['--c14n11', tmp('doc.xml', xml)], { encoding: 'utf8' });
}

const REMOVE = `
import sys
from xml.dom import minidom
doc = minidom.parse(sys.argv[1])
root = doc.documentElement
for child in list(root.childNodes):
    if child.nodeType != child.ELEMENT_NODE:
        continue
    if child.tagName in ('ext:UBLExtensions', 'cac:Signature'):
        root.removeChild(child)
    elif child.tagName == 'cac:AdditionalDocumentReference':
        ids = [n for n in child.childNodes if n.nodeType == n.ELEMENT_NODE and n.tagName == 'cbc:ID']
        if ids and ids[0].firstChild and ids[0].firstChild.data == 'QR':
            root.removeChild(child)
sys.stdout.buffer.write(doc.toxml(encoding='UTF-8'))
`;

/** The document with UBLExtensions, cac:Signature and the QR reference removed (Python minidom). */
export function withoutSignatureParts(xml: string): string {
  return execFileSync('python3', [tmp('remove.py', REMOVE), tmp('doc.xml', xml)], { encoding: 'utf8' });
}

/** ZATCA's invoice hash recomputed: remove, canonicalise (C14N 1.1), SHA-256, base64. */
export function recomputeHash(xml: string): string {
  return crypto
    .createHash('sha256')
    .update(c14n11(withoutSignatureParts(xml)), 'utf8')
    .digest('base64');
}

/** Text of the first element named `local` (any namespace). */
export function xpathText(xml: string, local: string, nth = 1): string {
  return execFileSync(
    'xmllint',
    ['--xpath', `string((//*[local-name()='${local}'])[${nth}])`, tmp('doc.xml', xml)],
    { encoding: 'utf8' },
  ).trim();
}

export function xpathCount(xml: string, expr: string): number {
  return Number(
    execFileSync('xmllint', ['--xpath', `count(${expr})`, tmp('doc.xml', xml)], { encoding: 'utf8' }).trim(),
  );
}

/** TLV fields as raw bytes, reading each length as one byte. */
export function tlvFields(base64: string): Map<number, Buffer> {
  const b = Buffer.from(base64, 'base64');
  const out = new Map<number, Buffer>();
  let at = 0;
  while (at < b.length) {
    const tag = b[at]!;
    const len = b[at + 1]!;
    out.set(tag, b.subarray(at + 2, at + 2 + len));
    at += 2 + len;
  }
  if (at !== b.length) throw new Error('TLV record does not end on a field boundary');
  return out;
}

/**
 * The reporting task reports every store's pending documents: a test file's run leaves the documents of
 * other files' stores (sharing this process's database) out, by moving their next attempt far ahead.
 */
export async function parkOtherStores(knex: import('knex').Knex, storeId: number): Promise<void> {
  await knex('einvoice_documents')
    .whereNot({ store_id: storeId })
    .where({ reporting_status: 'pending' })
    .update({ next_attempt_at: new Date('2100-01-01T00:00:00Z') });
}
