// The inspector panel's protocol: what the webview (webview/) and the extension
// (extension/inspector-panel.ts) say to each other over postMessage, through protocol/rpc.ts
// (requests with replies, and one-way events). One typed union per direction:
//   webview → extension: PanelRequest (a method of PanelMethods, answered by the extension);
//   extension → webview: PanelEvent (an event of PanelEvents).
// The host's data (snapshots, details, graphs, traces) passes through unchanged.
//
// Invariants: each side treats what it receives as `unknown` until a narrower below accepts
// it (a malformed message is answered with an error or dropped, never trusted); strings in
// the data are untrusted (page titles, URLs, values): the webview shows them as text only.

import { MAX_MOMENT_ID_LENGTH } from './moment-ids';
import { isRunPhase, type RunPhase } from './run-phase';
import type {
  AwaitGraph,
  CancelOrigin,
  ComparisonRowInfo,
  CrawledPage,
  CrawlProgress,
  DeadlockReport,
  Lint,
  ProgramLoopState,
  Snapshot,
  SourcePosition,
  StopReason,
  TaskDetail,
  TaskState,
  TaskSummary,
  Timeline,
  TimelineLane,
  TimelineMark,
  TimelineSegment,
  Traceback,
  TracePair,
  VariableInfo,
} from './host-protocol';

export const PANEL_PROTOCOL_VERSION = 1;

/** The panel's views (tabs). */
export type ViewId = 'tasks' | 'timeline' | 'graph' | 'exceptions' | 'dashboard' | 'lints';
export const VIEW_IDS: readonly ViewId[] = ['tasks', 'timeline', 'graph', 'exceptions', 'dashboard', 'lints'];

/** Where the run is, as the panel shows it (the Run's words: protocol/run-phase.ts). */
export type { RunPhase } from './run-phase';

export interface RunStatus {
  phase: RunPhase;
  /** The run's id in the host, null before the first launch. */
  runId: number | null;
  /** What runs: "Crawl of http://127.0.0.1:PORT/", "Sample generators". */
  title: string;
  /** One line: the pause reason, the finished summary, why the host died. */
  detail: string;
  tick: number;
  /** For a host that died: its last log lines. */
  lastLines?: string[];
  /** For a pause: why, and the task it concerns. */
  pauseReason?: StopReason;
  pausedTaskId?: number;
  /** The pause is a stop on a line: the loop is within `tick`, not after it (protocol/run-moment.ts). */
  onLine?: boolean;
  /** The past tick every view shows (the run's one viewed moment, set by a seek); absent: the present. */
  viewedTick?: number;
  /** The past moment shown is a line within viewedTick (a past line or a breakpoint hit, replayed), not after it. */
  viewedLine?: boolean;
  /**
   * The past tick shown is known from the recording's log, its replay under way: stacks by function name,
   * positions and locals once it lands.
   */
  viewedReplaying?: boolean;
  /**
   * Counts the moments announced while a past tick is shown: a new one in the same tick (a breakpoint hit, a
   * past line: another task or line) changes it, so the views fetch that moment.
   */
  viewedMoment?: number;
  /** The replay to the past tick shown failed, and why: the log's table stands, without positions or locals. */
  viewedReplayError?: string;
  /**
   * The id of the request (a seek, a line move: protocol/moment-ids.ts) that made the moment shown; absent:
   * none with an id (a live stop, the run going on).
   */
  momentId?: string;
  /** The run is recorded: the timeline can show it and the scrubber seek it. */
  recorded?: boolean;
  /** Launched with recording on, the run is not recorded all the same, and why (the host's word). */
  notRecorded?: string;
  /** The run is a recording opened from this file (finished, nothing runs). */
  recordingFile?: string;
}

/** One exception the host reported during the run. */
export interface ExceptionEntry {
  taskId: number;
  traceback: Traceback;
  /** A deadlock, not a task's failure (the host's exception event's `deadlock`). */
  deadlock?: DeadlockReport;
}

