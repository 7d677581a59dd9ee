// LoopController: a debugger's control over an EventLoop: pause after the current tick, step
// exactly one tick, step until a task resumes and suspends again (or finishes), step out of
// a frame, continue; line breakpoints on suspension points; breaks when a task fails or is
// cancelled. It is a LoopObserver (install it through an ObserverFanout) and listens to the
// coroutine tracking hooks (`finished`, for step out).
//
// How stopping works: the loop only stops between ticks (loop.pause() holds it after the
// current tick). A condition met inside a tick (a breakpoint, a failed task, the stepped
// task's step ending) calls loop.pause() and records why; at the tick's end the controller
// announces the stop (`paused` event) and settles the pending step request. Requests come in
// between macrotasks, never inside a tick, so pause() from a client is immediate.
//
// Line breakpoints (TypeScript file:line):
// - A task can only stop where it suspends, so a breakpoint must be on a line with `yield`
//   (verified against the file's text). It hits when, at the end of a step, one of the task's
//   frames has newly arrived at the line (its position changed since the last look, or the
//   frame is new), and when a task resumes from the line (at the start of a step, its
//   innermost frame is suspended there and it has not already stopped there).
// - Cheap check: nothing at all while no breakpoint is set; otherwise only frames whose
//   generator function is defined in a file with breakpoints (FunctionLocations, one
//   inspector read per function) have their suspended position read (GeneratorReader).
// - `condition`: a JS expression over the frame's locals, evaluated with `new Function` on a
//   snapshot of their primitive values (numbers, strings, booleans, null, undefined, bigints;
//   objects are not passed). V8 cannot evaluate on a suspended generator's frame. A condition
//   that throws counts as a hit (the description says so), so a typo is noticed.
// - `hitCondition`: `N` or `>=N` (from the Nth hit on), `>N`, `==N` / `=N`, `<N`, `<=N`, `%N`.
//
// Event log (deterministic stepping): with `enableEventLog()`, every tick start and end, step
// start and end, task creation, cancel request and the state each step left its task in are
// appended in order. A tick steps exactly the tasks that were on the ready queue when it
// began, in queue order (`readyTasks(loop)` lists them), and the log lets a test check it.
//
// Invariants: nothing per step beyond a few field tests while no breakpoint, step or log is
// active; the controller never resumes or throws into a task; every step request settles
// (at the stop, on continue/pause, or when the run ends).

import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import type { Breakpoint, BreakpointStatus, StopReason } from '../../protocol/host-protocol';
import type { CoroutineFrame, CoroutineTrackingHooks } from '../coroutine';
import { isCoroutineTrackingOn } from '../coroutine';
import { exceptionOf, inspect } from '../inspection';
import type { EventLoop, LoopObserver } from '../loop';
import { Task } from '../task';
import { FunctionLocations, functionLocations } from './function-locations';
import { errorText, evaluateOverLocals } from './local-expressions';
import { generatorReader, type GeneratorReader, type LocalVariable } from './generator-reader';
import { sourcePositions, type SourcePositionMapper } from './source-positions';
import type { TaskState } from '../../protocol/host-protocol';
import { taskState } from './task-summaries';
import { PREVIEW_STRING } from './value-preview';

/** Why the loop stopped, as announced to clients. */
export interface PauseInfo {
  reason: StopReason;
  tick: number;
  taskId?: number;
  description: string;
}

export interface LoopControlEvents {
  paused?(info: PauseInfo): void;
  continued?(tick: number): void;
}

/** A request the controller cannot serve in the loop's current state. */
export class LoopControlError extends Error {
  override readonly name = 'LoopControlError';
}

export type LoopLogEntry =
  | { seq: number; kind: 'tickStart'; tick: number }
  | { seq: number; kind: 'tickEnd'; tick: number; callbacks: number }
  | { seq: number; kind: 'stepStart'; tick: number; taskId: number }
  | { seq: number; kind: 'stepEnd'; tick: number; taskId: number }
  /** The state a step (or a creation, or a cancel request) left the task in. */
  | { seq: number; kind: 'state'; tick: number; taskId: number; state: TaskState }
  | { seq: number; kind: 'created'; tick: number; taskId: number }
  | { seq: number; kind: 'cancelRequested'; tick: number; taskId: number; by: number | null };

/** The tasks the next tick will step, in order: the task entries of the loop's ready queue. */
export function readyTasks(loop: EventLoop): Task<unknown>[] {
  return loop[inspect]().scheduledSteps().map((s) => s.task);
}

