import { COUNTRIES, maskPhone } from './countries';
import { h, uid } from './dom';
import type { Lang } from './i18n';

/**
 * Labelled inputs with their error lines. `key` is the API's name for a control in 422 answers, so an
 * answer's per-field messages land next to the inputs they concern.
 */

export type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

interface Slot {
  input: HTMLElement;
  error: HTMLElement;
}

export class Controls {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly lang: Lang) {}

  /** A labelled control with its error line. */
  control(
    key: string,
    label: string,
    input: Control,
    hint?: string,
    display: HTMLElement = input,
  ): HTMLElement {
    const errorId = uid('err');
    const error = h('div', { class: 'ferr', id: errorId });
    const hintEl = hint ? h('div', { class: 'muted', id: uid('hint') }, hint) : null;
    input.id ||= uid('in');
    input.setAttribute('aria-describedby', hintEl ? `${hintEl.id} ${errorId}` : errorId);
    this.slots.set(key, { input, error });
    return h('div', { class: 'f' }, h('label', { for: input.id }, label), display, hintEl, error);
  }

  /** Registers an error line for a group (the payment method radios). */
  slot(key: string, input: HTMLElement, error: HTMLElement): void {
    this.slots.set(key, { input, error });
  }

  /** Shows `message` under the control `key`; false when no such control is on screen. */
  error(key: string, message: string): boolean {
    const slot = this.slots.get(key);
    if (!slot || !slot.input.isConnected) return false;
    slot.error.textContent = message;
    slot.input.setAttribute('aria-invalid', 'true');
    return true;
  }

  clear(key?: string): void {
    for (const [k, slot] of this.slots) {
      if (key !== undefined && k !== key) continue;
      slot.error.textContent = '';
      slot.input.removeAttribute('aria-invalid');
    }
  }

  input(attrs: Record<string, string | number | boolean | undefined>): HTMLInputElement {
    return h('input', { type: 'text', ...attrs });
  }

  countrySelect(): HTMLSelectElement {
    const select = h('select', { autocomplete: 'tel-country-code' });
    for (const [, dial, nameEn, nameAr] of COUNTRIES) {
      select.append(h('option', { value: dial }, `${this.lang === 'ar' ? nameAr : nameEn} (+${dial})`));
    }
    return select;
  }

  /** A phone input that groups the digits as they are typed. */
  phoneInput(country: HTMLSelectElement): HTMLInputElement {
    const input = this.input({ type: 'tel', autocomplete: 'tel-national', inputmode: 'tel', dir: 'ltr' });
    const reformat = (): void => {
      input.value = maskPhone(input.value, country.value);
    };
    input.addEventListener('input', reformat);
    country.addEventListener('change', reformat);
    return input;
  }
}

/** Runs `action` when Enter is pressed in `el` (instead of submitting the form). */
export function onEnter(el: HTMLElement, action: () => void): void {
  el.addEventListener('keydown', (e) => {
    if ((e as KeyboardEvent).key === 'Enter') {
      e.preventDefault();
      action();
    }
  });
}

export function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled (privacy settings, sandboxed frame)
  }
}
