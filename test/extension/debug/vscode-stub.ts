// The few parts of the `vscode` API the Coroutines view (extension/debug/coroutines-view.ts), the debugger's
// registration (extension/debug/register.ts), the inspector panel and the commands (extension/) use, served in this process in place of the editor's module, so their
// logic is tested without an editor. A test imports this module first: requiring 'vscode' then answers it.
//
// Invariants: the stub decides nothing the code under test shows; it only records what is shown or asked
// (`stubWindow`) and hands over the session, events, settings and answers a test gives (`stubDebug`).

import { readFileSync, writeFileSync } from 'node:fs';
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
  started: new StubEventEmitter<StubDebugSession>(),
  terminated: new StubEventEmitter<StubDebugSession>(),
  customEvent: new StubEventEmitter<{ session: StubDebugSession; event: string; body?: unknown }>(),
  /** The thread or frame selected in the Call Stack (undefined: none). */
  changedStackItem: new StubEventEmitter<{ session: StubDebugSession; threadId: number } | undefined>(),
  /** The debug adapter factories registered, by debug type. */
  adapterFactories: new Map<string, unknown>(),
  /** The debug configuration providers registered, in order: type, provider, trigger kind. */
  configurationProviders: [] as Array<{ type: string; provider: unknown; trigger: number }>,
};

/** A file or other URI, as the dialogs answer one. */
export class StubUri {
  constructor(
    readonly scheme: string,
    readonly fsPath: string,
    readonly query = '',
  ) {}
  get path(): string {
    return this.fsPath;
  }
  /** As vscode.Uri says itself: scheme, path, query. */
  toString(): string {
    return `${this.scheme}://${this.fsPath}${this.query === '' ? '' : `?${this.query}`}`;
  }
  static file(path: string): StubUri {
    return new StubUri('file', path);
  }
  /** A URI's text: its scheme and path, then its query (the fragment is not read here). */
  static parse(text: string): StubUri {
    const url = new URL(text);
    return new StubUri(url.protocol.replace(/:$/, ''), decodeURIComponent(url.pathname), url.search.replace(/^\?/, ''));
  }
  static joinPath(base: StubUri, ...parts: string[]): StubUri {
    return new StubUri(base.scheme, [base.fsPath, ...parts].join('/'));
  }
}

/** A panel's webview: its HTML sets and posts recorded, the page's messages heard. */
function webviewOf(htmlLoads: string[], posted: unknown[], onDidReceiveMessage: StubEventEmitter<unknown>['event']) {
  return {
    options: undefined as unknown,
    cspSource: 'stub-csp',
    asWebviewUri: (uri: StubUri) => uri,
    onDidReceiveMessage,
    postMessage: async (message: unknown) => {
      posted.push(message);
      return true;
    },
    set html(text: string) {
      htmlLoads.push(text);
    },
  };
}

/**
 * A webview panel: what is posted to its page and set as its HTML, in order, its reveals; a test makes its
 * page send a message (`receive`), VS Code count it hidden or shown (`setVisible`), or the user close it.
 */
export class StubWebviewPanel {
  visible = true;
  disposed = false;
  iconPath: unknown;
  /** What was posted to the page, in order. */
  readonly posted: unknown[] = [];
  /** Each HTML set, in order (a page loaded anew each). */
  readonly htmlLoads: string[] = [];
  readonly reveals: Array<{ viewColumn: unknown; preserveFocus: boolean | undefined }> = [];
  private readonly received = new StubEventEmitter<unknown>();
  private readonly closed = new StubEventEmitter<void>();
  private readonly viewState = new StubEventEmitter<{ webviewPanel: StubWebviewPanel }>();
  readonly onDidDispose = this.closed.event;
  readonly onDidChangeViewState = this.viewState.event;
  readonly webview = webviewOf(this.htmlLoads, this.posted, this.received.event);
  /** The page sends `message`. */
  receive(message: unknown): void {
    this.received.fire(message);
  }
  setVisible(visible: boolean): void {
    this.visible = visible;
    this.viewState.fire({ webviewPanel: this });
  }
  reveal(viewColumn?: unknown, preserveFocus?: boolean): void {
    this.reveals.push({ viewColumn, preserveFocus });
  }
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.closed.fire();
  }
}

/**
 * What the window showed and was asked, in order, and the answers a test gives: the settings, the quick
 * picks' and dialogs' answers (undefined: dismissed).
 */
