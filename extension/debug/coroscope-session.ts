// CoroscopeSession: the debug adapter of debug type `coroscope`. It speaks the Debug Adapter
// Protocol to its client (VS Code through DebugAdapterInlineImplementation, or any DAP client
// over stdio through standalone.ts) and the runtime host protocol to the runtime host of its
// run: a Run of the RunRegistry it is given (extension/runs/), which it launches (`launch`:
// a new Run, one host process) or attaches to (`attach`: a run another view launched, e.g.
// the inspector panel's crawl, or an opened recording). Every view of a run talks to the same
// host, so a pause, step or continue asked by the panel reaches this session as the host's
// `paused`/`continued` events and becomes DAP `stopped`/`continued`; the run stopped elsewhere
// ends the session (`terminated`). Inline, the registry is the extension's; standalone, one of
// its own.
//
// What it maps (the rules are in dap-mapping.ts): threads are tasks (plus the event loop),
// stacks are reconstructed `yield*` chains with TypeScript positions, scopes are a frame's
// locals (host handles behind the variables references) and a Task scope; pause / continue /
// next (one loop tick) / step in (until the task resumes and suspends again) / step out
// (until the current frame returns); line breakpoints with conditions and hit counts;
// at a stop on a line (the host's line debugger: any line without `yield`), the stopped
// thread shows the real frames with their scopes, evaluate runs in the real frame, and
// next / step in / step out go by line (lineStep); logpoints;
// exception breakpoints (task failed, task cancelled, URL failed) with the coroutine
// traceback in exceptionInfo; evaluate in the host; terminate, restart, disconnect; loaded
// sources (the TypeScript files of the host's bundle); custom requests for the Coroutines
// view (custom-requests.ts).
//
// Time travel (a recorded run, the default of extension launches): stepBack goes to the
// thread's task's previous suspension (the loop thread: the previous tick), reverseContinue
// to the latest of: a stop at a breakpoint or exception this session saw, a task failure (or
// cancel) the recording holds whose exception filter is set, a URL the crawl recorded as
// failed (urlFailed), and a hit of the breakpoints set now, found by replaying the recording
// with them armed (the host's pastBreakpointHit): a V8 line breakpoint's shown as a line stop
// in the past with that moment's frames and locals, a loop breakpoint's (a line with yield)
// as its tick, like the recorded stops, on their task's thread in their live words
// (time-travel.ts says where each lands); continue from the past goes forward over the same; from such a hit, step back / next / step in / step
// out go by line through its task's replayed lines (the host's lineStepBack / lineStep there),
// across the task's suspensions, each line shown as the hit is. The host replays the
// run to that tick (seekTick) and every view of the run shows it; the host's `viewedTick`
// event, whoever asked (the panel's scrubber too), becomes a `stopped` event (reason 'step'
// for this session's steps, the live stop's reason and words for a recorded stop landed on:
// 'breakpoint' for a loop breakpoint's hit, 'exception' for a failed URL or task, 'goto'
// otherwise). From a past tick, continue goes forward to the
// next such stop, next to the next tick, step in to the task's next suspension, each back to
// the present (the run's own stop, or running) when the recording has nothing before it;
// step out to the first later suspension at which the current frame has returned, by the
// frame chains the recording holds (or the task's end). At a stop on a line (mid-tick) the
// host's line replay serves the past (runtime/host/worker/line-replay-host.ts): stepBack goes to the
// line the task ran before (replayed, its frames and locals then), again and again, and at the
// task's first line of this step into its step before, as from a hit: the line of the stop's
// functions where it suspended (the `yield*`), in an earlier tick, every view there; only when
// no earlier step ran one, its previous suspension; from a past line next / step in / step out
// go forward line by line, back to the live stop; continue from a past line goes forward
// through the past to the first stop, exception or breakpoint hit before the live stop (the
// host's search ends there), else back to the live stop, still held (a second continue runs
// the program on); seeks (the panel's scrubber, reverseContinue) are served alike.
//
// The end of a recorded run (phase atEnd): when it finishes (its program ended, not a view's
// Stop), a launch (`stopAtEnd`, on by default when `record` is) or an attach stays, stopped
// at the end (reason 'end', on the loop's thread, every task listed as it ended), and goes
// into the past from there as from any stop. Continue at the end ends the session (exited,
// terminated); next / step in / step out / pause there are refused (nothing comes after it).
// An attach to a finished run is accepted when it was recorded (an opened recording too) and
// starts at the tick the views show (the end, or the scrubber's tick); a finished run without
// a recording is refused with the reason. An opened recording's present is its last tick,
// which is its end.
//
// Lifecycle: launch starts the host and launches the run held before its first tick, then
// sends `initialized`; the client sets breakpoints and exception filters and sends
// configurationDone; the launch is answered, and the run goes (or stays stopped on entry).
// A sample with a loop of its own is held too: the host starts it only when told to go. A launch that fails ends
// the session: an output with the reason, then `terminated`. The host's `finished` ends the
// session (exited, terminated) unless it stops at the end (above). Attach joins a run another
// view launched (shown as it is: paused, with its stop, or at the past tick the views show). Disconnect ends the run and its host process when the session launched it
// (answering only once it is gone), and only detaches (letting a paused run go, dropping this
// session's breakpoints) when it attached; `terminateDebuggee` overrides either way.
//
// Invariants:
// - Only the requests in SUPPORTED_REQUESTS are answered, and only their capabilities are
//   advertised; any other request (goto, restartFrame, ...) is refused with its reason.
// - Every DAP request gets exactly one response; a host error becomes an error response
//   with the host's message.
// - Execution requests (continue, next, stepIn, stepOut) are answered before the host is
//   asked, so that the client never sees the resulting `stopped` before its own response
//   (VS Code would then mark the thread running again).
// - Frame ids and variables references are only valid while stopped at one stop: any resume
//   (or a new stop) drops them, and the cached task details with them.
// - Threads are listed from the host's snapshot (incremental), so 100+ tasks cost one delta;
//   while running, thread events are coalesced (at most one batch per THREAD_EVENTS_MS).

import { RemoteError } from '../../protocol/rpc';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  BreakpointEvent,
  ContinuedEvent,
  Event,
  ExitedEvent,
  InitializedEvent,
  LoadedSourceEvent,
  LoggingDebugSession,
  OutputEvent,
  ProgressEndEvent,
  Response,
  ProgressStartEvent,
  ProgressUpdateEvent,
  StoppedEvent,
  TerminatedEvent,
  ThreadEvent,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { BreakpointHitLanding, CrawlProgress, HostEvents, HostMethods, LaunchTarget, LineFrameInfo, ProgramLoopState, StopReason, TaskDetail, TimelineLane, Traceback, VariableInfo } from '../../protocol/host-protocol';
import { programLoopScope, programLoopVariables, type ProgramLoopPart } from './program-loop-variables';
import { frameReturn, laneHasFrames, nextOf, nextSuspension, previousOf, previousSuspension } from './time-travel';
import { RUNNING, canStepForward, endStopAt, forwardFrom, liveStop, type DebugPosition, type PositionStop, type Present, type ShownReason } from './debug-position';
import type { HostExit, HostProcess } from '../host-client/host-process';
import { LINE_STEP_MODE_REQUEST, TASKS_CHANGED_EVENT, TASKS_REQUEST, TRACES_REQUEST, narrowLineStepMode, type TasksBody } from './custom-requests';
import {
  CALLBACK_THREAD_ID,
  LOOP_THREAD_ID,
  callbackStackDrafts,
  callbackThreadName,
  exceptionInfoOf,
  lineStackDrafts,
  loopStackDrafts,
  splitError,
  taskScopeVariables,
  taskStackDrafts,
  threadsOf,
  type CreationLink,
  type FrameDraft,
  type FrameRef,
  type LoopState,
} from './dap-mapping';
import { attachRunKey, parseLaunchArguments, type ParsedLaunch } from './launch-arguments';
import { SnapshotMirror } from '../../protocol/snapshot-mirror';
import type { Run } from '../runs/run';
import type { RunRegistry } from '../runs/run-registry';

export interface CoroscopeSessionOptions {
  /** Path of dist/runtime-host.js (its source map lists the loaded sources). */
  hostScript: string;
  /** Where runs are started (launch) and found (attach). */
  runs: RunRegistry;
  /** The name this session attaches to runs with (default 'debugger'). */
  viewName?: string;
  /** Working directory for relative `program` paths and the host (default: the adapter's). */
  cwd?: string;
}

/**
 * Exception breakpoint filters. `urlFailed` is the host's extension of setExceptionBreaks:
 * the crawler catches a worker's fetch errors (the task goes on), so "Task failed" never
 * stops on a failing page; this one does, with the error's coroutine traceback.
 */
export const EXCEPTION_FILTERS: DebugProtocol.ExceptionBreakpointsFilter[] = [
  { filter: 'taskFailed', label: 'Task failed', description: 'Stop when a task ends with an exception (an uncaught error in its coroutine chain).', default: true },
  { filter: 'taskCancelled', label: 'Task cancelled', description: 'Stop when a task ends cancelled (CancelledError).', default: false },
  {
    filter: 'urlFailed',
    label: 'URL failed (crawler)',
    description: 'Stop where the crawler records a URL as failed: an error raised in a worker and caught by the crawler (the task goes on).',
    default: false,
  },
];

/** The host's setExceptionBreaks params, with the URL-failed break the adapter asks for. */
type ExceptionBreaksParams = HostMethods['setExceptionBreaks']['params'] & { urlFailed?: boolean };

type VarRef =
  | { kind: 'locals'; taskId: number; frameIndex: number }
  /** A scope or value of a line stop (the host's lineVariables handle). */
  | { kind: 'line'; handle: number }
  | { kind: 'host'; handle: number }
  | { kind: 'task'; taskId: number }
  | { kind: 'loop' }
  /** A part of a program loop of the line stop (programLoops' index). */
  | { kind: 'programLoop'; index: number; part: ProgramLoopPart };

/** How a move in time of this session is shown: a step, a tick moved to, or a recorded stop landed on (in the live stop's reason). */
type TravelReason = 'step' | 'goto' | StopReason;

/** How a landing on a recorded stop's tick is shown: on its task's thread, in its words. */
interface PastStop {
  threadId: number;
  /** The reason the live run stopped there with: a landing there is shown in it. */
  reason: StopReason;
  /** The live stop's words (absent: the recording says only the tick). */
  said?: string;
}

/** A stop shown (on a line: the host's main thread is stopped there, steps go by line). */
type StopInfo = PositionStop;

/** atEnd: the recorded run has finished and the session stays, stopped at its end or a past tick of it (stopAtEnd, or an attach to a finished run). */
type Phase = 'idle' | 'launching' | 'running' | 'restarting' | 'atEnd' | 'finished' | 'disposed';

/** How long launch waits for configurationDone before letting the run go anyway. */
const CONFIGURATION_TIMEOUT_MS = 10_000;
const THREAD_EVENTS_MS = 250;
const PROGRESS_MS = 500;
const EXCEPTIONS_KEPT = 200;
const CREATION_DEPTH = 4;

const ERR_LAUNCH = 1001;
const ERR_HOST = 1002;
const ERR_NOT_RUNNING = 1003;
const ERR_EVALUATE = 2001;
const ERR_UNSUPPORTED = 1004;

/**
 * The requests this adapter answers. The base class would answer every other DAP request with
 * an empty success; here they are refused (dispatchRequest), and none is advertised.
 */
const SUPPORTED_REQUESTS: ReadonlySet<string> = new Set([
  'initialize',
  'launch',
  'attach',
  'configurationDone',
  'setBreakpoints',
  'setExceptionBreakpoints',
  'threads',
  'stackTrace',
  'scopes',
  'variables',
  'evaluate',
  'continue',
  'pause',
  'next',
  'stepIn',
  'stepOut',
  'stepBack',
  'reverseContinue',
  'exceptionInfo',
  'loadedSources',
  'terminate',
  'terminateThreads',
  'restart',
  'disconnect',
  TASKS_REQUEST,
  TRACES_REQUEST,
  LINE_STEP_MODE_REQUEST,
]);