export interface BreakpointEntry {
  readonly file: string;
  readonly line: number;
  readonly condition: string | null;
  readonly hit: ((count: number) => boolean) | null;
  hits: number;
}

type StepGoal =
  | { kind: 'tick' }
  | { kind: 'task'; task: Task<unknown>; started: boolean; met: boolean }
  | { kind: 'out'; task: Task<unknown>; depth: number; met: boolean };

interface PendingStep {
  goal: StepGoal;
  resolve: (tick: number) => void;
  reject: (e: unknown) => void;
}

/** Parses a DAP-style hit condition; null if it is not one. */
export function parseHitCondition(text: string): ((count: number) => boolean) | null {
  const m = /^\s*(>=|<=|==|=|>|<|%)?\s*(\d+)\s*$/.exec(text);
  if (m === null) return null;
  const n = Number(m[2]);
  switch (m[1]) {
    case undefined:
    case '>=':
      return (c) => c >= n;
    case '>':
      return (c) => c > n;
    case '=':
    case '==':
      return (c) => c === n;
    case '<':
      return (c) => c < n;
    case '<=':
      return (c) => c <= n;
    case '%':
      return n === 0 ? null : (c) => c % n === 0;
    default:
      return null;
  }
}

/** The primitive value a local's preview stands for, or `undefined` with `ok: false` for objects and cut strings. */
function primitiveOf(local: LocalVariable): { ok: boolean; value: unknown } {
  const v = local.value;
  switch (v.type) {
    case 'undefined':
      return { ok: true, value: undefined };
    case 'null':
      return { ok: true, value: null };
    case 'boolean':
      return { ok: true, value: v.text === 'true' };
    case 'number':
      return { ok: true, value: Number(v.text) };
    case 'bigint':
      return { ok: true, value: BigInt(v.text.replace(/n$/, '')) };
    case 'string':
      if (v.size !== null && v.size > PREVIEW_STRING) return { ok: false, value: undefined };
      try {
        return { ok: true, value: JSON.parse(v.text) as unknown };
      } catch {
        return { ok: false, value: undefined };
      }
    default:
      return { ok: false, value: undefined };
  }
}

/**
 * Evaluates a breakpoint condition over a frame's locals (primitives only). Returns whether it
 * holds, or the error text when it threw.
 */
export function evaluateCondition(condition: string, locals: readonly LocalVariable[]): { value: boolean; error: string | null } {
  const bindings = locals.map((l): readonly [string, unknown] => {
    const p = primitiveOf(l);
    return [l.name, p.ok ? p.value : undefined];
  });
  const r = evaluateOverLocals(condition, bindings, { strict: true });
  return r.ok ? { value: Boolean(r.value), error: null } : { value: true, error: errorText(r.error) };
}

/**
 * Checks breakpoints against the file's text: a verified breakpoint is on a line with `yield`
 * (where a task can stop), with a parseable condition and hit condition.
 */
/** True for a source line where a task can suspend (it has `yield`): its breakpoints stop at suspensions; others are line breakpoints. */
export function isSuspensionLine(text: string): boolean {
  return /\byield\b/.test(text);
}

export function checkBreakpoints(file: string, breakpoints: readonly Breakpoint[]): { statuses: BreakpointStatus[]; entries: BreakpointEntry[] } {
  const path = resolvePath(file);
  let lines: string[] | null = null;
  let readError: string | null = null;
  try {
    lines = readFileSync(path, 'utf8').split('\n');
  } catch (e) {
    readError = e instanceof Error ? e.message : String(e);
  }
  const tracking = isCoroutineTrackingOn();
  const entries: BreakpointEntry[] = [];
  const statuses = breakpoints.map((bp): BreakpointStatus => {
    const status = (verified: boolean, message?: string): BreakpointStatus => (message === undefined ? { file: path, line: bp.line, verified } : { file: path, line: bp.line, verified, message });
    if (!Number.isInteger(bp.line) || bp.line < 1) return status(false, `line must be a positive integer, got ${String(bp.line)}`);
    if (lines === null) return status(false, `cannot read ${path}: ${readError}`);
    if (bp.line > lines.length) return status(false, `${path} has only ${lines.length} lines`);
    if (!isSuspensionLine(lines[bp.line - 1]!)) return status(false, 'a task can only stop where it suspends: put the breakpoint on a line with yield*');
    let hit: ((count: number) => boolean) | null = null;
    if (bp.hitCondition !== undefined && bp.hitCondition.trim() !== '') {
      hit = parseHitCondition(bp.hitCondition);
      if (hit === null) return status(false, `hit condition ${JSON.stringify(bp.hitCondition)} is not one of N, >=N, >N, ==N, <N, <=N, %N`);
    }
    let condition: string | null = null;
    if (bp.condition !== undefined && bp.condition.trim() !== '') {
      try {
        new Function(`return (${bp.condition});`);
      } catch (e) {
        return status(false, `condition does not parse: ${e instanceof Error ? e.message : String(e)}`);
      }
      condition = bp.condition;
    }
    entries.push({ file: path, line: bp.line, condition, hit, hits: 0 });
    return tracking ? status(true) : status(true, 'inspection is off: frames are not tracked, so this breakpoint cannot hit until a run with inspection on');
  });
  return { statuses, entries };
}