/** One point of the dashboard's rate chart. */
export interface ProgressPoint {
  /** Seconds since the crawl started. */
  t: number;
  done: number;
  rate: number;
  queued: number;
  inFlight: number;
}

/** "Coroscope: Compare Approaches…": asked of the host, shown on the dashboard as a chart. */
export interface Comparison {
  pages: number;
  latencyMs: number;
  state: 'running' | 'done' | 'failed';
  /** In the article's order; empty until done. */
  rows: ComparisonRowInfo[];
  error?: string;
}

/**
 * One hit of a logpoint set over the run shown (extension/debug/past-logpoints.ts's `coroscope/logpointHits`),
 * as the timeline marks it on its task's lane. `hit` is its index for `coroscope/goToLogpointHit` in the debug
 * session that listed it; `message` is the logpoint's text (untrusted: shown as text only).
 */
export interface LogpointMark {
  hit: number;
  tick: number;
  /** Null: the line ran outside any task (no lane to mark). */
  taskId: number | null;
  task: string | null;
  /** Milliseconds since the first tick at which its tick began. */
  time: number;
  message: string;
  file: string;
  line: number;
}

/** At most this many logpoint marks are kept (the rest dropped): the timeline draws at most one per pixel anyway. */
export const MAX_LOGPOINT_MARKS = 20_000;

export interface PanelInit {
  protocolVersion: number;
  status: RunStatus;
  /** The extension's mirror as one full snapshot, null without a run. */
  snapshot: Snapshot | null;
  progress: ProgressPoint[];
  exceptions: ExceptionEntry[];
  lints: Lint[];
  /** Pages the crawler finished (when the host reports them), oldest first. */
  pages: CrawledPage[];
  /** The latest crawl progress, null when the run is not a crawl. */
  lastProgress: CrawlProgress | null;
  /** The latest comparison of approaches (it outlives runs), if one was asked for. */
  comparison?: Comparison | null;
  /** The loops, threads and processes the program runs itself (a sample's hand-made loop), as of now. */
  programLoops?: ProgramLoopState[];
  /** The hits of the logpoints set over the run shown (none: empty or absent). */
  logpointHits?: LogpointMark[];
  /** Whether a debug session debugs the run shown (its "Follow This Task"); absent: no. */
  debugged?: boolean;
}

export type ControlAction = 'pause' | 'continue' | 'stepTick' | 'stepTask' | 'stop';
export type PanelCommand =
  | 'runCrawl'
  | 'openSample'
  | 'showTrace'
  | 'showLog'
  | 'debugRun'
  | 'saveRecording'
  | 'openRecording';

// --- webview → extension -----------------------------------------------------------------

export type PanelMethods = {
  /** The webview is up: the extension answers with everything it holds. */
  ready: { params: Record<string, never>; result: PanelInit };
  taskDetail: { params: { taskId: number }; result: TaskDetail };
  variables: { params: { handle: number }; result: { variables: VariableInfo[] } };
  openSource: { params: { position: SourcePosition }; result: { opened: boolean } };
  control: { params: { action: ControlAction; taskId?: number }; result: { tick: number | null } };
  cancelTask: { params: { taskId: number }; result: { cancelled: boolean } };
  graph: { params: Record<string, never>; result: AwaitGraph };
  traces: { params: { url?: string }; result: TracePair };
  lints: { params: Record<string, never>; result: { lints: Lint[] } };
  command: { params: { command: PanelCommand }; result: Record<string, never> };
  /** The run's timeline, from `sinceTick` on (everything without it). */
  timeline: { params: { sinceTick?: number }; result: Timeline };
  /**
   * Shows the run at `tick` in every view (null: back to the present); answers the tick now
   * shown. `moment`: the panel's id of this seek (protocol/moment-ids.ts), echoed on the answer
   * and as `RunStatus.momentId` once the status shows that moment (before the answer comes).
   */
  seek: { params: { tick: number | null; moment?: string }; result: { tick: number | null; moment?: string } };
  /** Goes to a logpoint's hit (LogpointMark.hit): the debug session that listed it moves there, and the panel. */
  goToLogpointHit: { params: { hit: number }; result: Record<string, never> };
  /**
   * "Follow This Task": the debug session of the run shown follows task `taskId` (Continue, Reverse Continue
   * and the steps move it alone), as the Call Stack's thread menu asks.
   */
  followTask: { params: { taskId: number }; result: Record<string, never> };
};
export type PanelMethod = keyof PanelMethods & string;

