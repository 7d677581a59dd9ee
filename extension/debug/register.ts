// Registers Coroscope's debugger with VS Code: the inline debug adapter of type `coroscope`
// (CoroscopeSession, one per debug session, on the extension's RunRegistry: a launch starts
// a run there, which the panel then shows; an attach joins a run already there), the
// configuration provider (initial and dynamic configurations, a default when there is no
// launch.json, the run of an attach picked from a list), the "Pick a Run" command of attach
// configurations, and the "Coroutines" view of the Run and Debug container. It also tells the
// extension when the user selects a frame of a coroscope session's Call Stack (the
// walkthrough's first step counts a worker's stack looked at there as in the panel).
//
// Called from the extension's activate(): `registerDebugger(context, hostScriptPath, runs,
// stackWatch)` with the path of dist/runtime-host.js and the extension's registry.
// Everything registered is in context.subscriptions.

import { watchDeadlockStops } from './deadlock-notice';
import * as vscode from 'vscode';
import type { Run } from '../runs/run';
import type { RunRegistry } from '../runs/run-registry';
import { CoroscopeSession } from './coroscope-session';
import { logpointHitLink, registerLogpointHitLinks } from './logpoint-hit-links';
import { LOGPOINT_HIT_REQUEST, LOGPOINT_HITS_EVENT } from './past-logpoints';
import { FOLLOW_TASK_REQUEST, TASKS_REQUEST, narrowTasksBody } from './custom-requests';
import { FOLLOW_TASK_COMMAND, LAST_CHANGE_COMMAND, NEXT_CHANGE_COMMAND } from './coroutines-view-ids';
import { LAST_CHANGE_REQUEST, NEXT_CHANGE_REQUEST } from './session-changes';
import {
  COROUTINES_VIEW_ID,
  CoroutinesTreeProvider,
  REFRESH_COMMAND,
  REVEAL_TASK_COMMAND,
  revealTask,
} from './coroutines-view';
import { DEMO_CRAWL, KNOWN_SAMPLES, PICK_RUN_COMMAND, providedConfigurations } from './debug-configurations';

export const DEBUG_TYPE = 'coroscope';

const MODULE_LANGUAGES = new Set(['typescript', 'javascript']);

function activeModuleFile(): boolean {
  const doc = vscode.window.activeTextEditor?.document;
  return doc !== undefined && doc.uri.scheme === 'file' && MODULE_LANGUAGES.has(doc.languageId);
}

/**
 * Asks which run to debug, of those a debugger can attach to (none asked when there is one); undefined when
 * there is none or the user cancels.
 */
async function pickRun(runs: RunRegistry): Promise<string | undefined> {
  const candidates = runs.debuggable();
  if (candidates.length === 0) {
    void vscode.window.showErrorMessage(
      'Coroscope: there is no run to attach to: start one first (Coroscope: Run Crawl, or a sample), or open a recording (a finished run can be debugged only when it was recorded).',
    );
    return undefined;
  }
  if (candidates.length === 1) return String(candidates[0]!.key);
  const picked = await vscode.window.showQuickPick(
    candidates.map((r) => ({
      label: `Run ${r.key}: ${r.title}`,
      description: `${r.phase === 'finished' ? 'finished, recorded: step back through it' : r.phase} · runtime host pid ${r.pid ?? '?'}`,
      detail: `shown by ${r.viewers().join(', ') || 'no view'}`,
      key: r.key,
    })),
    { title: 'Coroscope: debug which run?', placeHolder: 'a live run, or a finished recorded one' },
  );
  return picked === undefined ? undefined : String(picked.key);
}

class CoroscopeConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(
    private readonly dynamic: boolean,
    private readonly runs: RunRegistry,
  ) {}

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return providedConfigurations(this.dynamic ? 'dynamic' : 'initial', activeModuleFile());
  }

  async resolveDebugConfiguration(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    // F5 without a launch.json: crawl the demo site.
    if (config.type === undefined && config.request === undefined && config.name === undefined) {
      return { ...DEMO_CRAWL };
    }
    const out: vscode.DebugConfiguration = {
      ...config,
      type: DEBUG_TYPE,
      request: config.request ?? 'launch',
      name: config.name ?? 'Coroscope',
    };
    // `"sample": ""` asks which one.
    if (out.sample === '') {
      const pick = await vscode.window.showQuickPick(
        KNOWN_SAMPLES.map((s) => ({ label: s.id, description: s.title })),
        { title: 'Coroscope: run which tutorial sample?', placeHolder: 'a sample id' },
      );
      if (pick === undefined) return undefined;
      out.sample = pick.label;
    }
    // An attach without a run: the pick list (the only run it can attach to is taken without asking).
    if (out.request === 'attach' && (out.run === undefined || out.run === '')) {
      const key = await pickRun(this.runs);
      if (key === undefined) return undefined;
      out.run = Number(key);
    }
    if (out.cwd === undefined && folder !== undefined) out.cwd = folder.uri.fsPath;
    // Recorded as the coroscope.record setting says (on by default), unless the configuration says.
    if (out.request === 'launch' && out.record === undefined) {
      const record: unknown = vscode.workspace.getConfiguration('coroscope').get('record');
      out.record = typeof record === 'boolean' ? record : true;
    }
    return out;
  }
}

class CoroscopeAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  /** The adapter of each live debug session (by vscode.DebugSession.id). */
  private readonly adapters = new Map<string, CoroscopeSession>();
  /** The debug sessions of those adapters (a logpoint hit's link names one). */
  private readonly sessions = new Map<string, vscode.DebugSession>();

  constructor(
    private readonly hostScriptPath: string,
    private readonly runs: RunRegistry,
  ) {}

  createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.DebugAdapterDescriptor {
    const cwd = session.workspaceFolder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const adapter = new CoroscopeSession({
      hostScript: this.hostScriptPath,
      runs: this.runs,
      viewName: `debug session "${session.name}"`,
      logpointHitLink: (index) => logpointHitLink(session.id, index),
      ...(cwd !== undefined ? { cwd } : {}),
    });
    this.adapters.set(session.id, adapter);
    this.sessions.set(session.id, session);
    return new vscode.DebugAdapterInlineImplementation(adapter);
  }

  /** A debug session of ours, by id. */
  sessionOf(id: string): vscode.DebugSession | null {
    return this.sessions.get(id) ?? null;
  }

  /** The run a debug session debugs, when it is one of ours. */
  runOf(session: vscode.DebugSession): Run | null {
    return this.adapters.get(session.id)?.debuggedRun ?? null;
  }

  /** Our live debug sessions whose run is known. */
  debuggedRuns(): DebuggedRunSession[] {
    const out: DebuggedRunSession[] = [];
    for (const [id, adapter] of this.adapters) {
      const run = adapter.debuggedRun;
      const session = this.sessions.get(id);
      if (run === null || session === undefined) continue;
      out.push({ run, followTask: (taskId) => session.customRequest(FOLLOW_TASK_REQUEST, { threadId: taskId }) });
    }
    return out;
  }

  ended(session: vscode.DebugSession): void {
    this.adapters.delete(session.id);
    this.sessions.delete(session.id);
  }
}

/**
 * Tells `watch.shown` when the user selects a thread or a frame of a coroscope session's Call
 * Stack: the run, and the task of that thread as the adapter lists it (its name and frames).
 * Nothing is asked of the adapter once `watch.wanted()` says the walkthrough has what it needed.
 */
function watchCallStackSelection(factory: CoroscopeAdapterFactory, watch: StackWatch): vscode.Disposable {
  return vscode.debug.onDidChangeActiveStackItem(async (item) => {
    // A thread selected shows its stack (VS Code expands it and focuses its top frame).
    if (item === undefined || item.session.type !== DEBUG_TYPE || !watch.wanted()) return;
    const run = factory.runOf(item.session);
    if (run === null) return;
    try {
      const tasks = narrowTasksBody(await item.session.customRequest(TASKS_REQUEST));
      const task = tasks?.tasks.find((t) => t.id === item.threadId);
      if (task !== undefined) watch.shown(run, { task: { name: task.name }, frames: task.frames });
    } catch {
      // The session ended meanwhile: nothing was shown.
    }
  });
}

/** What the extension wants to hear of the Call Stack: whether it still listens, and a task's stack shown there. */
export interface StackWatch {
  wanted(): boolean;
  shown(run: Run, detail: { task: { name: string }; frames: readonly string[] }): void;
}

/**
 * Hears the hits a debug session lists for its logpoints over a recorded run (`coroscope/logpointHits`):
 * the run it debugs, the event's body, and that session: how to go to one of its hits, whether it ended.
 */
export type LogpointHitsListener = (
  run: Run | null,
  body: unknown,
  session: { goTo(hit: number): Thenable<unknown>; ended(): boolean },
) => void;

/** Hears which debug sessions debug which run (each change: all of them), with how to follow a task there. */
export type DebugSessionsListener = (sessions: DebuggedRunSession[]) => void;

