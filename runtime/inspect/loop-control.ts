// LoopController: a debugger's control over an EventLoop: pause after the current tick, step one
// tick, step a task (until it resumes and suspends again, or finishes), step out of a frame,
// continue; line breakpoints on suspension points (SuspensionBreakpoints, with hit conditions);
// breaks when a task fails or is cancelled; an event log for deterministic stepping. A
// LoopObserver (install it through an ObserverFanout). How stopping, breakpoints and the log
// work is in docs/design/loop-control.md.
//
// Invariants: the loop stops only between ticks (a condition met inside a tick calls pause()
// and the stop is announced at the tick's end); nothing per step beyond a few field tests while
// no breakpoint, step or log is active; the controller never resumes or throws into a task;
// every step request settles (at the stop, on continue/pause, or when the run ends).

import type { Breakpoint, BreakpointStatus, DeadlockStop, StopReason } from '../../protocol/host-protocol';
import type { CoroutineFrame, CoroutineTrackingHooks } from '../coroutine';
import { isCoroutineTrackingOn } from '../coroutine';
import { exceptionOf, inspect } from '../inspection';
import type { EventLoop, LoopObserver } from '../loop';
import { Task } from '../task';
import type { FunctionLocations } from './function-locations';
import type { GeneratorReader } from './generator-reader';
import type { SourcePositionMapper } from './source-positions';
import { SuspensionBreakpoints, type BreakpointEntry } from './suspension-breakpoints';
import type { TaskState } from '../../protocol/host-protocol';
import { taskState } from './task-summaries';

/** Why the loop stopped, as announced to clients. */
export interface PauseInfo {
  reason: StopReason;
  tick: number;
  taskId?: number;
  description: string;
  /** A stop of the `urlFailed` break: the URL that failed. */
  url?: string;
  /** A Deadlock stop's report (the host's deadlock watch). */
  deadlock?: DeadlockStop;
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
  return loop[inspect]()
    .scheduledSteps()
    .map((s) => s.task);
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

export interface LoopControllerOptions {
  events?: LoopControlEvents;
  reader?: GeneratorReader;
  positions?: SourcePositionMapper;
  functions?: FunctionLocations;
}

export class LoopController implements LoopObserver, CoroutineTrackingHooks {
  readonly loop: EventLoop;
  private readonly events: LoopControlEvents;
  // Stops.
  private pending: PendingStep | null = null;
  private stopRequest: PauseInfo | null = null;
  breakOnTaskFailed = false;
  breakOnTaskCancelled = false;
  /**
   * Asked at every tick's end while set, when no other stop is due (the host's Deadlock
   * break): a stop to make after this tick, or null. It must cost a few field tests when
   * there is nothing to find.
   */
  watchAtTickEnd: (() => Omit<PauseInfo, 'tick'> | null) | null = null;
  /**
   * Line breakpoints on suspension points: a hit counts, and stops the loop after its tick when its hit
   * condition lets it.
   */
  private readonly breakpoints: SuspensionBreakpoints;
  // Event log.
  private log: LoopLogEntry[] | null = null;
  private logCapacity = 0;
  private seq = 0;
  private lastStepped: Task<unknown> | null = null;

  constructor(loop: EventLoop, options: LoopControllerOptions = {}) {
    this.loop = loop;
    this.events = options.events ?? {};
    this.breakpoints = new SuspensionBreakpoints(
      (bp, task, description) => this.breakpointHit(bp, task, description),
      options,
    );
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

  /**
   * Runs until the frame at `depth` of the task's chain has returned (its chain is `depth` frames or fewer),
   * or the task finished.
   */
  stepOut(task: Task<unknown>, depth: number): Promise<number> {
    if (task.done()) return Promise.reject(new LoopControlError(`task #${task.id} is already ${taskState(task)}`));
    const frames = task[inspect]().frames;
    if (!isCoroutineTrackingOn() || frames === null)
      return Promise.reject(
        new LoopControlError('step out needs coroutine tracking (inspection on) and a tracked task'),
      );
    if (!Number.isInteger(depth) || depth < 0)
      return Promise.reject(new LoopControlError(`depth must be an integer >= 0, got ${String(depth)}`));
    if (frames.length <= depth)
      return Promise.reject(
        new LoopControlError(`task #${task.id} has no frame at depth ${depth} (its chain has ${frames.length})`),
      );
    return this.startStep({ kind: 'out', task, depth, met: false });
  }

  /**
   * Holds the loop now and announces why, for a condition found between ticks (a deadlock
   * the periodic check found while other tasks still run); nothing when already held.
   */
  stopBetweenTicks(info: Omit<PauseInfo, 'tick'>): void {
    if (this.loop.isPaused() && this.pending === null) return;
    const tick = this.loop.tickCount();
    this.loop.pause();
    this.stopRequest = null;
    if (this.pending !== null) this.settle(tick);
    this.announce({ ...info, tick });
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
    return this.breakpoints.set(file, breakpoints);
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
    if (goal.kind === 'tick' && this.loop.isRunning() && !this.loop.isPaused())
      return Promise.reject(new LoopControlError('stepTick needs a paused loop: pause first'));
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
    if (this.stopRequest === null && this.watchAtTickEnd !== null) {
      const watched = this.watchAtTickEnd();
      if (watched !== null) this.stopRequest = { ...watched, tick };
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
      const description =
        g.kind === 'tick'
          ? `Stepped tick ${tick}`
          : g.kind === 'task'
            ? `Task #${g.task.id} ${JSON.stringify(g.task.name)} ${g.task.done() ? 'finished' : 'suspended again'}`
            : `Stepped out to depth ${g.depth} of task #${g.task.id}`;
      info =
        taskId === undefined ? { reason: 'step', tick, description } : { reason: 'step', tick, taskId, description };
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
    if (this.breakpoints.active) this.breakpoints.stepStarted(task);
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
    if (this.breakpoints.active) this.breakpoints.stepEnded(task);
  }

  taskDone(task: Task<unknown>): void {
    if (this.log !== null) this.flushStepOutcome();
    const g = this.pending?.goal;
    if (g !== undefined && g.kind !== 'tick' && g.task === task) {
      g.met = true;
      this.loop.pause();
    }
    if (task.cancelled()) {
      if (this.breakOnTaskCancelled)
        this.stopAfterTick({
          reason: 'cancelled',
          taskId: task.id,
          description: `Task #${task.id} ${JSON.stringify(task.name)} was cancelled`,
        });
    } else if (this.breakOnTaskFailed && exceptionOf(task) !== undefined) {
      const e = exceptionOf(task);
      const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      this.stopAfterTick({
        reason: 'exception',
        taskId: task.id,
        description: `Task #${task.id} ${JSON.stringify(task.name)} failed: ${what}`,
      });
    }
  }

  taskCancelRequested(task: Task<unknown>, by: Task<unknown> | null): void {
    if (this.log !== null) {
      this.flushStepOutcome();
      this.append({
        seq: 0,
        kind: 'cancelRequested',
        tick: this.loop.tickCount(),
        taskId: task.id,
        by: by?.id ?? null,
      });
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

  /**
   * A hit (its condition held): counted since the breakpoint was set; it stops the loop after this tick when
   * its hit condition lets it.
   */
  private breakpointHit(bp: BreakpointEntry, task: Task<unknown>, description: string): boolean {
    if (bp.hits.count() === null) return false;
    this.stopAfterTick({ reason: 'breakpoint', taskId: task.id, description });
    return true;
  }
}