/** The union of what the webview asks. */
export type PanelRequest = { [M in PanelMethod]: { method: M; params: PanelMethods[M]['params'] } }[PanelMethod];

// --- extension → webview -----------------------------------------------------------------

export type PanelEvents = {
  status: RunStatus;
  /** A snapshot (full or delta) to apply to the panel's table. */
  snapshot: Snapshot;
  /** `point` (for the rate chart) is null when the report adds nothing to the chart. */
  progress: { point: ProgressPoint | null; progress: CrawlProgress };
  exception: ExceptionEntry;
  lint: { lint: Lint };
  /** A new run starts: forget the previous one's data. */
  reset: { status: RunStatus };
  /** Show a view (and a task), e.g. for "Show Coroutine vs Callback Trace". */
  reveal: { view: ViewId; taskId?: number };
  /** A comparison of approaches started, finished or failed. */
  comparison: Comparison;
  /**
   * The loops, threads and processes the program runs itself, as they are now (the host's programLoops;
   * empty: none).
   */
  programLoops: { loops: ProgramLoopState[] };
  /** The hits of the logpoints set over the run shown, all of them: they replace the marks before (empty: none). */
  logpointHits: { hits: LogpointMark[] };
  /** A debug session debugs the run shown now, or none does any more. */
  debugged: { debugged: boolean };
  /**
   * Everything the extension holds, as `ready` answers it: sent when the panel shows again, since VS Code
   * may count a panel hidden without reloading its page (the events of meanwhile were not sent).
   */
  resync: PanelInit;
};
export type PanelEvent = { [E in keyof PanelEvents & string]: { event: E; body: PanelEvents[E] } }[keyof PanelEvents &
  string];

/** Nothing is served by the webview: the extension only pushes events. */
export type WebviewMethods = Record<string, never>;

// --- narrowing ----------------------------------------------------------------------------

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

const TASK_STATES: ReadonlySet<string> = new Set<TaskState>([
  'scheduled',
  'running',
  'suspended',
  'done',
  'cancelled',
  'failed',
]);
const CONTROL_ACTIONS: ReadonlySet<string> = new Set<ControlAction>([
  'pause',
  'continue',
  'stepTick',
  'stepTask',
  'stop',
]);
const PANEL_COMMANDS: ReadonlySet<string> = new Set<PanelCommand>([
  'runCrawl',
  'openSample',
  'showTrace',
  'showLog',
  'debugRun',
  'saveRecording',
  'openRecording',
]);

export function isViewId(v: unknown): v is ViewId {
  return typeof v === 'string' && (VIEW_IDS as readonly string[]).includes(v);
}

export function isSourcePosition(v: unknown): v is SourcePosition {
  return isObj(v) && typeof v.file === 'string' && v.file !== '' && isInt(v.line) && v.line >= 1 && isInt(v.column);
}

/**
 * Narrows the params of a request from the webview; returns the typed request, or why not.
 * (The extension serves only what passes.)
 */
