import { EmbedClient, Product } from './api';
import { AnswerCache } from './cache';
import { CheckoutDialog, Theme } from './dialog';
import { languageOf } from './i18n';

/**
 * Entry of /widget/v1.js. Any element carrying data-matjar-product and data-matjar-key (also ones added
 * later, inside the page's own shadow roots, or under an ancestor that stops the click) opens the purchase
 * dialog when clicked. The only global is `window.Matjar`; before the script runs a page may set it to an
 * array and push the buttons clicked meanwhile (docs/widget.md, Single-page apps and early clicks).
 */

const SELECTOR = '[data-matjar-product][data-matjar-key]';

/** A queued command: an element to open, `['open', element]`, or `['close']`. */
type Command = Element | [string, Element?];

interface MatjarApi {
  version: string;
  open(el: Element): void;
  close(): void;
  push(...commands: Command[]): number;
}

declare global {
  interface Window {
    Matjar?: MatjarApi | Command[];
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
  const queued = Array.isArray(window.Matjar) ? window.Matjar : [];
  if (window.Matjar && !Array.isArray(window.Matjar)) return; // the script was included twice
  const base = apiBase();
  let current: CheckoutDialog | null = null;
  const products = new AnswerCache<Product>();
  // Each opening reads the product again (requests under way are shared): the store's payment methods and
  // stock are the current ones, so a payment method switched on meanwhile (or keys added) is seen without
  // reloading the page.
  const loader = (client: EmbedClient, productId: string) => async (): Promise<Product> => {
    const key = `${client.key} ${client.lang ?? ''} ${productId}`;
    const product = await products.get(key, (seen) =>
      client.call(
        'GET /api/embed/product/{productId}',
        `/api/embed/product/${encodeURIComponent(productId)}`,
        undefined,
        null,
        (res) => seen(res.headers.get('cache-control')),
      ),
    );
    products.forget(key);
    return product;
  };

  const open = (el: Element): void => {
    if (current || !(el instanceof HTMLElement) || !el.matches(SELECTOR)) return;
    const productId = el.getAttribute('data-matjar-product') ?? '';
    const client = new EmbedClient(base, el.getAttribute('data-matjar-key') ?? '', languageOf(el));
    const raw = el.getAttribute('data-matjar-theme');
    const theme: Theme = raw === 'light' || raw === 'dark' ? raw : 'auto';
    current = new CheckoutDialog({
      button: el,
      client,
      productId,
      theme,
      lang: languageOf(el),
      loadProduct: loader(client, productId),
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

  /** The buy button an event went through, seen through shadow roots (composedPath). */
  const buyButton = (e: Event): Element | null => {
    for (const node of e.composedPath()) {
      if (node instanceof Element && node.matches(SELECTOR)) return node;
    }
    return null;
  };

  // In the capture phase on the window: before any handler of the page can stop the click.
  window.addEventListener(
    'click',
    (e) => {
      const el = buyButton(e);
      if (!el) return;
      e.preventDefault();
      open(el);
    },
    true,
  );
  window.addEventListener(
    'keydown',
    (e) => {
      const el = e.composedPath()[0];
      if (
        (e.key === 'Enter' || e.key === ' ') &&
        el instanceof Element &&
        el.matches(SELECTOR) &&
        el.getAttribute('role') === 'button'
      ) {
        e.preventDefault();
        open(el);
      }
    },
    true,
  );
  const start = (): void => {
    enhance(document);
    // On the document itself: a page that swaps its body (Turbo, pjax) gets its new buttons enhanced too.
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n instanceof Element) enhance(n);
    }).observe(document, { childList: true, subtree: true });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();

  const run = (command: Command): void => {
    if (command instanceof Element) open(command);
    else if (Array.isArray(command) && command[0] === 'open' && command[1]) open(command[1]);
    else if (Array.isArray(command) && command[0] === 'close') current?.close();
  };
  window.Matjar = {
    version: '1',
    open,
    close: () => current?.close(),
    push: (...commands) => {
      commands.forEach(run);
      return commands.length;
    },
  };
  // Clicks made before the script ran, in order: the first opens the dialog, the others find it open.
  queued.forEach(run);
}

install();
