import { EmbedClient } from './api';
import { CheckoutDialog, Theme } from './dialog';
import { languageOf } from './i18n';

/**
 * Entry of /widget/v1.js. Any element carrying data-matjar-product and data-matjar-key (also ones added
 * later) opens the purchase dialog when clicked. The only global is `window.Matjar`.
 */

const SELECTOR = '[data-matjar-product][data-matjar-key]';

declare global {
  interface Window {
    Matjar?: { version: string; open(el: Element): void; close(): void };
  }
}

function apiBase(): string {
  const script = document.currentScript as HTMLScriptElement | null;
  const src = script?.src || '';
  const explicit = script?.getAttribute('data-matjar-api');
  if (explicit) return explicit.replace(/\/+$/, '');
  // The API serves this script at {base}/widget/v1.js.
  return src ? src.replace(/\/widget\/v1\.js(?:[?#].*)?$/, '') : location.origin;
}

function install(): void {
  if (window.Matjar) return; // the script was included twice
  const base = apiBase();
  let current: CheckoutDialog | null = null;

  const open = (el: Element): void => {
    if (current || !(el instanceof HTMLElement)) return;
    const productId = el.getAttribute('data-matjar-product') ?? '';
    const key = el.getAttribute('data-matjar-key') ?? '';
    const raw = el.getAttribute('data-matjar-theme');
    const theme: Theme = raw === 'light' || raw === 'dark' ? raw : 'auto';
    current = new CheckoutDialog({
      button: el,
      client: new EmbedClient(base, key, languageOf(el)),
      productId,
      theme,
      lang: languageOf(el),
      onClosed: () => (current = null),
    });
  };

  /** Elements that are not buttons or links are made reachable and announced as buttons. */
  const enhance = (root: ParentNode): void => {
    const found = root instanceof Element && root.matches(SELECTOR) ? [root] : [];
    for (const el of [...found, ...root.querySelectorAll(SELECTOR)]) {
      el.setAttribute('aria-haspopup', 'dialog');
      if (!/^(BUTTON|A)$/.test(el.tagName)) {
        if (!el.hasAttribute('role')) el.setAttribute('role', 'button');
        if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '0');
      }
    }
  };

  document.addEventListener('click', (e) => {
    const el = (e.target as Element | null)?.closest?.(SELECTOR);
    if (!el) return;
    e.preventDefault();
    open(el);
  });
  document.addEventListener('keydown', (e) => {
    const el = e.target as Element | null;
    if (
      (e.key === 'Enter' || e.key === ' ') &&
      el?.matches?.(SELECTOR) &&
      el.getAttribute('role') === 'button'
    ) {
      e.preventDefault();
      open(el);
    }
  });
  const start = (): void => {
    enhance(document);
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n instanceof Element) enhance(n);
    }).observe(document.documentElement, { childList: true, subtree: true });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();

  window.Matjar = {
    version: '1',
    open,
    close: () => current?.close(),
  };
}

install();
