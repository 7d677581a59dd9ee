// The runtime host protocol: what the host process (runtime/host) serves to its clients (the
// extension, the debug adapter, the CLI, tests), over protocol/rpc.ts. The host's internal
// methods for its line replay host are protocol/replay-host-protocol.ts, not under this version.
//
// Invariants:
// - PROTOCOL_VERSION goes up by one, in the same commit, whenever a message an older peer sends
//   or reads stops meaning the same; additions it never meets keep it. PROTOCOL_HISTORY says why.
// - A move of the viewed moment may carry `moment` (protocol/moment-ids.ts); the host echoes it on
//   the moment that request made, and on nothing else.
// - Summaries are cheap and incremental (snapshot deltas); details only on request. Positions
//   are TypeScript positions when a source map allows.

export const PROTOCOL_VERSION = 2;

/**
 * The host's preload, beside its bundle (dist/): whoever forks a host names it with `--require` first, and it
 * starts the host's line debugger worker while node loads the bundle (runtime/host/main-thread/host-preload.ts).
 */
export const HOST_PRELOAD_FILE = 'runtime-host-preload.js';

/** What each version changed that a peer of the one before would not understand. */
export const PROTOCOL_HISTORY: Readonly<Record<number, string>> = {
  1: 'the first version',
  2: "cancelTask requires `by` (who asks: 'inspector' | 'debugger' | 'cli'); TaskSummary.cancelledBy is a CancelOrigin, not a task id",
};

// --- data ---------------------------------------------------------------------------------

export type TaskState = 'scheduled' | 'running' | 'suspended' | 'done' | 'cancelled' | 'failed';

/** What a suspended task waits on. */
export interface AwaitInfo {
  /**
   * 'sleep', 'queue.get', 'queue.put', 'queue.join', 'lock', 'event', 'semaphore', 'socket.read',
   * 'socket.write', 'socket.connect', 'task', 'gather', 'waitFor', 'http.pool', ...
   */
  kind: string;
  /** Human-readable detail (a due time, a socket peer, a URL). */
  detail: string;
  /** The task awaited, when the future is a task. */
  taskId?: number;
  /** An id for the resource (queue, lock, socket) shared by all tasks waiting on it. */
  resourceId?: string;
}

export interface SourcePosition {
  /** Absolute path of the TypeScript (or JavaScript) file. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export interface TaskSummary {
  id: number;
  name: string;
  state: TaskState;
  steps: number;
  /**
   * Milliseconds spent running steps; null when not known: a past moment's (a replay's steps run in
   * another process, and recordings do not keep the run's), or a task created before the inspector.
   */
  busyMs: number | null;
  /** Milliseconds since it last resumed (null if never). */
  sinceResumedMs: number | null;
  /** Task that created it (null for the root). */
  createdBy: number | null;
  awaiting: AwaitInfo | null;
  /** Tasks waiting on this one. */
  awaitedBy: number[];
  /** Function names of its `yield*` chain, root first (cheap: no locals, no positions). */
  frames: string[];
  /** Where the innermost frame is suspended, when known without extra cost. */
  location?: SourcePosition;
  /** For finished tasks: a short description of the result or exception. */
  outcome?: string;
  /** Who asked first for the task's cancellation, from the moment it is asked (a live task too) and after it ended. */
  cancelledBy?: CancelOrigin;
}

/** Who can ask the host to cancel a task from outside the program (the `cancelTask` request says which). */
export type CancelRequester = 'inspector' | 'debugger' | 'cli';

/** Who cancels a task from outside any task: a tool (CancelRequester), or a crawl's own deadline (options.deadline). */
export type CancelCause = CancelRequester | 'deadline';

/**
 * Who asked for a task's cancellation: another task, a tool outside the program, the crawl's deadline, or
 * unknown (a callback, a timer).
 */
export type CancelOrigin = { kind: 'task'; taskId: number } | { kind: CancelCause } | { kind: 'unknown' };

export interface VariableInfo {
  name: string;
  /** A bounded preview of the value. */
  value: string;
  type: string;
  /** Non-zero when it has children: ask `variables` with it. */
  handle: number;
}

export interface FrameInfo {
  /** 0 = root of the chain (the task's coroutine); the last one is the innermost. */
  index: number;
  name: string;
  position: SourcePosition | null;
  /** The generated (bundled JS) position, as V8 reports it. */
  generated: SourcePosition | null;
  locals: VariableInfo[];
}

export interface TaskDetail {
  task: TaskSummary;
  frames: FrameInfo[];
  /** Tasks this one awaits transitively and those that await it. */
  awaitChain: number[];
  /** Where and by what the task was created. */
  createdAt: SourcePosition | null;
  /** For failed tasks. */
  traceback: Traceback | null;
  /**
   * Answered from a recording's event log while the replay to the past tick viewed is under
   * way (ViewedMoment.replayed false): frames by function name only (no positions, no
   * locals); asked again once the replay has landed, it has them.
   */
  fromLog?: true;
}

export interface TraceFrame {
  name: string;
  position: SourcePosition | null;
  /**
   * 'coroutine': a generator frame of the chain; 'callback': a plain function called by the loop; 'loop':
   * runtime machinery; 'native': node internals.
   */
  kind: 'coroutine' | 'callback' | 'loop' | 'native';
  /** True when the other trace of the pair lacks this frame (the contrast the panel marks). */
  missingInOther?: boolean;
}

export interface Traceback {
  title: string;
  /** 'ExceptionName: message'. */
  error: string;
  /** Outermost first, innermost (where it was raised) last, as Python prints them. */
  frames: TraceFrame[];
  /** The same as text, Python-style. */
  text: string;
}