export function parsePanelRequest(method: string, params: unknown): PanelRequest | string {
  const p: Obj = isObj(params) ? params : {};
  switch (method) {
    case 'ready':
    case 'graph':
    case 'lints':
      return { method, params: {} };
    case 'taskDetail':
    case 'cancelTask':
    case 'followTask':
      if (!isInt(p.taskId) || p.taskId < 0) return `${method}: taskId must be a task id`;
      return { method, params: { taskId: p.taskId } };
    case 'variables':
      if (!isInt(p.handle) || p.handle <= 0) return 'variables: handle must be a positive integer';
      return { method, params: { handle: p.handle } };
    case 'openSource':
      if (!isSourcePosition(p.position)) return 'openSource: position must be {file, line, column}';
      return {
        method,
        params: { position: { file: p.position.file, line: p.position.line, column: p.position.column } },
      };
    case 'control': {
      if (typeof p.action !== 'string' || !CONTROL_ACTIONS.has(p.action))
        return `control: unknown action ${JSON.stringify(p.action)}`;
      const action = p.action as ControlAction;
      if (action === 'stepTask') {
        if (!isInt(p.taskId)) return 'control: stepTask needs a taskId';
        return { method, params: { action, taskId: p.taskId } };
      }
      return { method, params: { action } };
    }
    case 'traces':
      if (p.url !== undefined && typeof p.url !== 'string') return 'traces: url must be a string';
      return typeof p.url === 'string' ? { method, params: { url: p.url } } : { method, params: {} };
    case 'command':
      if (typeof p.command !== 'string' || !PANEL_COMMANDS.has(p.command))
        return `command: unknown command ${JSON.stringify(p.command)}`;
      return { method, params: { command: p.command as PanelCommand } };
    case 'timeline':
      if (p.sinceTick === undefined) return { method, params: {} };
      if (!isInt(p.sinceTick) || p.sinceTick < 0) return 'timeline: sinceTick must be a tick (an integer >= 0)';
      return { method, params: { sinceTick: p.sinceTick } };
    case 'seek': {
      if (p.tick !== null && (!isInt(p.tick) || p.tick < 0))
        return 'seek: tick must be a tick (an integer >= 0) or null for the present';
      if (p.moment === undefined) return { method, params: { tick: p.tick } };
      if (typeof p.moment !== 'string' || p.moment.length === 0 || p.moment.length > MAX_MOMENT_ID_LENGTH)
        return `seek: moment must be an id of 1..${MAX_MOMENT_ID_LENGTH} characters`;
      return { method, params: { tick: p.tick, moment: p.moment } };
    }
    case 'goToLogpointHit':
      if (!isInt(p.hit) || p.hit < 0) return 'goToLogpointHit: hit must be a hit index (an integer >= 0)';
      return { method, params: { hit: p.hit } };
    default:
      return `unknown method ${JSON.stringify(method)}`;
  }
}

/** A task summary as the table relies on it (id, name, state, frames). Cheap: run per task. */
export function isTaskSummary(v: unknown): v is TaskSummary {
  return (
    isObj(v) &&
    isInt(v.id) &&
    typeof v.name === 'string' &&
    typeof v.state === 'string' &&
    TASK_STATES.has(v.state) &&
    typeof v.steps === 'number' &&
    (typeof v.busyMs === 'number' || v.busyMs === null) &&
    Array.isArray(v.frames) &&
    Array.isArray(v.awaitedBy) &&
    (v.awaiting === null ||
      (isObj(v.awaiting) && typeof v.awaiting.kind === 'string' && typeof v.awaiting.detail === 'string'))
  );
}

/** A snapshot, with the tasks that fail isTaskSummary dropped (and counted in `dropped`). */
export function narrowSnapshot(v: unknown): { snapshot: Snapshot; dropped: number } | null {
  if (
    !isObj(v) ||
    !isInt(v.version) ||
    typeof v.full !== 'boolean' ||
    !Array.isArray(v.tasks) ||
    !Array.isArray(v.removed) ||
    !isObj(v.counts)
  )
    return null;
  const tasks: TaskSummary[] = [];
  let dropped = 0;
  for (const t of v.tasks as unknown[]) {
    if (isTaskSummary(t)) tasks.push(t);
    else dropped++;
  }
  const removed = (v.removed as unknown[]).filter(isInt);
  const counts = {} as Record<TaskState, number>;
  for (const s of TASK_STATES) {
    const n = v.counts[s];
    counts[s as TaskState] = typeof n === 'number' ? n : 0;
  }
  return {
    snapshot: {
      version: v.version,
      full: v.full,
      tick: isInt(v.tick) ? v.tick : 0,
      paused: v.paused === true,
      tasks,
      removed,
      counts,
      progress: narrowProgress(v.progress),
    },
    dropped,
  };
}

