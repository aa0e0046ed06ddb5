import type { BuyerLocale } from '../../../i18n/buyer-messages';

/**
 * The frame every buyer e-mail shares: the store's name in a coloured header, the content, a footer.
 * Written for mail clients (docs/email.md, "Templates"): tables and inline styles only, no <style> that
 * Gmail might strip, no script, no remote font or image but the store's own logo when it has one;
 * `dir="rtl"` on the document and every block for Arabic. Every value is escaped here, once.
 */

/** What a template says, in the order it is shown; `layout` turns it into the HTML and the text part. */
export type Block =
  | { kind: 'paragraph'; text: string }
  /** Values the buyer copies (code keys, license keys): one per line, monospaced. */
  | { kind: 'values'; title: string; values: readonly string[] }
  | { kind: 'links'; title: string; links: readonly { label: string; url: string }[] }
  | { kind: 'button'; label: string; url: string }
  | { kind: 'facts'; rows: readonly { label: string; value: string }[] };

export interface Brand {
  name: string;
  /** An https address of the store's logo, shown beside the name. */
  logoUrl?: string | null;
  /** `#rrggbb`, the header's colour. */
  color?: string | null;
}

export interface Rendered {
  subject: string;
  html: string;
  text: string;
}

const DEFAULT_COLOR = '#1f6feb';
const FONT = "font-family:Tahoma,Arial,'Segoe UI',sans-serif";

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Only http(s) addresses become links; anything else (a `javascript:` URL) is shown as text. */
function safeUrl(url: string): string | null {
  return /^https?:\/\/[^\s"'<>]+$/i.test(url) ? url : null;
}

function headerColor(color: string | null | undefined): string {
  return color && /^#[0-9a-f]{6}$/i.test(color) ? color : DEFAULT_COLOR;
}

function blockHtml(block: Block, align: string): string {
  const p = `margin:0 0 16px;${FONT};font-size:15px;line-height:1.6;color:#1f2328;text-align:${align}`;
  switch (block.kind) {
    case 'paragraph':
      return `<p style="${p}">${escapeHtml(block.text)}</p>`;
    case 'values':
      return (
        `<p style="${p};font-weight:bold;margin-bottom:8px">${escapeHtml(block.title)}</p>` +
        block.values
          .map(
            (v) =>
              `<p dir="ltr" style="margin:0 0 8px;padding:8px 12px;background:#f6f8fa;border:1px solid #d0d7de;` +
              `border-radius:6px;font-family:Consolas,'Courier New',monospace;font-size:15px;` +
              `color:#1f2328;text-align:left;word-break:break-all">${escapeHtml(v)}</p>`,
          )
          .join('')
      );
    case 'links':
      return (
        `<p style="${p};font-weight:bold;margin-bottom:8px">${escapeHtml(block.title)}</p>` +
        block.links
          .map((l) => {
            const url = safeUrl(l.url);
            const label = escapeHtml(l.label);
            return url
              ? `<p style="${p};margin-bottom:8px"><a href="${escapeHtml(url)}" style="color:#0969da">${label}</a></p>`
              : `<p style="${p};margin-bottom:8px">${label}: ${escapeHtml(l.url)}</p>`;
          })
          .join('')
      );
    case 'button': {
      const url = safeUrl(block.url);
      if (!url) return `<p style="${p}">${escapeHtml(block.label)}: ${escapeHtml(block.url)}</p>`;
      return (
        `<p style="${p}"><a href="${escapeHtml(url)}" style="display:inline-block;padding:12px 24px;` +
        `background:#1f883d;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:bold;${FONT}">` +
        `${escapeHtml(block.label)}</a></p>`
      );
    }
    case 'facts':
      return (
        `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="margin:0 0 16px;` +
        `border-collapse:collapse">` +
        block.rows
          .map(
            (r) =>
              `<tr><td style="padding:6px 0;${FONT};font-size:14px;color:#59636e;text-align:${align}">` +
              `${escapeHtml(r.label)}</td><td style="padding:6px 0;${FONT};font-size:14px;color:#1f2328;` +
              `font-weight:bold;text-align:${align === 'right' ? 'left' : 'right'}">${escapeHtml(r.value)}</td></tr>`,
          )
          .join('') +
        `</table>`
      );
  }
}

function blockText(block: Block): string {
  switch (block.kind) {
    case 'paragraph':
      return block.text;
    case 'values':
      return [block.title, ...block.values.map((v) => `  ${v}`)].join('\n');
    case 'links':
      return [block.title, ...block.links.map((l) => `  ${l.label}: ${l.url}`)].join('\n');
    case 'button':
      return `${block.label}: ${block.url}`;
    case 'facts':
      return block.rows.map((r) => `${r.label}: ${r.value}`).join('\n');
  }
}

const FOOTER = {
  en: (store: string) => `You receive this e-mail because of your purchase from ${store}.`,
  ar: (store: string) => `وصلك هذا البريد بسبب مشترياتك من ${store}.`,
};

/** The whole message: subject, HTML (with the header) and the plain-text part. */
export function layout(
  locale: BuyerLocale,
  brand: Brand,
  content: { subject: string; title: string; blocks: readonly Block[] },
): Rendered {
  const dir = locale === 'ar' ? 'rtl' : 'ltr';
  const align = locale === 'ar' ? 'right' : 'left';
  const color = headerColor(brand.color);
  const logo = brand.logoUrl && /^https:\/\/[^\s"'<>]+$/i.test(brand.logoUrl) ? brand.logoUrl : null;
  const name = escapeHtml(brand.name);
  const header =
    (logo
      ? `<img src="${escapeHtml(logo)}" alt="${name}" height="32" style="height:32px;vertical-align:middle;` +
        `border:0;margin-${align === 'right' ? 'left' : 'right'}:8px">`
      : '') + `<span style="${FONT};font-size:20px;font-weight:bold;color:#ffffff">${name}</span>`;
  const html =
    `<!DOCTYPE html><html lang="${locale}" dir="${dir}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(content.subject)}</title></head>` +
    `<body dir="${dir}" style="margin:0;padding:0;background:#f6f8fa">` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" dir="${dir}" ` +
    `style="background:#f6f8fa"><tr><td align="center" style="padding:24px 12px">` +
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" dir="${dir}" ` +
    `style="max-width:600px;width:100%;background:#ffffff;border:1px solid #d0d7de;border-radius:8px">` +
    `<tr><td dir="${dir}" style="background:${color};padding:16px 24px;text-align:${align};` +
    `border-radius:8px 8px 0 0">${header}</td></tr>` +
    `<tr><td dir="${dir}" style="padding:24px;text-align:${align}">` +
    `<h1 style="margin:0 0 16px;${FONT};font-size:20px;color:#1f2328;text-align:${align}">` +
    `${escapeHtml(content.title)}</h1>` +
    content.blocks.map((b) => blockHtml(b, align)).join('') +
    `</td></tr><tr><td dir="${dir}" style="padding:16px 24px;border-top:1px solid #d0d7de;${FONT};` +
    `font-size:12px;color:#59636e;text-align:${align}">${escapeHtml(FOOTER[locale](brand.name))}</td></tr>` +
    `</table></td></tr></table></body></html>`;
  const text = [brand.name, '', content.title, '', ...content.blocks.map((b) => `${blockText(b)}\n`)]
    .concat(FOOTER[locale](brand.name))
    .join('\n');
  return { subject: content.subject, html, text };
}