export interface TracePair {
  url: string;
  coroutine: Traceback;
  callback: Traceback;
  /**
   * The run whose failure this is (its crawl failed at `url`); absent: a demonstration crawl of a demo site
   * of its own, made because no crawl run exists.
   */
  runId?: number;
}

export interface GraphNode {
  id: string;
  kind: 'task' | 'future' | 'resource';
  label: string;
  state?: TaskState;
  /** A resource's: the name the program gave it (the variable or attribute it was created into), when known. */
  name?: string;
  /** A resource's: where the program created it. */
  createdAt?: SourcePosition;
}
export interface GraphEdge {
  from: string;
  to: string;
  kind: 'awaits' | 'waitsOn' | 'holds';
  /** A 'holds' edge of a Lock: the program's line where the holder took it. */
  at?: SourcePosition;
}
export interface AwaitGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /**
   * Each deadlock: the ids of the nodes involved, why (and in one short line), and where to look (a holder's
   * acquire line, else a resource's creation line).
   */
  deadlocks: Array<{ nodes: string[]; reason: string; position?: SourcePosition; summary?: string }>;
}

export type LintKind = 'slowCallback' | 'neverAwaited' | 'destroyedPending' | 'neverYields' | 'lostWakeup' | 'deadlock';
export interface Lint {
  kind: LintKind;
  message: string;
  taskId?: number;
  seconds?: number;
  position?: SourcePosition;
  tick: number;
}

export interface CrawlProgress {
  done: number;
  queued: number;
  inFlight: number;
  errors: number;
  seen: number;
  excluded: number;
  seconds: number;
  rate: number;
  errorsByKind: Record<string, number>;
  /**
   * Optional: the pages finished since the previous progress event (at most 100, oldest
   * first), for the panel's list of crawled pages. Hosts that do not report them omit it.
   * `title` is the page's `<title>` text as the crawler decoded it: untrusted, shown as text.
   */
  recent?: CrawledPage[];
}

/** One URL the crawler finished. */
export interface CrawledPage {
  url: string;
  /** HTTP status, null when no response arrived. */
  status: number | null;
  title?: string;
  /** 'Name: message' when it failed. */
  error?: string;
}

export interface Snapshot {
  /** Increases with every change; pass it back as `since` to get only what changed. */
  version: number;
  /** True when `tasks` is the full list (first snapshot, or too much changed). */
  full: boolean;
  tick: number;
  paused: boolean;
  /** Tasks added or changed since `since` (all live and recently finished ones when full). */
  tasks: TaskSummary[];
  /** Ids of tasks dropped from the history since `since`. */
  removed: number[];
  counts: Record<TaskState, number>;
  progress: CrawlProgress | null;
  /**
   * Answered from a recording's event log while the replay to the past tick viewed is under
   * way (ViewedMoment.replayed false): every row as the replay will say it, except busyMs
   * (not in the log: null, as the replay says it too) and an await's resourceId (absent); no crawl progress
   * (null). Asked
   * again once the replay has landed, it is the replayed moment's.
   */
  fromLog?: true;
}

/** How the demo site answers: 'realistic' (responses come 100-800 ms late) or 'instant'. */
export type DemoLatency = 'realistic' | 'instant';

export function isDemoLatency(v: unknown): v is DemoLatency {
  return v === 'realistic' || v === 'instant';
}

export type LaunchTarget =
  | { kind: 'crawl'; urls: string[] }
  /** `latency`: 'realistic' (the default) or 'instant'. */
  | { kind: 'demo'; pages?: number; latency?: DemoLatency }
  | { kind: 'sample'; id: string }
  | { kind: 'program'; path: string; exportName?: string };

export interface LaunchOptions {
  maxTasks?: number;
  maxRedirect?: number;
  maxTries?: number;
  exclude?: string | null;
  strict?: boolean;
  robots?: boolean;
  /**
   * URLs queued at most (0: no limit), links followed at most this deep, seconds per request (the CLI's
   * --max-pages, --max-depth, --timeout).
   */
  maxPages?: number;
  maxDepth?: number;
  timeout?: number;
  /** Seconds the whole crawl may take (loop time): then it is cancelled, its cancel attributed to the deadline. */
  deadline?: number;
  /**
   * Seconds (loop time) after which the CLI prints a task dump (--dump-tasks-after): a timer of the run, kept
   * in its replays so they re-run the same ticks.
   */
  dumpTasksAfter?: number;
  /** Track frames (default true): without it only summaries are available. */
  inspect?: boolean;
  /** Pause before the first tick. */
  stopOnEntry?: boolean;
  /** Pause when a task fails / is cancelled (exception breakpoints). */
  breakOnTaskFailed?: boolean;
  breakOnTaskCancelled?: boolean;
  /** Record the run (clock, socket inputs, every task step): `saveRecording` writes it once the run has finished. */
  record?: boolean;
}

/** A recording file (`.corotrace`) and what it holds. */
/**
 * Where a live run's recording handed to a line replay host ends: bytes of its event log, clock readings and
 * socket bytes, and entries of its table notes and lints (a growth goes on from there).
 */
export interface RecordingMark {
  events: number;
  gaps: number;
  payload: number;
  details: number;
  awaitTasks: number;
  outcomes: number;
  cancels: number;
  lints: number;
}

export interface RecordingInfo {
  path: string;
  bytes: number;
  /** What ran: 'crawl', 'demo', 'sample' or 'program' (the launch target's kind). */
  program: string;
  ticks: number;
  steps: number;
  tasks: number;
  sockets: number;
  /** ISO date. */
  recordedAt: string;
}

// --- the timeline of a recorded run (`timeline`, `seekTick`) ---------------------------------

/** Who completed the future a task awaited: a task's id, an I/O callback, a timer, or another callback. */
export type Waker = number | 'io' | 'timer' | 'callback';