export function narrowProgress(v: unknown): CrawlProgress | null {
  if (!isObj(v)) return null;
  const num = (k: string): number => (typeof v[k] === 'number' && Number.isFinite(v[k]) ? (v[k] as number) : 0);
  const byKind: Record<string, number> = {};
  if (isObj(v.errorsByKind))
    for (const [k, n] of Object.entries(v.errorsByKind)) if (typeof n === 'number') byKind[k] = n;
  const out: CrawlProgress = {
    done: num('done'),
    queued: num('queued'),
    inFlight: num('inFlight'),
    errors: num('errors'),
    seen: num('seen'),
    excluded: num('excluded'),
    seconds: num('seconds'),
    rate: num('rate'),
    errorsByKind: byKind,
  };
  if (Array.isArray(v.recent)) out.recent = narrowPages(v.recent);
  return out;
}

/** Crawled pages, dropping malformed entries. */
export function narrowPages(v: unknown): CrawledPage[] {
  const out: CrawledPage[] = [];
  if (!Array.isArray(v)) return out;
  for (const r of v as unknown[]) {
    if (!isObj(r) || typeof r.url !== 'string') continue;
    const page: CrawledPage = { url: r.url, status: typeof r.status === 'number' ? r.status : null };
    if (typeof r.title === 'string') page.title = r.title;
    if (typeof r.error === 'string') page.error = r.error;
    out.push(page);
  }
  return out;
}

export function narrowRunStatus(v: unknown): RunStatus | null {
  if (!isObj(v) || !isRunPhase(v.phase)) return null;
  const s: RunStatus = {
    phase: v.phase,
    runId: isInt(v.runId) ? v.runId : null,
    title: typeof v.title === 'string' ? v.title : '',
    detail: typeof v.detail === 'string' ? v.detail : '',
    tick: isInt(v.tick) ? v.tick : 0,
  };
  if (Array.isArray(v.lastLines))
    s.lastLines = (v.lastLines as unknown[]).filter((l): l is string => typeof l === 'string');
  if (typeof v.pauseReason === 'string') s.pauseReason = v.pauseReason as StopReason;
  if (isInt(v.pausedTaskId)) s.pausedTaskId = v.pausedTaskId;
  if (v.onLine === true) s.onLine = true;
  if (isInt(v.viewedTick) && v.viewedTick >= 0) s.viewedTick = v.viewedTick;
  if (s.viewedTick !== undefined && v.viewedLine === true) s.viewedLine = true;
  if (s.viewedTick !== undefined && v.viewedReplaying === true) s.viewedReplaying = true;
  if (s.viewedTick !== undefined && typeof v.viewedReplayError === 'string') s.viewedReplayError = v.viewedReplayError;
  if (s.viewedTick !== undefined && isInt(v.viewedMoment)) s.viewedMoment = v.viewedMoment;
  if (typeof v.momentId === 'string') s.momentId = v.momentId;
  if (v.recorded === true) s.recorded = true;
  if (typeof v.notRecorded === 'string') s.notRecorded = v.notRecorded;
  if (typeof v.recordingFile === 'string') s.recordingFile = v.recordingFile;
  return s;
}

export function isTraceback(v: unknown): v is Traceback {
  return (
    isObj(v) &&
    typeof v.title === 'string' &&
    typeof v.error === 'string' &&
    typeof v.text === 'string' &&
    Array.isArray(v.frames)
  );
}