export const stubWindow = {
  shown: [] as Array<{ kind: 'error' | 'warning' | 'info' | 'progress'; text: string }>,
  executed: [] as Array<{ command: string; args: unknown[] }>,
  startedDebugging: [] as unknown[],
  /** What the progress notifications reported, in order. */
  reported: [] as Array<{ message?: string; increment?: number }>,
  /** Cancels the progress notifications shown (their Cancel button). */
  cancelProgress: new StubEventEmitter<void>(),
  /** The workspace's folders (undefined: none open). */
  folders: undefined as Array<{ uri: StubUri; name: string; index: number }> | undefined,
  /** Answers the workspace folder pick (undefined: dismissed). */
  folderPick: undefined as { uri: StubUri; name: string; index: number } | undefined,
  /** The `launch` configuration's values, and its updates in order (key, value, target). */
  launch: new Map<string, unknown>(),
  launchUpdates: [] as Array<{ key: string; value: unknown; target: number }>,
  /** The breakpoints added (debug.addBreakpoints): file and 0-based line. */
  breakpoints: [] as Array<{ file: string; line: number }>,
  /** The button the user presses on a message that offers it (undefined: none, the message dismissed). */
  pressButton: undefined as string | undefined,
  /** The text editors visible (suspension decorations), and the event of their change. */
  editors: [] as unknown[],
  editorsChanged: new StubEventEmitter<unknown[]>(),
  /** Decoration types made, in order (each disposed or not). */
  decorationTypes: [] as Array<{ disposed: boolean }>,
  /** The commands registered (commands.registerCommand), by id, until disposed. */
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  /** The webview panel serializers registered, by view type. */
  serializers: new Map<string, unknown>(),
  /** The tree views made (window.createTreeView): their id, options, the view as the code sets it, its visibility. */
  treeViews: [] as Array<{
    id: string;
    options: unknown;
    view: { message?: string; description?: string };
    visibility: StubEventEmitter<{ visible: boolean }>;
  }>,
  /** The editor the user types in (window.activeTextEditor; undefined: none). */
  activeEditor: undefined as { document: { uri: StubUri; languageId: string } } | undefined,
  /** The quick picks shown (window.showQuickPick): their items and options, in order. */
  quickPicks: [] as Array<{ items: ReadonlyArray<{ label: string }>; options: unknown }>,
  /** The webview panels made (window.createWebviewPanel), with what they were made with. */
  webviewPanels: [] as Array<{ viewType: string; title: string; showOptions: unknown; panel: StubWebviewPanel }>,
  /** The URI handler registered (registerUriHandler), if any. */
  uriHandler: undefined as { handleUri(uri: StubUri): Promise<void> | void } | undefined,
  /** The output channels made: their name, what was written (append's text, appendLine's with '\n'), shows. */
  channels: [] as Array<{ name: string; text: string; shows: number; disposed: boolean }>,
  /** The status bar items made, in order, as they are now. */
  statusItems: [] as StubStatusBarItem[],
  /** The sources shown in an editor: the file, the editor column, the 0-based line selected. */
  opened: [] as Array<{ file: string; viewColumn: number | undefined; line: number | null }>,
  settings: new Map<string, unknown>(),
  /** Answers a quick pick: the item accepted, `{ typed }` (text typed, Enter with no item), or undefined (dismissed). */
  quickPick: undefined as ((items: ReadonlyArray<{ label: string }>) => object | undefined) | undefined,
  saveDialog: undefined as StubUri | undefined,
  openDialog: undefined as StubUri[] | undefined,
  reset(): void {
    this.shown.length = 0;
    this.executed.length = 0;
    this.startedDebugging.length = 0;
    this.opened.length = 0;
    this.statusItems.length = 0;
    this.uriHandler = undefined;
    this.commands.clear();
    this.serializers.clear();
    this.treeViews.length = 0;
    this.webviewPanels.length = 0;
    this.activeEditor = undefined;
    this.quickPicks.length = 0;
    this.editors = [];
    this.editorsChanged.dispose();
    this.decorationTypes.length = 0;
    this.pressButton = undefined;
    this.folders = undefined;
    this.folderPick = undefined;
    this.launch.clear();
    this.launchUpdates.length = 0;
    this.breakpoints.length = 0;
    this.channels.length = 0;
    this.reported.length = 0;
    this.cancelProgress.dispose();
    this.settings.clear();
    this.quickPick = undefined;
    this.saveDialog = undefined;
    this.openDialog = undefined;
  },
};

const shows =
  (kind: 'error' | 'warning' | 'info') =>
  async (text: string, ...buttons: string[]): Promise<string | undefined> => {
    stubWindow.shown.push({ kind, text });
    // The button a test has the user press, if the message offers it.
    const pressed = stubWindow.pressButton;
    return pressed !== undefined && buttons.includes(pressed) ? pressed : undefined;
  };

