// The inspector panel (webview/app.ts) opened on a fresh page, with the extension's side played by
// the test: it answers the panel's requests from a table of methods and delivers events, over the
// same postMessage wire as VS Code (host-bridge.ts), so a test sees the messages the panel sends.
//
// Invariants: a request whose method has no answer stays unanswered (as an extension still working);
// `ready` is answered with the PanelInit given, so the panel shows that run once booted.

import { PANEL_PROTOCOL_VERSION, type PanelInit, type RunStatus } from '../../protocol/webview-protocol';
import { App } from '../../webview/app';
import { type DomPage, nextFrame, openDom } from './dom-env';

export interface SentRequest {
  method: string;
  params: unknown;
}

export type Answers = Record<string, (params: unknown) => unknown>;

export interface OpenPanel {
  readonly page: DomPage;
  readonly app: App;
  readonly root: HTMLElement;
  /** The requests the panel sent, oldest first (`ready` and the timeline's polls included). */
  requests(method?: string): SentRequest[];
  /** Delivers an extension event (status, snapshot, exception, ...). */
  event(event: string, body: unknown): void;
  /** Waits for the answers under way and the render they ask for. */
  settle(): Promise<void>;
  /** The element matching `selector` (the test fails if there is none). */
  one<E extends Element = HTMLElement>(selector: string): E;
  all<E extends Element = HTMLElement>(selector: string): E[];
}

export function runStatus(over: Partial<RunStatus> = {}): RunStatus {
  return { phase: 'running', runId: 1, title: 'Crawl of the demo site', detail: 'Running', tick: 10, ...over };
}

export function panelInit(over: Partial<PanelInit> = {}): PanelInit {
  return {
    protocolVersion: PANEL_PROTOCOL_VERSION,
    status: runStatus(),
    snapshot: null,
    progress: [],
    exceptions: [],
    lints: [],
    pages: [],
    lastProgress: null,
    ...over,
  };
}

function isRequest(m: unknown): m is { kind: 'request'; id: number; method: string; params: unknown } {
  if (typeof m !== 'object' || m === null) return false;
  const r = m as Record<string, unknown>;
  return r.kind === 'request' && typeof r.id === 'number' && typeof r.method === 'string';
}

/** Opens the panel on a fresh page, answers `ready` with `init`, and waits for its first render. */
export async function openPanel(init: PanelInit, answers: Answers = {}): Promise<OpenPanel> {
  const page = openDom();
  const all: Answers = { ready: () => init, ...answers };
  page.onPost = (m) => {
    if (!isRequest(m)) return;
    const answer = all[m.method];
    if (answer === undefined) return;
    queueMicrotask(() => {
      try {
        page.deliver({ kind: 'response', id: m.id, ok: true, result: answer(m.params) });
      } catch (e) {
        page.deliver({ kind: 'response', id: m.id, ok: false, error: { message: String(e) } });
      }
    });
  };
  const root = page.document.createElement('div');
  root.id = 'app';
  page.document.body.appendChild(root);
  const app = new App(root);
  const panel: OpenPanel = {
    page,
    app,
    root,
    requests: (method) =>
      page.posted
        .filter(isRequest)
        .filter((m) => method === undefined || m.method === method)
        .map((m) => ({ method: m.method, params: m.params })),
    event: (event, body) => page.deliver({ kind: 'event', event, body }),
    settle: async () => {
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((r) => setImmediate(r));
        await nextFrame();
      }
    },
    one: <E extends Element>(selector: string): E => {
      const el = root.querySelector(selector);
      if (el === null) throw new Error(`no element matches ${selector}`);
      return el as unknown as E;
    },
    all: <E extends Element>(selector: string): E[] => [...root.querySelectorAll(selector)] as unknown as E[],
  };
  await panel.settle();
  return panel;
}
