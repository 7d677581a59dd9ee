// The "Coroscope" commands and the services they share. This module (and all it imports:
// the host process, the panel, the decorations) is loaded on the first command, not at
// activation (see extension.ts); the run session, the status bar, the decorations and the
// output channel come into being then.
//
// Invariants: a command never leaves a promise the UI waits on forever (host death fails
// every pending request; each command reports its error in a notification and returns); a
// crawl or sample launch always shows the panel and the progress.

import * as vscode from 'vscode';
import { join } from 'node:path';
import type { LaunchOptions, LaunchTarget, TaskSummary } from '../protocol/host-protocol';
import type { PanelCommand, ViewId } from '../protocol/webview-protocol';
import { COMMANDS } from './command-ids';
import { ContextKeys } from './context-keys';
import { showCrawlProgress } from './crawl-progress';
import { InspectorPanel, type PanelDependencies } from './inspector-panel';
import { CoroscopeOutput } from './output';
import { LogpointMarksRelay } from './logpoint-marks-relay';
import { DebuggedRun } from './debugged-run';
import { RunSession } from './run-session';
import { describeTarget, type Run } from './runs/run';
import type { RunRegistry } from './runs/run-registry';
import { pickFocusSafe, showQuickPickFocusSafe } from './focus-safe-quick-pick';
import { sampleList, type SampleEntry } from './sample-catalog';
import { crawlSettings, parseCrawlInput, sampleOptions, snapshotRate, type SettingGetter } from './settings';
import { openSourcePosition } from './source-opener';
import { placeSource } from './source-column';
import { CoroscopeStatusBar } from './status-bar';
import { SuspensionDecorations } from './suspension-decorations';
import {
  besideColumn,
  sampleIdArg,
  showsPausedWorkerStack,
  steppedContextKey,
  WORKER_STACK_SHOWN_KEY,
} from './walkthrough';
import { attachConfiguration } from './debug/debug-configurations';
import { newCoroutineProgram } from './new-program-command';
import { proposedRecordingName, RECORDING_FILTERS, saveRefusal, withRecordingExtension } from './recording-files';