export interface LoopControllerOptions {
  events?: LoopControlEvents;
  reader?: GeneratorReader;
  positions?: SourcePositionMapper;
  functions?: FunctionLocations;
}

export class LoopController implements LoopObserver, CoroutineTrackingHooks {
  readonly loop: EventLoop;
  private readonly events: LoopControlEvents;
  private readonly readerOption: GeneratorReader | undefined;
  private readonly positionsOption: SourcePositionMapper | undefined;
  private readonly functionsOption: FunctionLocations | undefined;
  // Stops.
  private pending: PendingStep | null = null;
  private stopRequest: PauseInfo | null = null;
  breakOnTaskFailed = false;
  breakOnTaskCancelled = false;
  // Breakpoints by absolute file path.
  private readonly breakpoints = new Map<string, BreakpointEntry[]>();
  private breakpointCount = 0;
  /** Last position seen of each generator checked (line, 1-based), and where a task last stopped. */
  private readonly lastLine = new WeakMap<object, string>();
  private readonly stoppedAt = new WeakMap<Task<unknown>, string>();
  // Event log.
  private log: LoopLogEntry[] | null = null;
  private logCapacity = 0;
  private seq = 0;
  private lastStepped: Task<unknown> | null = null;

  constructor(loop: EventLoop, options: LoopControllerOptions = {}) {
    this.loop = loop;
    this.events = options.events ?? {};
    this.readerOption = options.reader;
    this.positionsOption = options.positions;
    this.functionsOption = options.functions;
  }

  private get reader(): GeneratorReader {
    return this.readerOption ?? generatorReader();
  }
  private get positions(): SourcePositionMapper {
    return this.positionsOption ?? sourcePositions();
  }
  private get functions(): FunctionLocations {
    return this.functionsOption ?? functionLocations();
  }

  // --- requests --------------------------------------------------------------------------

  isPaused(): boolean {
    return this.loop.isPaused();
  }

  /** True while a step request (tick, task, out) is under way. */
  isStepping(): boolean {
    return this.pending !== null;
  }

  /** Holds the loop before its first tick and announces it (stopOnEntry). */
  pauseOnEntry(): void {
    this.loop.pause();
    this.announce({ reason: 'entry', tick: this.loop.tickCount(), description: 'Paused before the first tick' });
  }

  /** Holds the loop now (requests arrive between ticks, so "after the current tick" is now). */
  pause(): number {
    const tick = this.loop.tickCount();
    const wasPaused = this.loop.isPaused() && this.pending === null;
    this.loop.pause();
    this.stopRequest = null;
    if (this.pending !== null) this.settle(tick);
    if (!wasPaused) this.announce({ reason: 'pause', tick, description: `Paused after tick ${tick}` });
    return tick;
  }

  /** Lets the loop run freely (a pending step request is settled first). */
  continue(): number {
    const tick = this.loop.tickCount();
    if (this.pending !== null) this.settle(tick);
    this.stopRequest = null;
    const wasPaused = this.loop.isPaused();
    this.loop.resume();
    if (wasPaused) this.events.continued?.(tick);
    return tick;
  }

  /** Runs exactly one tick (the loop must be paused). */
  stepTick(): Promise<number> {
    return this.startStep({ kind: 'tick' });
  }

  /** Runs until `task` has resumed and suspended again, or finished. */
  stepTask(task: Task<unknown>): Promise<number> {
    if (task.done()) return Promise.reject(new LoopControlError(`task #${task.id} is already ${taskState(task)}`));
    return this.startStep({ kind: 'task', task, started: false, met: false });
  }

