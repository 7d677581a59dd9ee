// SessionCore: what every room of the debug adapter shares: the run and its host (debug-host.ts),
// the phase, the stop shown, the position in time, the task mirror, the DAP sink and its plumbing.
//
// Invariants:
// - Every DAP request gets exactly one response (anything thrown is its error response).
// - Events are held while a move is under way (holdEvents), so its answer goes first; the
//   session's end (`terminated`, `exited`) is never held.
// - Frame ids and variables references are valid for one stop only: invalidate() drops every
//   per-stop cache on any resume or new stop. Thread events are coalesced while running.

import {
  Event,
  ExitedEvent,
  OutputEvent,
  ProgressEndEvent,
  ProgressStartEvent,
  ProgressUpdateEvent,
  TerminatedEvent,
  ThreadEvent,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { CrawlProgress, HostEvents, LaunchTarget, StopReason, Traceback } from '../../protocol/host-protocol';
import { MomentIds } from '../../protocol/moment-ids';
import { SnapshotMirror } from '../../protocol/snapshot-mirror';
import { RUNNING, canStepForward, isAtEnd, shownStop, type DebugPosition } from './debug-position';
import type { DebugHost, DebuggedRun, DebugRuns } from './debug-host';
import { LOOP_THREAD_ID, type LoopState } from './dap-mapping';
import type { ParsedLaunch } from './launch-arguments';
import { TASKS_CHANGED_EVENT } from './custom-requests';
import { message, type StopInfo } from './stop-events';

export interface CoroscopeSessionOptions<R extends DebuggedRun = DebuggedRun> {
  /** Path of dist/runtime-host.js (its source map lists the loaded sources). */
  hostScript: string;
  /** Where runs are started (launch) and found (attach). */
  runs: DebugRuns<R>;
  /** The name this session attaches to runs with (default 'debugger'). */
  viewName?: string;
  /** Working directory for relative `program` paths and the host (default: the adapter's). */
  cwd?: string;
  /**
   * How long a move in time whose request the host answered waits for its landing event before it is given up
   * (default MOVE_LANDING_MS).
   */
  moveLandingMs?: number;
  /**
   * The link a past logpoint hit's Debug Console line carries (past-logpoints.ts): a URI the extension handles
   * by going to hit `index` (none: no link).
   */
  logpointHitLink?: (index: number) => string;
}

/**
 * A move answered by the host whose landing event (its `paused`) has not come after this long is given up:
 * the position it left is taken again.
 */
export const MOVE_LANDING_MS = 30_000;

/** What the rooms need of the DAP session object itself: its sends and its coordinate conversions. */
export interface DapSink {
  sendEvent(event: DebugProtocol.Event): void;
  sendResponse(response: DebugProtocol.Response): void;
  sendErrorResponse(response: DebugProtocol.Response, error: DebugProtocol.Message): void;
  convertDebuggerLineToClient(line: number): number;
  convertDebuggerColumnToClient(column: number): number;
  convertDebuggerPathToClient(path: string): string;
  convertClientPathToDebugger(path: string): string;
  convertClientLineToDebugger(line: number): number;
}

/** How a landing on a recorded stop's tick is shown: on its task's thread, in its words. */
export interface PastStop {
  threadId: number;
  /** The reason the live run stopped there with: a landing there is shown in it. */
  reason: StopReason;
  /** The live stop's words (absent: the recording says only the tick). */
  said?: string;
}

/**
 * atEnd: the recorded run has finished and the session stays, stopped at its end or a past tick of it
 * (stopAtEnd, or an attach to a finished run).
 */
export type Phase = 'idle' | 'launching' | 'running' | 'restarting' | 'atEnd' | 'finished' | 'disposed';

export const ERR_LAUNCH = 1001;
export const ERR_HOST = 1002;
export const ERR_NOT_RUNNING = 1003;
export const ERR_UNSUPPORTED = 1004;
export const ERR_EVALUATE = 2001;

export const THREAD_EVENTS_MS = 250;
const PROGRESS_MS = 500;
const EXCEPTIONS_KEPT = 200;

/** The requests that move the views (in time, or the program): a refusal of one is shown to the user. */
const MOVES: ReadonlySet<string> = new Set(['stepBack', 'reverseContinue', 'continue', 'next', 'stepIn', 'stepOut']);

/** Debug sessions started in this process (each names its moves apart: its MomentIds asker). */
let sessionsStarted = 0;

export class SessionCore<R extends DebuggedRun = DebuggedRun> {
  /** Called by invalidate(): the per-stop caches of the rooms. */
  private readonly stopCaches: Array<() => void> = [];
  /**
   * This session's moment ids (protocol/moment-ids.ts): each move in time names its requests with the next;
   * the host echoes it on their events.
   */
  readonly momentIds = new MomentIds(`debug ${process.pid}.${++sessionsStarted}`);

  constructor(
    readonly dap: DapSink,
    readonly options: CoroscopeSessionOptions<R>,
  ) {}

  /** Registers a per-stop cache's reset (run on every resume and new stop). */
  onInvalidate(reset: () => void): void {
    this.stopCaches.push(reset);
  }

  /** The runtime host's process id (while it runs). */
  get hostPid(): number | undefined {
    return this.host?.pid;
  }

  sendResponse(response: DebugProtocol.Response): void {
    this.dap.sendResponse(response);
  }

  /** Sends an event now, past any hold (a move's own answer and its held events). */
  emitNow(event: DebugProtocol.Event): void {
    this.dap.sendEvent(event);
  }

  convertDebuggerLineToClient(line: number): number {
    return this.dap.convertDebuggerLineToClient(line);
  }

  convertDebuggerColumnToClient(column: number): number {
    return this.dap.convertDebuggerColumnToClient(column);
  }

  convertDebuggerPathToClient(path: string): string {
    return this.dap.convertDebuggerPathToClient(path);
  }

  convertClientPathToDebugger(path: string): string {
    return this.dap.convertClientPathToDebugger(path);
  }

  convertClientLineToDebugger(line: number): number {
    return this.dap.convertClientLineToDebugger(line);
  }

  host: DebugHost | null = null;

  /** The run this session debugs, and whether it launched it (then ending the session ends the run). */
  run: R | null = null;

  owned = false;

  detachRun: (() => void) | null = null;

  phase: Phase = 'idle';

  launchArgs: ParsedLaunch | null = null;

  /** Whether the host holds the current run before its first tick (false: it runs already). */
  heldAtEntry = false;

  /** The host's id of the current run (events of an older run are ignored). */
  runId: number | null = null;

  clientSupportsProgress = false;

  /** The run's task table, shared with its other views (Run.tasks); an empty one before a run is bound. */
  get tasks(): SnapshotMirror {
    return this.run?.tasks ?? this.noRunTasks;
  }
  private readonly noRunTasks = new SnapshotMirror();

  /**
   * Where the debugger stands (debug-position.ts): the one stored position, changed only by
   * its transitions (moveTo(transition(position, ...))); every move request is a switch on it.
   */
  private stored: DebugPosition = RUNNING;

  /** Thread a step or pause was asked for (a stop without a task lands there). */
  requestedThread: number | null = null;

  // Per-stop state (dropped on every resume and stop).
  epoch = 0;

  // Exceptions seen (by task id; null key: outside any task).
  readonly exceptions = new Map<number, Traceback>();

  callbackFailure: Traceback | null = null;

  /** At a stop on a failed URL: the URL, and the callback stage's traceback of it once asked for (null: could not). */
  failedUrl: string | null = null;

  private callbackStage: Promise<Traceback | null> | null = null;

  // Thread events while running.
  threadTimer: NodeJS.Timeout | null = null;

  private readonly createdSince = new Set<number>();

  private readonly finishedSince = new Set<number>();

  // Progress of a crawl.
  private progressId: string | null = null;

  private lastProgressAt = 0;

  terminatedSent = false;

  restartDone: (() => void) | null = null;

  /** Ticks recorded (the last timeline or viewedTick said). */
  recordedTicks = 0;

  /**
   * Ticks at which this session saw the run stop at a breakpoint (on a suspension) or an exception, with the
   * stop's thread and words.
   */
  readonly stopTicks = new Map<number, PastStop>();

  /**
   * Ticks at which this session saw the run stop at a line breakpoint (found again by the breakpoint search
   * while armed).
   */
  readonly lineStopTicks = new Set<number>();

  /**
   * How the run ended, once it has while the session stays at its end (null: not ended, or ended before this
   * session attached).
   */
  endedOk: boolean | null = null;

  /** Runs a request handler; anything it throws becomes the request's error response. */
  serve<R extends DebugProtocol.Response>(response: R, body: () => Promise<void>, errorId = ERR_HOST): void {
    // A refused move is said to the user (VS Code shows the message), not only answered.
    body().catch((e: unknown) => this.fail(response, errorId, message(e), MOVES.has(response.command)));
  }

  fail(response: DebugProtocol.Response, id: number, text: string, showUser = false): void {
    this.dap.sendErrorResponse(response, { id, format: text, showUser });
  }

  /** Events held while a move in time is under way (answerOnceMoved): its answer goes first. */
  heldEvents: DebugProtocol.Event[] | null = null;

  sendEvent(event: DebugProtocol.Event): void {
    // The session's end is never held behind a move: a move still under way when the user
    // stops would otherwise keep `terminated` from VS Code, and the session open, for good.
    // What was held before it goes out first (the move's own stop excepted: it will not be shown).
    if (this.heldEvents !== null && event.event !== 'terminated' && event.event !== 'exited') {
      this.heldEvents.push(event);
      return;
    }
    if (this.heldEvents !== null) {
      for (const held of this.heldEvents.splice(0))
        if (held.event !== 'stopped' && held.event !== 'continued') this.dap.sendEvent(held);
    }
    this.dap.sendEvent(event);
  }

  requireHost(): DebugHost {
    const h = this.host;
    if (h === null || !h.isAlive()) throw new Error('the runtime host is not running');
    return h;
  }

  output(text: string, category: 'console' | 'stdout' | 'stderr' | 'important' = 'console'): void {
    this.sendEvent(new OutputEvent(text.endsWith('\n') ? text : `${text}\n`, category));
  }

  /** Forgets everything tied to the current stop. */
  invalidate(): void {
    this.epoch++;
    for (const reset of this.stopCaches) reset();
  }

  /** Forgets what the stop shown had (its failure, failed URL, frames): the position has moved on. */
  resumed(): void {
    this.callbackFailure = null;
    this.failedUrl = null;
    this.callbackStage = null;
    this.invalidate();
  }

  /** Where the debugger stands. */
  get position(): DebugPosition {
    return this.stored;
  }

  /** The stop shown now (null: running, or a move under way). */
  get currentStop(): StopInfo | null {
    return shownStop(this.stored);
  }

  /**
   * Takes the next position (a transition's result, debug-position.ts). Onto a past line or
   * off one, the task table is another moment's: cleared, a whole table of the new one follows.
   */
  moveTo(next: DebugPosition): void {
    const wasPastLine = this.stored.kind === 'pastLine';
    this.stored = next;
    if (wasPastLine !== (next.kind === 'pastLine')) this.tasks.clear();
  }

  /** The callback stage's traceback of the failed URL of this stop (asked of the host once). */
  callbackStageTrace(): Promise<Traceback | null> {
    const url = this.failedUrl;
    if (url === null) return Promise.resolve(null);
    this.callbackStage ??= this.requireHost()
      .endpoint.request('traces', { url })
      .then((pair) => (pair.callback.frames.length > 0 ? pair.callback : null))
      .catch(() => null);
    return this.callbackStage;
  }

  nameOf = (taskId: number): string | undefined => this.tasks.tasks.get(taskId)?.name;

  /** A task's name for a message, the table asked for first when it is not in it yet (no view asked since the stop). */
  async labelOf(taskId: number): Promise<string> {
    if (this.nameOf(taskId) === undefined) await this.refreshTasks().catch(() => undefined);
    return this.nameOf(taskId) ?? `task #${taskId}`;
  }

  loopState(): LoopState {
    // A finished run's past ticks show its loop as it was then, paused after the tick.
    const running = this.showsRun() && canStepForward(this.stored);
    // Stopped, the tick is the stop's: on a line, a past line's table is another moment's (the tick boundary
    // before); between ticks, the table is only refreshed when a view lists the threads.
    const tick = this.currentStop !== null ? this.currentStop.tick : this.tasks.tick;
    return {
      tick,
      paused: this.currentStop !== null || this.tasks.paused,
      onLine: this.currentStop?.line !== undefined,
      running: running && this.host?.isAlive() === true,
    };
  }

  /** The session shows a run (live, or a finished recorded one it stays at): its events and stops count. */
  showsRun(): boolean {
    return this.phase === 'running' || this.phase === 'atEnd';
  }

  /** At the end of a finished recorded run (an opened recording's last tick is its end): nothing comes after. */
  atTheEnd(): boolean {
    return this.phase === 'atEnd' && isAtEnd(this.stored);
  }

  /** Ticks recorded (the timeline's count, asked without any lane: a finished run has none open). */
  async recordedTickCount(): Promise<number> {
    const tl = await this.requireHost().endpoint.request('timeline', { sinceTick: Number.MAX_SAFE_INTEGER });
    this.recordedTicks = tl.ticks;
    return tl.ticks;
  }

  /** The stop a host's `paused` shows (on the task's thread, or the one a step or pause was asked for). */
  stopOf(b: HostEvents['paused']): StopInfo {
    const threadId = b.taskId ?? this.requestedThread ?? LOOP_THREAD_ID;
    this.requestedThread = null;
    const stop: StopInfo = { reason: b.reason, tick: b.tick, taskId: b.taskId, threadId, description: b.description };
    if (b.line !== undefined) stop.line = b.line;
    if (b.deadlock !== undefined) stop.deadlock = b.deadlock;
    return stop;
  }

  onException(b: HostEvents['exception']): void {
    // A deadlock no task raised: the Debug Console says it, unless the stop for it said it already.
    if (b.deadlock !== undefined) {
      if (!b.deadlock.stopped) this.output(b.traceback.text, 'stderr');
      return;
    }
    // Task ids start at 1: 0 (or less) is a failure outside any task (a callback's).
    if (b.taskId <= 0) this.callbackFailure = b.traceback;
    this.exceptions.set(b.taskId, b.traceback);
    if (this.exceptions.size > EXCEPTIONS_KEPT) this.exceptions.delete(this.exceptions.keys().next().value as number);
    if (b.traceback.text !== '') this.output(b.traceback.text, 'stderr');
  }

  /** The run has ended: so does the session (exited with the run's outcome, then terminated). */
  endSession(ok: boolean): void {
    this.phase = 'finished';
    this.sendEvent(new ExitedEvent(ok ? 0 : 1));
    this.sendTerminated();
  }

  sendTerminated(): void {
    if (this.terminatedSent) return;
    this.terminatedSent = true;
    this.flushThreadEvents();
    this.sendEvent(new TerminatedEvent());
  }

  onTaskEvent(task: HostEvents['taskCreated']['task'], what: 'created' | 'finished'): void {
    if (this.phase !== 'running') return;
    this.tasks.upsert(task);
    if (what === 'created') this.createdSince.add(task.id);
    else {
      this.createdSince.delete(task.id);
      this.finishedSince.add(task.id);
    }
    this.threadTimer ??= setTimeout(() => this.flushThreadEvents(), THREAD_EVENTS_MS);
  }

  /** Sends the coalesced thread events (one `started` is enough for the client to refetch). */
  flushThreadEvents(): void {
    if (this.threadTimer !== null) clearTimeout(this.threadTimer);
    this.threadTimer = null;
    const created = [...this.createdSince];
    const finished = [...this.finishedSince];
    this.createdSince.clear();
    this.finishedSince.clear();
    if (created.length > 0) this.sendEvent(new ThreadEvent('started', created[created.length - 1]!));
    for (const id of finished) if (this.currentStop?.taskId !== id) this.sendEvent(new ThreadEvent('exited', id));
    if (created.length > 0 || finished.length > 0) this.tasksChanged();
  }

  private lastTasksChanged = 0;

  tasksChangedTimer: NodeJS.Timeout | null = null;

  /** Tells the Coroutines view to refresh (throttled). */
  tasksChanged(): void {
    const now = performance.now();
    if (now - this.lastTasksChanged >= THREAD_EVENTS_MS) {
      this.lastTasksChanged = now;
      this.sendEvent(new Event(TASKS_CHANGED_EVENT));
    } else {
      this.tasksChangedTimer ??= setTimeout(() => {
        this.tasksChangedTimer = null;
        this.lastTasksChanged = performance.now();
        this.sendEvent(new Event(TASKS_CHANGED_EVENT));
      }, THREAD_EVENTS_MS);
    }
  }

  startProgress(target: LaunchTarget | null, message: string): void {
    if (!this.clientSupportsProgress || (target?.kind !== 'crawl' && target?.kind !== 'demo')) return;
    this.progressId = `coroscope-crawl-${Date.now()}`;
    this.sendEvent(new ProgressStartEvent(this.progressId, 'Coroscope crawl', message));
  }

  onProgress(p: CrawlProgress): void {
    if (this.progressId === null) return;
    const now = performance.now();
    if (now - this.lastProgressAt < PROGRESS_MS) return;
    this.lastProgressAt = now;
    this.sendEvent(
      new ProgressUpdateEvent(
        this.progressId,
        `${p.done} done, ${p.queued} queued, ${p.inFlight} in flight, ${p.errors} errors (${p.rate.toFixed(0)}/s)`,
      ),
    );
  }

  endProgress(summary: string): void {
    if (this.progressId === null) return;
    this.sendEvent(new ProgressEndEvent(this.progressId, summary));
    this.progressId = null;
  }

  async refreshTasks(): Promise<void> {
    const h = this.host;
    if (h === null || !h.isAlive() || this.phase === 'finished' || this.run === null) return;
    // One request for every view of the run (joined with one in flight).
    await this.run.refreshTasks();
  }
}