/** A status bar item as the code under test sets it (its other fields are set freely). */
export interface StubStatusBarItem {
  readonly id: string;
  readonly alignment: number;
  readonly priority: number;
  name?: string;
  command?: string;
  text: string;
  tooltip?: string;
  backgroundColor?: { id: string };
  /** How often show() was called. */
  shows: number;
  disposed: boolean;
  show(): void;
  dispose(): void;
}

/** A range of a document, as an editor's selection (its start only). */
interface StubRange {
  readonly line: number;
}

/** A quick pick answered, when shown, by `stubWindow.quickPick`. */
function createQuickPick() {
  const changedValue = new StubEventEmitter<string>();
  const accepted = new StubEventEmitter<void>();
  const hidden = new StubEventEmitter<void>();
  const qp = {
    items: [] as Array<{ label: string }>,
    activeItems: [] as Array<{ label: string }>,
    selectedItems: [] as Array<{ label: string }>,
    value: '',
    title: '',
    placeholder: '',
    matchOnDescription: false,
    matchOnDetail: false,
    onDidChangeValue: changedValue.event,
    onDidChangeSelection: new StubEventEmitter<unknown>().event,
    onDidAccept: accepted.event,
    onDidHide: hidden.event,
    show(): void {
      const answer = stubWindow.quickPick?.(qp.items);
      if (answer === undefined) hidden.fire();
      else if ('typed' in answer) {
        qp.value = String(answer.typed);
        changedValue.fire(qp.value);
        qp.activeItems = [];
        accepted.fire();
      } else {
        qp.selectedItems = [answer as { label: string }];
        accepted.fire();
      }
    },
    dispose(): void {},
  };
  return qp;
}