  /** Runs until the frame at `depth` of the task's chain has returned (its chain is `depth` frames or fewer), or the task finished. */
  stepOut(task: Task<unknown>, depth: number): Promise<number> {
    if (task.done()) return Promise.reject(new LoopControlError(`task #${task.id} is already ${taskState(task)}`));
    const frames = task[inspect]().frames;
    if (!isCoroutineTrackingOn() || frames === null) return Promise.reject(new LoopControlError('step out needs coroutine tracking (inspection on) and a tracked task'));
    if (!Number.isInteger(depth) || depth < 0) return Promise.reject(new LoopControlError(`depth must be an integer >= 0, got ${String(depth)}`));
    if (frames.length <= depth) return Promise.reject(new LoopControlError(`task #${task.id} has no frame at depth ${depth} (its chain has ${frames.length})`));
    return this.startStep({ kind: 'out', task, depth, met: false });
  }

  /** The run ended (the loop stopped for good): settles a pending step. */
  runEnded(): void {
    if (this.pending !== null) this.settle(this.loop.tickCount());
    this.stopRequest = null;
  }

  setExceptionBreaks(taskFailed: boolean, taskCancelled: boolean): void {
    this.breakOnTaskFailed = taskFailed;
    this.breakOnTaskCancelled = taskCancelled;
  }

  /** Replaces the breakpoints of `file`; says which are verified (lines where a task can stop). */
  setBreakpoints(file: string, breakpoints: readonly Breakpoint[]): BreakpointStatus[] {
    const path = resolvePath(file);
    const previous = this.breakpoints.get(path);
    if (previous !== undefined) this.breakpointCount -= previous.length;
    this.breakpoints.delete(path);
    const { statuses, entries } = checkBreakpoints(path, breakpoints);
    if (entries.length > 0) {
      this.breakpoints.set(path, entries);
      this.breakpointCount += entries.length;
    }
    return statuses;
  }

  /** Starts recording the event log (keeps the last `capacity` entries). */
  enableEventLog(capacity = 100_000): void {
    this.log = [];
    this.logCapacity = capacity;
  }

  /** The event log so far (empty if not enabled). */
  eventLog(): readonly LoopLogEntry[] {
    this.flushStepOutcome();
    return this.log ?? [];
  }

  clearEventLog(): void {
    if (this.log !== null) this.log = [];
  }

  // --- driving ---------------------------------------------------------------------------

  private startStep(goal: StepGoal): Promise<number> {
    if (this.loop.isClosed()) return Promise.reject(new LoopControlError('the loop is closed'));
    if (this.pending !== null) return Promise.reject(new LoopControlError('a step is already under way'));
    if (goal.kind === 'tick' && this.loop.isRunning() && !this.loop.isPaused()) return Promise.reject(new LoopControlError('stepTick needs a paused loop: pause first'));
    const promise = new Promise<number>((resolve, reject) => {
      this.pending = { goal, resolve, reject };
    });
    this.stopRequest = null;
    if (goal.kind === 'tick') {
      this.loop.runOnce().catch((e: unknown) => this.fail(e));
    } else if (this.loop.isRunning()) {
      this.loop.resume();
    } else {
      void this.driveWithRunOnce();
    }
    return promise;
  }

  /** For a loop nobody runs (tests): single ticks until the step request settles. */
  private async driveWithRunOnce(): Promise<void> {
    try {
      while (this.pending !== null && !this.loop.isClosed()) await this.loop.runOnce();
    } catch (e) {
      this.fail(e);
    }
  }

  private fail(e: unknown): void {
    const p = this.pending;
    this.pending = null;
    p?.reject(e);
  }

  private settle(tick: number): void {
    const p = this.pending;
    this.pending = null;
    p?.resolve(tick);
  }

  private announce(info: PauseInfo): void {
    this.events.paused?.(info);
  }

  /**
   * Holds the loop after the current tick and announces why then (the first reason of a tick
   * wins). For conditions seen inside a tick: a breakpoint, a failed task, or one the host
   * watches itself (a URL the crawler records as failed).
   */
  stopAfterTick(info: Omit<PauseInfo, 'tick'>): void {
    if (this.stopRequest === null) this.stopRequest = { ...info, tick: this.loop.tickCount() };
    this.loop.pause();
  }

  private goalMet(): boolean {
    const g = this.pending?.goal;
    if (g === undefined) return false;
    return g.kind === 'tick' || g.met;
  }

  // --- observer hooks ---------------------------------------------------------------------