/**
 * One stretch of a task's life over ticks (inclusive bounds). A `running` segment spans the
 * ticks in which the task stepped; a `suspended` one starts at the tick whose step suspended
 * it and ends at the tick that completed what it awaited (`wokenTick`, its step comes the
 * tick after), or at the tick before its next step when no completion was recorded (a
 * cancel, a future done already); `scheduled`: created or ready, not yet stepped.
 */
export interface TimelineSegment {
  fromTick: number;
  toTick: number;
  state: 'scheduled' | 'running' | 'suspended';
  /**
   * Suspended: the kind of what it awaited (the task table's await kind: 'sleep', 'queue.get', 'socket.read',
   * 'task', ...).
   */
  awaiting?: string;
  /**
   * Suspended: the task table's detail of that await (AwaitInfo.detail: the socket, the delay, the awaited
   * task), when the host knows it (a run recorded there).
   */
  awaitDetail?: string;
  wokenTick?: number;
  wokenBy?: Waker;
  /** Still going at the timeline's last tick (toTick is that tick): a later fetch gives it again, longer. */
  open?: boolean;
  /**
   * Suspended, in a run recorded with frames: the function names of its `yield*` chain, root
   * first (the debugger's Step Out through the past). Only in a timeline asked for one task
   * (`taskId`), so the panel's whole timeline stays small.
   */
  frames?: string[];
  /**
   * With `frames`: how many of them, from the root, are the same calls as at the task's
   * previous suspension (going all along since); the others were called in between.
   */
  framesKept?: number;
}

/** One task's lane. Ids are the run's task ids (a replay gives its tasks the recorded ids). */
export interface TimelineLane {
  taskId: number;
  name: string;
  /** The task that created it (null: created outside any task). */
  parentId: number | null;
  /** 0: created before the first tick. */
  createdTick: number;
  /** Where it was created, when the host still knows (a live task of a live run). */
  createdSite?: SourcePosition;
  endTick: number | null;
  endState: 'done' | 'failed' | 'cancelled' | null;
  /** The first tick in which its cancellation was asked, and by whom. */
  cancelledTick?: number;
  cancelledBy?: CancelOrigin;
  /** Where `segments` starts in the lane's whole list (0 unless fetched with sinceTick). */
  segmentsFrom: number;
  segments: TimelineSegment[];
}

/**
 * Something that happened at a tick: I/O that arrived before it, timers fired in it, a task failing, a cancel
 * asked.
 */
export interface TimelineMark {
  tick: number;
  kind: 'io' | 'timer' | 'exception' | 'cancel';
  /** The task it concerns (exception, cancel). */
  taskId?: number;
  /** 'connect 127.0.0.1:8080', 'data 1460 bytes 127.0.0.1:8080', '2 timers', ... */
  detail: string;
}

/**
 * A recorded run over ticks and time. With `sinceTick`, only what changed after it: the
 * lanes that changed (each with the segments that changed: its whole list from index
 * `segmentsFrom` on, the open one last), the marks and tick times after it. A client merging
 * cuts its list of a lane's segments to segmentsFrom entries and appends the new ones.
 */
export interface Timeline {
  runId: number;
  /** Ticks recorded so far (the last tick the timeline covers). */
  ticks: number;
  sinceTick: number;
  /** Whether the run is still going (its timeline grows). */
  live: boolean;
  lanes: TimelineLane[];
  marks: TimelineMark[];
  /** Milliseconds since the first tick at which each tick began, for ticks sinceTick+1 .. ticks. */
  tickTimes: number[];
  /**
   * The URLs a crawl recorded as failed after sinceTick (with `taskId`, that task's), where the `urlFailed`
   * exception filter stops: the past's too (runtime/host/main-thread/url-failures.ts).
   */
  urlFailures?: UrlFailureMark[];
}

/**
 * A URL the crawler recorded as failed (its worker caught the error, so no task failed) in tick `tick`, by
 * task `taskId`.
 */
export interface UrlFailureMark {
  tick: number;
  taskId?: number;
  url: string;
  /** As the live stop says it: 'Task #3 "worker-2" failed to fetch http://…: Error: …'. */
  description: string;
}

/** What the views show: a past tick of the run (replayed), or null for the present. */
export interface ViewedMoment {
  runId: number;
  tick: number | null;
  /** Ticks recorded (the range a seek may ask for: 1 .. ticks). */
  ticks: number;
  /**
   * The moment is a line within the tick, replayed while a line stop holds the live main
   * thread (a past line, or a breakpoint hit found in the past, of the line replay host): the
   * views show it as that tick; a debugger shows the line itself (by its `paused`, or the
   * pastBreakpointHit answer), not a tick.
   */
  line?: boolean;
  /**
   * A past tick only. false: known from the recording's event log, its replay under way:
   * snapshot and taskDetail without locals answer at once from the log (Snapshot.fromLog,
   * TaskDetail.fromLog), the requests that need the replayed program (taskDetail with locals,
   * variables, graph, evaluate) wait for it. A `viewedTick` event with true follows when it
   * has landed (for the tick still viewed), for the views to read frames with positions and
   * locals. true (or absent): replayed.
   */
  replayed?: boolean;
  /**
   * With replayed false: the replay to this tick failed, and why (positions and locals cannot be shown; the
   * log's table stands).
   */
  replayError?: string;
  /**
   * The id of the request that made this moment (seekTick's, or a line move's `moment`),
   * echoed on its answer and on each `viewedTick` it causes (its replay landing too); absent
   * when no request with an id made it (a live stop, the run going on, an anonymous seek).
   */
  moment?: string;
  /**
   * With `line`, a breakpoint hit found in the past: its stop as its `paused` would say it (a past line reached
   * by a step says it by its own `paused`), so every view names the same task.
   */
  stop?: { reason: StopReason; taskId?: number; description: string };
}

