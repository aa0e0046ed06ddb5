import { h, uid } from './dom';
import type { Lang, Strings } from './i18n';
import { CSS } from './styles';

/**
 * The dialog's shell: a `<dialog>` in an open shadow root, opened with showModal() so it is drawn in the
 * browser's top layer (no z-index, stacking context or transform of the page can cover or resize it) and
 * the page behind is inert while it is open. Also: the focus trap, Escape, the backdrop, timers that die
 * with the dialog, the one alert (placed beside the action that failed), and the watch for a page that
 * removes the dialog (a Turbo or pjax body swap).
 */

export type Theme = 'auto' | 'light' | 'dark';

const FOCUSABLE =
  'a[href],button:not([disabled]),input:not([disabled]),select:not([disabled]),textarea:not([disabled])';

export interface ShellOptions {
  t: Strings;
  lang: Lang;
  theme: Theme;
  /** The buyer asked to close (close button, Escape, backdrop), or the page removed the dialog. */
  onClose: () => void;
  /** Whether a click on the backdrop may close (not while a payment is under way). */
  backdropCloses: () => boolean;
}

export class Shell {
  readonly host: HTMLElement;
  readonly root: ShadowRoot;
  readonly dlg: HTMLDialogElement;
  readonly heading: HTMLElement;
  /** Where the current view goes. */
  readonly body: HTMLElement;
  /** The one alert: at the top by default, moved beside the action whose failure it reports. */
  readonly alert: HTMLElement;
  private readonly alertHome: HTMLElement;
  private readonly timers = new Set<number>();
  private readonly observer: MutationObserver;
  private lockedRoot: HTMLElement | null = null;
  private restoreOverflow = '';
  private closed = false;