  tickStart(tick: number): void {
    if (this.log !== null) {
      this.flushStepOutcome();
      this.append({ seq: 0, kind: 'tickStart', tick });
    }
  }

  tickEnd(tick: number, callbacksRun: number): void {
    if (this.log !== null) {
      this.flushStepOutcome();
      this.append({ seq: 0, kind: 'tickEnd', tick, callbacks: callbacksRun });
    }
    const stop = this.stopRequest;
    const met = this.goalMet();
    if (stop === null && !met) return;
    this.loop.pause();
    this.stopRequest = null;
    let info: PauseInfo;
    if (stop !== null) info = { ...stop, tick };
    else {
      const g = this.pending!.goal;
      const taskId = g.kind === 'tick' ? undefined : g.task.id;
      const description = g.kind === 'tick' ? `Stepped tick ${tick}` : g.kind === 'task' ? `Task #${g.task.id} ${JSON.stringify(g.task.name)} ${g.task.done() ? 'finished' : 'suspended again'}` : `Stepped out to depth ${g.depth} of task #${g.task.id}`;
      info = taskId === undefined ? { reason: 'step', tick, description } : { reason: 'step', tick, taskId, description };
    }
    if (this.pending !== null) this.settle(tick);
    this.announce(info);
  }

  taskCreated(task: Task<unknown>): void {
    if (this.log !== null) {
      this.flushStepOutcome();
      const tick = this.loop.tickCount();
      this.append({ seq: 0, kind: 'created', tick, taskId: task.id });
      this.append({ seq: 0, kind: 'state', tick, taskId: task.id, state: 'scheduled' });
    }
  }

  taskStepStart(task: Task<unknown>): void {
    if (this.log !== null) {
      this.flushStepOutcome();
      this.append({ seq: 0, kind: 'stepStart', tick: this.loop.tickCount(), taskId: task.id });
    }
    const g = this.pending?.goal;
    if (g !== undefined && g.kind === 'task' && g.task === task) g.started = true;
    if (this.breakpointCount > 0) this.checkResume(task);
  }

  taskStepEnd(task: Task<unknown>): void {
    if (this.log !== null) {
      this.append({ seq: 0, kind: 'stepEnd', tick: this.loop.tickCount(), taskId: task.id });
      this.lastStepped = task;
    }
    const g = this.pending?.goal;
    if (g !== undefined) {
      if (g.kind === 'task' && g.task === task && g.started) {
        g.met = true;
        this.loop.pause();
      } else if (g.kind === 'out' && g.task === task && (g.met || (task[inspect]().frames?.length ?? 0) <= g.depth)) {
        g.met = true;
        this.loop.pause();
      }
    }
    if (this.breakpointCount > 0) this.checkSuspension(task);
  }

  taskDone(task: Task<unknown>): void {
    if (this.log !== null) this.flushStepOutcome();
    const g = this.pending?.goal;
    if (g !== undefined && g.kind !== 'tick' && g.task === task) {
      g.met = true;
      this.loop.pause();
    }
    if (task.cancelled()) {
      if (this.breakOnTaskCancelled) this.stopAfterTick({ reason: 'cancelled', taskId: task.id, description: `Task #${task.id} ${JSON.stringify(task.name)} was cancelled` });
    } else if (this.breakOnTaskFailed && exceptionOf(task) !== undefined) {
      const e = exceptionOf(task);
      const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      this.stopAfterTick({ reason: 'exception', taskId: task.id, description: `Task #${task.id} ${JSON.stringify(task.name)} failed: ${what}` });
    }
  }

  taskCancelRequested(task: Task<unknown>, by: Task<unknown> | null): void {
    if (this.log !== null) {
      this.flushStepOutcome();
      this.append({ seq: 0, kind: 'cancelRequested', tick: this.loop.tickCount(), taskId: task.id, by: by?.id ?? null });
    }
  }

  /** Coroutine tracking hook: a frame of some task's chain returned or threw. */
  finished(frame: CoroutineFrame): void {
    const g = this.pending?.goal;
    if (g !== undefined && g.kind === 'out' && frame.task === g.task && frame.depth <= g.depth) g.met = true;
  }

  // --- event log ----------------------------------------------------------------------------

  private append(entry: LoopLogEntry): void {
    const log = this.log!;
    entry.seq = ++this.seq;
    log.push(entry);
    if (log.length > this.logCapacity) log.splice(0, log.length - this.logCapacity);
  }