export interface Breakpoint {
  file: string;
  line: number;
  condition?: string;
  hitCondition?: string;
  /** A logpoint: print this (with `{expression}` parts evaluated) instead of stopping. Line breakpoints only. */
  logMessage?: string;
}
export interface BreakpointStatus {
  file: string;
  line: number;
  verified: boolean;
  message?: string;
}

/**
 * Line debugging (a host started with a client pipe, see runtime/host/main-thread/main.ts): a breakpoint
 * on a line without `yield` stops the host's main thread on that line, mid-tick, through
 * node:inspector. While so stopped every query is answered; the loop-level steps (stepTick,
 * stepTask, stepOut) are refused, the line steps below move.
 */
export type LineStepKind = 'over' | 'into' | 'out';
/** Where stepping over a `yield*` that suspends lands: the same task's next line, or the next line run by any task. */
export type LineStepMode = 'stayWithTask' | 'followLoop';

/**
 * A stop on a line as the line replay matches it (runtime/host/worker/line-replay-host.ts): its frames
 * outside the runtime's machinery, innermost first, by generated position (0-based; the
 * replay host runs the same scripts), the innermost frame's locals as shown, and every break
 * location of the frames' functions, where the replay stops to walk the task's lines.
 */
export interface LineStopPrint {
  frames: Array<{ url: string; functionLine: number; functionColumn: number; line: number; column: number }>;
  locals: Array<{ name: string; value: string }>;
  locations: Array<{ url: string; line: number; column: number }>;
  /**
   * The frames' function names, innermost first: a step back before the first line of a step finds the task's
   * step that ran one of them by the recorded frame chains.
   */
  names?: string[];
}

/** A value watched for a change (lineValuesBack): an expression read in the frame of a function at a depth. */
export interface LineWatched {
  expression: string;
  functionName: string;
  /** The frame's depth from the stack's root (0: the outermost frame shown). */
  depth: number;
}

/** One reading of a watched value at a line (lineValuesBack). */
export type LineReading = { reachable: true; value: string; type: string } | { reachable: false; why: string };

/**
 * The watched values at the last line the task ran in its step before the stop's (lineValuesBack `earlier`):
 * that step's tick, the line (null: no source), the readings there.
 */
export interface LineReadingBefore {
  tick: number;
  line: SourcePosition | null;
  readings: LineReading[];
}

/** Where a move through the replayed lines of a task's step landed (pastLine, lineStepBack). */
export type PastLineLanding =
  /**
   * A past line, replayed: a `paused` event (reason 'step') shows it; lineStack, lineVariables,
   * lineEvaluate answer for it. From a breakpoint hit (pastHitLine) it may be in another tick:
   * `tick`, and the task that runs it (`taskId`, named `task`); `note` says why it is there
   * when that is not plain (the last line of the task's step before the one stepped back from). `said`: what a
   * forward line step printed on its way there, as live (its task's suspension, what the loop ran meanwhile).
   */
  | {
      landed: 'line';
      line: SourcePosition | null;
      tick?: number;
      taskId?: number;
      task?: string;
      note?: string;
      /**
       * A step back from the task's very first line (its first step's): nothing of it ran before, the walk is on
       * that line again, and the move is refused (never a success that did not move).
       */
      atStart?: true;
      said?: string[];
      /** The logpoints' messages a forward step met on its way (its landing's included), printed as live. */
      printed?: string[];
      /**
       * A breakpoint's hit the step stopped at on its way (its description), as the live step stops at one: a
       * step from a hit's line that ran on past its task's lines (its coroutine returned); or the landing's own
       * line holds a breakpoint hit there (the live step says 'breakpoint' there too).
       */
      breakpoint?: string;
    }
  /**
   * The live stop again (the present); from a breakpoint hit, a step that found no later line in the recording.
   * `ranOnFrom` (a replay host's answer to the worker): the line the forward step left, for the breakpoint hits
   * after it that the step, run on as live, stops at first.
   */
  | { landed: 'present'; said?: string[]; printed?: string[]; ranOnFrom?: HitBound }
  /**
   * A forward step stopped at a loop breakpoint's hit on its way (a task newly at a `yield` line in a tick
   * before the landing's): the live run stops after that tick, so the client seeks there, on the hit task's
   * thread, in the live stop's words (`description`).
   */
  | { landed: 'tick'; tick: number; taskId: number; description: string; said?: string[]; printed?: string[] }
  /**
   * Before the task's first line of this step: its previous suspension (seekTick goes there); `why` its lines
   * before cannot be shown, when they were looked for.
   */
  | { landed: 'suspension'; why?: string };

/** A line breakpoint as a search of the recorded past arms it (logpoints never stop, so never are). */
export interface ArmedBreakpoint {
  file: string;
  line: number;
  condition?: string;
  hitCondition?: string;
  /**
   * A hit condition set while the run went (at tick `tick`: stopped there, or running then)
   * counts the hits since, as the live debugger does: those of later ticks, from `before` (the
   * hits it counted live up to that tick's end). Absent: from the run's start (set before it
   * started, or once it had finished: the whole past).
   */
  hitsSince?: { tick: number; before: number };
  /**
   * On a line with `yield`: the loop's own breakpoint (runtime/inspect/suspension-breakpoints.ts),
   * hit where a task newly arrives at the line at the end of a step or resumes from it, and
   * stopped at after that tick (not on the line, mid-tick).
   */
  atSuspension?: boolean;
  /** A move limited to one task (lineStep's `task`): only that task's hits of this breakpoint stop it. */
  task?: number;
  /**
   * A logpoint (pastLogpointHits, or a hit of it gone to): its message is evaluated at each hit (a hit whose
   * expression throws is none, as the live logpoint prints nothing then).
   */
  logMessage?: string;
}

