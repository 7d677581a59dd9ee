// InspectorPanel: the webview panel that shows the run (webview/), and its serializer. It serves
// the panel's requests (protocol/webview-protocol.ts) with the RunSession and the host, and
// pushes the session's changes to it as events.
//
// Invariants:
// - One panel at a time. The webview's own state lives in the webview (vscode.setState); its
//   data comes on `ready` each boot, so no retainContextWhenHidden. Nothing is posted while hidden.
// - Every request's params are narrowed (parsePanelRequest) before use.
// - Snapshot deltas are coalesced (snapshot-coalescing.ts): at most one `snapshot` event per
//   animation-sized window.

import * as vscode from 'vscode';
import type { HostMethods, Snapshot, TaskDetail } from '../protocol/host-protocol';
import { ProtocolError, RpcEndpoint, type Transport } from '../protocol/rpc';
import {
  PANEL_PROTOCOL_VERSION,
  parsePanelRequest,
  type PanelCommand,
  type PanelEvents,
  type PanelInit,
  type PanelMethods,
  type PanelRequest,
  type ViewId,
  type WebviewMethods,
} from '../protocol/webview-protocol';
import type { LogpointMarksRelay } from './logpoint-marks-relay';
import type { DebuggedRun } from './debugged-run';
import type { RunSession } from './run-session';
import { PanelDelivery } from './panel-delivery';
import { coalescedSnapshot } from './snapshot-coalescing';
import { type InlinedResources, panelHtml } from './webview-html';

export { PANEL_VIEW_TYPE } from './command-ids';
import { PANEL_VIEW_TYPE } from './command-ids';
const PANEL_TITLE = 'Coroscope Inspector';
const COALESCE_MS = 50;

type PanelEndpoint = RpcEndpoint<WebviewMethods, PanelMethods, Record<string, never>, PanelEvents>;

export interface PanelDependencies {
  extensionUri: vscode.Uri;
  session: RunSession;
  /** The logpoint hits over the run shown (its timeline's marks), and the way to go to one. */
  logpointMarks: LogpointMarksRelay;
  /** Whether a debug session debugs the run shown, and its "Follow This Task". */
  debuggedRun: DebuggedRun;
  /** Opens a TypeScript position in an editor. */
  openSource(position: { file: string; line: number; column: number }): Promise<boolean>;
  /** Runs one of the extension's commands for the panel's buttons. */
  runCommand(command: PanelCommand): Promise<void>;
  /** The panel became visible or hidden (for the `coroscope.inspectorVisible` context key). */
  onVisibilityChanged(visible: boolean): void;
  /**
   * The panel is about to show a task's detail (its coroutine stack): the walkthrough's first step watches
   * for a worker's.
   */
  onTaskDetailShown(detail: TaskDetail): void;
}

function webviewTransport(panel: vscode.WebviewPanel): Transport {
  return {
    send: (message) => {
      if (panel.visible) void panel.webview.postMessage(message);
    },
    onMessage: (receive) => panel.webview.onDidReceiveMessage((m: unknown) => receive(m)),
    onClose: (closed) => panel.onDidDispose(() => closed('the panel was closed')),
  };
}

export class InspectorPanel {
  private static current: InspectorPanel | null = null;

  static visiblePanel(): InspectorPanel | null {
    return InspectorPanel.current;
  }

  /**
   * Shows the panel (creating it if needed), optionally on a view. `besideDebugger`: for a run
   * a debug session launched: in the second column, without taking the focus, so that the
   * sources the debugger opens at each stop (in the first) do not cover it.
   */
  static show(
    deps: PanelDependencies,
    reveal?: { view: ViewId; taskId?: number },
    besideDebugger = false,
  ): InspectorPanel {
    let p = InspectorPanel.current;
    if (p === null) {
      // Beside the editor the user reads (frames clicked in the panel open there).
      const column = besideDebugger
        ? vscode.ViewColumn.Two
        : vscode.window.activeTextEditor !== undefined
          ? vscode.ViewColumn.Beside
          : vscode.ViewColumn.Active;
      const panel = vscode.window.createWebviewPanel(
        PANEL_VIEW_TYPE,
        PANEL_TITLE,
        { viewColumn: column, preserveFocus: besideDebugger },
        InspectorPanel.options(deps.extensionUri),
      );
      p = new InspectorPanel(panel, deps);
    } else {
      p.panel.reveal(undefined, besideDebugger);
    }
    if (reveal !== undefined) p.reveal(reveal);
    return p;
  }