function settings(): SettingGetter {
  const c = vscode.workspace.getConfiguration('coroscope');
  return (key) => c.get<unknown>(key);
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Everything the commands share; made on the first command. */
export class CoroscopeServices implements vscode.Disposable {
  readonly output: CoroscopeOutput;
  readonly runs: RunRegistry;
  readonly session: RunSession;
  /** The hits of the logpoints a debug session sets over the run shown, for the panel's timeline. */
  readonly logpointMarks: LogpointMarksRelay;
  /** Whether a debug session debugs the run shown, for the panel's "Follow This Task". */
  readonly debuggedRun: DebuggedRun;
  readonly statusBar = new CoroscopeStatusBar();
  readonly contextKeys = new ContextKeys();
  readonly decorations: SuspensionDecorations;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly context: vscode.ExtensionContext,
    output: CoroscopeOutput,
    runs: RunRegistry,
  ) {
    this.output = output;
    this.runs = runs;
    this.session = new RunSession(runs, { snapshotRate: () => snapshotRate(settings()) });
    this.logpointMarks = new LogpointMarksRelay(this.session);
    this.debuggedRun = new DebuggedRun(this.session);
    this.disposables.push(
      { dispose: () => this.logpointMarks.dispose() },
      { dispose: () => this.debuggedRun.dispose() },
    );
    this.decorations = new SuspensionDecorations(this.session);
    const s = this.session;
    const refreshBar = (): void => this.statusBar.update(s.status, s.moment(), s.shownProgress(), s.mirror.counts);
    s.onStatus.on((status) => {
      this.contextKeys.set(
        'coroscope.running',
        status.phase === 'running' || status.phase === 'paused' || status.phase === 'starting',
      );
      this.contextKeys.set('coroscope.paused', status.phase === 'paused');
      this.contextKeys.set('coroscope.recordingSavable', saveRefusal(status, s.run !== null) === null);
      this.contextKeys.set('coroscope.debuggable', s.run?.isDebuggable() === true);
      refreshBar();
    });
    s.onSnapshot.on(refreshBar);
    // The walkthrough's steps complete on these keys (package.json completionEvents): a
    // sample stepped at least once, or one that ran to its end without a task on the loop
    // (it drives sockets, threads or a loop of its own: nothing to step; its output is what
    // there is to read, so the output channel comes forward).
    let runHadTasks = false;
    s.onReset.on(() => {
      runHadTasks = false;
    });
    s.onSnapshot.on(({ snapshot }) => {
      if (snapshot.tasks.length > 0) runHadTasks = true;
    });
    s.onStepped.on(({ target }) => {
      if (target?.kind === 'sample') this.contextKeys.set(steppedContextKey(target.id), true);
    });
    s.onFinished.on(() => {
      const target = s.target;
      if (target?.kind !== 'sample' || runHadTasks) return;
      this.contextKeys.set(steppedContextKey(target.id), true);
      output.show();
    });
    s.onProgress.on(refreshBar);
    s.onOutput.on((o) => {
      if (o.category === 'log') output.hostLog(o.text);
      else output.append(o.text);
    });
    // A deadlock in a run that goes on (run from the panel, no debugger to stop it): the window says it, and
    // the Exceptions tab holds its tasks, what each waits for, who holds that and since which line.
    s.onDeadlock.on((entry) => {
      void vscode.window
        .showWarningMessage(`Coroscope: deadlock in the run: ${entry.deadlock?.summary ?? ''}`, 'Show Exceptions')
        .then((pick) => {
          if (pick === 'Show Exceptions') this.showPanel({ view: 'exceptions', taskId: entry.taskId });
        });
    });
    s.onFinished.on((f) =>
      output.line(`[coroscope] run ${f.runId} finished: ${f.summary}${f.error !== undefined ? ` (${f.error})` : ''}`),
    );
    // Debuggable follows the Run's own phase too (it may turn 'finished' after the status said so).
    let offRunChange: (() => void) | null = null;
    s.onRun.on((run) => {
      this.contextKeys.set('coroscope.hostRunning', run !== null);
      offRunChange?.();
      offRunChange =
        run?.onDidChange.on((r) => this.contextKeys.set('coroscope.debuggable', s.run === r && r.isDebuggable())) ??
        null;
      if (run !== null) return;
      this.contextKeys.set('coroscope.running', false);
      this.contextKeys.set('coroscope.paused', false);
      this.contextKeys.set('coroscope.recordingSavable', false);
      this.contextKeys.set('coroscope.debuggable', false);
    });
    const offStart = runs.onDidStart.on((run) =>
      output.line(`[coroscope] runtime host of run ${run.key} started (pid ${run.pid ?? '?'})`),
    );
    const offEnd = runs.onDidEnd.on(({ run, exit }) => {
      if (exit.expected) {
        output.line(`[coroscope] runtime host of run ${run.key} stopped`);
        return;
      }
      const how = exit.signal !== null ? `was killed (${exit.signal})` : `exited with code ${exit.code}`;
      output.line(`[coroscope] the runtime host ${how}; its last lines:`);
      for (const l of exit.lastLines) output.line(`    ${l}`);
      const tail = exit.lastLines.slice(-3).join(' ⏎ ');
      void vscode.window
        .showErrorMessage(
          `Coroscope: the runtime host ${how}.${tail !== '' ? ` Last lines: ${tail}` : ''} The next command starts a new one.`,
          'Show Log',
          'Open Inspector',
        )
        .then((choice) => {
          if (choice === 'Show Log') output.show();
          else if (choice === 'Open Inspector') this.showPanel();
        });
    });
    this.disposables.push(
      this.statusBar,
      this.decorations,
      { dispose: () => s.dispose() },
      { dispose: offStart },
      { dispose: offEnd },
    );
  }

  /** The serializer's way back in after a reload. */
  static serializer(deps: () => PanelDependencies): vscode.WebviewPanelSerializer {
    return InspectorPanel.serializer(deps);
  }

  panelDependencies(): PanelDependencies {
    return {
      extensionUri: this.context.extensionUri,
      session: this.session,
      logpointMarks: this.logpointMarks,
      debuggedRun: this.debuggedRun,
      openSource: (position) => this.openSourceFromPanel(position),
      runCommand: async (command: PanelCommand) => {
        const id = {
          runCrawl: COMMANDS.runCrawl,
          openSample: COMMANDS.openSample,
          showTrace: COMMANDS.showTrace,
          showLog: COMMANDS.showLog,
          debugRun: COMMANDS.debugRun,
          saveRecording: COMMANDS.saveRecording,
          openRecording: COMMANDS.openRecording,
        }[command];
        await vscode.commands.executeCommand(id);
      },
      onVisibilityChanged: (visible) => this.contextKeys.set('coroscope.inspectorVisible', visible),
      onTaskDetailShown: (detail) => this.stackShown(this.session.target, this.session.status.phase, detail),
    };
  }

  /**
   * A task's coroutine stack was shown, by the panel or by the debugger's Call Stack: the
   * walkthrough's first step is done when it was a paused crawl's worker.
   */
  stackShown(
    target: { readonly kind: string } | null,
    phase: string,
    detail: Parameters<typeof showsPausedWorkerStack>[2],
  ): void {
    if (showsPausedWorkerStack(target, phase, detail)) this.contextKeys.set(WORKER_STACK_SHOWN_KEY, true);
  }

  /**
   * Opens a position clicked in the panel: in another editor group, or beside the panel keeping most of its
   * width (source-column.ts).
   */
  async openSourceFromPanel(position: { file: string; line: number; column: number }): Promise<boolean> {
    const place = placeSource(
      InspectorPanel.visiblePanel()?.panel.viewColumn,
      vscode.window.tabGroups.all.map((g) => g.viewColumn),
    );
    const opened = await openSourcePosition(position, place.column as vscode.ViewColumn);
    if (opened && place.layout !== null && vscode.window.tabGroups.all.length === 2) {
      await Promise.resolve(vscode.commands.executeCommand('vscode.setEditorLayout', place.layout)).catch(
        () => undefined,
      );
    }
    return opened;
  }

  /** Where sources open: not in the panel's column (it would hide the panel). */
  sourceColumn(): vscode.ViewColumn {
    const panelColumn = InspectorPanel.visiblePanel()?.panel.viewColumn;
    return panelColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
  }

  showPanel(reveal?: { view: ViewId; taskId?: number }, besideDebugger = false): InspectorPanel {
    const p = InspectorPanel.show(this.panelDependencies(), reveal, besideDebugger);
    this.contextKeys.set('coroscope.inspectorVisible', true);
    return p;
  }

  /** Shows a run another view launched (a debug session's) in the panel, the status bar and the decorations. */
  showRun(run: Run): void {
    this.session.show(run);
    this.showPanel({ view: 'tasks' }, true);
  }

  async launch(target: LaunchTarget, options: Parameters<RunSession['launch']>[1]): Promise<void> {
    this.showPanel(target.kind === 'crawl' || target.kind === 'demo' ? { view: 'tasks' } : undefined);
    try {
      await this.session.launch(target, options);
    } catch (e) {
      void vscode.window
        .showErrorMessage(`Coroscope: could not start ${describeTarget(target)}: ${message(e)}`, 'Show Log')
        .then((c) => {
          if (c === 'Show Log') this.output.show();
        });
      return;
    }
    if (this.session.status.phase !== 'finished') showCrawlProgress(this.session, this.session.status.title);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** Ends the run the panel shows and its host (deactivation; the registry ends the others). */
  async shutdown(): Promise<void> {
    await this.session.stop();
  }
}

// --- the command handlers ---------------------------------------------------------------------

interface CrawlChoice extends vscode.QuickPickItem {
  choice: 'demo' | 'urls';
}

/** Asks which site to crawl: the demo site (the default) or URLs typed in. */
async function askCrawlTarget(): Promise<LaunchTarget | undefined> {
  const qp = vscode.window.createQuickPick<CrawlChoice>();
  qp.title = 'Coroscope: Run Crawl';
  qp.placeholder = 'Press Enter for the embedded demo site, or type URLs to crawl (separated by spaces)';
  const demo: CrawlChoice = {
    label: '$(globe) The embedded demo site',
    description: 'offline, on loopback',
    detail: 'A generated site with slow pages, redirects, a broken page and a title with markup',
    choice: 'demo',
  };
  qp.items = [demo];
  qp.matchOnDescription = false;
  qp.onDidChangeValue((value) => {
    const parsed = parseCrawlInput(value);
    if (value.trim() === '' || ('demo' in parsed && parsed.demo)) qp.items = [demo];
    else if ('error' in parsed)
      qp.items = [{ label: `$(warning) ${parsed.error}`, choice: 'urls', alwaysShow: true }, demo];
    else
      qp.items = [{ label: `$(link-external) Crawl ${parsed.urls.join(' ')}`, choice: 'urls', alwaysShow: true }, demo];
  });
  const picked = await pickFocusSafe(qp);
  if (!picked.accepted) return undefined;
  // Enter with no active item (a pick shown again can lose it) still means what the text says:
  // nothing typed is the demo site, as the placeholder promises.
  if (picked.item?.choice === 'demo' || (picked.item === undefined && picked.value.trim() === ''))
    return { kind: 'demo' };
  const parsed = parseCrawlInput(picked.value);
  if ('error' in parsed) {
    void vscode.window.showErrorMessage(`Coroscope: ${parsed.error}`);
    return undefined;
  }
  return parsed.demo ? { kind: 'demo' } : { kind: 'crawl', urls: parsed.urls };
}

function taskLabel(t: TaskSummary): vscode.QuickPickItem & { taskId: number } {
  const where = t.frames.length > 0 ? t.frames.join(' › ') : '';
  return {
    label: `#${t.id} ${t.name}`,
    description: `${t.state}${t.awaiting !== null ? ` · awaiting ${t.awaiting.kind}` : ''}`,
    detail: where,
    taskId: t.id,
  };
}

async function pickTask(
  services: CoroscopeServices,
  title: string,
  filter: (t: TaskSummary) => boolean,
): Promise<number | undefined> {
  const tasks = services.session.mirror.liveTasks().filter(filter);
  if (tasks.length === 0) {
    void vscode.window.showInformationMessage('Coroscope: no live task to choose from.');
    return undefined;
  }
  const picked = await showQuickPickFocusSafe(tasks.slice(0, 5000).map(taskLabel), {
    title,
    placeHolder: 'Type a task id or name',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.taskId;
}

function taskIdArg(arg: unknown): number | undefined {
  if (typeof arg === 'number' && Number.isInteger(arg)) return arg;
  if (typeof arg === 'object' && arg !== null && typeof (arg as Record<string, unknown>).taskId === 'number')
    return (arg as Record<string, number>).taskId;
  return undefined;
}

async function guarded(what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    void vscode.window.showErrorMessage(`Coroscope: ${what} failed: ${message(e)}`);
  }
}

/**
 * Latency of each demo-site response in a comparison (the CLI's default, runtime/samples/compare.ts
 * DEFAULT_LATENCY_MS).
 */
const COMPARE_LATENCY_MS = 100;

/** `{pages, latencyMs?}` given to the command (tests, links), if well formed. */
function compareArg(arg: unknown): { pages: number; latencyMs: number } | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const a = arg as Record<string, unknown>;
  if (typeof a.pages !== 'number' || !Number.isInteger(a.pages) || a.pages < 1) return undefined;
  const latencyMs =
    typeof a.latencyMs === 'number' && Number.isFinite(a.latencyMs) && a.latencyMs >= 0
      ? a.latencyMs
      : COMPARE_LATENCY_MS;
  return { pages: a.pages, latencyMs };
}

async function askComparison(): Promise<{ pages: number; latencyMs: number } | undefined> {
  const items = [10, 100, 1000].map((pages) => ({
    label: `${pages.toLocaleString('en-US')} pages`,
    description: `${COMPARE_LATENCY_MS} ms latency per response`,
    pages,
  }));
  const picked = await showQuickPickFocusSafe(items, {
    title: 'Coroscope: Compare Approaches',
    placeHolder:
      'Fetch how many demo-site pages with each approach (blocking, processes, threads, busy loop, callbacks, generators, runtime)?',
  });
  return picked === undefined ? undefined : { pages: picked.pages, latencyMs: COMPARE_LATENCY_MS };
}

/** Opens the sample's TypeScript source (of the installed extension) in `column`, then runs it in the inspector. */
async function openAndLaunchSample(
  s: CoroscopeServices,
  id: string,
  entry: SampleEntry | undefined,
  column: vscode.ViewColumn,
  options: LaunchOptions,
): Promise<void> {
  if (entry?.file !== undefined) {
    const file = join(s.context.extensionUri.fsPath, 'runtime', 'samples', entry.file);
    await openSourcePosition({ file, line: 1, column: 1 }, column).catch(() => false);
  }
  await s.launch({ kind: 'sample', id }, options);
}

/** Launches a crawl with the crawl settings (the demo site's pages and latency from them too), `override` on top. */
async function launchCrawl(
  s: CoroscopeServices,
  target: LaunchTarget,
  get: SettingGetter,
  override: Partial<LaunchOptions>,
): Promise<void> {
  const cfg = crawlSettings(get);
  for (const p of cfg.problems) void vscode.window.showWarningMessage(`Coroscope: ${p}`);
  const launched: LaunchTarget =
    target.kind !== 'demo'
      ? target
      : cfg.demoPages > 0
        ? { kind: 'demo', pages: cfg.demoPages, latency: cfg.demoLatency }
        : { kind: 'demo', latency: cfg.demoLatency };
  await s.launch(launched, { ...cfg.options, ...override });
}

/** The handler of each command, given the services (made on first use). */
export function commandHandlers(
  services: () => CoroscopeServices,
): Record<string, (...args: unknown[]) => Promise<void>> {
  return {
    [COMMANDS.runCrawl]: async (arg?: unknown) => {
      const s = services();
      let target: LaunchTarget | undefined;
      if (typeof arg === 'string' || Array.isArray(arg)) {
        const parsed = parseCrawlInput(
          Array.isArray(arg) ? arg.filter((x): x is string => typeof x === 'string').join(' ') : arg,
        );
        if ('error' in parsed) {
          void vscode.window.showErrorMessage(`Coroscope: ${parsed.error}`);
          return;
        }
        target = parsed.demo ? { kind: 'demo' } : { kind: 'crawl', urls: parsed.urls };
      } else {
        target = await askCrawlTarget();
      }
      if (target === undefined) return;
      await launchCrawl(s, target, settings(), {});
    },
    [COMMANDS.crawlStep]: async () => {
      // The walkthrough's first step: the crawler's source beside the walkthrough, and the demo
      // crawl running (not held at entry, whatever the setting: pausing it is the step's point).
      const s = services();
      const column = besideColumn(
        vscode.window.tabGroups.activeTabGroup.viewColumn,
        InspectorPanel.visiblePanel()?.panel.viewColumn,
      ) as vscode.ViewColumn;
      await openSourcePosition(
        { file: join(s.context.extensionUri.fsPath, 'runtime', 'crawler', 'crawler.ts'), line: 1, column: 1 },
        column,
      ).catch(() => false);
      await launchCrawl(s, { kind: 'demo' }, settings(), { stopOnEntry: false });
    },
    [COMMANDS.openInspector]: async () => {
      services().showPanel();
    },
    [COMMANDS.pause]: () => guarded('Pause', () => services().session.pause()),
    [COMMANDS.continue]: () => guarded('Continue', () => services().session.continue()),
    [COMMANDS.stepTick]: () => guarded('Step Tick', () => services().session.stepTick()),
    [COMMANDS.stepTask]: async (arg?: unknown) => {
      const s = services();
      const id =
        taskIdArg(arg) ??
        (await pickTask(s, 'Coroscope: Step which task?', (t) => t.state === 'suspended' || t.state === 'scheduled'));
      if (id !== undefined) await guarded('Step Task', () => s.session.stepTask(id));
    },
    [COMMANDS.cancelTask]: async (arg?: unknown) => {
      const s = services();
      const id = taskIdArg(arg) ?? (await pickTask(s, 'Coroscope: Cancel which task?', () => true));
      if (id === undefined) return;
      await guarded('Cancel Task', async () => {
        const cancelled = await s.session.cancelTask(id, 'inspector');
        if (!cancelled)
          void vscode.window.showInformationMessage(`Coroscope: task #${id} could not be cancelled (it has finished).`);
      });
    },
    [COMMANDS.showTrace]: async () => {
      const s = services();
      try {
        await s.session.ensureRun();
      } catch (e) {
        void vscode.window.showErrorMessage(`Coroscope: the runtime host did not start: ${message(e)}`);
        return;
      }
      s.showPanel({ view: 'exceptions' });
    },
    [COMMANDS.openSample]: async (arg?: unknown) => {
      const s = services();
      let id = typeof arg === 'string' ? arg : undefined;
      let entry: SampleEntry | undefined;
      const { samples } = await sampleList(s.session.run?.endpoint ?? null);
      if (id === undefined) {
        const picked = await showQuickPickFocusSafe(
          samples.map((x) => ({ label: x.title, description: x.id, detail: x.chapter, entry: x })),
          {
            title: 'Coroscope: Open Tutorial Sample',
            placeHolder: 'Pick a sample to run in the inspector',
            matchOnDescription: true,
            matchOnDetail: true,
          },
        );
        if (picked === undefined) return;
        entry = picked.entry;
        id = entry.id;
      } else {
        entry = samples.find((x) => x.id === id);
      }
      await openAndLaunchSample(s, id, entry, s.sourceColumn(), sampleOptions(settings()));
    },
    [COMMANDS.openSampleStep]: async (arg?: unknown) => {
      // A walkthrough step's button: its sample beside the walkthrough, paused at entry.
      const s = services();
      const id = sampleIdArg(arg);
      if (id === undefined) {
        await vscode.commands.executeCommand(COMMANDS.openSample);
        return;
      }
      const { samples } = await sampleList(s.session.run?.endpoint ?? null);
      const entry = samples.find((x) => x.id === id);
      const column = besideColumn(
        vscode.window.tabGroups.activeTabGroup.viewColumn,
        InspectorPanel.visiblePanel()?.panel.viewColumn,
      ) as vscode.ViewColumn;
      await openAndLaunchSample(s, id, entry, column, { ...sampleOptions(settings()), stopOnEntry: true });
    },
    [COMMANDS.compareApproaches]: async (arg?: unknown) => {
      const s = services();
      const asked = compareArg(arg) ?? (await askComparison());
      if (asked === undefined) return;
      s.showPanel({ view: 'dashboard' });
      const result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Coroscope: comparing the approaches on ${asked.pages} pages (${asked.latencyMs} ms latency)…`,
        },
        () =>
          s.session
            .compare(asked.pages, asked.latencyMs)
            .catch((e: unknown) => ({ state: 'failed' as const, error: message(e) })),
      );
      if (result.state === 'failed')
        void vscode.window.showErrorMessage(`Coroscope: the comparison failed: ${result.error ?? 'unknown error'}`);
    },
    [COMMANDS.stop]: async () => {
      // Ends the run for every view of it: a debug session attached to it terminates too.
      await services().session.stop();
    },
    [COMMANDS.debugRun]: async () => {
      const s = services();
      const run = s.session.run;
      if (run === null || !run.isDebuggable()) {
        const why =
          run !== null && run.phase === 'finished'
            ? 'the run has finished and was not recorded, so it has no past to step through (turn on the coroscope.record setting and run it again)'
            : 'start one first (Coroscope: Run Crawl, or a sample), or open a recording';
        void vscode.window.showInformationMessage(`Coroscope: no run to debug: ${why}.`);
        return;
      }
      await guarded('Debug This Run', async () => {
        // The debugger opens each stop's source in the active editor group: not over the panel
        // when another group is there to take it.
        const panelColumn = InspectorPanel.visiblePanel()?.panel.viewColumn;
        if (panelColumn !== undefined && panelColumn !== vscode.ViewColumn.One)
          await vscode.commands.executeCommand('workbench.action.focusFirstEditorGroup');
        const started = await vscode.debug.startDebugging(
          vscode.workspace.workspaceFolders?.[0],
          attachConfiguration(run),
        );
        if (!started) throw new Error('the debug session did not start');
      });
    },
    [COMMANDS.showLog]: async () => {
      services().output.show();
    },
    [COMMANDS.saveRecording]: async (arg?: unknown) => {
      const s = services();
      const refusal = saveRefusal(s.session.status, s.session.run !== null);
      if (refusal !== null) {
        void vscode.window.showErrorMessage(`Coroscope: cannot save a recording: ${refusal}`);
        return;
      }
      // A path given (tests, links) saves there; otherwise the save dialog asks.
      let path = typeof arg === 'string' && arg !== '' ? arg : undefined;
      if (path === undefined) {
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        const name = proposedRecordingName(s.session.status.title, new Date());
        const uri = await vscode.window.showSaveDialog({
          title: 'Coroscope: Save Recording',
          saveLabel: 'Save Recording',
          filters: RECORDING_FILTERS,
          defaultUri: folder !== undefined ? vscode.Uri.joinPath(folder, name) : undefined,
        });
        if (uri === undefined) return;
        if (uri.scheme !== 'file') {
          void vscode.window.showErrorMessage(
            `Coroscope: a recording is written by the runtime host on this machine: choose a local file (not ${uri.scheme}:).`,
          );
          return;
        }
        path = uri.fsPath;
      }
      const target = withRecordingExtension(path);
      await guarded('Save Recording', async () => {
        const info = await s.session.request('saveRecording', { path: target });
        const kb = (info.bytes / 1024).toFixed(info.bytes < 10_240 ? 1 : 0);
        void vscode.window.showInformationMessage(
          `Coroscope: saved the recording (${info.ticks.toLocaleString('en-US')} ticks, ${info.tasks.toLocaleString('en-US')} tasks, ${kb} KiB) to ${info.path}.`,
        );
      });
    },
    [COMMANDS.newProgram]: () => newCoroutineProgram(services().context.extensionUri.fsPath),
    [COMMANDS.openRecording]: async (arg?: unknown) => {
      const s = services();
      let path = typeof arg === 'string' && arg !== '' ? arg : undefined;
      if (path === undefined) {
        const picked = await vscode.window.showOpenDialog({
          title: 'Coroscope: Open Recording',
          openLabel: 'Open Recording',
          canSelectMany: false,
          filters: RECORDING_FILTERS,
          defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
        });
        const uri = picked?.[0];
        if (uri === undefined) return;
        if (uri.scheme !== 'file') {
          void vscode.window.showErrorMessage(
            `Coroscope: a recording is read by the runtime host on this machine: choose a local file (not ${uri.scheme}:).`,
          );
          return;
        }
        path = uri.fsPath;
      }
      s.showPanel({ view: 'timeline' });
      try {
        await s.session.openRecording(path);
      } catch (e) {
        void vscode.window.showErrorMessage(`Coroscope: could not open the recording ${message(e)}`);
      }
    },
  };
}