/**
 * One execution of a logpoint's line in the recorded past (pastLogpointHits): logpoint `logpoint` (its index
 * in the request) hit in tick `tick` by task `taskId`, printing `message` (the text the live logpoint prints).
 */
export interface LogpointHit {
  logpoint: number;
  file: string;
  line: number;
  tick: number;
  /** Which of this logpoint's hits of its tick it is (0: the first): pastBreakpointHit's `logpointHit` goes there. */
  ordinal: number;
  taskId: number | null;
  /** The task's name (null: outside any task). */
  task: string | null;
  /** Milliseconds since the first tick at which its tick began (the timeline's tickTimes). */
  time: number;
  message: string;
}

/** Where a search of the recorded past for a line breakpoint's hit landed (pastBreakpointHit, pastHit). */
export type BreakpointHitLanding =
  /** Stopped on the hit, replayed: lineStack, lineVariables and lineEvaluate answer for it. */
  | {
      landed: 'line';
      tick: number;
      taskId: number | null;
      line: SourcePosition | null;
      breakpoint: { file: string; line: number };
      description: string;
      /** A forward search from a line: the logpoints' messages met on the way there (a step prints them). */
      printed?: string[];
    }
  /**
   * A breakpoint on a suspension point (atSuspension) hit in tick `tick`: the live run stops after that tick
   * (seekTick shows it); `description` as its live stop says it.
   */
  | {
      landed: 'tick';
      tick: number;
      taskId: number;
      breakpoint: { file: string; line: number };
      description: string;
      /** A forward search: the logpoints' messages met on the way, through that tick (its Continue prints them). */
      printed?: string[];
    }
  /**
   * No hit in ticks from+1 .. to (the breakpoints armed named). `atUntil`: a forward search's `until` holds a
   * hit of this breakpoint itself (a step landing there says so, as live).
   */
  | {
      landed: 'none';
      breakpoints: Array<{ file: string; line: number }>;
      from: number;
      to: number;
      atUntil?: { file: string; line: number };
      /** A forward search from a line: the logpoints' messages met through its end (`until` included). */
      printed?: string[];
    };

/**
 * The moment a search of the past starts from: right after tick `tick`, or (with `print`) the line stop of
 * task `taskId` in it.
 */
export interface HitBound {
  tick: number;
  taskId?: number;
  print?: LineStopPrint;
}

/** One breakpoint hit of a scan (scanTicks): breakpoint `bp` (an index of its params), its tick, task and hit count. */
export interface ScanHit {
  bp: number;
  tick: number;
  taskId: number | null;
  count: number;
  /** A suspension breakpoint's hit (ScanTicksResult.tickHits), as the live stop says it. */
  description?: string;
  /** A logpoint's hit: its message, and the name of the task that ran it. */
  message?: string;
  taskName?: string;
  /** A logpoint's hit: when its tick began (ms after the run's first tick: the timeline's `tickTimes`). */
  time?: number;
  /**
   * Another task's hit of a breakpoint armed for a move limited to one task (its `task`), that task not live then
   * (it ended, or is not made yet): the limit has lapsed, and the hit stops the move as any hit would.
   */
  lapsed?: true;
}

/**
 * What a stretch scanned (scanTicks) holds: the line hits in replay order, and those of suspension
 * breakpoints (at their ticks' ends).
 */
export interface ScanTicksResult {
  hits: ScanHit[];
  /** Index in `hits` at which the marker's moment came; null: not reached (or no marker). */
  marked: number | null;
  /** The thread was stopped at the hit asked for. */
  stopped: boolean;
  /**
   * Hits of the suspension breakpoints (atSuspension), in tick order: each stops the live run after its tick
   * (the first of a tick is the stop).
   */
  tickHits: ScanHit[];
  /** With `until`: the live line stop was reached (the hits stop before it). */
  untilReached?: boolean;
  /** With `until` reached: a breakpoint (`bp`) hit there, at that moment (a step landing there stops on it). */
  untilHit?: number;
}

/** What a line replay host's worker asks its main thread to scan (runtime/host/shared/hit-scan.ts). */
export interface ScanTicksParams {
  /** Ticks from+1 .. to are replayed (from 0: from the run's start). */
  from: number;
  to: number;
  /**
   * The breakpoints armed, with their hit conditions (counted here): the hits in ticks up to
   * `since` are neither counted nor recorded. `atSuspension`: a breakpoint on a line with
   * `yield`, checked on the scan's loop by the live loop's own check (no location planted).
   */
  breakpoints: Array<{
    hitCondition?: string;
    since?: number;
    atSuspension?: { file: string; line: number; condition?: string };
    /** Only this task's hits are asked for (`stop`); the others are counted and recorded all the same. */
    task?: number;
  }>;
  /**
   * For each planted location (its index in scanHit calls), the breakpoints it holds, in the order of its
   * `met` list.
   */
  locations: number[][];
  /**
   * Pause at this location when task `taskId` runs it in tick `tick` (the worker checks whether it is the
   * search's start).
   */
  marker?: { location: number; tick: number; taskId: number };
  /**
   * A forward search's end within its last tick: the live line stop, where the live program is
   * held (a search from a past line of it). Pause at this location when task `taskId` runs it in
   * tick `tick` (the worker checks whether it is that stop); once reached, no hit is recorded.
   */
  until?: { location: number; tick: number; taskId: number };
  /**
   * Pause at a hit: the `ordinal`th of tick `tick`, or the first one in a tick after `afterTick` and after
   * the marker (if any); or at the marker itself.
   */
  stop?: { kind: 'nth'; tick: number; ordinal: number } | { kind: 'first'; afterTick: number } | { kind: 'marker' };
  /** Hits counted before the stretch, per breakpoint. */
  counts?: number[];
}

