// DOM building for the panel, text-only: every string becomes a Text node or a property
// set through textContent/setAttribute, never HTML. There is no innerHTML anywhere in the
// webview (test/webview/no-html-sinks.test.ts checks the sources), so a page title such as
// `<img src=x onerror=...>` shows as those characters.
//
// Attribute names are fixed by our code; `on*` and `style` attributes are refused (event
// handlers go through addEventListener; styles through CSS classes and the CSSOM, which the
// CSP allows while it forbids inline style attributes).

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  title?: string;
  attrs?: Record<string, string>;
  /** Event listeners. */
  on?: { [K in keyof HTMLElementEventMap]?: (e: HTMLElementEventMap[K]) => void };
}

function safeAttr(name: string): void {
  if (/^on/i.test(name) || name.toLowerCase() === 'style' || name.toLowerCase() === 'srcdoc')
    throw new Error(`refused attribute ${name}`);
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props !== null) {
    if (props.class !== undefined) el.className = props.class;
    if (props.title !== undefined) el.title = props.title;
    if (props.attrs !== undefined) {
      for (const [k, v] of Object.entries(props.attrs)) {
        safeAttr(k);
        el.setAttribute(k, v);
      }
    }
    if (props.on !== undefined) {
      for (const [k, fn] of Object.entries(props.on)) if (fn !== undefined) el.addEventListener(k, fn as EventListener);
    }
  }
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...children: Array<SVGElement | Text | null>
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    safeAttr(k);
    el.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null) el.appendChild(c);
  return el;
}

export function svgText(text: string, attrs: Record<string, string | number>): SVGTextElement {
  const t = svg('text', attrs);
  t.textContent = text;
  return t;
}

/** A codicon (the font from @vscode/codicons, shipped in dist/webview). */
export function icon(name: string, extra = ''): HTMLSpanElement {
  const s = document.createElement('span');
  s.className = `codicon codicon-${name}${extra !== '' ? ` ${extra}` : ''}`;
  s.setAttribute('aria-hidden', 'true');
  return s;
}

export function clear(el: Element): void {
  while (el.firstChild !== null) el.removeChild(el.firstChild);
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  clear(el);
  append(el, children);
}

/** A toolbar-style icon button (codicon + accessible label). */
export function iconButton(
  iconName: string,
  label: string,
  onClick: () => void,
  opts: { text?: string; primary?: boolean; id?: string } = {},
): HTMLButtonElement {
  const b = h(
    'button',
    {
      class: `icon-button${opts.text !== undefined ? ' with-text' : ''}${opts.primary === true ? ' primary' : ''}`,
      title: label,
      attrs: { type: 'button', 'aria-label': label, ...(opts.id !== undefined ? { 'data-action': opts.id } : {}) },
      on: { click: () => onClick() },
    },
    icon(iconName),
    opts.text !== undefined ? h('span', { class: 'button-text' }, opts.text) : null,
  );
  return b;
}