export function narrowException(v: unknown): ExceptionEntry | null {
  if (!isObj(v) || !isInt(v.taskId) || !isTraceback(v.traceback)) return null;
  const entry: ExceptionEntry = { taskId: v.taskId, traceback: v.traceback };
  const d = v.deadlock;
  if (isObj(d) && typeof d.summary === 'string' && typeof d.stopped === 'boolean')
    entry.deadlock = { summary: d.summary, stopped: d.stopped };
  return entry;
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** A program loop as the panel receives it (untrusted until narrowed: its texts hold socket peers and page paths). */
export function isProgramLoopState(v: unknown): v is ProgramLoopState {
  if (
    !isObj(v) ||
    typeof v.kind !== 'string' ||
    typeof v.title !== 'string' ||
    !(v.running === null || typeof v.running === 'string')
  )
    return false;
  if (
    !isStringArray(v.ready) ||
    !isStringArray(v.notes) ||
    !Array.isArray(v.sockets) ||
    !Array.isArray(v.timers) ||
    !Array.isArray(v.workers)
  )
    return false;
  const sockets = (v.sockets as unknown[]).every(
    (x) =>
      isObj(x) &&
      typeof x.fd === 'number' &&
      typeof x.events === 'string' &&
      typeof x.callback === 'string' &&
      typeof x.socket === 'string',
  );
  const timers = (v.timers as unknown[]).every(
    (x) => isObj(x) && typeof x.dueInMs === 'number' && typeof x.callback === 'string',
  );
  const workers = (v.workers as unknown[]).every(
    (x) =>
      isObj(x) &&
      (x.kind === 'thread' || x.kind === 'process') &&
      typeof x.name === 'string' &&
      typeof x.state === 'string',
  );
  return sockets && timers && workers;
}

export function isLint(v: unknown): v is Lint {
  return isObj(v) && typeof v.kind === 'string' && typeof v.message === 'string' && typeof v.tick === 'number';
}

export function narrowProgressPoint(v: unknown): ProgressPoint | null {
  if (!isObj(v)) return null;
  const keys = ['t', 'done', 'rate', 'queued', 'inFlight'] as const;
  for (const k of keys) if (typeof v[k] !== 'number') return null;
  return {
    t: v.t as number,
    done: v.done as number,
    rate: v.rate as number,
    queued: v.queued as number,
    inFlight: v.inFlight as number,
  };
}

export function narrowPanelInit(v: unknown): PanelInit | null {
  if (!isObj(v) || v.protocolVersion !== PANEL_PROTOCOL_VERSION) return null;
  const status = narrowRunStatus(v.status);
  if (status === null) return null;
  const snap = v.snapshot === null ? null : (narrowSnapshot(v.snapshot)?.snapshot ?? null);
  return {
    protocolVersion: PANEL_PROTOCOL_VERSION,
    status,
    snapshot: snap,
    progress: Array.isArray(v.progress)
      ? (v.progress as unknown[]).map(narrowProgressPoint).filter((p): p is ProgressPoint => p !== null)
      : [],
    exceptions: Array.isArray(v.exceptions)
      ? (v.exceptions as unknown[]).map(narrowException).filter((e): e is ExceptionEntry => e !== null)
      : [],
    lints: Array.isArray(v.lints) ? (v.lints as unknown[]).filter(isLint) : [],
    pages: narrowPages(v.pages),
    lastProgress: narrowProgress(v.lastProgress),
    comparison: narrowComparison(v.comparison),
    programLoops: Array.isArray(v.programLoops) ? (v.programLoops as unknown[]).filter(isProgramLoopState) : [],
    logpointHits: narrowLogpointMarks(v.logpointHits),
    debugged: v.debugged === true,
  };
}

/**
 * Logpoint hits as the panel accepts them (a `coroscope/logpointHits` body's `hits`, the `logpointHits` event's,
 * PanelInit's): the fields a mark needs copied, malformed entries dropped, at most MAX_LOGPOINT_MARKS.
 */
export function narrowLogpointMarks(v: unknown): LogpointMark[] {
  const out: LogpointMark[] = [];
  if (!Array.isArray(v)) return out;
  for (const x of v as unknown[]) {
    if (out.length >= MAX_LOGPOINT_MARKS) break;
    if (!isObj(x) || !isInt(x.hit) || x.hit < 0 || !isInt(x.tick) || x.tick < 0) continue;
    if (x.taskId !== null && !isInt(x.taskId)) continue;
    if (typeof x.message !== 'string') continue;
    out.push({
      hit: x.hit,
      tick: x.tick,
      taskId: x.taskId,
      task: typeof x.task === 'string' ? x.task : null,
      time: isFiniteNumber(x.time) && x.time >= 0 ? x.time : 0,
      message: x.message,
      file: typeof x.file === 'string' ? x.file : '',
      line: isInt(x.line) ? x.line : 0,
    });
  }
  return out;
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function narrowComparisonRow(v: unknown): ComparisonRowInfo | null {
  if (!isObj(v) || typeof v.approach !== 'string') return null;
  const nums = ['seconds', 'pagesPerSecond', 'concurrency', 'pages', 'latencyMs', 'failures'] as const;
  for (const k of nums) if (!isFiniteNumber(v[k])) return null;
  const row: ComparisonRowInfo = {
    approach: v.approach,
    seconds: v.seconds as number,
    pagesPerSecond: v.pagesPerSecond as number,
    concurrency: v.concurrency as number,
    pages: v.pages as number,
    latencyMs: v.latencyMs as number,
    failures: v.failures as number,
  };
  if (isFiniteNumber(v.memoryPerFetchBytes)) row.memoryPerFetchBytes = v.memoryPerFetchBytes;
  if (isFiniteNumber(v.startupSeconds)) row.startupSeconds = v.startupSeconds;
  if (isFiniteNumber(v.wastedTries)) row.wastedTries = v.wastedTries;
  return row;
}

/** A comparison as the webview accepts it (rows that do not narrow are dropped), or null. */
export function narrowComparison(v: unknown): Comparison | null {
  if (!isObj(v) || !isFiniteNumber(v.pages) || !isFiniteNumber(v.latencyMs)) return null;
  if (v.state !== 'running' && v.state !== 'done' && v.state !== 'failed') return null;
  const rows = Array.isArray(v.rows)
    ? (v.rows as unknown[]).map(narrowComparisonRow).filter((r): r is ComparisonRowInfo => r !== null)
    : [];
  const c: Comparison = { pages: v.pages, latencyMs: v.latencyMs, state: v.state, rows };
  if (typeof v.error === 'string') c.error = v.error;
  return c;
}

export function isTaskDetail(v: unknown): v is TaskDetail {
  return isObj(v) && isTaskSummary(v.task) && Array.isArray(v.frames) && Array.isArray(v.awaitChain);
}

export function isAwaitGraph(v: unknown): v is AwaitGraph {
  return isObj(v) && Array.isArray(v.nodes) && Array.isArray(v.edges) && Array.isArray(v.deadlocks);
}

export function isTracePair(v: unknown): v is TracePair {
  return isObj(v) && typeof v.url === 'string' && isTraceback(v.coroutine) && isTraceback(v.callback);
}

export function isVariableList(v: unknown): v is { variables: VariableInfo[] } {
  return (
    isObj(v) &&
    Array.isArray(v.variables) &&
    (v.variables as unknown[]).every(
      (x) => isObj(x) && typeof x.name === 'string' && typeof x.value === 'string' && isInt(x.handle),
    )
  );
}

// --- the timeline --------------------------------------------------------------------------

type MarkKind = TimelineMark['kind'];
const MARK_KINDS: ReadonlySet<string> = new Set<MarkKind>(['io', 'timer', 'exception', 'cancel']);
const SEGMENT_STATES: ReadonlySet<string> = new Set<TimelineSegment['state']>(['scheduled', 'running', 'suspended']);
const END_STATES: ReadonlySet<string> = new Set<NonNullable<TimelineLane['endState']>>(['done', 'failed', 'cancelled']);

function narrowCancelOrigin(v: unknown): CancelOrigin | undefined {
  if (!isObj(v) || typeof v.kind !== 'string') return undefined;
  if (v.kind === 'task') return isInt(v.taskId) ? { kind: 'task', taskId: v.taskId } : { kind: 'unknown' };
  if (v.kind === 'inspector' || v.kind === 'debugger' || v.kind === 'cli' || v.kind === 'deadline')
    return { kind: v.kind };
  return { kind: 'unknown' };
}

function narrowSegment(v: unknown): TimelineSegment | null {
  if (
    !isObj(v) ||
    !isInt(v.fromTick) ||
    !isInt(v.toTick) ||
    v.toTick < v.fromTick ||
    typeof v.state !== 'string' ||
    !SEGMENT_STATES.has(v.state)
  )
    return null;
  const s: TimelineSegment = { fromTick: v.fromTick, toTick: v.toTick, state: v.state as TimelineSegment['state'] };
  if (typeof v.awaiting === 'string') s.awaiting = v.awaiting;
  if (typeof v.awaitDetail === 'string' && v.awaitDetail !== '') s.awaitDetail = v.awaitDetail;
  if (isInt(v.wokenTick)) s.wokenTick = v.wokenTick;
  if (isInt(v.wokenBy) || v.wokenBy === 'io' || v.wokenBy === 'timer' || v.wokenBy === 'callback')
    s.wokenBy = v.wokenBy;
  if (v.open === true) s.open = true;
  return s;
}

function narrowLane(v: unknown): TimelineLane | null {
  if (!isObj(v) || !isInt(v.taskId) || !isInt(v.createdTick) || !Array.isArray(v.segments)) return null;
  const segments: TimelineSegment[] = [];
  let last = -1;
  for (const raw of v.segments as unknown[]) {
    const s = narrowSegment(raw);
    // Segments out of order would break the lane's binary searches: the lane is dropped.
    if (s === null || s.fromTick < last) return null;
    last = s.fromTick;
    segments.push(s);
  }
  const lane: TimelineLane = {
    taskId: v.taskId,
    name: typeof v.name === 'string' ? v.name : `task ${v.taskId}`,
    parentId: isInt(v.parentId) ? v.parentId : null,
    createdTick: v.createdTick,
    segmentsFrom: isInt(v.segmentsFrom) && v.segmentsFrom >= 0 ? v.segmentsFrom : 0,
    endTick: isInt(v.endTick) ? v.endTick : null,
    endState:
      typeof v.endState === 'string' && END_STATES.has(v.endState) ? (v.endState as TimelineLane['endState']) : null,
    segments,
  };
  if (isSourcePosition(v.createdSite))
    lane.createdSite = { file: v.createdSite.file, line: v.createdSite.line, column: v.createdSite.column };
  if (isInt(v.cancelledTick)) lane.cancelledTick = v.cancelledTick;
  const by = narrowCancelOrigin(v.cancelledBy);
  if (by !== undefined) lane.cancelledBy = by;
  return lane;
}

/** A timeline as the panel accepts it (malformed lanes and marks dropped), or null. */
export function narrowTimeline(v: unknown): Timeline | null {
  if (!isObj(v) || !isInt(v.ticks) || v.ticks < 0 || !Array.isArray(v.lanes)) return null;
  const lanes = (v.lanes as unknown[]).map(narrowLane).filter((l): l is TimelineLane => l !== null);
  const marks: TimelineMark[] = [];
  if (Array.isArray(v.marks)) {
    for (const m of v.marks as unknown[]) {
      if (!isObj(m) || !isInt(m.tick) || typeof m.kind !== 'string' || !MARK_KINDS.has(m.kind)) continue;
      const mark: TimelineMark = {
        tick: m.tick,
        kind: m.kind as MarkKind,
        detail: typeof m.detail === 'string' ? m.detail : '',
      };
      if (isInt(m.taskId)) mark.taskId = m.taskId;
      marks.push(mark);
    }
  }
  const tickTimes = Array.isArray(v.tickTimes)
    ? (v.tickTimes as unknown[]).map((x) => (isFiniteNumber(x) && x >= 0 ? x : 0))
    : [];
  return {
    runId: isInt(v.runId) ? v.runId : 0,
    ticks: v.ticks,
    sinceTick: isInt(v.sinceTick) && v.sinceTick >= 0 ? v.sinceTick : 0,
    live: v.live === true,
    lanes,
    marks,
    tickTimes,
  };
}