export interface LineScopeInfo {
  /** 'Locals', 'Closure', 'Block', ... */
  name: string;
  /** Non-zero: ask `lineVariables` with it. */
  handle: number;
}

/** One real frame of the stopped main thread, innermost first (the runtime's machinery left out). */
export interface LineFrameInfo {
  index: number;
  name: string;
  position: SourcePosition | null;
  generated: SourcePosition | null;
  scopes: LineScopeInfo[];
}

/**
 * A loop, or a set of threads or processes, that a program runs itself instead of the
 * runtime's loop (the hand-made loops of the tutorial samples: runtime/program-loops.ts):
 * its own state, as it is at this moment.
 */
export interface ProgramLoopState {
  /** 'selector', 'timers', 'trampoline', 'busy', 'threads' or 'processes'. */
  kind: string;
  title: string;
  /** The callback or step running now (null: none). */
  running: string | null;
  /** Callbacks or task steps ready to run, in order. */
  ready: string[];
  /** Sockets its selector watches: fd, 'read' / 'write', the callback registered, the socket. */
  sockets: Array<{ fd: number; events: string; callback: string; socket: string }>;
  /** Timers not yet due, soonest first. */
  timers: Array<{ dueInMs: number; callback: string }>;
  /** Its threads or processes and what each does now. */
  workers: Array<{ kind: 'thread' | 'process'; name: string; state: string }>;
  notes: string[];
}

export type StopReason = 'entry' | 'pause' | 'step' | 'breakpoint' | 'exception' | 'cancelled';

/** A deadlock the host reported as an exception: its one-line summary, and whether the run stopped for it. */
export interface DeadlockReport {
  summary: string;
  stopped: boolean;
}

/**
 * A stop of the Deadlock break (setExceptionBreaks' `deadlock`, reason 'exception'): live tasks
 * that nothing can wake (runtime/host/main-thread/deadlock-stop.ts).
 */
export interface DeadlockStop {
  /** One line naming the cycle: `lock-order cycle: transfer → audit → transfer (ledger, auditLog)`. */
  summary: string;
  /** The await graph's reason, every task and resource named. */
  reason: string;
  /** One line per task: where it is suspended, what it waits for, who holds that and since which line. */
  details: string;
  /** Where to look first (a holder's acquire line, else a creation line). */
  position?: SourcePosition;
}

// --- methods (client → host) ------------------------------------------------------------

/** One approach's measurement in a comparison (runtime/samples/compare.ts ComparisonRow). */
export interface ComparisonRowInfo {
  /** blocking, processes, threads, busy-nonblocking, callbacks, generators, runtime. */
  approach: string;
  /** Seconds from the first fetch started to the last page in. */
  seconds: number;
  pagesPerSecond: number;
  /** Fetches in flight at once. */
  concurrency: number;
  pages: number;
  latencyMs: number;
  /** Pages that did not come back 200. */
  failures: number;
  /** Memory one concurrent fetch costs (processes, threads, the event-loop approaches). */
  memoryPerFetchBytes?: number;
  /** Seconds to start the pool, not included in `seconds`. */
  startupSeconds?: number;
  /** Tries that found the socket not ready (busy non-blocking). */
  wastedTries?: number;
}