/** A debug session of ours whose run is known: "Follow This Task" there (coroscope/followTask). */
export interface DebuggedRunSession {
  readonly run: Run;
  followTask(taskId: number): Thenable<unknown>;
}

export function registerDebugger(
  context: vscode.ExtensionContext,
  hostScriptPath: string,
  runs: RunRegistry,
  stackWatch: StackWatch,
  onLogpointHits: LogpointHitsListener = () => {},
  onDebugSessions: DebugSessionsListener = () => {},
): void {
  const tree = new CoroutinesTreeProvider();
  const view = vscode.window.createTreeView(COROUTINES_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  tree.view = view;
  const factory = new CoroscopeAdapterFactory(hostScriptPath, runs);
  // A session's run is known once it has launched or attached: told again at each change of the stack shown.
  const tellSessions = (): void => onDebugSessions(factory.debuggedRuns());
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, factory),
    vscode.debug.onDidTerminateDebugSession((s) => {
      factory.ended(s);
      tellSessions();
    }),
    vscode.debug.onDidStartDebugSession(tellSessions),
    vscode.debug.onDidChangeActiveDebugSession(tellSessions),
    vscode.debug.onDidChangeActiveStackItem(tellSessions),
    watchCallStackSelection(factory, stackWatch),
    watchDeadlockStops(DEBUG_TYPE),
    registerLogpointHitLinks((id) => factory.sessionOf(id)),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
      if (e.session.type !== DEBUG_TYPE || e.event !== LOGPOINT_HITS_EVENT) return;
      const session = e.session;
      onLogpointHits(factory.runOf(session), e.body, {
        goTo: (hit) => session.customRequest(LOGPOINT_HIT_REQUEST, { hit }),
        ended: () => factory.sessionOf(session.id) === null,
      });
    }),
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      new CoroscopeConfigurationProvider(false, runs),
      vscode.DebugConfigurationProviderTriggerKind.Initial,
    ),
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      new CoroscopeConfigurationProvider(true, runs),
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.commands.registerCommand(PICK_RUN_COMMAND, () => pickRun(runs)),
    tree,
    view,
    view.onDidChangeVisibility((e) => {
      if (e.visible) tree.refresh();
    }),
    vscode.commands.registerCommand(REFRESH_COMMAND, () => tree.refresh()),
    vscode.commands.registerCommand(REVEAL_TASK_COMMAND, (task: unknown) => revealTask(task)),
    vscode.commands.registerCommand(LAST_CHANGE_COMMAND, (item: unknown) => goToChange(LAST_CHANGE_REQUEST, item)),
    vscode.commands.registerCommand(NEXT_CHANGE_COMMAND, (item: unknown) => goToChange(NEXT_CHANGE_REQUEST, item)),
    vscode.commands.registerCommand(FOLLOW_TASK_COMMAND, (item: unknown) => followTask(item)),
  );
  tree.refresh();
}

/**
 * "Go to Last (Next) Change" on a Variables item: VS Code passes {container, variable}; the adapter walks to
 * the change (session-changes.ts) and says where, or why not.
 */
async function goToChange(request: string, item: unknown): Promise<void> {
  const session = vscode.debug.activeDebugSession;
  const it = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
  const container =
    typeof it.container === 'object' && it.container !== null ? (it.container as Record<string, unknown>) : {};
  const variable =
    typeof it.variable === 'object' && it.variable !== null ? (it.variable as Record<string, unknown>) : {};
  if (
    session?.type !== DEBUG_TYPE ||
    typeof container.variablesReference !== 'number' ||
    typeof variable.name !== 'string'
  ) {
    void vscode.window.showWarningMessage(
      'Coroscope: choose a local or a field in Variables, at a stop of a Coroscope session',
    );
    return;
  }
  try {
    await session.customRequest(request, { variablesReference: container.variablesReference, name: variable.name });
  } catch (e) {
    void vscode.window.showWarningMessage(`Coroscope: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** "Follow This Task" on a thread of the Call Stack ({sessionId, threadId}): the adapter's moves follow it. */
async function followTask(item: unknown): Promise<void> {
  const session = vscode.debug.activeDebugSession;
  const threadId = typeof item === 'object' && item !== null ? (item as Record<string, unknown>).threadId : undefined;
  if (session?.type !== DEBUG_TYPE || typeof threadId !== 'number') return;
  try {
    await session.customRequest(FOLLOW_TASK_REQUEST, { threadId });
  } catch (e) {
    void vscode.window.showWarningMessage(`Coroscope: ${e instanceof Error ? e.message : String(e)}`);
  }
}