  /** The serializer that brings the panel back after a reload. */
  static serializer(deps: () => PanelDependencies): vscode.WebviewPanelSerializer {
    return {
      deserializeWebviewPanel: async (panel: vscode.WebviewPanel, _state: unknown) => {
        // The webview restores its own UI state from vscode.getState(); the data comes on `ready`.
        InspectorPanel.current?.panel.dispose();
        panel.webview.options = InspectorPanel.options(deps().extensionUri);
        new InspectorPanel(panel, deps());
      },
    };
  }

  private static options(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
      enableFindWidget: true,
    };
  }

  private readonly endpoint: PanelEndpoint;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly unsubscribe: Array<() => void> = [];
  private pendingSnapshot: Snapshot | null = null;
  private snapshotTimer: NodeJS.Timeout | null = null;
  private pendingReveal: { view: ViewId; taskId?: number } | null = null;
  /** Whether posts reach the page: loading, current, or missed while hidden (then resynced when shown). */
  private readonly delivery = new PanelDelivery();
  private bootWatch: NodeJS.Timeout | null = null;
  private isDisposed = false;

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly deps: PanelDependencies,
  ) {
    InspectorPanel.current = this;
    panel.iconPath = {
      light: vscode.Uri.joinPath(deps.extensionUri, 'media', 'coroscope-light.svg'),
      dark: vscode.Uri.joinPath(deps.extensionUri, 'media', 'coroscope-dark.svg'),
    };
    this.loadHtml();
    this.endpoint = new RpcEndpoint<WebviewMethods, PanelMethods, Record<string, never>, PanelEvents>(
      webviewTransport(panel),
    );
    this.serve();
    this.subscribe();
    this.disposables.push(
      panel.onDidDispose(() => this.disposed()),
      panel.onDidChangeViewState((e) => {
        if (!e.webviewPanel.visible) this.delivery.hidden();
        else if (this.delivery.shown()) {
          // Shown again: a page VS Code kept (it may count a panel hidden without unloading it) missed the
          // events of meanwhile, and gets everything again; a page loaded anew asks `ready` itself.
          this.pendingSnapshot = null;
          this.endpoint.emit('resync', this.panelInit());
          this.flushReveal();
        }
        deps.onVisibilityChanged(e.webviewPanel.visible);
      }),
    );
  }

  /**
   * Sets the webview's HTML and watches that its script boots (says `ready`). In VS Code for
   * the web the resource service worker can serve none of main.js/main.css (seen as
   * ERR_NAME_NOT_RESOLVED on the CDN host, the same again when the page is loaded again): a
   * visible panel that has not booted within a few seconds gets its HTML again with the script
   * and stylesheet inlined (webview-html.ts), up to three loads in all; then the user is told,
   * with Reload Window (a blank panel says nothing itself).
   */
  private loadHtml(attempt = 1): void {
    const webview = this.panel.webview;
    this.delivery.loading();
    const root = vscode.Uri.joinPath(this.deps.extensionUri, 'dist', 'webview');
    const page = {
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'main.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'main.css')).toString(),
    };
    if (attempt === 1) webview.html = panelHtml(page);
    else
      void inlinedResources(root, webview.asWebviewUri(root).toString()).then((inline) => {
        if (!this.isDisposed) webview.html = panelHtml(inline === null ? page : { ...page, inline });
      });
    if (this.bootWatch !== null) clearTimeout(this.bootWatch);
    this.bootWatch = null;
    this.bootWatch = setTimeout(() => {
      this.bootWatch = null;
      if (this.isDisposed || this.delivery.booted || !this.panel.visible) return;
      if (attempt < 3) {
        this.loadHtml(attempt + 1);
        return;
      }
      const reload = 'Reload Window';
      void vscode.window
        .showWarningMessage(
          `Coroscope: the ${PANEL_TITLE} did not start: its page was loaded ${attempt} times and its script never ran (in VS Code for the web, the webview's service worker did not serve it).`,
          reload,
        )
        .then((choice) => {
          if (choice === reload) void vscode.commands.executeCommand('workbench.action.reloadWindow');
        });
    }, 5_000);
  }

  reveal(r: { view: ViewId; taskId?: number }): void {
    if (this.delivery.deliverable && this.panel.visible) this.endpoint.emit('reveal', r);
    else this.pendingReveal = r;
  }

  dispose(): void {
    this.panel.dispose();
  }

  /** A reveal asked while the page could not hear it, told now. */
  private flushReveal(): void {
    const reveal = this.pendingReveal;
    this.pendingReveal = null;
    if (reveal !== null) this.endpoint.emit('reveal', reveal);
  }

  private disposed(): void {
    this.isDisposed = true;
    if (this.bootWatch !== null) clearTimeout(this.bootWatch);
    if (InspectorPanel.current === this) InspectorPanel.current = null;
    for (const u of this.unsubscribe) u();
    for (const d of this.disposables) d.dispose();
    if (this.snapshotTimer !== null) clearTimeout(this.snapshotTimer);
    this.deps.onVisibilityChanged(false);
  }

  // --- events to the webview ------------------------------------------------------------

  private subscribe(): void {
    const s = this.deps.session;
    const emit = <E extends keyof PanelEvents & string>(event: E, body: PanelEvents[E]): void => {
      if (this.delivery.deliverable && this.panel.visible) this.endpoint.emit(event, body);
    };
    this.unsubscribe.push(
      s.onReset.on((status) => {
        this.pendingSnapshot = null;
        emit('reset', { status });
      }),
      s.onStatus.on((status) => emit('status', status)),
      s.onSnapshot.on(({ snapshot }) => this.queueSnapshot(snapshot)),
      s.onProgress.on((p) => emit('progress', p)),
      s.onException.on((e) => emit('exception', e)),
      s.onLint.on((lint) => emit('lint', { lint })),
      s.onComparison.on((c) => emit('comparison', c)),
      s.onProgramLoops.on((loops) => emit('programLoops', { loops })),
      this.deps.logpointMarks.onMarks.on((hits) => emit('logpointHits', { hits })),
      this.deps.debuggedRun.onDebugged.on((debugged) => emit('debugged', { debugged })),
    );
  }

  /** Merges deltas that arrive within COALESCE_MS into one event. */
  private queueSnapshot(s: Snapshot): void {
    if (!this.delivery.deliverable || !this.panel.visible) return;
    this.pendingSnapshot = coalescedSnapshot(this.pendingSnapshot, s);
    if (this.snapshotTimer !== null) return;
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = null;
      const pending = this.pendingSnapshot;
      this.pendingSnapshot = null;
      if (pending !== null && this.delivery.deliverable && this.panel.visible) this.endpoint.emit('snapshot', pending);
    }, COALESCE_MS);
  }

  /** Everything the panel shows, as `ready` answers it (and `resync` sends it again). */
  private panelInit(): PanelInit {
    const s = this.deps.session;
    return {
      protocolVersion: PANEL_PROTOCOL_VERSION,
      status: s.status,
      snapshot: s.mirror.version >= 0 ? s.mirror.toFullSnapshot() : null,
      progress: s.progressPoints.slice(),
      exceptions: s.exceptions.slice(-100),
      lints: s.lints.slice(),
      pages: s.pages.slice(),
      lastProgress: s.lastProgress,
      comparison: s.comparison,
      programLoops: s.programLoops,
      logpointHits: this.deps.logpointMarks.current(),
      debugged: this.deps.debuggedRun.debugged(),
    };
  }

  // --- requests from the webview ---------------------------------------------------------

  private serve(): void {
    const ep = this.endpoint;
    const narrow = <M extends PanelRequest['method']>(method: M, raw: unknown): PanelMethods[M]['params'] => {
      const r = parsePanelRequest(method, raw);
      if (typeof r === 'string') throw new ProtocolError(r);
      // parsePanelRequest(method) returns the request of that method.
      return r.params as PanelMethods[M]['params'];
    };
    const s = this.deps.session;
    const host = <M extends keyof HostMethods & string>(
      method: M,
      params: HostMethods[M]['params'],
    ): Promise<HostMethods[M]['result']> => s.request(method, params);

    ep.handle('ready', (raw): PanelInit => {
      narrow('ready', raw);
      // Answered while hidden, the answer itself may be lost: the page is resynced once shown.
      this.delivery.answered(this.panel.visible);
      this.pendingSnapshot = null;
      if (this.delivery.deliverable) setTimeout(() => this.flushReveal(), 0);
      return this.panelInit();
    });
    ep.handle('taskDetail', async (raw) => {
      // At a past tick still being replayed: the stack by function names from the log at once (the panel asks
      // again when the replay lands).
      const detail = await host('taskDetail', {
        taskId: narrow('taskDetail', raw).taskId,
        locals: true,
        fromLogMeanwhile: true,
      });
      this.deps.onTaskDetailShown(detail);
      return detail;
    });
    ep.handle('variables', (raw) => host('variables', { handle: narrow('variables', raw).handle }));
    ep.handle('graph', (raw) => {
      narrow('graph', raw);
      return host('graph', {});
    });
    ep.handle('traces', (raw) => host('traces', narrow('traces', raw)));
    ep.handle('lints', async (raw) => {
      narrow('lints', raw);
      return host('lints', {});
    });
    ep.handle('openSource', async (raw) => ({
      opened: await this.deps.openSource(narrow('openSource', raw).position),
    }));
    ep.handle('cancelTask', async (raw) => ({
      cancelled: await s.cancelTask(narrow('cancelTask', raw).taskId, 'inspector'),
    }));
    ep.handle('control', async (raw) => {
      const p = narrow('control', raw);
      switch (p.action) {
        case 'pause':
          return { tick: (await s.pause()).tick };
        case 'continue':
          return { tick: (await s.continue()).tick };
        case 'stepTick':
          return { tick: (await s.stepTick()).tick };
        case 'stepTask':
          if (p.taskId === undefined) throw new ProtocolError('control: stepTask needs a taskId');
          return { tick: (await s.stepTask(p.taskId)).tick };
        case 'stop':
          await s.stopRun();
          return { tick: null };
      }
    });
    ep.handle('timeline', (raw) => host('timeline', narrow('timeline', raw)));
    ep.handle('seek', async (raw) => {
      const { tick, moment } = narrow('seek', raw);
      const shown = await s.seek(tick, moment);
      return moment === undefined ? { tick: shown } : { tick: shown, moment };
    });
    ep.handle('goToLogpointHit', async (raw) => {
      await this.deps.logpointMarks.goToHit(narrow('goToLogpointHit', raw).hit);
      return {};
    });
    ep.handle('followTask', async (raw) => {
      await this.deps.debuggedRun.followTask(narrow('followTask', raw).taskId);
      return {};
    });
    ep.handle('command', async (raw) => {
      await this.deps.runCommand(narrow('command', raw).command);
      return {};
    });
  }
}

/** The panel's script and stylesheet read as text (null: unreadable: the page loads them instead). */
async function inlinedResources(root: vscode.Uri, base: string): Promise<InlinedResources | null> {
  try {
    const [script, style] = await Promise.all(
      ['main.js', 'main.css'].map(async (f) =>
        new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, f))),
      ),
    );
    return { script: script!, style: style!, base };
  } catch {
    return null;
  }
}