// No index signature: a misspelled method name is a type error at every caller.
export interface HostMethods {
  hello: {
    params: { client: string; protocolVersion: number };
    result: { protocolVersion: number; hostVersion: string; pid: number };
  };
  /**
   * `heldAtEntry`: the run waits before its first tick (stopOnEntry): a run on the host's loop
   * is paused there, and a sample with a loop of its own (blocking, callbacks, ...) is not
   * started until continue or a step. Every sample is held so. `notRecorded`: launched with
   * `record`, the run is not recorded all the same, and why (a sample with a loop of its own).
   */
  launch: {
    params: { target: LaunchTarget; options: LaunchOptions };
    result: { runId: number; siteUrl?: string; heldAtEntry: boolean; notRecorded?: string };
  };
  pause: { params: Record<string, never>; result: { tick: number } };
  continue: { params: Record<string, never>; result: { tick: number } };
  /** Runs exactly one loop tick. */
  stepTick: { params: Record<string, never>; result: { tick: number } };
  /** Runs until the task resumes and suspends again (or finishes). */
  /**
   * `oneTask`: limited to that task (DAP `singleThread`): another task's hit of a line breakpoint meanwhile
   * does not stop it.
   */
  stepTask: { params: { taskId: number; oneTask?: boolean }; result: { tick: number } };
  /** Runs until the frame at `depth` of the task's chain returns. */
  stepOut: { params: { taskId: number; depth: number }; result: { tick: number } };
  /**
   * `yieldLines`: where a breakpoint on a line with `yield` stops, on a host with a line
   * debugger (a client pipe): 'suspension' (the default), the loop's own stop after the tick
   * where a task arrives at the line or resumes from it; 'before', a line stop before the line
   * runs, as on any other line (the debug adapter's, issue 26).
   */
  setBreakpoints: {
    params: { file: string; breakpoints: Breakpoint[]; yieldLines?: 'suspension' | 'before' };
    result: { breakpoints: BreakpointStatus[] };
  };
  /**
   * Break when a task fails or is cancelled; `urlFailed`: when the crawler records a URL as failed (its
   * worker catches the error, so no task fails); `deadlock`: when live tasks are deadlocked (the paused
   * event's `deadlock`).
   */
  setExceptionBreaks: {
    params: { taskFailed: boolean; taskCancelled: boolean; urlFailed?: boolean; deadlock?: boolean };
    result: Record<string, never>;
  };
  snapshot: { params: { since?: number }; result: Snapshot };
  /**
   * `locals` (default true) waits, at a past tick not yet replayed, for its replay; with
   * `fromLogMeanwhile` it answers at once from the log instead (TaskDetail.fromLog, no positions
   * nor locals), as the panel asks: it asks again when the replay lands.
   */
  taskDetail: { params: { taskId: number; locals?: boolean; fromLogMeanwhile?: boolean }; result: TaskDetail };
  variables: { params: { handle: number }; result: { variables: VariableInfo[] } };
  graph: { params: Record<string, never>; result: AwaitGraph };
  traces: { params: { url?: string }; result: TracePair };
  lints: { params: Record<string, never>; result: { lints: Lint[] } };
  evaluate: {
    params: { expression: string; taskId?: number; frameIndex?: number };
    result: { value: string; type: string; handle: number };
  };
  /**
   * `by`: the client asking (the inspector panel, the debug adapter); the task's summary reports it as
   * `cancelledBy`.
   */
  cancelTask: { params: { taskId: number; by: CancelRequester; message?: string }; result: { cancelled: boolean } };
  /**
   * The loops, threads and processes the program runs itself (a hand-made loop's sockets, ready list,
   * timers), as they are now; empty when it runs only on the runtime's loop. Answered at a line stop too.
   */
  programLoops: { params: Record<string, never>; result: { loops: ProgramLoopState[] } };
  /** The tutorial samples the host can launch with `{kind: 'sample', id}`. */
  samples: {
    params: Record<string, never>;
    result: { samples: Array<{ id: string; title: string; chapter: string }> };
  };
  /** Fetches `pages` pages of a demo site of its own (each response `latencyMs` late) with each
   *  approach of the comparison, in the article's order; independent of any run. */
  compare: { params: { pages: number; latencyMs: number }; result: { rows: ComparisonRowInfo[] } };
  /**
   * Stopped on a line: steps one line (over, into a call or a `yield*`, out of the frame). At a
   * breakpoint hit shown in the past (pastBreakpointHit), or a line reached from it, the step
   * goes through the replayed lines (pastHitLine) and `landing` says where it went: a line (its
   * `paused` shows it), or the present when the recording has no later line of the task.
   */
  /**
   * `task`: the step is limited to that task (DAP `singleThread`, "Follow This Task"): other tasks run meanwhile,
   * their breakpoints hit (counted, their logpoints printed) without stopping it.
   */
  lineStep: { params: { kind: LineStepKind; moment?: string; task?: number }; result: { landing?: PastLineLanding } };
  /** Stopped on a line: the real frames and the task running them (null: outside any task). */
  lineStack: { params: Record<string, never>; result: { taskId: number | null; frames: LineFrameInfo[] } };
  /** Stopped on a line: the children of a scope or value handle of lineStack / lineEvaluate. */
  lineVariables: { params: { handle: number }; result: { variables: VariableInfo[] } };
  /** Stopped on a line: evaluates in a real frame (default the innermost). */
  lineEvaluate: {
    params: { expression: string; frameIndex?: number };
    result: { value: string; type: string; handle: number };
  };
  setLineStepMode: { params: { mode: LineStepMode }; result: Record<string, never> };
  /**
   * Stopped on a line of a recorded run: goes back to the line the stopped task ran before
   * (in the same frame, or the caller's line at the first line of a function), replayed in a
   * replay host of its own (runtime/host/worker/line-replay-host.ts); from a past line, lineStep
   * goes forward through the replayed lines to the live stop again, and continue goes on
   * from the live stop. Refused (notRecorded) for a run not recorded.
   */
  lineStepBack: { params: { moment?: string; lines?: number }; result: PastLineLanding };
  /**
   * Stopped on a line of a task (the live stop, a past line of its step, a breakpoint hit in the past or a line
   * walked from it, a line of an earlier step; not inside a call stepped into): the watched values read, in one
   * replay of that step's tick, at each line a step back would land on in turn within that step (the first: the
   * line before the one shown); `lineStepBack` with `lines: k` then lands on the kth in one replay. Null with
   * `why` where this cannot be answered (walk line by line).
   * `earlier`: when the last of them is the task's first line of the step, the values at the last line of
   * its step before (one more replay, of that step's tick), where a step back from that first line lands.
   */
  lineValuesBack: {
    params: { watched: LineWatched[] };
    /** `held`: the landing a lineStepBack of `held` lines reaches is held ready (that move answers at once). */
    result: { readings: LineReading[][] | null; why?: string; earlier?: LineReadingBefore; held?: number };
  };
  /**
   * Reverse Continue (and Continue from a past hit) to a line breakpoint's hit in the recorded
   * past: the host's line breakpoints (conditions, hit conditions counted from the run's
   * start; logpoints left out) are armed in a replay of the run, and the last hit strictly
   * before the moment shown ('back'), or the first after it ('forward'), becomes a line stop
   * in the past: replayed in a line replay host, whose frames and locals lineStack,
   * lineVariables and lineEvaluate serve. The moment shown is the past line shown, else the
   * line stop, else right after tick `tick` (a past tick, or the run's end). 'back' looks at
   * ticks after `floor` only, 'forward' up to `ceiling` (each by default the whole run).
   * Refused (notRecorded) for a run not recorded; a replay that diverges, with its message.
   */
  pastBreakpointHit: {
    params: {
      direction: 'back' | 'forward';
      tick: number;
      floor?: number;
      ceiling?: number;
      moment?: string;
      /**
       * Instead of a search: the hit of a logpoint that pastLogpointHits listed (its `ordinal`th in tick `tick`),
       * stopped on as a breakpoint hit is (`direction` and the bounds are then not read).
       */
      logpointHit?: { logpoint: Breakpoint; tick: number; ordinal: number };
    };
    result: BreakpointHitLanding;
  };
  /**
   * Logpoints in the past: every execution, over the whole recorded run, of the lines of
   * `logpoints` (each with its `logMessage`, a condition and a hit condition if given, counted
   * from the run's start), with the message each printed, in the order the run ran them: a
   * replay of the recording (a line replay host), so the network is never used and the run is
   * not changed. `ticks`: the recorded ticks the replay covered (a live run's recording so far;
   * at a line stop, through its tick up to the stop: what ran there before it is listed, as the
   * live logpoint printed it; `through`: no further than that tick, as a question asked at a
   * past stop is of the ticks before it). Refused (notRecorded) for a run not
   * recorded, and (badState) while a past line found by a search is shown (its replay host is
   * held there).
   */
  pastLogpointHits: {
    params: { logpoints: Breakpoint[]; tick?: number; through?: number };
    result: { hits: LogpointHit[]; ticks: number };
  };
  /** Writes the finished run's recording (launched with options.record) to `path`, a .corotrace file. */
  saveRecording: { params: { path: string }; result: RecordingInfo };
  /**
   * Reads a .corotrace file and checks it whole: its format, its checksum, its event log, and
   * that the sources it ran are this host's. Refused (code badRecording) with the reason
   * otherwise. Then the recording becomes the host's current run (`runId`, replacing any
   * other): finished, with its timeline, and seekable; the views show its last tick (a
   * `viewedTick` event says so). The network is never used.
   */
  /**
   * `midTick`: a line replay's recording of a run stopped on a line
   * (runtime/host/worker/line-replay-host.ts), not shown at its last tick;
   * `unshown`: a line replay host's copy of a whole recording (its breakpoint searches), not shown at its
   * last tick either (nothing replayed until asked);
   * `live` (with `unshown`): the copy is of a run still going, followed (more of it will come): its replays
   * keep up at a share of the time.
   * A line replay host given the same run's recording again (midTick or unshown, its streams grown) keeps its
   * run and its replays.
   */
  openRecording: {
    params: { path: string; midTick?: boolean; unshown?: boolean; live?: boolean };
    result: RecordingInfo & { runId: number };
  };
  /**
   * The recorded run's timeline (the current run, launched with options.record, or an opened
   * recording); `sinceTick` for what is new; `taskId`: only that task's lane and marks (the
   * debugger's steps back).
   */
  timeline: { params: { sinceTick?: number; taskId?: number }; result: Timeline };
  /**
   * Moves the run's viewed moment: to the state right after tick `tick` (1 .. ticks), replayed
   * from the recording (inputs fed back, the network never touched; a live run goes on as it
   * was), or back to the present with null. From then on snapshot, taskDetail, variables,
   * graph, lints and evaluate answer for that moment; a `viewedTick` event tells every client.
   * A past tick is answered at once, known from the recording's event log (ViewedMoment
   * replayed false), its replay going on in the background (a replay for a tick viewed before
   * is dropped, or taken on to this one); `replayed`: answer only once the replay has landed.
   * Refused (notRecorded, badTick) for a run not recorded or a tick out of range; with
   * `replayed`, (replayFailed) for a replay that fails, (superseded) when the views moved on.
   * `moment`: the asker's id for this seek, echoed on the answer and the `viewedTick` events it causes.
   */
  seekTick: { params: { tick: number | null; replayed?: boolean; moment?: string }; result: ViewedMoment };
  /**
   * Ends the current run (cancels its tasks, attributed to `by`, the view that asked; closes its loop); the
   * host stays up.
   */
  stop: { params: { by?: CancelRequester }; result: Record<string, never> };
  /** Ends the host process. */
  shutdown: { params: Record<string, never>; result: Record<string, never> };
}