  constructor(private readonly opts: ShellOptions) {
    const { t, lang, theme } = opts;
    // Not a div: page rules on `div` do not match it. Its `:host` rule is !important, which (unlike a
    // normal one) beats every page rule, `* { all: unset }` included: nothing inherits in from the page.
    this.host = document.createElement('matjar-checkout');
    this.host.setAttribute('data-matjar-widget', '');
    this.root = this.host.attachShadow({ mode: 'open' });
    if (!adopt(this.root)) this.root.append(h('style', {}, CSS));
    const titleId = uid('title');
    this.heading = h('h2', { id: titleId, dir: 'auto' }, t.loading);
    this.alert = h('div', { class: 'alert', role: 'alert', 'aria-live': 'assertive', tabindex: '-1' });
    this.alertHome = h('div', { class: 'body' }, this.alert);
    this.body = h('div', { class: 'body' });
    this.dlg = h(
      'dialog',
      {
        class: 'mj dlg',
        role: 'dialog',
        'aria-modal': 'true',
        'aria-labelledby': titleId,
        tabindex: '-1',
        'data-theme': theme,
        dir: lang === 'ar' ? 'rtl' : 'ltr',
        lang,
      },
      h(
        'header',
        {},
        this.heading,
        h(
          'button',
          { type: 'button', class: 'x', 'aria-label': t.close, onclick: () => opts.onClose() },
          '×',
        ),
      ),
      this.alertHome,
      this.body,
    );
    // A press outside the box is on the backdrop. The second press of a double click (detail 2) is not:
    // it is the end of the click that opened the dialog.
    this.dlg.addEventListener('mousedown', (e) => {
      if (e.target !== this.dlg || e.detail > 1 || !opts.backdropCloses()) return;
      const r = this.dlg.getBoundingClientRect();
      if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom)
        opts.onClose();
    });
    // Escape arrives as `cancel`; a dialog closed by the browser itself (`close`) closes the purchase too.
    this.dlg.addEventListener('cancel', (e) => {
      e.preventDefault();
      opts.onClose();
    });
    this.dlg.addEventListener('close', () => opts.onClose());
    this.root.append(this.dlg);
    this.root.addEventListener('keydown', (e) => this.onKey(e as KeyboardEvent));
    this.observer = new MutationObserver(() => {
      if (!this.host.isConnected) opts.onClose();
    });
  }

  open(): void {
    this.lockedRoot = document.documentElement;
    this.restoreOverflow = this.lockedRoot.style.overflow;
    this.lockedRoot.style.overflow = 'hidden';
    document.body.append(this.host);
    try {
      this.dlg.showModal();
    } catch {
      this.dlg.setAttribute('open', ''); // a browser without <dialog> modals: still shown, above the page
    }
    document.addEventListener('focusin', this.keepFocus, true);
    this.observer.observe(document, { childList: true, subtree: true });
    this.dlg.focus();
  }

  /** Removes everything the dialog put on the page: the element, listeners, timers, the scroll lock. */
  teardown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of this.timers) clearTimeout(id);
    this.timers.clear();
    this.observer.disconnect();
    document.removeEventListener('focusin', this.keepFocus, true);
    if (this.lockedRoot) this.lockedRoot.style.overflow = this.restoreOverflow;
    if (this.dlg.open) {
      try {
        this.dlg.close();
      } catch {
        // already closed
      }
    }
    this.host.remove();
  }

  /** Runs `fn` after `ms` unless the dialog closed meanwhile. */
  later(fn: () => void, ms: number): void {
    const id = window.setTimeout(() => {
      this.timers.delete(id);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(id);
  }

  show(view: HTMLElement, focus = true): void {
    if (this.body.contains(this.alert)) this.alertHome.append(this.alert);
    this.body.replaceChildren(view);
    this.body.removeAttribute('aria-busy');
    if (focus) this.focusFirst();
  }

  /** A view that waits for the API: announced as busy until the next view replaces it. */
  showBusy(view: HTMLElement): void {
    this.show(view, false);
    this.body.setAttribute('aria-busy', 'true');
  }

  /**
   * Says `message` in the alert. With an `anchor` (the button of the action that failed) the alert sits just
   * before it, where the buyer is looking, is scrolled into view and takes the focus (unless `focus` is
   * false); the retry is the button right after it.
   */
  say(message: string, anchor?: Element | null, focus = true): void {
    const a = this.alert;
    // Cleared first so the same message twice is announced twice.
    a.textContent = '';
    // A button in a row (Apply beside the coupon field) has the alert above its row, not inside it.
    const spot =
      anchor && anchor.isConnected && this.body.contains(anchor) ? (anchor.closest('.row') ?? anchor) : null;
    if (spot) spot.before(a);
    else if (a.parentElement !== this.alertHome) this.alertHome.append(a);
    if (!message) return;
    this.later(() => {
      a.textContent = message;
      if (!spot) return;
      if (focus) a.focus({ preventScroll: true });
      a.scrollIntoView({ block: 'nearest' });
    }, 30);
  }

  /** Focus that leaves the dialog (a click on the page behind, a screen reader jump) is brought back. */
  private readonly keepFocus = (e: FocusEvent): void => {
    if (e.target !== this.host && !this.closed) this.focusFirst();
  };

  tabbables(within: ParentNode = this.dlg): HTMLElement[] {
    return [...within.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => {
      if (el.getClientRects().length === 0) return false;
      // Tab reaches one radio per group: the checked one, or the first when none is.
      if (el instanceof HTMLInputElement && el.type === 'radio') {
        const group = [
          ...this.dlg.querySelectorAll<HTMLInputElement>(`input[type=radio][name="${el.name}"]`),
        ];
        const checked = group.find((r) => r.checked);
        return checked ? checked === el : group[0] === el;
      }
      return true;
    });
  }

  focusFirst(): void {
    const items = this.tabbables();
    const first =
      this.body.querySelector<HTMLElement>('[data-autofocus]') ??
      items.find((el) => this.body.contains(el)) ??
      items[0] ??
      this.dlg;
    first.focus();
  }

  private onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape') {
      e.preventDefault();
      this.opts.onClose();
      return;
    }
    if (e.key !== 'Tab') return;
    const items = this.tabbables();
    if (items.length === 0) return;
    const active = this.root.activeElement;
    const at = items.indexOf(active as HTMLElement);
    // On something focusable only by script (the alert): the browser's own order, which goes on to the retry.
    if (at === -1 && active && active !== this.dlg) return;
    if (e.shiftKey && (at <= 0 || active === this.dlg)) {
      e.preventDefault();
      items[items.length - 1].focus();
    } else if (!e.shiftKey && (at === items.length - 1 || at === -1)) {
      e.preventDefault();
      items[0].focus();
    }
  }
}

/** Applies the CSS as a constructed stylesheet when the browser can (allowed by any CSP). */
function adopt(root: ShadowRoot): boolean {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [sheet];
    return true;
  } catch {
    return false;
  }
}