/** Why an unsupported request is refused: a reason for those a client may well send, else a general one. */
function refusalOf(command: string): string {
  switch (command) {
    case 'restartFrame':
    case 'goto':
      return `Coroscope cannot ${command === 'goto' ? 'jump to another line' : 'restart a frame'}: a suspended coroutine resumes only where it yielded`;
    case 'setVariable':
    case 'setExpression':
      return 'Coroscope shows locals but cannot change them';
    default:
      return `Coroscope's debugger does not support the "${command}" request`;
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Short descriptions (VS Code shows them beside the thread's name); none: VS Code's own "Paused on step". */
const STOP_DESCRIPTIONS: Partial<Record<StopReason, string>> = {
  breakpoint: 'Paused on breakpoint',
  exception: 'Paused on exception',
  cancelled: 'Paused on task cancelled',
};

/** How the host describes a URL-failed stop (runtime/host/main-thread/run.ts, onStatistic). */
const FAILED_URL = /failed to fetch (\S+?): /;

/** A `stopped` event: every task stops with the loop (allThreadsStopped). */
function stoppedEvent(reason: ShownReason, threadId: number, text?: string): DebugProtocol.StoppedEvent {
  const ev = new StoppedEvent(reason === 'cancelled' ? 'exception' : reason, threadId, text) as DebugProtocol.StoppedEvent;
  ev.body.allThreadsStopped = true;
  const description = reason === 'goto' ? 'Paused at a replayed tick' : reason === 'end' ? undefined : STOP_DESCRIPTIONS[reason];
  if (description !== undefined) ev.body.description = description;
  return ev;
}

/**
 * The loop thread's own `stopped` (focus left where it is) when a stop is shown on a task's
 * thread: VS Code keeps only the reason of the threads a stop is not on, so the loop's row
 * would go on saying the moment it was stopped at before (the run's end, another tick).
 */
function loopStoppedEvent(reason: ShownReason, description: string): DebugProtocol.StoppedEvent {
  const ev = stoppedEvent(reason, LOOP_THREAD_ID);
  ev.body.allThreadsStopped = false;
  ev.body.preserveFocusHint = true;
  ev.body.description = description;
  return ev;
}

/** How a stop at a past tick is labelled on its thread, and on the loop's. */
function pastTickLabel(tick: number, ticks: number): string {
  return `At tick ${tick} of ${ticks} (replayed)`;
}

/** The `stopped` event of a stop shown again (the end's says what the end is). */
function stoppedEventOf(stop: StopInfo): DebugProtocol.StoppedEvent {
  const ev = stoppedEvent(stop.reason, stop.threadId);
  if (stop.reason === 'end') ev.body.description = stop.description;
  return ev;
}

/** The stop a finished recorded run shows at its end (its last tick), on the loop's thread; what to do there is said in the console (endHint). */
function endStop(tick: number): StopInfo {
  return endStopAt(tick);
}

/** What the end of a recorded run offers, for the console. */
function endHint(tick: number): string {
  return `the run finished at tick ${tick}: Step Back or Reverse Continue to look at its past; Continue or Stop ends the session`;
}

/** The requests that move the views (in time, or the program): a refusal of one is shown to the user. */
const MOVES: ReadonlySet<string> = new Set(['stepBack', 'reverseContinue', 'continue', 'next', 'stepIn', 'stepOut']);

export class CoroscopeSession extends LoggingDebugSession {
  private readonly options: CoroscopeSessionOptions;
  private host: HostProcess | null = null;
  /** The run this session debugs, and whether it launched it (then ending the session ends the run). */
  private run: Run | null = null;

  /** The run this session debugs (launched or attached), null before and after. */
  get debuggedRun(): Run | null {
    return this.run;
  }
  private owned = false;
  private detachRun: (() => void) | null = null;
  private phase: Phase = 'idle';
  private launchArgs: ParsedLaunch | null = null;
  /** Whether the host holds the current run before its first tick (false: it runs already). */
  private heldAtEntry = false;
  /** The host's id of the current run (events of an older run are ignored). */
  private runId: number | null = null;
  private clientSupportsProgress = false;
  private configured: Promise<void>;
  private markConfigured: () => void = () => undefined;

  /** The run's task table, shared with its other views (Run.tasks); an empty one before a run is bound. */
  private get tasks(): SnapshotMirror {
    return this.run?.tasks ?? this.noRunTasks;
  }
  private readonly noRunTasks = new SnapshotMirror();
  private currentStop: StopInfo | null = null;
  /** Thread a step or pause was asked for (a stop without a task lands there). */
  private requestedThread: number | null = null;
  // Per-stop state (dropped on every resume and stop).
  private epoch = 0;
  private details = new Map<string, Promise<TaskDetail>>();
  /** At a stop on a line: the real frames (asked once per stop). */
  private lineStack: Promise<{ taskId: number | null; frames: LineFrameInfo[] }> | null = null;
  /** The program loops at the current line stop (asked once per stop). */
  private programLoops: Promise<ProgramLoopState[]> | null = null;
  private stacks = new Map<number, Promise<FrameDraft[]>>();
  private readonly frameRefs = new Map<number, FrameRef>();
  private readonly varRefs = new Map<number, VarRef>();
  private nextFrameId = 1;
  private nextVarRef = 1;
  // Exceptions seen (by task id; null key: outside any task).
  private readonly exceptions = new Map<number, Traceback>();
  private callbackFailure: Traceback | null = null;
  /** At a stop on a failed URL: the URL, and the callback stage's traceback of it once asked for (null: could not). */
  private failedUrl: string | null = null;
  private callbackStage: Promise<Traceback | null> | null = null;
  // Breakpoints, by absolute file: the lines the client set (for the stack's focus).
  private readonly breakpointLines = new Map<string, Set<number>>();
  private readonly pendingBreakpoints = new Map<string, { args: DebugProtocol.SetBreakpointsArguments; ids: number[] }>();
  private nextBreakpointId = 1;
  private exceptionBreaks: ExceptionBreaksParams = { taskFailed: true, taskCancelled: false, urlFailed: false };
  // Thread events while running.
  private threadTimer: NodeJS.Timeout | null = null;
  private readonly createdSince = new Set<number>();
  private readonly finishedSince = new Set<number>();
  // Progress of a crawl.
  private progressId: string | null = null;
  private lastProgressAt = 0;
  // Loaded sources.
  private loadedSources: Map<string, DebugProtocol.Source> | null = null;
  private terminatedSent = false;
  private restartDone: (() => void) | null = null;
  // Time travel.
  /** The past tick every view of the run shows (the host's seekTick); null: the present. */
  private viewedTick: number | null = null;
  private recordedTicks = 0;
  /** While a past tick is shown: the present's stop (null: the run is running). */
  private presentStop: StopInfo | null = null;
  /** This session's own move in time, whose viewedTick event comes next; `said`: what the recording says happened at that tick. */
  private travel: { reason: TravelReason; threadId: number; said?: string } | null = null;
  /** Ticks at which this session saw the run stop at a breakpoint (on a suspension) or an exception, with the stop's thread and words. */
  private readonly stopTicks = new Map<number, PastStop>();
  /** Ticks at which this session saw the run stop at a line breakpoint (found again by the breakpoint search while armed). */
  private readonly lineStopTicks = new Set<number>();
  /** A line breakpoint's hit in the past shown (pastBreakpointHit): the replay host is stopped on it, in tick `tick`. */
  private pastHit: { tick: number } | null = null;
  /** This session's search landed on a hit: the host's viewedTick for it comes before its answer, which shows it. */
  private hitTravel = false;
  /** This session's line move from a hit shown (stepAtHit) is under way: the host's viewedTick for it follows the line to its tick, and its `paused` shows it. */
  private hitMove = false;
  /** A past line is shown (the host's `paused` said pastLine): the task table is of that moment. */
  private onPastLine = false;
  /**
   * While past lines of a live line stop are shown (Step Back at a line, and the lines and
   * ticks reached from there): that live stop, where the live program is held. Continue from
   * the past comes back to it when nothing stops before it; it is the present a seek leaves.
   */
  private liveLineStop: StopInfo | null = null;
  /** A Continue from a past line found nothing before the live line stop: the live stop's `paused` that comes next is shown as it was (its own reason). */
  private continuedToLive: StopInfo | null = null;
  /** In phase atEnd: how the run ended (null: it had ended before this session attached). */
  private finishedRun: HostEvents['finished'] | null = null;

  constructor(options: CoroscopeSessionOptions) {
    super();
    this.options = options;
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
    this.configured = new Promise((resolveConfigured) => {
      this.markConfigured = resolveConfigured;
    });
  }

  /** The runtime host's process id (while it runs). */
  get hostPid(): number | undefined {
    return this.host?.pid;
  }

  // --- plumbing -------------------------------------------------------------------------------

  /** Runs a request handler; anything it throws becomes the request's error response. */
  private serve<R extends DebugProtocol.Response>(response: R, body: () => Promise<void>, errorId = ERR_HOST): void {
    // A refused move is said to the user (VS Code shows the message), not only answered.
    body().catch((e: unknown) => this.fail(response, errorId, message(e), MOVES.has(response.command)));
  }

  private fail(response: DebugProtocol.Response, id: number, text: string, showUser = false): void {
    this.sendErrorResponse(response, { id, format: text, showUser });
  }

  /** Events held while a move in time is under way (answerOnceMoved): its answer goes first. */
  private heldEvents: DebugProtocol.Event[] | null = null;

  override sendEvent(event: DebugProtocol.Event): void {
    // The session's end is never held behind a move: a move still under way when the user
    // stops would otherwise keep `terminated` from VS Code, and the session open, for good.
    if (this.heldEvents !== null && event.event !== 'terminated' && event.event !== 'exited') {
      this.heldEvents.push(event);
      return;
    }
    super.sendEvent(event);
  }

  /**
   * Answers a move in time (Step Back, Reverse Continue, a step or continue through the past)
   * only once it has moved: what the session says meanwhile (the landing's `stopped` above all)
   * is held until the success response has gone, as VS Code takes a stop after the answer of
   * the request that made it. A move that fails is the request's error (VS Code shows it): the
   * position shown before is restored (`restore`) and shown again, and no `stopped` or
   * `continued` of the move goes out: never a success that did not move.
   */
  private async answerOnceMoved(response: DebugProtocol.Response, restore: () => StopInfo | null, move: () => Promise<void>): Promise<void> {
    const outer = this.heldEvents !== null;
    if (!outer) this.heldEvents = [];
    try {
      await move();
    } catch (e) {
      const held = outer ? [] : (this.heldEvents ?? []);
      if (!outer) this.heldEvents = null;
      for (const ev of held) if (ev.event !== 'stopped' && ev.event !== 'continued') super.sendEvent(ev);
      const reason = e instanceof RemoteError && e.code === 'superseded' ? `${response.command}: another move of the views came first (${message(e)})` : message(e);
      this.fail(response, ERR_HOST, reason, true);
      const stop = restore();
      const host = this.host;
      // The stop shown before, again: its frames and variables are asked anew (the move's start forgot them).
      if (stop !== null && host !== null && host.isAlive() && this.showsRun()) this.sendEvent(stoppedEventOf(stop));
      return;
    }
    const held = outer ? [] : (this.heldEvents ?? []);
    if (!outer) this.heldEvents = null;
    this.sendResponse(response);
    for (const ev of held) super.sendEvent(ev);
  }

  /** The position shown now, kept before a move; the function puts it back (a move refused) and says the stop to show. */
  private keepPosition(): () => StopInfo | null {
    const stop = this.currentStop;
    const liveLineStop = this.liveLineStop;
    const onPastLine = this.onPastLine;
    const pastHit = this.pastHit;
    const presentStop = this.presentStop;
    return () => {
      this.travel = null;
      this.hitMove = false;
      this.requestedThread = null;
      this.liveLineStop = liveLineStop;
      this.pastHit = pastHit;
      this.presentStop = presentStop;
      if (this.onPastLine !== onPastLine) {
        this.onPastLine = onPastLine;
        this.tasks.clear();
      }
      if (this.currentStop === null) this.currentStop = stop;
      this.invalidate();
      return this.currentStop;
    };
  }

  private requireHost(): HostProcess {
    const h = this.host;
    if (h === null || !h.isAlive()) throw new Error('the runtime host is not running');
    return h;
  }

  private output(text: string, category: 'console' | 'stdout' | 'stderr' | 'important' = 'console'): void {
    this.sendEvent(new OutputEvent(text.endsWith('\n') ? text : `${text}\n`, category));
  }

  /** Forgets everything tied to the current stop. */
  private invalidate(): void {
    this.epoch++;
    this.details = new Map();
    this.lineStack = null;
    this.programLoops = null;
    this.stacks = new Map();
    this.frameRefs.clear();
    this.varRefs.clear();
  }

  private resumed(): void {
    this.currentStop = null;
    this.callbackFailure = null;
    this.failedUrl = null;
    this.callbackStage = null;
    this.invalidate();
    // Gone on from a past line: the present's tasks again, a whole table.
    if (this.onPastLine) {
      this.onPastLine = false;
      this.tasks.clear();
    }
  }

  /** The callback stage's traceback of the failed URL of this stop (asked of the host once). */
  private callbackStageTrace(): Promise<Traceback | null> {
    const url = this.failedUrl;
    if (url === null) return Promise.resolve(null);
    this.callbackStage ??= this.requireHost()
      .endpoint.request('traces', { url })
      .then((pair) => (pair.callback.frames.length > 0 ? pair.callback : null))
      .catch(() => null);
    return this.callbackStage;
  }

  private nameOf = (taskId: number): string | undefined => this.tasks.tasks.get(taskId)?.name;

  private loopState(): LoopState {
    // A finished run's past ticks show its loop as it was then, paused after the tick.
    const running = this.showsRun() && canStepForward(this.position());
    return { tick: this.tasks.tick, paused: this.currentStop !== null || this.tasks.paused, onLine: this.currentStop?.line !== undefined, running: running && this.host?.isAlive() === true };
  }

  /** The session shows a run (live, or a finished recorded one it stays at): its events and stops count. */
  private showsRun(): boolean {
    return this.phase === 'running' || this.phase === 'atEnd';
  }

  /** At the end of a finished recorded run (its present; an opened recording's present is its last tick): nothing comes after. */
  private atTheEnd(): boolean {
    return this.phase === 'atEnd' && this.pastHit === null && (this.viewedTick === null || this.viewedTick >= this.recordedTicks);
  }

  /**
   * Where the debugger stands (debug-position.ts), read from the session's position fields:
   * the requests below are answered by a switch on it.
   */
  private position(): DebugPosition {
    const stop = this.currentStop;
    if (this.atTheEnd()) {
      // An opened recording (or a finished run attached to) has no present: its last tick is its end.
      if (this.finishedRun === null && !this.owned) return { kind: 'recording', tick: Math.max(this.viewedTick ?? this.recordedTicks, this.recordedTicks), ticks: this.recordedTicks, stop };
      return { kind: 'end', stop: stop ?? endStop(this.recordedTicks) };
    }
    const kept = this.presentStop ?? this.liveLineStop;
    const present: Present =
      kept === null ? (this.phase === 'atEnd' ? { kind: 'end', stop: endStop(this.recordedTicks) } : { kind: 'running' }) : kept.reason === 'end' ? { kind: 'end', stop: kept } : { kind: 'stopped', stop: kept };
    // A hit's tick is the one viewed; a hit with neither (cleared by no move) is not shown.
    if (this.pastHit !== null && (this.viewedTick !== null || stop?.line !== undefined)) return { kind: 'pastHit', tick: this.pastHit.tick, stop, present };
    if (this.viewedTick !== null) return { kind: 'pastTick', tick: this.viewedTick, stop, present };
    if (this.onPastLine) return { kind: 'pastLine', stop, live: this.liveLineStop };
    return stop === null ? RUNNING : liveStop(stop);
  }

  /**
   * A launch or restart (debug-position.ts onLaunched): nothing of the last run's position is
   * kept (its past tick, hit, past line, live line stop, moves under way), so position() is running.
   */
  private startPositionOver(): void {
    this.resumed();
    this.viewedTick = null;
    this.presentStop = null;
    this.pastHit = null;
    this.liveLineStop = null;
    this.travel = null;
    this.hitTravel = false;
    this.hitMove = false;
    this.continuedToLive = null;
  }

  // --- initialize and launch ----------------------------------------------------------------

  protected override initializeRequest(response: DebugProtocol.InitializeResponse, args: DebugProtocol.InitializeRequestArguments): void {
    this.clientSupportsProgress = args.supportsProgressReporting === true;
    response.body = {
      ...response.body,
      supportsConfigurationDoneRequest: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsEvaluateForHovers: true,
      supportsExceptionInfoRequest: true,
      supportsTerminateRequest: true,
      // Terminate Thread on a task's thread cancels the task (attributed to the debugger).
      supportsTerminateThreadsRequest: true,
      supportsRestartRequest: true,
      supportsLoadedSourcesRequest: true,
      supportsDelayedStackTraceLoading: true,
      // A recorded run (extension launches record by default) is replayed to a past tick.
      supportsStepBack: true,
      // disconnect honours terminateDebuggee: end the run (default for a launch) or leave it to the other views (default for an attach).
      supportTerminateDebuggee: true,
      exceptionBreakpointFilters: EXCEPTION_FILTERS,
    };
    this.sendResponse(response);
  }

  /** Refuses, with its reason, any request this adapter does not answer (never a silent success). */
  protected override dispatchRequest(request: DebugProtocol.Request): void {
    if (SUPPORTED_REQUESTS.has(request.command)) {
      super.dispatchRequest(request);
      return;
    }
    this.fail(new Response(request), ERR_UNSUPPORTED, refusalOf(request.command), true);
  }

  /** Tells the client it may configure (breakpoints, exception filters), then waits for configurationDone (or the timeout). */
  private async configuration(): Promise<void> {
    this.sendEvent(new InitializedEvent());
    await Promise.race([this.configured, new Promise<void>((r) => setTimeout(r, CONFIGURATION_TIMEOUT_MS).unref())]);
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.markConfigured();
    this.sendResponse(response);
  }

  protected override launchRequest(response: DebugProtocol.LaunchResponse, args: DebugProtocol.LaunchRequestArguments): void {
    if (this.run !== null) {
      this.fail(response, ERR_LAUNCH, 'Coroscope: this session has already launched');
      return;
    }
    const parsed = parseLaunchArguments(args, this.options.cwd);
    if ('error' in parsed) {
      this.launchFailed(response, parsed.error);
      return;
    }
    let answered = false;
    const launch = async (): Promise<void> => {
      const started = performance.now();
      await this.startHost(parsed);
      await this.launchRun(parsed);
      this.output(`Coroscope: ${parsed.description} (runtime host pid ${this.hostPid ?? '?'}, started in ${(performance.now() - started).toFixed(0)} ms)`);
      await this.configuration();
      answered = true;
      this.sendResponse(response);
      await this.release(parsed);
    };
    launch().catch((e: unknown) => this.launchFailed(answered ? null : response, message(e)));
  }

  /** A launch that failed ends the session, saying why (the response, if not yet sent, is the error). */
  private launchFailed(response: DebugProtocol.LaunchResponse | null, reason: string): void {
    const text = `Coroscope: the launch failed: ${reason.replace(/^launch: /, '')}`;
    if (response !== null) this.fail(response, ERR_LAUNCH, text, true);
    if (this.phase === 'disposed') return;
    this.output(text, 'stderr');
    this.phase = 'finished';
    this.sendTerminated();
  }

  /**
   * Attaches to a run another view launched (the panel's crawl, another debug session's, an
   * opened recording): `run` names it (its key in the registry); without it, the only one a
   * debugger can attach to. A live run goes on as it is: if it is paused, the session shows
   * that stop. A finished run is debugged through its recording (refused when it has none):
   * the session starts stopped at the tick the views show (its end, or the scrubber's tick).
   */
  protected override attachRequest(response: DebugProtocol.AttachResponse, args: DebugProtocol.AttachRequestArguments): void {
    const key = attachRunKey(args);
    if (typeof key === 'object') {
      this.fail(response, ERR_LAUNCH, `Coroscope: ${key.error}`, true);
      return;
    }
    this.serve(
      response,
      async () => {
        if (this.run !== null) throw new Error('this session is already debugging a run');
        const candidates = this.options.runs.debuggable();
        const describe = (r: Run): string => `${r.key}: ${r.title}${r.isLive() ? '' : ' (finished, recorded)'}`;
        let run: Run | undefined;
        if (key !== undefined) {
          run = this.options.runs.get(key);
          if (run !== undefined && run.phase === 'finished' && !run.recorded) {
            throw new Error(`run ${key} (${run.title}) has finished and was not recorded: it has no past to step through (run it again with recording on: the launch attribute "record", the coroscope.record setting)`);
          }
          if (run === undefined || !run.isDebuggable()) {
            throw new Error(`there is no run ${key} to debug${candidates.length > 0 ? ` (runs: ${candidates.map(describe).join('; ')})` : ''}`);
          }
        } else if (candidates.length === 1) {
          run = candidates[0]!;
        } else {
          throw new Error(
            candidates.length === 0
              ? 'there is no run to attach to: start one first (Coroscope: Run Crawl, or a sample), or open a recording'
              : `several runs are live (or finished and recorded), say which with "run": ${candidates.map(describe).join('; ')}`,
          );
        }
        this.bindRun(run, false);
        this.runId = run.runId;
        const finished = run.phase === 'finished';
        this.phase = finished ? 'atEnd' : 'running';
        if (!finished) this.startProgress(run.target, 'attached');
        this.output(`Coroscope: attached to run ${run.key}, ${run.title}${finished ? ', finished: its recording is replayed' : ''} (runtime host pid ${this.hostPid ?? '?'})`);
        await this.configuration();
        this.sendResponse(response);
        await this.refreshTasks().catch(() => undefined);
        this.sendEvent(new ThreadEvent('started', LOOP_THREAD_ID));
        const pause = run.phase === 'paused' ? run.lastPause : null;
        const viewed = run.viewedTick;
        if (finished) this.currentStop = endStop(await this.recordedTickCount());
        else if (pause !== null && viewed !== null) this.currentStop = this.stopOf(pause);
        if (viewed !== null) {
          // The views show a past tick (an opened recording's present is its last tick): so does the session.
          this.onViewedTick({ runId: run.runId ?? -1, tick: viewed, ticks: this.recordedTicks });
        } else if (finished) {
          this.showEnd();
        } else if (pause !== null) this.onPaused(pause);
        else this.tasksChanged();
      },
      ERR_LAUNCH,
    );
  }

  /** Ticks recorded (the timeline's count, asked without any lane: a finished run has none open). */
  private async recordedTickCount(): Promise<number> {
    const tl = await this.requireHost().endpoint.request('timeline', { sinceTick: Number.MAX_SAFE_INTEGER });
    this.recordedTicks = tl.ticks;
    return tl.ticks;
  }

  private async startHost(parsed: ParsedLaunch): Promise<void> {
    const cwd = parsed.cwd ?? this.options.cwd;
    const run = await this.options.runs.start(cwd !== undefined ? { cwd } : {});
    this.bindRun(run, true);
  }

  /** Listens to the run's host and holds the run (as this session's view) until the session ends. */
  private bindRun(run: Run, owned: boolean): void {
    const host = run.host;
    this.run = run;
    this.owned = owned;
    this.host = host;
    const e = host.endpoint;
    const offs = [
      e.on('paused', (b) => this.onPaused(b)),
      e.on('continued', () => this.onContinued()),
      e.on('output', (b) => this.output(b.text, b.category === 'log' ? 'console' : b.category)),
      e.on('exception', (b) => this.onException(b)),
      e.on('finished', (b) => this.onFinished(b)),
      e.on('taskCreated', (b) => this.onTaskEvent(b.task, 'created')),
      e.on('taskFinished', (b) => this.onTaskEvent(b.task, 'finished')),
      e.on('lint', (b) => this.output(`[lint] ${b.lint.message}`)),
      e.on('progress', (b) => this.onProgress(b)),
      e.on('viewedTick', (b) => this.onViewedTick(b)),
      run.onDidEnd.on((exit) => this.onRunEnded(exit)),
    ];
    const detach = run.attach(this.options.viewName ?? 'debugger');
    // Detached, the session hears nothing more of the run (it may go on for other views).
    this.detachRun = () => {
      for (const off of offs) off();
      detach();
    };
    this.sendEvent(new Event('process', { name: 'coroscope runtime host', systemProcessId: host.pid, isLocalProcess: true, startMethod: owned ? 'launch' : 'attach' }));
  }

  /** The run's host process ended: asked by another view (the panel's Stop), or it died. */
  private onRunEnded(exit: HostExit): void {
    if (this.phase === 'disposed') return;
    if (exit.expected) {
      // Stopped by another view (the panel's Stop): the run is over for this one too.
      this.output('Coroscope: the run was stopped');
    } else {
      const why = exit.signal ?? `code ${exit.code}`;
      this.output(`Coroscope: the runtime host exited (${why})\n${exit.lastLines.slice(-10).join('\n')}`, 'stderr');
    }
    this.phase = 'finished';
    this.endProgress('ended');
    this.sendTerminated();
  }

  /**
   * Launches the run held at entry (when the host can hold it: see heldAtEntry); applies what
   * the client set before the host existed.
   */
  private async launchRun(parsed: ParsedLaunch): Promise<void> {
    const host = this.requireHost();
    const run = this.run;
    if (run === null) throw new Error('no run to launch on');
    this.phase = 'launching';
    this.launchArgs = parsed;
    this.tasks.clear();
    this.exceptions.clear();
    this.runId = null;
    this.startPositionOver();
    this.stopTicks.clear();
    this.lineStopTicks.clear();
    this.finishedRun = null;
    this.recordedTicks = 0;
    const r = await run.launch(parsed.target, parsed.options, this.options.viewName ?? 'debugger');
    this.runId = r.runId;
    this.heldAtEntry = r.heldAtEntry;
    // Not held (a sample with a loop of its own): it runs already, so its events count now.
    if (!r.heldAtEntry) this.phase = 'running';
    if (r.siteUrl !== undefined) this.output(`Coroscope: demo site at ${r.siteUrl}`);
    await host.endpoint.request('setExceptionBreaks', this.exceptionBreaks);
    await host.endpoint.request('setLineStepMode', { mode: parsed.lineStepMode });
    for (const [file, pending] of this.pendingBreakpoints) {
      const bps = await this.applyBreakpoints(pending.args, pending.ids);
      for (const bp of bps) this.sendEvent(new BreakpointEvent('changed', bp));
      this.pendingBreakpoints.delete(file);
    }
    this.startProgress(parsed.target, 'starting');
  }

  /** Lets the held run go, or shows the stop on entry (only when the host really holds the run). */
  private async release(parsed: ParsedLaunch): Promise<void> {
    if (this.phase === 'finished' || this.phase === 'disposed') return;
    const host = this.requireHost();
    this.phase = 'running';
    if (!this.heldAtEntry) {
      if (parsed.stopOnEntry) {
        this.output(`Coroscope: not paused at entry: the ${parsed.description} runs a loop of its own (sockets, threads or processes), with no task on the runtime's loop to hold; it runs to its end.`);
      }
      return;
    }
    if (parsed.stopOnEntry) {
      await this.refreshTasks();
      const first = this.tasks.liveTasks()[0];
      const threadId = first?.id ?? LOOP_THREAD_ID;
      this.currentStop = { reason: 'entry', tick: this.tasks.tick, taskId: first?.id, threadId, description: 'Paused before the first tick' };
      this.sendEvent(stoppedEvent('entry', threadId));
      this.tasksChanged();
    } else {
      await host.endpoint.request('continue', {});
    }
  }

  // --- host events -----------------------------------------------------------------------------

  /** The stop a host's `paused` shows (on the task's thread, or the one a step or pause was asked for). */
  private stopOf(b: HostEvents['paused']): StopInfo {
    const threadId = b.taskId ?? this.requestedThread ?? LOOP_THREAD_ID;
    this.requestedThread = null;
    const stop: StopInfo = { reason: b.reason, tick: b.tick, taskId: b.taskId, threadId, description: b.description };
    if (b.line !== undefined) stop.line = b.line;
    return stop;
  }

  private onPaused(b: HostEvents['paused']): void {
    // The hold at entry during launch is the adapter's own; release() decides what to show.
    if (this.phase === 'launching' || this.phase === 'restarting') return;
    if (b.pastLine === true && this.pastHit !== null) {
      // A line reached by a step from the hit shown (or from a line reached so): shown like the hit.
      this.showHitLine(b);
      return;
    }
    const stop = this.stopOf(b);
    const threadId = stop.threadId;
    if (b.reason === 'breakpoint' && b.line !== undefined) this.lineStopTicks.add(b.tick);
    else if (b.reason === 'breakpoint' || b.reason === 'exception' || b.reason === 'cancelled') this.stopTicks.set(b.tick, { threadId, reason: b.reason, said: b.description });
    if (this.viewedTick !== null) {
      // The present stopped while the views show a past tick: kept for the way back.
      this.presentStop = stop;
      this.output(`Coroscope: the run stopped (${b.reason}) at tick ${b.tick}; the views show tick ${this.viewedTick}, replayed: Continue goes forward to the present`);
      return;
    }
    this.invalidate();
    if (b.pastLine !== true) {
      // A live stop (the one held, shown again, or a new one): no past line of it is shown.
      const back = this.continuedToLive;
      this.continuedToLive = null;
      this.liveLineStop = null;
      if (back !== null && b.line !== undefined && back.line !== undefined && back.tick === b.tick) stop.reason = back.reason;
    }
    // Onto a past line or back from one: the tasks are another moment's (a whole table of it, not a delta).
    if ((b.pastLine === true) !== this.onPastLine) {
      this.onPastLine = b.pastLine === true;
      this.tasks.clear();
    }
    // A past line: the console says which tick (an earlier step's too, a step back from the task's first line of its step: and why there), as at a hit's lines.
    if (b.pastLine === true) this.output(`Coroscope: ${b.description}`);
    this.currentStop = stop;
    this.tasks.paused = true;
    // The host's URL-failed stop says "… failed to fetch <url>: <error>".
    const failed = b.reason === 'exception' ? FAILED_URL.exec(b.description) : null;
    this.failedUrl = failed !== null ? failed[1]! : null;
    let text: string | undefined;
    if (b.reason === 'exception' || b.reason === 'cancelled') {
      const tb = b.taskId !== undefined ? this.exceptions.get(b.taskId) : this.callbackFailure;
      text = tb !== undefined && tb !== null ? tb.error : b.reason === 'cancelled' ? 'CancelledError' : b.description;
    }
    // The host's description is long ("Task #2 "worker-1" suspended at …"): VS Code shows a
    // stop's description beside the thread's name, so it goes to the console instead.
    if (b.reason === 'breakpoint' || b.reason === 'exception' || b.reason === 'cancelled') this.output(`Coroscope: ${b.description}`);
    this.flushThreadEvents();
    this.sendEvent(stoppedEvent(stop.reason, threadId, text));
    this.tasksChanged();
  }

  private onContinued(): void {
    if (this.phase !== 'running') return;
    if (this.viewedTick !== null) {
      // The present runs on; the views stay at the past tick.
      this.presentStop = null;
      return;
    }
    if (this.currentStop !== null) {
      this.resumed();
      this.sendEvent(new ContinuedEvent(LOOP_THREAD_ID, true));
    }
    this.tasks.paused = false;
    this.tasksChanged();
  }

  /** Every view of the run now shows a past tick (or the present again): this session shows it as a stop. */
  private onViewedTick(b: HostEvents['viewedTick']): void {
    if (b.runId !== this.runId || !this.showsRun()) return;
    // A line within a tick (a past line or hit while a line stop holds the run): this session shows the line itself, by its `paused` or its search's answer.
    if (b.line === true) return;
    // The replay of a tick shown has landed or failed: never a move (the host told the move before, replayed: false, and
    // drops a landing once the views moved on); this session's stacks are asked with locals, which wait for the replay.
    if (b.replayed === true || b.replayError !== undefined) return;
    this.recordedTicks = b.ticks;
    if (this.hitMove && b.tick !== null) {
      // The views follow a line move from the hit to its tick; the move's `paused` shows the line.
      this.viewedTick = b.tick;
      return;
    }
    if (this.hitTravel && b.tick !== null) {
      // The views follow this session's search to the hit's tick; its answer shows the hit (showHit).
      this.hitTravel = false;
      if (this.viewedTick === null) this.presentStop = this.liveLineStop ?? this.currentStop;
      this.viewedTick = b.tick;
      return;
    }
    // Any other move leaves the hit shown.
    this.pastHit = null;
    const travel = this.travel;
    this.travel = null;
    if (this.phase === 'atEnd' && b.tick !== null && b.tick >= b.ticks) {
      // The last tick of a finished run (an opened recording's present) is its end.
      this.viewedTick = b.tick;
      this.presentStop = null;
      this.tasks.clear();
      this.showEnd();
      return;
    }
    if (b.tick === null) {
      if (this.viewedTick === null) return;
      this.liveLineStop = null;
      this.viewedTick = null;
      this.invalidate();
      this.tasks.clear();
      const present = this.presentStop;
      this.presentStop = null;
      this.output(`Coroscope: back to the present${present?.reason === 'end' ? `: ${endHint(present.tick)}` : ''}`);
      if (present !== null) {
        this.currentStop = present;
        this.tasks.paused = true;
        this.sendEvent(stoppedEventOf(present));
        if (present.threadId !== LOOP_THREAD_ID) this.sendEvent(loopStoppedEvent(present.reason, `Paused at tick ${present.tick}`));
      } else {
        this.currentStop = null;
        this.tasks.paused = false;
        this.sendEvent(new ContinuedEvent(LOOP_THREAD_ID, true));
      }
      this.tasksChanged();
      return;
    }
    // Entering the past from elsewhere (the panel's scrubber): the present's stop is kept (from a past line of a live line stop, that live stop).
    if (this.viewedTick === null && travel === null) this.presentStop = this.liveLineStop ?? this.currentStop;
    this.viewedTick = b.tick;
    this.invalidate();
    this.tasks.clear();
    const threadId = travel?.threadId ?? this.currentStop?.threadId ?? LOOP_THREAD_ID;
    const reason = travel?.reason ?? 'goto';
    const said = travel?.said;
    this.currentStop = { reason, tick: b.tick, taskId: threadId < LOOP_THREAD_ID ? threadId : undefined, threadId, description: said ?? `tick ${b.tick} of ${b.ticks}, replayed from the recording` };
    this.tasks.paused = true;
    this.output(said !== undefined ? `Coroscope: ${said}, at tick ${b.tick} of ${b.ticks} (replayed from the recording)` : `Coroscope: tick ${b.tick} of ${b.ticks} (replayed from the recording)`);
    this.flushThreadEvents();
    const stopped = stoppedEvent(reason, threadId, reason === 'exception' ? said : reason === 'cancelled' ? 'CancelledError' : undefined);
    // A recorded stop landed on says it as the live stop did ('Paused on breakpoint'); a tick moved to, which tick.
    if (reason === 'step' || reason === 'goto') stopped.body.description = pastTickLabel(b.tick, b.ticks);
    this.sendEvent(stopped);
    // The loop's row says the tick viewed too (not the end, or the moment it was stopped at before).
    if (threadId !== LOOP_THREAD_ID) this.sendEvent(loopStoppedEvent(reason, pastTickLabel(b.tick, b.ticks)));
    this.tasksChanged();
  }

  private onException(b: HostEvents['exception']): void {
    // Task ids start at 1: 0 (or less) is a failure outside any task (a callback's).
    if (b.taskId <= 0) this.callbackFailure = b.traceback;
    this.exceptions.set(b.taskId, b.traceback);
    if (this.exceptions.size > EXCEPTIONS_KEPT) this.exceptions.delete(this.exceptions.keys().next().value as number);
    if (b.traceback.text !== '') this.output(b.traceback.text, 'stderr');
  }

  private onFinished(b: HostEvents['finished']): void {
    if (b.runId !== this.runId) return;
    if (this.phase === 'restarting') {
      this.restartDone?.();
      return;
    }
    if (this.phase === 'disposed') return;
    this.endProgress(b.summary);
    this.output(`Coroscope: ${b.summary}${b.error !== undefined ? ` (${b.error})` : ''}`, b.ok ? 'console' : 'important');
    // A recorded run its program ended stays open at its end (a stop asked by a view ends the session).
    const stopAtEnd = this.owned ? this.launchArgs?.stopAtEnd === true : this.run?.recorded === true;
    if (stopAtEnd && b.stopped !== true && this.phase === 'running') {
      this.phase = 'atEnd';
      this.finishedRun = b;
      void this.stayAtEnd();
      return;
    }
    this.endSession(b.ok);
  }

  /** The run has ended: so does the session (exited with the run's outcome, then terminated). */
  private endSession(ok: boolean): void {
    this.phase = 'finished';
    this.sendEvent(new ExitedEvent(ok ? 0 : 1));
    this.sendTerminated();
  }

  /** The run finished: the session stops at its end (or keeps the past tick shown, the end kept for the way forward). */
  private async stayAtEnd(): Promise<void> {
    const ticks = await this.recordedTickCount().catch(() => 0);
    if (this.phase !== 'atEnd') return;
    if (ticks === 0) {
      // No tick recorded (a program that ran a loop of its own): no past to look at.
      this.endSession(this.finishedRun?.ok ?? true);
      return;
    }
    const end = endStop(ticks);
    if (this.viewedTick !== null) {
      this.presentStop = end;
      this.output(`Coroscope: ${endHint(ticks)}; the views show tick ${this.viewedTick}, replayed`);
      return;
    }
    this.currentStop = end;
    this.tasks.clear();
    await this.refreshTasks().catch(() => undefined);
    this.showEnd();
  }

  /** Shows the end of the finished run as the stop (currentStop becomes the end's). */
  private showEnd(): void {
    const end = endStop(this.recordedTicks);
    this.invalidate();
    this.resumed();
    this.currentStop = end;
    this.tasks.paused = true;
    this.output(`Coroscope: ${endHint(end.tick)}`);
    this.flushThreadEvents();
    this.sendEvent(stoppedEventOf(end));
    this.tasksChanged();
  }

  private sendTerminated(): void {
    if (this.terminatedSent) return;
    this.terminatedSent = true;
    this.flushThreadEvents();
    this.sendEvent(new TerminatedEvent());
  }

  private onTaskEvent(task: HostEvents['taskCreated']['task'], what: 'created' | 'finished'): void {
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
  private flushThreadEvents(): void {
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
  private tasksChangedTimer: NodeJS.Timeout | null = null;
  /** Tells the Coroutines view to refresh (throttled). */
  private tasksChanged(): void {
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

  private startProgress(target: LaunchTarget | null, message: string): void {
    if (!this.clientSupportsProgress || (target?.kind !== 'crawl' && target?.kind !== 'demo')) return;
    this.progressId = `coroscope-crawl-${Date.now()}`;
    this.sendEvent(new ProgressStartEvent(this.progressId, 'Coroscope crawl', message));
  }

  private onProgress(p: CrawlProgress): void {
    if (this.progressId === null) return;
    const now = performance.now();
    if (now - this.lastProgressAt < PROGRESS_MS) return;
    this.lastProgressAt = now;
    this.sendEvent(new ProgressUpdateEvent(this.progressId, `${p.done} done, ${p.queued} queued, ${p.inFlight} in flight, ${p.errors} errors (${p.rate.toFixed(0)}/s)`));
  }

  private endProgress(summary: string): void {
    if (this.progressId === null) return;
    this.sendEvent(new ProgressEndEvent(this.progressId, summary));
    this.progressId = null;
  }

  // --- tasks and threads ------------------------------------------------------------------------

  private async refreshTasks(): Promise<void> {
    const h = this.host;
    if (h === null || !h.isAlive() || this.phase === 'finished' || this.run === null) return;
    // One request for every view of the run (joined with one in flight).
    await this.run.refreshTasks();
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    this.serve(response, async () => {
      try {
        await this.refreshTasks();
      } catch {
        // A finished run or a host gone: list what was last seen.
      }
      const include = new Set<number>();
      if (this.currentStop?.taskId !== undefined) include.add(this.currentStop.taskId);
      // At a finished run's end every task has ended: they are listed as they ended, to step back from.
      if (this.atTheEnd()) for (const t of this.tasks.allTasks()) include.add(t.id);
      const threads = threadsOf(this.tasks.allTasks(), this.loopState(), include);
      if (this.failedUrl !== null && (await this.callbackStageTrace()) !== null) threads.push({ id: CALLBACK_THREAD_ID, name: callbackThreadName(this.failedUrl) });
      response.body = { threads };
      this.sendResponse(response);
    });
  }

  private detailOf(taskId: number, locals: boolean): Promise<TaskDetail> {
    const withLocals = this.details.get(`${taskId}:true`);
    if (withLocals !== undefined) return withLocals;
    const key = `${taskId}:${locals}`;
    let p = this.details.get(key);
    if (p === undefined) {
      const host = this.requireHost();
      p = host.endpoint.request('taskDetail', { taskId, locals });
      this.details.set(key, p);
      p.then((d) => this.tasks.upsert(d.task)).catch(() => this.details.delete(key));
    }
    return p;
  }

  /** The breakpoint line the task's innermost matching frame sits on, if the stop is a breakpoint of this task. */
  private focusOf(detail: TaskDetail): { file: string; line: number } | null {
    if (this.currentStop?.reason !== 'breakpoint' || this.currentStop.taskId !== detail.task.id) return null;
    for (let i = detail.frames.length - 1; i >= 0; i--) {
      const p = detail.frames[i]!.position;
      if (p !== null && this.breakpointLines.get(resolve(p.file))?.has(p.line)) return { file: p.file, line: p.line };
    }
    return null;
  }

  private async creationOf(detail: TaskDetail): Promise<CreationLink[]> {
    const links: CreationLink[] = [];
    let child: TaskDetail | null = detail;
    for (let depth = 0; child !== null && depth < CREATION_DEPTH; depth++) {
      const creatorId: number | null = child.task.createdBy;
      if (creatorId === null) {
        if (child.createdAt !== null) links.push({ childId: child.task.id, creatorId: null, creatorName: null, createdAt: child.createdAt, creatorFrames: [] });
        break;
      }
      const creator: TaskDetail | null = await this.detailOf(creatorId, false).catch(() => null);
      links.push({
        childId: child.task.id,
        creatorId,
        creatorName: creator?.task.name ?? this.nameOf(creatorId) ?? null,
        createdAt: child.createdAt,
        creatorFrames: creator?.frames ?? [],
      });
      child = creator;
    }
    return links;
  }

  private stackOf(threadId: number): Promise<FrameDraft[]> {
    let p = this.stacks.get(threadId);
    if (p === undefined) {
      p = this.buildStack(threadId);
      this.stacks.set(threadId, p);
      p.catch(() => this.stacks.delete(threadId));
    }
    return p;
  }

  /** The real frames of the current line stop. */
  private lineFrames(): Promise<{ taskId: number | null; frames: LineFrameInfo[] }> {
    this.lineStack ??= this.requireHost().endpoint.request('lineStack', {});
    return this.lineStack;
  }

  /** The loops, threads and processes the program runs itself, at this line stop. */
  private loopsAtStop(): Promise<ProgramLoopState[]> {
    this.programLoops ??= this.requireHost()
      .endpoint.request('programLoops', {})
      .then((r) => r.loops);
    return this.programLoops;
  }

  private async buildStack(threadId: number): Promise<FrameDraft[]> {
    const stop = this.currentStop;
    if (stop?.line !== undefined && threadId === stop.threadId) {
      // Stopped on a line: this thread runs, its stack is the real one.
      const { taskId, frames } = await this.lineFrames();
      const drafts = lineStackDrafts(frames, taskId);
      this.noteSources(drafts);
      return drafts;
    }
    if (threadId === LOOP_THREAD_ID) return loopStackDrafts(this.loopState(), this.currentStop?.threadId === LOOP_THREAD_ID ? this.callbackFailure : null);
    if (threadId === CALLBACK_THREAD_ID) {
      const tb = await this.callbackStageTrace();
      if (tb === null) throw new Error('no callback-stage trace at this stop');
      const drafts = callbackStackDrafts(tb);
      this.noteSources(drafts);
      return drafts;
    }
    const detail = await this.detailOf(threadId, true);
    const creation = await this.creationOf(detail);
    const raisedNow = stop !== null && stop.reason === 'exception' && stop.taskId === threadId && detail.frames.length > 0;
    const drafts = taskStackDrafts(
      detail,
      { creation, traceback: this.exceptions.get(threadId) ?? null, raised: raisedNow ? (this.exceptions.get(threadId) ?? null) : null, focus: this.focusOf(detail) },
      this.nameOf,
    );
    this.noteSources(drafts);
    return drafts;
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    this.serve(response, async () => {
      const epoch = this.epoch;
      let drafts: FrameDraft[];
      try {
        drafts = await this.stackOf(args.threadId);
      } catch (e) {
        drafts = [{ ref: { kind: 'loop' }, frame: { name: `no stack: ${message(e)}`, line: 0, column: 0, presentationHint: 'label' } }];
      }
      const start = args.startFrame ?? 0;
      const levels = args.levels === undefined || args.levels === 0 ? drafts.length : args.levels;
      const frames: DebugProtocol.StackFrame[] = drafts.slice(start, start + levels).map((d, i) => {
        const id = this.frameIdFor(args.threadId, start + i, d.ref, epoch);
        const f: DebugProtocol.StackFrame = { ...d.frame, id };
        if (f.line > 0) f.line = this.convertDebuggerLineToClient(f.line);
        if (f.column > 0) f.column = this.convertDebuggerColumnToClient(f.column);
        if (f.source?.path !== undefined) f.source = { ...f.source, path: this.convertDebuggerPathToClient(f.source.path) };
        return f;
      });
      response.body = { stackFrames: frames, totalFrames: drafts.length };
      this.sendResponse(response);
    });
  }

  /** Frame ids are stable within a stop (the same thread and position give the same id). */
  private readonly frameIds = new Map<string, number>();
  private frameIdFor(threadId: number, position: number, ref: FrameRef, epoch: number): number {
    const key = `${epoch}:${threadId}:${position}`;
    let id = this.frameIds.get(key);
    if (id === undefined) {
      if (this.frameIds.size > 10_000) this.frameIds.clear();
      id = this.nextFrameId++;
      this.frameIds.set(key, id);
    }
    this.frameRefs.set(id, ref);
    return id;
  }

  private varRef(ref: VarRef): number {
    const id = this.nextVarRef++;
    this.varRefs.set(id, ref);
    return id;
  }

  // --- scopes, variables, evaluate ------------------------------------------------------------

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const ref = this.frameRefs.get(args.frameId);
    const scopes: DebugProtocol.Scope[] = [];
    if (ref?.kind === 'line') {
      this.serve(response, async () => {
        const frame = (await this.lineFrames()).frames[ref.frameIndex];
        const lineScopes: DebugProtocol.Scope[] = (frame?.scopes ?? []).map((sc, i) => ({
          name: sc.name,
          variablesReference: sc.handle > 0 ? this.varRef({ kind: 'line', handle: sc.handle }) : 0,
          expensive: i > 0,
          ...(i === 0 ? { presentationHint: 'locals' as const } : {}),
        }));
        if (ref.taskId !== null) lineScopes.push({ name: 'Task', variablesReference: this.varRef({ kind: 'task', taskId: ref.taskId }), expensive: false });
        for (const [index, loop] of (await this.loopsAtStop()).entries()) lineScopes.push(programLoopScope(loop, this.varRef({ kind: 'programLoop', index, part: 'loop' })));
        response.body = { scopes: lineScopes };
        this.sendResponse(response);
      });
      return;
    }
    if (ref !== undefined) {
      if (ref.kind === 'coroutine') {
        scopes.push({ name: 'Locals', presentationHint: 'locals', variablesReference: this.varRef({ kind: 'locals', taskId: ref.taskId, frameIndex: ref.frameIndex }), expensive: false });
      }
      const taskId = ref.kind === 'loop' ? null : ref.taskId;
      if (taskId !== null) scopes.push({ name: 'Task', variablesReference: this.varRef({ kind: 'task', taskId }), expensive: false });
      if (ref.kind === 'creation' && ref.creatorId !== null) scopes.push({ name: 'Creator task', variablesReference: this.varRef({ kind: 'task', taskId: ref.creatorId }), expensive: false });
      if (ref.kind === 'loop' || (ref.kind === 'trace' && ref.taskId === null)) scopes.push({ name: 'Event loop', variablesReference: this.varRef({ kind: 'loop' }), expensive: false });
    }
    response.body = { scopes };
    this.sendResponse(response);
  }

  private variableOf(v: VariableInfo, evaluateName?: string): DebugProtocol.Variable {
    const out: DebugProtocol.Variable = { name: v.name, value: v.value, type: v.type, variablesReference: v.handle > 0 ? this.varRef({ kind: 'host', handle: v.handle }) : 0 };
    if (evaluateName !== undefined) out.evaluateName = evaluateName;
    return out;
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    this.serve(response, async () => {
      const ref = this.varRefs.get(args.variablesReference);
      let variables: DebugProtocol.Variable[] = [];
      if (ref === undefined) {
        variables = [];
      } else if (ref.kind === 'locals') {
        const detail = await this.detailOf(ref.taskId, true);
        const frame = detail.frames.find((f) => f.index === ref.frameIndex);
        variables = (frame?.locals ?? []).map((l) => this.variableOf(l, l.name));
      } else if (ref.kind === 'line') {
        const r = await this.requireHost().endpoint.request('lineVariables', { handle: ref.handle });
        variables = r.variables.map((l) => ({ name: l.name, value: l.value, type: l.type, variablesReference: l.handle > 0 ? this.varRef({ kind: 'line', handle: l.handle }) : 0 }));
      } else if (ref.kind === 'host') {
        const r = await this.requireHost().endpoint.request('variables', { handle: ref.handle });
        variables = r.variables.map((l) => this.variableOf(l));
      } else if (ref.kind === 'programLoop') {
        const loop = (await this.loopsAtStop())[ref.index];
        variables = loop === undefined ? [] : programLoopVariables(loop, ref.part, (part) => this.varRef({ kind: 'programLoop', index: ref.index, part }));
      } else if (ref.kind === 'task') {
        const detail = await this.detailOf(ref.taskId, false).catch(() => null);
        const summary = detail?.task ?? this.tasks.tasks.get(ref.taskId);
        variables = summary === undefined ? [] : taskScopeVariables(summary, detail, this.nameOf);
      } else {
        await this.refreshTasks().catch(() => undefined);
        const v = (name: string, value: string): DebugProtocol.Variable => ({ name, value, variablesReference: 0 });
        const loop = this.loopState();
        variables = [v('tick', String(loop.tick)), v('paused', String(loop.paused)), ...Object.entries(this.tasks.counts).map(([state, n]) => v(`tasks ${state}`, String(n)))];
        const p = this.tasks.progress;
        if (p !== null) variables.push(v('crawl', `${p.done} done, ${p.queued} queued, ${p.inFlight} in flight, ${p.errors} errors, ${p.seen} seen`));
      }
      const start = args.start ?? 0;
      response.body = { variables: args.count !== undefined && args.count > 0 ? variables.slice(start, start + args.count) : variables.slice(start) };
      this.sendResponse(response);
    });
  }

  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    this.serve(
      response,
      async () => {
        const ref = args.frameId !== undefined ? this.frameRefs.get(args.frameId) : undefined;
        if (ref?.kind === 'line' || (ref === undefined && this.currentStop?.line !== undefined)) {
          // Stopped on a line: evaluate in the real frame (its locals, closures, `this`).
          const r = await this.requireHost().endpoint.request('lineEvaluate', { expression: args.expression, frameIndex: ref?.kind === 'line' ? ref.frameIndex : 0 });
          response.body = { result: r.value, type: r.type, variablesReference: r.handle > 0 ? this.varRef({ kind: 'line', handle: r.handle }) : 0 };
          this.sendResponse(response);
          return;
        }
        const params: HostMethods['evaluate']['params'] = { expression: args.expression };
        if (ref?.kind === 'coroutine') {
          params.taskId = ref.taskId;
          params.frameIndex = ref.frameIndex;
        }
        const r = await this.requireHost().endpoint.request('evaluate', params);
        response.body = { result: r.value, type: r.type, variablesReference: r.handle > 0 ? this.varRef({ kind: 'host', handle: r.handle }) : 0 };
        this.sendResponse(response);
      },
      ERR_EVALUATE,
    );
  }

  // --- execution --------------------------------------------------------------------------------

  /** Answers an execution request at once, then asks the host; a refusal is shown and the stop restored. */
  private execute(response: DebugProtocol.Response, threadId: number | null, action: (host: HostProcess) => Promise<unknown>, resumes: boolean): void {
    let host: HostProcess;
    try {
      host = this.requireHost();
    } catch (e) {
      this.fail(response, ERR_NOT_RUNNING, message(e));
      return;
    }
    const previous = this.currentStop;
    this.requestedThread = threadId === CALLBACK_THREAD_ID ? LOOP_THREAD_ID : threadId;
    // The live program goes on (or a line step moves through the past lines: the live stop stays held).
    if (resumes && !this.onPastLine) this.liveLineStop = null;
    if (resumes) this.resumed();
    this.sendResponse(response);
    action(host).catch((e: unknown) => {
      this.output(`Coroscope: ${response.command} failed: ${message(e)}`, 'stderr');
      if (resumes && previous !== null && host.isAlive() && this.showsRun()) {
        // Nothing moved: show the same stop again.
        this.currentStop = previous;
        this.sendEvent(stoppedEventOf(previous));
      }
    });
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse): void {
    response.body = { allThreadsContinued: true };
    const pos = this.position();
    switch (pos.kind) {
      case 'end':
      case 'recording':
        if (!canStepForward(pos)) {
          // Nothing comes after a finished run's end: Continue ends the session.
          this.sendResponse(response);
          this.endSession(this.finishedRun?.ok ?? true);
          return;
        }
        this.continueInPast(response);
        return;
      case 'pastTick':
      case 'pastHit':
        this.continueInPast(response);
        return;
      case 'pastLine':
        // Through the past up to the live line stop held (not known: the live run goes on).
        if (pos.live !== null) this.continueInPast(response);
        else this.execute(response, null, (h) => h.endpoint.request('continue', {}), true);
        return;
      case 'running':
      case 'paused':
      case 'liveLine':
        this.execute(response, null, (h) => h.endpoint.request('continue', {}), true);
        return;
    }
  }

  /**
   * Continue from the past: to the earliest after the moment shown of the stops this session
   * saw, the exceptions recorded and the hits of the line breakpoints set now (replayed: a line
   * stop in the past), else back to the present.
   */
  private continueInPast(response: DebugProtocol.ContinueResponse): void {
    const threadId = this.currentStop?.threadId ?? LOOP_THREAD_ID;
    this.serve(response, async () => {
      const now = await this.momentShown();
      const candidates = await this.stopCandidates();
      const from = this.forwardFrom(now);
      const next = this.towardPresent(nextOf(candidates.keys(), from));
      const presentStop = this.presentStop ?? this.liveLineStop;
      const present = presentStop?.tick ?? this.recordedTicks;
      // Hits up to the next stop's tick come before it; in a live line stop's own tick, the host's search ends at that stop.
      const ceiling = next ?? present;
      const landing = ceiling > from ? await this.searchHit('forward', now, { ceiling: Math.max(0, ceiling) }) : null;
      if (landing?.landed === 'line') {
        this.sendResponse(response);
        this.showHit(landing, threadId);
        return;
      }
      // A loop breakpoint's hit at the present's own tick is the present's stop.
      if (landing?.landed === 'tick' && this.towardPresent(landing.tick) !== null) {
        this.landOnSuspensionHit(response, landing);
        return;
      }
      if (next === null && this.viewedTick === null && this.liveLineStop !== null) {
        // From a past line of the live line stop, nothing stops before it: that stop again, as it was (the live program is held there; a second Continue runs it on).
        this.backToLiveLine(response);
        return;
      }
      this.landOn(response, threadId, candidates, next);
    });
  }

  /** Leaves the past lines of the live line stop for that stop (the host's seekTick to the present: its `paused` shows it, in its own reason). */
  private backToLiveLine(response: DebugProtocol.Response): void {
    const live = this.liveLineStop!;
    const host = this.requireHost();
    this.output(`Coroscope: nothing stops between the past line shown and the live stop at tick ${live.tick}: back to the live stop (Continue again runs the program on)`);
    const keep = this.keepPosition();
    const restore = (): StopInfo | null => {
      this.continuedToLive = null;
      return keep();
    };
    this.continuedToLive = live;
    this.requestedThread = live.threadId;
    this.resumed();
    void this.answerOnceMoved(response, restore, async () => {
      await host.endpoint.request('seekTick', { tick: null });
    });
  }

  /** A hit of a breakpoint on a suspension point, found in the past: the live run stopped after its tick, so the views go there, on its task's thread, in its live words. */
  private landOnSuspensionHit(response: DebugProtocol.Response, landing: Extract<BreakpointHitLanding, { landed: 'tick' }>): void {
    this.travelTo(response, landing.taskId, 'breakpoint', async () => landing.tick, landing.description);
  }

  /** Moves the views to a recorded stop's tick (null: the present), shown on its task's thread and in its words when the recording says them. */
  private landOn(response: DebugProtocol.Response, threadId: number, candidates: ReadonlyMap<number, PastStop | null>, tick: number | null): void {
    const stop = tick === null ? null : (candidates.get(tick) ?? null);
    this.travelTo(response, stop?.threadId ?? threadId, stop?.reason ?? 'goto', async () => tick, stop?.said);
  }

  /** The tick forward steps count from: at a hit or a past line shown (mid-tick), the tick before its own (its tick's end is still ahead). */
  private forwardFrom(now: number): number {
    return forwardFrom(this.position(), now);
  }

  // --- time travel ------------------------------------------------------------------------------

  /**
   * Moves every view of the run to a tick (null: the present) that `target` computes from the
   * tick shown now; a refusal (a thrown Error) is the request's error response. The response
   * goes before the host moves (the `stopped` comes with its viewedTick event).
   */
  private travelTo(response: DebugProtocol.Response, threadId: number, reason: TravelReason, target: (now: number) => Promise<number | null>, said?: string): void {
    this.serve(response, async () => {
      // At a stop on a line too: the host's line replay serves the past while the stop holds the thread.
      const stop = this.currentStop;
      const host = this.requireHost();
      if (this.viewedTick === null) await this.refreshTasks();
      // At a finished run's end: its last recorded tick (the loop's count may stop short of it).
      const now = this.viewedTick ?? (stop?.reason === 'end' ? stop.tick : this.tasks.tick);
      const tick = await target(now);
      if (tick === null && this.viewedTick === null) throw new Error(`${response.command}: already at the present`);
      const restore = this.keepPosition();
      if (this.viewedTick === null) this.presentStop = this.liveLineStop ?? stop;
      this.travel = said === undefined ? { reason, threadId } : { reason, threadId, said };
      this.resumed();
      // Answered once replayed: this session shows the tick's stacks with positions and locals, so it waits for them as it always did.
      await this.answerOnceMoved(response, restore, async () => {
        await host.endpoint.request('seekTick', { tick, replayed: true });
      });
    });
  }

  /** A tick forward from the past, or the present (null) when the recording has nothing before the present's own stop. */
  private towardPresent(tick: number | null): number | null {
    const present = (this.presentStop ?? this.liveLineStop)?.tick ?? null;
    if (tick === null || tick > this.recordedTicks || (present !== null && tick >= present)) return null;
    return tick;
  }

  /** The task's lane of the recording's timeline. */
  private async laneOf(taskId: number, command: string): Promise<TimelineLane> {
    const tl = await this.requireHost().endpoint.request('timeline', { taskId });
    this.recordedTicks = tl.ticks;
    const lane = tl.lanes.find((l) => l.taskId === taskId);
    if (lane === undefined) throw new Error(`${command}: task #${taskId} is not in the recording`);
    return lane;
  }

  /**
   * Ticks a reverse continue (or a continue from the past) may land on, with how each is shown
   * when the recording says more than its tick: the stops this session saw, the task failures
   * (cancels) recorded while their exception filter is set, and the URLs the crawl recorded as
   * failed while `urlFailed` is (the first of a tick, as the live run stops on it).
   */
  private async stopCandidates(): Promise<Map<number, PastStop | null>> {
    const tl = await this.requireHost().endpoint.request('timeline', {});
    this.recordedTicks = tl.ticks;
    const ticks = new Map<number, PastStop | null>(this.stopTicks);
    // A task's failure or cancel: shown as the live run stops on it, on its task's thread.
    for (const m of tl.marks) {
      if (ticks.has(m.tick) || !((m.kind === 'exception' && this.exceptionBreaks.taskFailed) || (m.kind === 'cancel' && this.exceptionBreaks.taskCancelled))) continue;
      ticks.set(m.tick, m.taskId === undefined ? null : { threadId: m.taskId, reason: m.kind === 'cancel' ? 'cancelled' : 'exception' });
    }
    if (this.exceptionBreaks.urlFailed === true) {
      // The live run stops on a failed URL as on an exception (the host's urlFailed stop).
      for (const f of tl.urlFailures ?? []) if (!ticks.has(f.tick)) ticks.set(f.tick, { threadId: f.taskId ?? LOOP_THREAD_ID, reason: 'exception', said: f.description });
    }
    return ticks;
  }

  protected override stepBackRequest(response: DebugProtocol.StepBackResponse, args: DebugProtocol.StepBackArguments): void {
    const threadId = args.threadId;
    const pos = this.position();
    switch (pos.kind) {
      case 'pastHit':
        // From the hit's line: the line before it (a hit without a line goes back as a tick).
        if (pos.stop?.line !== undefined) {
          this.stepAtHit(response, threadId, 'back');
          return;
        }
        break;
      case 'liveLine':
      case 'pastLine':
        if (pos.stop?.line !== undefined) {
          this.stepBackAtLine(response, threadId);
          return;
        }
        break;
      case 'running':
      case 'paused':
      case 'pastTick':
      case 'end':
      case 'recording':
        break;
    }
    this.travelTo(response, threadId, 'step', async (now) => {
      if (threadId >= LOOP_THREAD_ID) {
        if (now <= 1) throw new Error('Step Back: the recording starts at tick 1');
        return now - 1;
      }
      const lane = await this.laneOf(threadId, 'Step Back');
      const tick = previousSuspension(lane, now);
      if (tick === null) throw new Error(`Step Back: ${lane.name} (#${threadId}) is at its start (created at tick ${lane.createdTick}): it has no earlier suspension in the recording`);
      return tick;
    });
  }

  /**
   * At a stop on a line (a live one, or a past line shown): the line the task ran before,
   * replayed by the host's line replay (lineStepBack; its `paused` shows it); before the task's
   * first line of this step, the last line it ran of these frames' functions in an earlier step
   * (the host's walk into the step before, as from a hit: its `paused` too), and only when
   * there is none, its previous suspension (a seek, as from a tick). The run must be recorded:
   * asked first (its timeline), so a refusal is this request's error.
   */
  private stepBackAtLine(response: DebugProtocol.StepBackResponse, threadId: number): void {
    this.serve(response, async () => {
      const stop = this.currentStop!;
      const host = this.requireHost();
      const taskId = stop.taskId ?? threadId;
      // The task's lane: for its previous suspension, at its first line of this step (a task whose first step this is has none yet: its lines replay all the same).
      let lane: TimelineLane | null;
      try {
        lane = await this.laneOf(taskId, 'Step Back');
      } catch (e) {
        if (/not recorded/.test(message(e))) throw new Error(`Step Back needs a recorded run: launch with record (${message(e)})`);
        if (!/is not in the recording/.test(message(e))) throw e;
        lane = null;
      }
      const restore = this.keepPosition();
      // From the live stop itself: it is kept while its past lines are shown (Continue comes back to it).
      if (!this.onPastLine) this.liveLineStop = stop;
      this.requestedThread = threadId;
      this.resumed();
      await this.answerOnceMoved(response, restore, async () => {
        const landing = await host.endpoint.request('lineStepBack', {});
        if (landing.landed !== 'suspension') return;
        const tick = lane === null ? null : previousSuspension(lane, stop.tick);
        // The first line of the task's first step: nothing of it ran before (as Step Back between suspensions says at its first).
        if (tick === null && lane !== null) throw new Error(`Step Back: ${lane.name} (#${taskId}) is at its start (created at tick ${lane.createdTick}): ${landing.why ?? 'nothing of it ran before'}`);
        if (tick === null) throw new Error(`Step Back: task #${taskId} has no earlier suspension in the recording`);
        if (landing.why !== undefined) this.output(`Coroscope: before ${this.nameOf(taskId) ?? `task #${taskId}`}'s first line of its step at tick ${stop.tick}: its previous suspension, at tick ${tick} (${landing.why})`);
        this.presentStop = this.liveLineStop ?? stop;
        this.travel = { reason: 'step', threadId };
        await host.endpoint.request('seekTick', { tick, replayed: true });
      });
    });
  }

  /**
   * To the latest before the moment shown of: the stops this session saw and the exceptions
   * recorded (a tick), and the hits of the line breakpoints set now, found by replaying the
   * recording with them armed (the host's pastBreakpointHit: a line stop in the past, shown
   * with its frames and locals). Refused, naming the breakpoints, when there is none.
   */
  protected override reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse, args: DebugProtocol.ReverseContinueArguments): void {
    this.serve(response, async () => {
      const now = await this.momentShown();
      const candidates = await this.stopCandidates();
      const tick = previousOf(candidates.keys(), now);
      const landing = await this.searchHit('back', now, tick === null ? {} : { floor: tick });
      if (landing.landed === 'line') {
        this.sendResponse(response);
        this.showHit(landing, args.threadId);
        return;
      }
      if (landing.landed === 'tick') {
        this.landOnSuspensionHit(response, landing);
        return;
      }
      // Line stops the run made at breakpoints no longer set still count (as their ticks).
      const earlier = previousOf(tick === null ? this.lineStopTicks : [tick, ...this.lineStopTicks], now);
      if (earlier === null) {
        const armed = landing.breakpoints.map((b) => `${b.file}:${b.line}`);
        if (this.pastHit !== null && this.currentStop !== null) {
          // The replay host stopped on the hit shown again (the search replayed past it): its frames are new.
          const shown = this.currentStop;
          this.invalidate();
          setImmediate(() => {
            if (this.currentStop === shown) this.sendEvent(stoppedEventOf(shown));
          });
        }
        const filters = Object.entries(this.exceptionBreaks).filter(([, on]) => on === true).map(([f]) => f);
        const what = this.exceptionBreaks.urlFailed === true ? ', an exception or a failed URL' : ' or an exception';
        throw new Error(`Reverse Continue: no stop at a breakpoint${what} before tick ${now} in the recording (exception filters: ${filters.length > 0 ? filters.join(', ') : 'none'})${armed.length > 0 ? `, and no hit of the breakpoint${armed.length > 1 ? 's' : ''} at ${armed.join(', ')} before it (replayed)` : ' (no line breakpoint is set)'}`);
      }
      this.landOn(response, args.threadId, candidates, earlier);
    });
  }

  /** The tick shown now: a past tick, a hit's, a finished run's end, or the present's tick. */
  private async momentShown(): Promise<number> {
    if (this.pastHit !== null) return this.pastHit.tick;
    if (this.viewedTick !== null) return this.viewedTick;
    const stop = this.currentStop;
    if (stop?.reason === 'end') return stop.tick;
    if (stop?.line !== undefined) return stop.tick;
    await this.refreshTasks();
    return this.tasks.tick;
  }

  /** Asks the host for a line breakpoint's hit in the past (its viewedTick, when it moves the views, is this search's). */
  private async searchHit(direction: 'back' | 'forward', tick: number, bounds: { floor?: number; ceiling?: number }): Promise<BreakpointHitLanding> {
    this.hitTravel = true;
    try {
      return await this.requireHost().endpoint.request('pastBreakpointHit', { direction, tick, ...bounds });
    } catch (e) {
      if (/not recorded/.test(message(e))) throw new Error(`${direction === 'back' ? 'Reverse Continue' : 'Continue'} needs a recorded run: launch with record (${message(e)})`);
      throw e;
    } finally {
      this.hitTravel = false;
    }
  }

  /** Shows a hit found in the past as a line stop (its frames and locals are the replay host's), the views at its tick. */
  private showHit(landing: Extract<BreakpointHitLanding, { landed: 'line' }>, threadId: number): void {
    if (this.viewedTick === null && this.pastHit === null) this.presentStop = this.liveLineStop ?? this.currentStop;
    this.viewedTick = landing.tick;
    this.pastHit = { tick: landing.tick };
    this.invalidate();
    this.tasks.clear();
    const thread = landing.taskId ?? threadId;
    const stop: StopInfo = { reason: 'breakpoint', tick: landing.tick, taskId: landing.taskId ?? undefined, threadId: thread, description: landing.description };
    if (landing.line !== null) stop.line = landing.line;
    this.currentStop = stop;
    this.tasks.paused = true;
    this.output(`Coroscope: ${landing.description}`);
    this.flushThreadEvents();
    this.sendEvent(stoppedEvent('breakpoint', thread));
    this.tasksChanged();
  }

  /** Shows a line reached by a line move from the hit shown: a line stop in the past, the views at its tick. */
  private showHitLine(b: HostEvents['paused']): void {
    const stop = this.stopOf(b);
    this.pastHit = { tick: b.tick };
    this.viewedTick = b.tick;
    this.invalidate();
    this.tasks.clear();
    this.currentStop = stop;
    this.tasks.paused = true;
    this.output(`Coroscope: ${b.description}`);
    this.flushThreadEvents();
    this.sendEvent(stoppedEvent('step', stop.threadId));
    if (stop.threadId !== LOOP_THREAD_ID) this.sendEvent(loopStoppedEvent('step', pastTickLabel(b.tick, this.recordedTicks)));
    this.tasksChanged();
  }

  /**
   * At a breakpoint hit shown in the past (or a line reached from it): steps by line through
   * its task's replayed lines (the host's lineStep / lineStepBack there, pastHitLine): back to
   * the line before, over / into / out forward past the hit, across the task's suspensions
   * (its next line once resumed). The line is shown by its `paused`; before the task's first
   * line of the step, its previous suspension (a seek); with no later line in the recording,
   * the present.
   */
  private stepAtHit(response: DebugProtocol.Response, threadId: number, move: 'back' | 'over' | 'into' | 'out'): void {
    this.serve(response, async () => {
      const stop = this.currentStop!;
      const host = this.requireHost();
      const taskId = stop.taskId ?? threadId;
      const lane = move === 'back' && taskId < LOOP_THREAD_ID ? await this.laneOf(taskId, 'Step Back').catch(() => null) : null;
      const restore = this.keepPosition();
      this.requestedThread = stop.threadId;
      this.hitMove = true;
      this.resumed();
      await this.answerOnceMoved(response, restore, async () => {
        const landing = move === 'back' ? await host.endpoint.request('lineStepBack', {}) : (await host.endpoint.request('lineStep', { kind: move })).landing;
        this.hitMove = false;
        if (landing === undefined || landing.landed === 'line') return;
        let tick: number | null = null;
        if (landing.landed === 'suspension') {
          tick = lane === null ? null : previousSuspension(lane, stop.tick);
          if (tick === null) throw new Error(`${this.nameOf(taskId) ?? `task #${taskId}`} has no earlier suspension in the recording${landing.why !== undefined ? ` (${landing.why})` : ''}`);
          this.output(`Coroscope: before ${this.nameOf(taskId) ?? `task #${taskId}`}'s first line of its step at tick ${stop.tick}: its previous suspension, at tick ${tick}${landing.why !== undefined ? ` (${landing.why})` : ''}`);
        } else {
          this.output('Coroscope: the recording has no later line of this task: back to the present');
        }
        // Off the lines: a past tick, or the present.
        this.pastHit = null;
        this.travel = { reason: 'step', threadId: stop.threadId };
        if (tick === null && this.viewedTick === null) return;
        await host.endpoint.request('seekTick', { tick, replayed: true });
      });
    });
  }

  /** Refuses a forward step at a finished run's end (nothing comes after it); true when refused. */
  private refusedAtEnd(response: DebugProtocol.Response, what: string): boolean {
    if (canStepForward(this.position())) return false;
    this.fail(response, ERR_NOT_RUNNING, `${what}: the run finished at tick ${this.recordedTicks}, nothing comes after it: Step Back or Reverse Continue go into its past, Continue ends the session`, true);
    return true;
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse, args: DebugProtocol.PauseArguments): void {
    if (this.refusedAtEnd(response, 'Pause')) return;
    this.execute(response, args.threadId, (h) => h.endpoint.request('pause', {}), false);
  }

  /**
   * A forward step (next / stepIn / stepOut) by where the debugger stands: refused at the end,
   * by line from a hit's line, by tick or suspension from a past tick (`fromPast`), by line at
   * a stop on a line (live, or through its past lines), else by the live run (`live`).
   */
  private stepForward(response: DebugProtocol.Response, threadId: number, kind: 'over' | 'into' | 'out', what: string, fromPast: () => void, live: () => void): void {
    const pos = this.position();
    switch (pos.kind) {
      case 'end':
      case 'recording':
        if (this.refusedAtEnd(response, what)) return;
        fromPast();
        return;
      case 'pastHit':
        if (pos.stop?.line !== undefined) this.stepAtHit(response, threadId, kind);
        else fromPast();
        return;
      case 'pastTick':
        fromPast();
        return;
      case 'pastLine':
        if (pos.stop?.line !== undefined) this.stepPastLine(response, threadId, kind);
        else live();
        return;
      case 'liveLine':
        this.execute(response, threadId, (h) => h.endpoint.request('lineStep', { kind }), true);
        return;
      case 'running':
      case 'paused':
        live();
        return;
    }
  }

  /** Through the past lines of the live line stop (the replay host's lineStep, answered once landed): a move in time. */
  private stepPastLine(response: DebugProtocol.Response, threadId: number, kind: 'over' | 'into' | 'out'): void {
    this.serve(response, async () => {
      const host = this.requireHost();
      const restore = this.keepPosition();
      this.requestedThread = threadId;
      this.resumed();
      await this.answerOnceMoved(response, restore, async () => {
        await host.endpoint.request('lineStep', { kind });
      });
    });
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.stepForward(
      response,
      args.threadId,
      'over',
      'Step Over',
      () => this.travelTo(response, args.threadId, 'step', async (now) => this.towardPresent(this.forwardFrom(now) + 1)),
      () => this.execute(response, args.threadId, (h) => h.endpoint.request('stepTick', {}), true),
    );
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    const taskId = args.threadId;
    this.stepForward(
      response,
      taskId,
      'into',
      'Step Into',
      () => this.travelTo(response, taskId, 'step', async (now) => (taskId >= LOOP_THREAD_ID ? this.towardPresent(this.forwardFrom(now) + 1) : this.towardPresent(nextSuspension(await this.laneOf(taskId, 'Step Into'), this.forwardFrom(now))))),
      () => this.execute(response, taskId, (h) => (taskId >= LOOP_THREAD_ID ? h.endpoint.request('stepTick', {}) : h.endpoint.request('stepTask', { taskId })), true),
    );
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    const taskId = args.threadId;
    this.stepForward(
      response,
      taskId,
      'out',
      'Step Out',
      // From a past tick: to the suspension where the current frame has returned (or the task's end), by the recorded frame chains.
      () =>
        this.travelTo(response, taskId, 'step', async (now) => {
          if (taskId >= LOOP_THREAD_ID) return this.towardPresent(this.forwardFrom(now) + 1);
          const lane = await this.laneOf(taskId, 'Step Out');
          if (!laneHasFrames(lane)) throw new Error(`Step Out: the recording of ${lane.name} (#${taskId}) holds no frames (recorded without coroutine tracking, "inspect": false): Step Into goes to its next suspension`);
          return this.towardPresent(frameReturn(lane, this.forwardFrom(now)));
        }),
      () => {
        // The current frame is the innermost of the chain (depth = chain length - 1).
        const depth = Math.max(0, (this.tasks.tasks.get(taskId)?.frames.length ?? 1) - 1);
        this.execute(response, taskId, (h) => (taskId >= LOOP_THREAD_ID ? h.endpoint.request('stepTick', {}) : h.endpoint.request('stepOut', { taskId, depth })), true);
      },
    );
  }

  // --- breakpoints ------------------------------------------------------------------------------

  protected override setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    this.serve(response, async () => {
      const path = args.source.path;
      const requested: DebugProtocol.SourceBreakpoint[] = args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
      const ids = requested.map(() => this.nextBreakpointId++);
      if (path === undefined) {
        response.body = { breakpoints: requested.map((b, i) => ({ id: ids[i], verified: false, line: b.line, message: 'Coroscope only sets breakpoints in files on disk' })) };
        this.sendResponse(response);
        return;
      }
      if (this.host === null || !this.host.isAlive()) {
        // Before launch: kept, applied (and reported with breakpoint events) once the host runs.
        this.pendingBreakpoints.set(resolve(this.convertClientPathToDebugger(path)), { args, ids });
        response.body = { breakpoints: requested.map((b, i) => ({ id: ids[i], verified: false, line: b.line, message: 'set when the run starts' })) };
        this.sendResponse(response);
        return;
      }
      response.body = { breakpoints: await this.applyBreakpoints(args, ids) };
      this.sendResponse(response);
    });
  }

  private async applyBreakpoints(args: DebugProtocol.SetBreakpointsArguments, ids: number[]): Promise<DebugProtocol.Breakpoint[]> {
    const clientPath = args.source.path!;
    const file = resolve(this.convertClientPathToDebugger(clientPath));
    const requested: DebugProtocol.SourceBreakpoint[] = args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
    const breakpoints = requested.map((b) => {
      const bp: HostMethods['setBreakpoints']['params']['breakpoints'][number] = { file, line: this.convertClientLineToDebugger(b.line) };
      if (b.condition !== undefined && b.condition !== '') bp.condition = b.condition;
      if (b.hitCondition !== undefined && b.hitCondition !== '') bp.hitCondition = b.hitCondition;
      if (b.logMessage !== undefined && b.logMessage !== '') bp.logMessage = b.logMessage;
      return bp;
    });
    const r = await this.requireHost().endpoint.request('setBreakpoints', { file, breakpoints });
    const lines = new Set<number>();
    const out = r.breakpoints.map((s, i): DebugProtocol.Breakpoint => {
      if (s.verified) lines.add(s.line);
      const bp: DebugProtocol.Breakpoint = { id: ids[i], verified: s.verified, line: this.convertDebuggerLineToClient(s.line), source: { ...args.source, path: clientPath } };
      if (s.message !== undefined) bp.message = s.message;
      return bp;
    });
    if (lines.size > 0) this.breakpointLines.set(file, lines);
    else this.breakpointLines.delete(file);
    return out;
  }

  protected override setExceptionBreakPointsRequest(response: DebugProtocol.SetExceptionBreakpointsResponse, args: DebugProtocol.SetExceptionBreakpointsArguments): void {
    this.serve(response, async () => {
      const filters = new Set([...args.filters, ...(args.filterOptions ?? []).map((o) => o.filterId)]);
      this.exceptionBreaks = { taskFailed: filters.has('taskFailed'), taskCancelled: filters.has('taskCancelled'), urlFailed: filters.has('urlFailed') };
      if (this.host !== null && this.host.isAlive()) await this.host.endpoint.request('setExceptionBreaks', this.exceptionBreaks);
      response.body = { breakpoints: [...filters].map(() => ({ verified: true })) };
      this.sendResponse(response);
    });
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse, args: DebugProtocol.ExceptionInfoArguments): void {
    const stop = this.currentStop;
    if (args.threadId === CALLBACK_THREAD_ID) {
      this.serve(response, async () => {
        const cb = await this.callbackStageTrace();
        if (cb === null) throw new Error('no callback-stage trace at this stop');
        response.body = exceptionInfoOf(cb, 'always');
        this.sendResponse(response);
      });
      return;
    }
    const tb = args.threadId === LOOP_THREAD_ID ? this.callbackFailure : (this.exceptions.get(args.threadId) ?? null);
    const caught = stop !== null && stop.taskId === args.threadId && stop.reason === 'exception' && this.tasks.tasks.get(args.threadId)?.state !== 'failed';
    const breakMode: DebugProtocol.ExceptionBreakMode = stop?.reason === 'cancelled' || caught ? 'always' : 'unhandled';
    if (tb !== null) {
      response.body = exceptionInfoOf(tb, breakMode);
    } else if (stop !== null && stop.threadId === args.threadId && (stop.reason === 'exception' || stop.reason === 'cancelled')) {
      const { name } = stop.reason === 'cancelled' ? { name: 'CancelledError' } : splitError(stop.description.replace(/^.*?failed: /, ''));
      response.body = { exceptionId: name, description: stop.description, breakMode };
    } else {
      this.fail(response, ERR_NOT_RUNNING, 'no exception on this thread');
      return;
    }
    this.sendResponse(response);
  }

  // --- sources --------------------------------------------------------------------------------

  /** The TypeScript files of the host's bundle (from its source map), plus those frames showed. */
  private sources(): Map<string, DebugProtocol.Source> {
    if (this.loadedSources !== null) return this.loadedSources;
    const out = new Map<string, DebugProtocol.Source>();
    try {
      const mapPath = `${this.options.hostScript}.map`;
      const map: unknown = JSON.parse(readFileSync(mapPath, 'utf8'));
      const m = (typeof map === 'object' && map !== null ? map : {}) as { sources?: unknown; sourceRoot?: unknown };
      const root = resolve(dirname(mapPath), typeof m.sourceRoot === 'string' ? m.sourceRoot : '');
      if (Array.isArray(m.sources)) {
        for (const s of m.sources as unknown[]) {
          if (typeof s !== 'string' || s.includes('node_modules') || !/\.[cm]?ts$/.test(s)) continue;
          const path = resolve(root, s);
          if (existsSync(path)) out.set(path, { name: path.split(/[\\/]/).pop()!, path });
        }
      }
    } catch {
      // No source map next to the host: only the files frames show.
    }
    this.loadedSources = out;
    return out;
  }

  private noteSources(drafts: readonly FrameDraft[]): void {
    const known = this.sources();
    for (const d of drafts) {
      const s = d.frame.source;
      if (s?.path === undefined || known.has(s.path)) continue;
      const source: DebugProtocol.Source = { name: s.name ?? s.path, path: s.path };
      known.set(s.path, source);
      this.sendEvent(new LoadedSourceEvent('new', source));
    }
  }

  protected override loadedSourcesRequest(response: DebugProtocol.LoadedSourcesResponse): void {
    response.body = { sources: [...this.sources().values()].map((s) => ({ ...s, path: s.path === undefined ? undefined : this.convertDebuggerPathToClient(s.path) })) };
    this.sendResponse(response);
  }

  // --- custom requests ------------------------------------------------------------------------

  /** Cancels the tasks of the threads, on behalf of the debugger; the loop's threads are not tasks and finished tasks cannot be cancelled: refused. */
  protected override terminateThreadsRequest(response: DebugProtocol.TerminateThreadsResponse, args: DebugProtocol.TerminateThreadsArguments): void {
    this.serve(response, async () => {
      const ids = args.threadIds ?? [];
      if (ids.length === 0) throw new Error('Terminate Thread: no thread given');
      const notTasks = ids.filter((id) => id >= LOOP_THREAD_ID);
      if (notTasks.length > 0) throw new Error('Terminate Thread: the event loop and its callbacks are not tasks; only a task can be cancelled');
      const host = this.requireHost();
      const finished: number[] = [];
      for (const taskId of ids) if (!(await host.endpoint.request('cancelTask', { taskId, by: 'debugger' })).cancelled) finished.push(taskId);
      if (finished.length > 0) throw new Error(`Terminate Thread: task ${finished.map((id) => `#${id}`).join(', ')} had already finished; nothing to cancel`);
      this.sendResponse(response);
    });
  }

  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    if (command === TASKS_REQUEST) {
      this.serve(response, async () => {
        await this.refreshTasks().catch(() => undefined);
        const body: TasksBody = { tasks: this.tasks.allTasks(), tick: this.tasks.tick, paused: this.loopState().paused, running: this.loopState().running };
        response.body = body;
        this.sendResponse(response);
      });
    } else if (command === LINE_STEP_MODE_REQUEST) {
      this.serve(response, async () => {
        const mode = narrowLineStepMode(args);
        if (mode === null) throw new Error(`${LINE_STEP_MODE_REQUEST}: "mode" must be "stayWithTask" or "followLoop"`);
        await this.requireHost().endpoint.request('setLineStepMode', { mode });
        this.sendResponse(response);
      });
    } else if (command === TRACES_REQUEST) {
      this.serve(response, async () => {
        const a = (typeof args === 'object' && args !== null ? args : {}) as { url?: unknown };
        response.body = await this.requireHost().endpoint.request('traces', typeof a.url === 'string' ? { url: a.url } : {});
        this.sendResponse(response);
      });
    } else {
      super.customRequest(command, response, args);
    }
  }

  // --- ending -----------------------------------------------------------------------------------

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.serve(response, async () => {
      const h = this.host;
      this.sendResponse(response);
      if (h === null || !h.isAlive() || this.phase === 'finished' || this.phase === 'atEnd') {
        this.sendTerminated();
        return;
      }
      // The host answers `finished`, which sends `terminated`.
      await h.endpoint.request('stop', { by: 'debugger' });
      // In case the host's `finished` did not come (it sends terminated otherwise).
      this.sendTerminated();
    });
  }

  protected override restartRequest(response: DebugProtocol.RestartResponse, args: DebugProtocol.RestartArguments): void {
    this.serve(
      response,
      async () => {
        const host = this.requireHost();
        if (!this.owned) throw new Error('this session attached to a run another view launched: restart it from there (or launch it from Run and Debug)');
        const raw = args.arguments ?? null;
        const parsed = raw !== null ? parseLaunchArguments(raw, this.options.cwd) : this.launchArgs;
        if (parsed === null) throw new Error('nothing to restart: no launch yet');
        if ('error' in parsed) throw new Error(parsed.error);
        const wasRunning = this.phase === 'running';
        this.phase = 'restarting';
        this.endProgress('restarted');
        if (wasRunning) {
          const finished = new Promise<void>((r) => {
            this.restartDone = r;
          });
          await host.endpoint.request('stop', { by: 'debugger' });
          await Promise.race([finished, new Promise<void>((r) => setTimeout(r, 3000).unref())]);
          this.restartDone = null;
        }
        this.terminatedSent = false;
        if (this.currentStop !== null) this.sendEvent(new ContinuedEvent(LOOP_THREAD_ID, true));
        await this.launchRun(parsed);
        this.output(`Coroscope: restarted the ${parsed.description}`);
        this.sendResponse(response);
        this.sendEvent(new ThreadEvent('started', LOOP_THREAD_ID));
        await this.release(parsed);
        this.tasksChanged();
      },
      ERR_LAUNCH,
    );
  }

  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse, args: DebugProtocol.DisconnectArguments): void {
    this.serve(response, async () => {
      // A launched run ends with its session unless the client asks to leave it running; an
      // attached one goes on unless the client asks to end it.
      const endRun = args?.terminateDebuggee ?? this.owned;
      if (!endRun) await this.detach();
      await this.disposeHost(endRun);
      this.sendResponse(response);
      if (args?.restart !== true) this.shutdown();
    });
  }

  /** Leaves the run to its other views: drops this session's breakpoints and lets a paused run go. */
  private async detach(): Promise<void> {
    const run = this.run;
    const detachRun = this.detachRun;
    if (run === null || detachRun === null || !run.isAlive()) return;
    this.phase = 'disposed';
    const ep = run.endpoint;
    for (const file of this.breakpointLines.keys()) await ep.request('setBreakpoints', { file, breakpoints: [] }).catch(() => undefined);
    if (run.phase === 'paused') await ep.request('continue', {}).catch(() => undefined);
    this.detachRun = null;
    detachRun();
  }

  /** Ends the session's hold on its run; `endRun` (by default: a run it launched) ends the run and its host process, resolving once it is gone. */
  async disposeHost(endRun = this.owned): Promise<void> {
    this.phase = 'disposed';
    if (this.threadTimer !== null) clearTimeout(this.threadTimer);
    if (this.tasksChangedTimer !== null) clearTimeout(this.tasksChangedTimer);
    this.threadTimer = null;
    this.tasksChangedTimer = null;
    const run = this.run;
    const detachRun = this.detachRun;
    this.detachRun = null;
    if (run !== null && detachRun !== null) {
      if (endRun) await run.stop('debugger', 1500);
      detachRun();
    }
  }

  override shutdown(): void {
    void this.disposeHost().finally(() => super.shutdown());
  }

  override dispose(): void {
    void this.disposeHost();
    super.dispose();
  }
}