const stub = {
  EventEmitter: StubEventEmitter,
  Uri: StubUri,
  Range: class {
    constructor(
      readonly line: number,
      readonly character: number,
    ) {}
  },
  TextEditorRevealType: { Default: 0, InCenter: 1, InCenterIfOutsideViewport: 2, AtTop: 3 },
  ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2, Three: 3 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  window: {
    showErrorMessage: shows('error'),
    showWarningMessage: shows('warning'),
    showInformationMessage: shows('info'),
    createQuickPick: () => createQuickPick(),
    showQuickPick: async <T extends { label: string }>(items: readonly T[], options?: unknown) => {
      stubWindow.quickPicks.push({ items, options });
      return stubWindow.quickPick?.(items) as T | undefined;
    },
    get activeTextEditor() {
      return stubWindow.activeEditor;
    },
    createTreeView: (id: string, options: unknown) => {
      const visibility = new StubEventEmitter<{ visible: boolean }>();
      const view = {
        message: undefined as string | undefined,
        description: undefined as string | undefined,
        onDidChangeVisibility: visibility.event,
        dispose: () => visibility.dispose(),
      };
      stubWindow.treeViews.push({ id, options, view, visibility });
      return view;
    },
    createWebviewPanel: (viewType: string, title: string, showOptions: unknown) => {
      const panel = new StubWebviewPanel();
      stubWindow.webviewPanels.push({ viewType, title, showOptions, panel });
      return panel;
    },
    registerWebviewPanelSerializer: (viewType: string, serializer: unknown) => {
      stubWindow.serializers.set(viewType, serializer);
      return { dispose: () => stubWindow.serializers.delete(viewType) };
    },
    showSaveDialog: async () => stubWindow.saveDialog,
    showOpenDialog: async () => stubWindow.openDialog,
    withProgress: async <T>(
      options: { title: string },
      task: (
        progress: { report(value: { message?: string; increment?: number }): void },
        token: { onCancellationRequested: StubEventEmitter<void>['event'] },
      ) => Promise<T>,
    ): Promise<T> => {
      stubWindow.shown.push({ kind: 'progress', text: options.title });
      return task(
        { report: (value) => stubWindow.reported.push(value) },
        { onCancellationRequested: stubWindow.cancelProgress.event },
      );
    },
    tabGroups: { activeTabGroup: { viewColumn: 1 } },
    registerUriHandler: (handler: { handleUri(uri: StubUri): Promise<void> | void }) => {
      stubWindow.uriHandler = handler;
      return { dispose: () => (stubWindow.uriHandler = undefined) };
    },
    createOutputChannel: (name: string) => {
      const channel = { name, text: '', shows: 0, disposed: false };
      stubWindow.channels.push(channel);
      return {
        append: (text: string) => void (channel.text += text),
        appendLine: (text: string) => void (channel.text += `${text}\n`),
        show: () => void channel.shows++,
        dispose: () => void (channel.disposed = true),
      };
    },
    createStatusBarItem: (id: string, alignment: number, priority: number) => {
      const item: StubStatusBarItem = {
        id,
        alignment,
        priority,
        text: '',
        shows: 0,
        disposed: false,
        show: () => void item.shows++,
        dispose: () => void (item.disposed = true),
      };
      stubWindow.statusItems.push(item);
      return item;
    },
    showTextDocument: async (
      shown: StubUri | { uri: StubUri },
      options: { viewColumn?: number; selection?: StubRange },
    ) => {
      const uri = shown instanceof StubUri ? shown : shown.uri;
      stubWindow.opened.push({
        file: uri.fsPath,
        viewColumn: options.viewColumn,
        line: options.selection?.line ?? null,
      });
      return { revealRange: () => undefined };
    },
    get visibleTextEditors() {
      return stubWindow.editors;
    },
    onDidChangeVisibleTextEditors: stubWindow.editorsChanged.event,
    createTextEditorDecorationType: () => {
      const type = { disposed: false, dispose: () => void (type.disposed = true) };
      stubWindow.decorationTypes.push(type);
      return type;
    },
    showWorkspaceFolderPick: async () => stubWindow.folderPick,
  },
  env: { uriScheme: 'vscode-stub' },
  workspace: {
    get workspaceFolders() {
      return stubWindow.folders;
    },
    getConfiguration: (section?: string) =>
      section === 'launch'
        ? {
            get: (key: string) => stubWindow.launch.get(key),
            update: async (key: string, value: unknown, target: number) => {
              stubWindow.launchUpdates.push({ key, value, target });
              stubWindow.launch.set(key, value);
            },
          }
        : { get: (key: string) => stubWindow.settings.get(key) },
    // Files are written for real (a test's own temp folder): what the code checks with existsSync sees them.
    fs: {
      writeFile: async (uri: StubUri, bytes: Uint8Array) => writeFileSync(uri.fsPath, bytes),
      readFile: async (uri: StubUri): Promise<Uint8Array> => readFileSync(uri.fsPath),
    },
    openTextDocument: async (uri: StubUri) => ({ uri }),
  },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  Position: class {
    constructor(
      readonly line: number,
      readonly character: number,
    ) {}
  },
  Location: class {
    constructor(
      readonly uri: StubUri,
      readonly range: { line: number },
    ) {}
  },
  SourceBreakpoint: class {
    constructor(readonly location: { uri: StubUri; range: { line: number } }) {}
  },
  commands: {
    registerCommand: (id: string, run: (...args: unknown[]) => unknown) => {
      if (stubWindow.commands.has(id)) throw new Error(`command '${id}' already exists`);
      stubWindow.commands.set(id, run);
      return { dispose: () => stubWindow.commands.delete(id) };
    },
    executeCommand: async (command: string, ...args: unknown[]) => {
      stubWindow.executed.push({ command, args });
      return undefined;
    },
  },
  StatusBarAlignment: { Left: 1, Right: 2 },
  OverviewRulerLane: { Left: 1, Center: 2, Right: 4, Full: 7 },
  /** Markdown as appended: each part `md:` (markdown) or `text:` (escaped text), in order. */
  MarkdownString: class {
    readonly parts: string[] = [];
    isTrusted = false;
    supportHtml = false;
    appendMarkdown(md: string): this {
      this.parts.push(`md:${md}`);
      return this;
    }
    appendText(text: string): this {
      this.parts.push(`text:${text}`);
      return this;
    }
  },
  ThemeColor: class {
    constructor(readonly id: string) {}
  },
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
  DebugConfigurationProviderTriggerKind: { Initial: 1, Dynamic: 2 },
  /** The adapter of a debug session run in the extension host. */
  DebugAdapterInlineImplementation: class {
    constructor(readonly implementation: unknown) {}
  },
  debug: {
    registerDebugAdapterDescriptorFactory: (type: string, factory: unknown) => {
      stubDebug.adapterFactories.set(type, factory);
      return { dispose: () => stubDebug.adapterFactories.delete(type) };
    },
    registerDebugConfigurationProvider: (type: string, provider: unknown, trigger = 1) => {
      const entry = { type, provider, trigger };
      stubDebug.configurationProviders.push(entry);
      return {
        dispose: () => {
          const i = stubDebug.configurationProviders.indexOf(entry);
          if (i >= 0) stubDebug.configurationProviders.splice(i, 1);
        },
      };
    },
    onDidStartDebugSession: stubDebug.started.event,
    onDidChangeActiveStackItem: stubDebug.changedStackItem.event,
    addBreakpoints: (added: Array<{ location: { uri: StubUri; range: { line: number } } }>) => {
      for (const b of added) stubWindow.breakpoints.push({ file: b.location.uri.fsPath, line: b.location.range.line });
    },
    startDebugging: async (_folder: unknown, configuration: unknown) => {
      stubWindow.startedDebugging.push(configuration);
      return true;
    },
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
