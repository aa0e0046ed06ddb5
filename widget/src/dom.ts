/** A tiny element builder. Text goes in as text nodes only: nothing from the API is ever parsed as HTML. */

type Attr = string | number | boolean | null | undefined;
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr | ((e: Event) => void)> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const name of Object.keys(attrs)) {
    const value = attrs[name];
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== null && value !== undefined && value !== false) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: (Child | Child[])[]): void {
  for (const child of children) {
    if (Array.isArray(child)) append(el, child);
    else if (child !== null && child !== undefined && child !== false) el.append(child);
  }
}

let counter = 0;
/** An id unique within the widget's shadow root, for label/aria references. */
export const uid = (prefix: string): string => `mj-${prefix}-${++counter}`;