// --- events (host → client) ---------------------------------------------------------------

export interface HostEvents {
  taskCreated: { task: TaskSummary };
  taskFinished: { task: TaskSummary };
  /**
   * A task failed; or, with `deadlock`, live tasks are deadlocked (the traceback names each task, what it
   * waits for and who holds that since which line): `stopped` when the Deadlock break stopped the run for it
   * (the paused event says it too), false when the run goes on (no debugger, or its filter off).
   */
  exception: { taskId: number; traceback: Traceback; deadlock?: DeadlockReport };
  lint: { lint: Lint };
  /** `line`: stopped on this line by the line debugger (the loop is mid-tick). */
  /**
   * `pastLine`: a past line shown (the line replay, lineStepBack): snapshot and the moment's queries answer
   * for that moment until the next `paused` without it.
   */
  /**
   * `moment`: the id of the line move (lineStep, lineStepBack, pastBreakpointHit) that showed this past line;
   * absent for a live stop.
   */
  paused: {
    reason: StopReason;
    tick: number;
    taskId?: number;
    description: string;
    /** A stop of the `urlFailed` break: the URL the crawler recorded as failed (the callback stage's trace is its). */
    url?: string;
    line?: SourcePosition;
    pastLine?: boolean;
    moment?: string;
    deadlock?: DeadlockStop;
  };
  continued: { tick: number };
  progress: CrawlProgress;
  /** Text for the output channel: the crawler's report, sample output, host log lines. */
  output: { category: 'stdout' | 'stderr' | 'log'; text: string };
  /** The run ended; `stopped`: ended by a `stop` request (a view's Stop), not by its program. */
  finished: { runId: number; ok: boolean; summary: string; error?: string; stopped?: boolean };
  /** Every view now shows this moment of the run (seekTick, openRecording): a past tick, or null for the present. */
  viewedTick: ViewedMoment;
}

/** The client side's endpoint type (calls HostMethods, receives HostEvents). */
export type { RpcEndpoint } from './rpc';
