/**
 * A small XML writer whose output is already in Canonical XML 1.1 form (W3C, 2 May 2008) for the
 * documents the platform builds: no whitespace between elements, every element written with a start and
 * an end tag, namespace declarations before attributes (the default one first, then by prefix), attributes
 * by name (none of ours is namespace-qualified), and C14N's escapes in text (`&amp;`, `&lt;`, `&gt;`,
 * `&#xD;`) and attributes (`&amp;`, `&lt;`, `&quot;`, `&#x9;`, `&#xA;`, `&#xD;`). So the text the platform
 * hashes is the canonical form, and an independent canonicaliser (test: `xmllint --c14n11`) gives it back
 * byte for byte (docs/einvoicing.md, "The hash").
 */

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

export function el(
  name: string,
  attrs: Record<string, string> | null,
  ...children: (XmlNode | null | false)[]
): XmlElement {
  return {
    name,
    attrs: attrs ?? {},
    children: children.filter((c): c is XmlNode => c !== null && c !== false),
  };
}

export function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
}

export function escapeAttr(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#x9;')
    .replace(/\n/g, '&#xA;')
    .replace(/\r/g, '&#xD;');
}

function attrOrder(a: string, b: string): number {
  const rank = (k: string) => (k === 'xmlns' ? 0 : k.startsWith('xmlns:') ? 1 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The element in canonical form. `inScope`: namespace declarations of its ancestors, rendered on it (what
 * canonicalising one element of a document does: the signed properties' digest).
 */
export function serialize(node: XmlNode, inScope: Record<string, string> = {}): string {
  if (typeof node === 'string') return escapeText(node);
  const attrs: Record<string, string> = { ...inScope, ...node.attrs };
  const keys = Object.keys(attrs).sort(attrOrder);
  const open = keys.map((k) => ` ${k}="${escapeAttr(attrs[k]!)}"`).join('');
  return `<${node.name}${open}>${node.children.map((c) => serialize(c)).join('')}</${node.name}>`;
}

/**
 * One line of text fit for the document: line breaks and tabs become spaces (a parser would turn a CR LF
 * into LF before any canonicaliser saw it) and characters XML does not allow are dropped.
 */
export function xmlSafe(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\t\n\r]+/g, ' ').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
