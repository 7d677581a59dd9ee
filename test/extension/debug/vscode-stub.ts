// The few parts of the `vscode` API the Coroutines view (extension/debug/coroutines-view.ts) uses,
// served to it in this process in place of the editor's module, so its refresh logic is tested
// against a real adapter session (a CoroscopeSession on the fake host) without an editor. A test
// imports this module before the view: requiring 'vscode' then answers this stub.
//
// Invariants: the stub decides nothing the view shows; it only records what the view sets and
// hands the view the session and events a test gives (`stubDebug`).

import Module from 'node:module';

type Listener<T> = (value: T) => void;

export class StubEventEmitter<T> {
  private readonly listeners: Array<Listener<T>> = [];
  readonly event = (listener: Listener<T>): { dispose(): void } => {
    this.listeners.push(listener);
    return {
      dispose: () => {
        const i = this.listeners.indexOf(listener);
        if (i >= 0) this.listeners.splice(i, 1);
      },
    };
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }
  dispose(): void {
    this.listeners.length = 0;
  }
}

/** A debug session as the view sees one: its type and its custom requests. */
export interface StubDebugSession {
  type: string;
  customRequest(command: string, args?: unknown): Promise<unknown>;
}

/** What a test drives: the active session and the debug events the view listens to. */
export const stubDebug = {
  activeDebugSession: undefined as StubDebugSession | undefined,
  changedActive: new StubEventEmitter<StubDebugSession | undefined>(),
  terminated: new StubEventEmitter<StubDebugSession>(),
  customEvent: new StubEventEmitter<{ session: StubDebugSession; event: string; body?: unknown }>(),
};

const stub = {
  EventEmitter: StubEventEmitter,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  TreeItem: class {
    constructor(
      readonly label: string,
      readonly collapsibleState: number,
    ) {}
  },
  ThemeIcon: class {
    constructor(readonly id: string) {}
  },
  debug: {
    get activeDebugSession(): StubDebugSession | undefined {
      return stubDebug.activeDebugSession;
    },
    onDidChangeActiveDebugSession: stubDebug.changedActive.event,
    onDidTerminateDebugSession: stubDebug.terminated.event,
    onDidReceiveDebugSessionCustomEvent: stubDebug.customEvent.event,
  },
};

// Node's module loader, as CommonJS exposes it: 'vscode' is answered by the stub from here on.
const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
const load = loader._load.bind(loader);
loader._load = (request, parent, isMain) => (request === 'vscode' ? stub : load(request, parent, isMain));