  /** Logs the state the last stepped task was left in (known only once its step returned). */
  private flushStepOutcome(): void {
    const t = this.lastStepped;
    if (t === null || this.log === null) return;
    this.lastStepped = null;
    this.append({ seq: 0, kind: 'state', tick: this.loop.tickCount(), taskId: t.id, state: taskState(t) });
  }

  // --- breakpoints --------------------------------------------------------------------------

  private fileHasBreakpoints(fn: object): string | null {
    const file = this.functions.fileOf(fn);
    return file !== null && this.breakpoints.has(file) ? file : null;
  }

  /** Reads the suspended line of the given frames (only those in files with breakpoints). */
  private linesOf(frames: readonly CoroutineFrame[]): Array<{ frame: CoroutineFrame; file: string; line: number } | null> {
    const wanted: number[] = [];
    frames.forEach((f, i) => {
      if (this.fileHasBreakpoints(f.fn) !== null) wanted.push(i);
    });
    const out: Array<{ frame: CoroutineFrame; file: string; line: number } | null> = frames.map(() => null);
    if (wanted.length === 0) return out;
    const read = this.reader.readGenerators(wanted.map((i) => frames[i]!.gen));
    wanted.forEach((i, k) => {
      const loc = read[k]?.location ?? null;
      if (loc === null || loc.url === '' || read[k]!.state !== 'suspended') return;
      const pos = this.positions.map(loc.url, loc.line0, loc.column0, loc.sourceMapURL);
      out[i] = { frame: frames[i]!, file: resolvePath(pos.file), line: pos.line };
    });
    return out;
  }

  private breakpointAt(file: string, line: number): BreakpointEntry | undefined {
    return this.breakpoints.get(file)?.find((b) => b.line === line);
  }

  /** Counts a hit of `bp` for `frame` and says whether to stop (condition, hit condition). */
  private shouldStop(bp: BreakpointEntry, frame: CoroutineFrame): { stop: boolean; note: string } {
    let note = '';
    if (bp.condition !== null) {
      const group = this.reader.newHandleGroup();
      try {
        const locals = this.reader.readGenerator(frame.gen, { locals: true, handles: { table: this.reader.handles, group } }).locals ?? [];
        const r = evaluateCondition(bp.condition, locals);
        if (!r.value) return { stop: false, note };
        if (r.error !== null) note = ` (condition threw ${r.error})`;
      } finally {
        this.reader.releaseHandles(group);
      }
    }
    bp.hits++;
    if (bp.hit !== null && !bp.hit(bp.hits)) return { stop: false, note };
    return { stop: true, note };
  }

  private checkSuspension(task: Task<unknown>): void {
    const frames = task[inspect]().frames;
    if (frames === null || frames.length === 0 || task.done()) return;
    const lines = this.linesOf(frames);
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = lines[i];
      if (l === null || l === undefined) continue;
      const key = `${l.file}:${l.line}`;
      const moved = this.lastLine.get(l.frame.gen) !== key;
      this.lastLine.set(l.frame.gen, key);
      if (!moved) continue;
      const bp = this.breakpointAt(l.file, l.line);
      if (bp === undefined) continue;
      const { stop, note } = this.shouldStop(bp, l.frame);
      if (!stop) continue;
      this.stoppedAt.set(task, key);
      this.stopAfterTick({ reason: 'breakpoint', taskId: task.id, description: `Task #${task.id} ${JSON.stringify(task.name)} suspended at ${key} in ${l.frame.fn.name || '<anonymous>'}${note}` });
      return;
    }
  }

  private checkResume(task: Task<unknown>): void {
    const frames = task[inspect]().frames;
    if (frames === null || frames.length === 0) return;
    const inner = frames[frames.length - 1]!;
    const [l] = this.linesOf([inner]);
    if (l === null || l === undefined) return;
    const key = `${l.file}:${l.line}`;
    this.lastLine.set(inner.gen, key);
    if (this.stoppedAt.get(task) === key) {
      // It already stopped when it suspended here: resuming is the user's own step onwards.
      this.stoppedAt.delete(task);
      return;
    }
    const bp = this.breakpointAt(l.file, l.line);
    if (bp === undefined) return;
    const { stop, note } = this.shouldStop(bp, inner);
    if (stop) this.stopAfterTick({ reason: 'breakpoint', taskId: task.id, description: `Task #${task.id} ${JSON.stringify(task.name)} resumed from ${key} in ${inner.fn.name || '<anonymous>'}${note}` });
  }
}
