// A fresh browser page for each webview test: a happy-dom Window whose document, element classes,
// events, animation frames and ResizeObserver are the globals the panel's code reads, and a VS Code
// webview API (acquireVsCodeApi) whose postMessage lands in this page's `posted` list.
//
// Invariants: one page at a time (openDom closes the one before); acquireVsCodeApi always answers
// the current page's API, so host-bridge.ts's once-per-module cache never reaches an old page; the
// timers are the page's, so a closed page's panel sends nothing more.

import { Window } from 'happy-dom';

export interface DomPage {
  readonly window: Window;
  readonly document: Document;
  /** Everything the panel posted to the extension, oldest first. */
  readonly posted: unknown[];
  /** What the panel saved with setState (undefined: nothing yet). */
  savedState: unknown;
  /** Delivers `data` to the panel as a message from the extension. */
  deliver(data: unknown): void;
  /** Called for each posted message (set by a harness that answers requests). */
  onPost: (message: unknown) => void;
}

/** The page globals the webview's code reads, copied from the Window. */
const PAGE_GLOBALS = [
  'window',
  'document',
  'Node',
  'Element',
  'Text',
  'HTMLElement',
  'HTMLCanvasElement',
  'SVGElement',
  'Event',
  'KeyboardEvent',
  'PointerEvent',
  'MouseEvent',
  'WheelEvent',
  'MessageEvent',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'ResizeObserver',
  'MutationObserver',
  'getComputedStyle',
  // The page's timers: closing it cancels every timer its panel left (a poll, a question asked
  // again), so nothing of one test's panel posts into the next test's page.
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
] as const;

let current: DomPage | null = null;
const saved = new Map<string, PropertyDescriptor | undefined>();

function install(name: string, value: unknown): void {
  if (!saved.has(name)) saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
}

/** Opens a fresh page (an empty body) and makes it the globals' page. */
export function openDom(): DomPage {
  closeDom();
  const window = new Window({ url: 'https://coroscope.test/' });
  const page: DomPage = {
    window,
    document: window.document as unknown as Document,
    posted: [],
    savedState: undefined,
    deliver: (data) => window.dispatchEvent(new window.MessageEvent('message', { data })),
    onPost: () => undefined,
  };
  for (const name of PAGE_GLOBALS) {
    const v: unknown = Reflect.get(window, name);
    install(name, typeof v === 'function' && /^[a-z]/.test(name) ? v.bind(window) : v);
  }
  install('acquireVsCodeApi', () => ({
    postMessage: (message: unknown) => {
      const p = current;
      if (p === null) return;
      p.posted.push(message);
      p.onPost(message);
    },
    getState: () => current?.savedState,
    setState: (state: unknown) => {
      if (current !== null) current.savedState = state;
    },
  }));
  current = page;
  return page;
}

/** Closes the current page (its timers and frames stop) and gives the globals back. */
export function closeDom(): void {
  if (current === null) return;
  const page = current;
  current = null;
  page.window.happyDOM.abort();
  page.window.close();
  for (const [name, d] of saved) {
    if (d === undefined) Reflect.deleteProperty(globalThis, name);
    else Object.defineProperty(globalThis, name, d);
  }
  saved.clear();
}

/** Resolves after the page's next animation frame (the panel renders in one). */
export function nextFrame(): Promise<void> {
  const page = current;
  if (page === null) return Promise.resolve();
  return new Promise((resolve) => page.window.requestAnimationFrame(() => resolve()));
}
