// RunRecorder: records a run of an event loop as a RunLog (run-log.ts): its ticks, task steps and
// suspensions, tasks created, finished and cancelled, who completed each awaited future, timers,
// socket inputs and clock readings: everything from outside the run depends on, so a replay
// (run-replay.ts) re-executes it exactly. Use: `const rec = new RunRecorder(); const loop = new
// EventLoop({ clock: rec.clock }); rec.attach(loop); ... rec.finish()`.
//
// Invariants: free when not attached; attached, a step costs one WeakMap lookup. Records stay in
// the order things happened (a step's SITE record just before the next record). One recorder per
// loop. Recording adds nothing to the run. finish() cuts the log after the last complete tick.
// Await details and frame chains ride beside the log, never in it. The details of each rule are
// in docs/design/run-recorder.md.

import type { Clock } from '../clock';
import { MonotonicClock } from '../clock';
import type { EventLoop, LoopObserver } from '../loop';
import { setSocketIoTap, type Socket, type SocketConnection, type SocketInputKind, type SocketIoTap } from '../socket';
import { exceptionOf, inspect } from '../inspection';
import { nextTaskIdNow, unnamedTasksNow, type Task } from '../task';
import type { CancelRequest } from '../cancel-request';
import type { CoroutineFrame } from '../coroutine';
import type { Future } from '../future';
import type { TimerHandle } from '../handle';
import { RecordingClock } from './record-clocks';
import { setOutsideValueTap, wrapGlobals, type OutsideValue, type OutsideValueTap } from '../outside-values';
import { Outcome, RunLogWriter, WokenBy, type OpenTickTasks, type RecordingSoFar } from './run-log';
import { RecordingError } from './recording-errors';
import type { StreamCounts, StreamMark } from './recording-growth';
import type { TableNotes } from './await-details';
import { awaitedTaskIds, awaitInfoOf, outcomeOf } from '../inspect/task-summaries';
import { cancelAskedNow, type AskedCancel } from '../inspect/task-recorder';

export interface RunRecorderOptions {
  /** The clock the run really reads (default: the monotonic clock). */
  readonly clock?: Clock;
  /** A replay's stand-in connections: called for the n-th socket opened (1-based). */
  readonly connections?: (sock: Socket, n: number) => SocketConnection;
  /**
   * Write each suspension site with the task's frame chain (function names, root first), as
   * well as what it awaits. Needs coroutine tracking; a replay must use the same setting.
   */
  readonly frames?: boolean;
  /** Called after each tick (a replay stops there to show a past moment). */
  readonly afterTick?: (tick: number) => void;
  /** Keep what each suspension awaited in detail (awaitDetails), for the timeline. */
  readonly awaitDetails?: boolean;
  /** Called with each task created and its log number (a replay finds the tasks cancelled from outside). */
  readonly taskNumbered?: (task: Task<unknown>, n: number) => void;
}

/** What a finished recording holds, before it is written to a file. */
export interface RecordedStreams {
  readonly events: Buffer;
  readonly gaps: Buffer;
  readonly payload: Buffer;
  readonly ticks: number;
  readonly steps: number;
  readonly tasks: number;
  readonly sockets: number;
  /**
   * The last tick is open: it had started when the streams were taken (a run stopped on a
   * line, mid-tick), and only its time and the inputs before it are in them, none of its events.
   */
  readonly openTick?: boolean;
  /**
   * With openTick: the process's task counters when the open tick began, so that a replay gives
   * the tasks that tick creates (none of its CREATED records is in the streams) the live run's
   * ids and names.
   */
  readonly openTickTasks?: OpenTickTasks;
}

const loopsRecorded = new WeakSet<EventLoop>();

// Before any program this process records or replays is loaded (outside-values.ts wrapGlobals).
wrapGlobals();
const NO_TASKS: readonly number[] = [];

/**
 * A step of the walk to a SITE text with frames: the next frame's function, or the text's string number by
 * kept count.
 */
interface SiteTextNode {
  readonly next: Map<CoroutineFrame['fn'], SiteTextNode>;
  readonly ids: number[];
}

export class RunRecorder implements LoopObserver, SocketIoTap, OutsideValueTap {
  readonly clock: RecordingClock;
  readonly log = new RunLogWriter();
  private readonly taskNumbers = new WeakMap<Task<unknown>, number>();
  /**
   * How many CANCEL records each task has, and each logged request's number among its task's (what UNCANCEL
   * and CANCEL_EFFECT records say).
   */
  private readonly cancelsLogged = new WeakMap<Task<unknown>, number>();
  private readonly cancelNumbers = new WeakMap<CancelRequest, number>();
  private taskCount = 0;
  private readonly socketNumbers = new WeakMap<Socket, number>();
  private socketCount = 0;
  /** The task whose step ended and whose suspension site is not written yet. */
  private stepped: Task<unknown> | null = null;
  private loop: EventLoop | null = null;
  private lastTickEnd = 0;
  private payloadAtTickEnd = 0;
  /** Payload chunks (log.payloads) at the end of the last complete tick. */
  private chunksAtTickEnd = 0;
  private ticksDone = 0;
  /** While a tick runs: where its TICK record ends, and the payload bytes then (streamsWithOpenTick). */
  private tickOpenedAt = -1;
  /** The task counters when the open tick began (two numbers, no object per tick). */
  private nextIdAtTickOpen = 0;
  private unnamedAtTickOpen = 0;
  private payloadAtTickOpen = 0;
  /** The values the program read in the open tick so far (kind, value...): a mid-tick copy's (streamsWithOpenTick). */
  private openTickReads: number[] = [];
  private attached = false;
  private readonly connections: RunRecorderOptions['connections'];
  private readonly afterTick: RunRecorderOptions['afterTick'];
  private readonly taskNumbered: RunRecorderOptions['taskNumbered'];
  private readonly frames: boolean;
  /** The detail of each SITE record's await ('' for none), in log order, when kept (options.awaitDetails). */
  readonly awaitDetails: string[] | null;
  /** With awaitDetails: the ids of the tasks each SITE record's await stands for (awaitedTasks), in log order. */
  readonly awaitTasks: Array<readonly number[]> | null;
  /** With awaitDetails: how each task ended (outcomeOf), one per DONE record, in log order. */
  readonly outcomes: string[] | null;
  /**
   * With awaitDetails: who asked each cancel by no task (cancelAskedNow: a tool's cancelTaskAs, or null), one
   * per such CANCEL record, in log order (asked-cancels.ts).
   */
  readonly askedCancels: Array<AskedCancel | null> | null;
  private noTaskCancelsWritten = 0;
  private readonly detailTexts = new Map<string, string>();
  /** The SITE texts with frames interned so far, by kind, then function by function from the root (siteOf). */
  private readonly siteTexts = new Map<string, SiteTextNode>();
  /**
   * Each task's frames as its last SITE record wrote them. The frames of a chain written before
   * are exactly those it shares with that one from the root (a chain is a stack: a call still
   * going was going then, at the same depth; one gone never comes back), so one entry per
   * task, not one per frame, tells them.
   */
  private readonly framesWritten = new WeakMap<Task<unknown>, CoroutineFrame[]>();

  constructor(options: RunRecorderOptions = {}) {
    this.clock = new RecordingClock(options.clock ?? new MonotonicClock(), (t) => this.log.gapRead(t));
    this.connections = options.connections;
    this.afterTick = options.afterTick;
    this.taskNumbered = options.taskNumbered;
    this.frames = options.frames ?? false;
    this.awaitDetails = options.awaitDetails === true ? [] : null;
    this.awaitTasks = options.awaitDetails === true ? [] : null;
    this.outcomes = options.awaitDetails === true ? [] : null;
    this.askedCancels = options.awaitDetails === true ? [] : null;
  }

  /** What is kept beside the log for the task table (with awaitDetails), or null. */
  tableNotes(): TableNotes | null {
    return this.awaitDetails === null
      ? null
      : {
          details: this.awaitDetails,
          awaitTasks: this.awaitTasks,
          outcomes: this.outcomes,
          cancels: this.askedCancels,
        };
  }

  /** Starts recording `loop` (built on this recorder's clock) and every socket opened from now on. */
  attach(loop: EventLoop): this {
    if (loop.clock !== this.clock)
      throw new RecordingError(
        "the loop must be built on the recorder's clock: new EventLoop({ clock: recorder.clock })",
      );
    if (loopsRecorded.has(loop)) throw new RecordingError('this loop is being recorded already');
    loopsRecorded.add(loop);
    this.attached = true;
    this.loop = loop;
    loop.addObserver(this, { first: true });
    setSocketIoTap(loop, this);
    setOutsideValueTap(loop, this);
    return this;
  }

  /** A value the program reads from outside the loop: written when read within a tick (outside-values.ts). */
  read(kind: OutsideValue, live: () => number): number {
    const value = live();
    if (this.clock.inTick) {
      this.log.read(kind, value);
      this.openTickReads.push(kind, value);
    }
    return value;
  }

  /** Stops recording and returns the streams, cut after the last complete tick. */
  finish(): RecordedStreams {
    this.detach();
    this.log.events.truncate(this.lastTickEnd);
    const payload = Buffer.concat(this.log.payloads, this.log.payloadBytes);
    return {
      events: Buffer.from(this.log.events.bytes()),
      gaps: Buffer.from(this.log.gaps.bytes()),
      payload,
      ticks: this.ticksDone,
      steps: this.log.steps,
      tasks: this.taskCount,
      sockets: this.socketCount,
    };
  }

  /**
   * The streams so far, cut after the last complete tick, while the recording goes on (a
   * live run's timeline and replays). Copies: the recording keeps growing.
   */
  streamsSoFar(): RecordedStreams {
    return {
      events: Buffer.from(this.log.events.bytes().subarray(0, this.lastTickEnd)),
      gaps: Buffer.from(this.log.gaps.bytes()),
      payload: Buffer.concat(this.log.payloads, this.log.payloadBytes).subarray(0, this.payloadAtTickEnd),
      ticks: this.ticksDone,
      steps: this.log.steps,
      tasks: this.taskCount,
      sockets: this.socketCount,
    };
  }

  /**
   * While a tick runs (a run stopped on a line): the streams through the start of that tick,
   * its time and the inputs fed before it included (openTick), so that a replay can run it
   * too; between ticks, streamsSoFar().
   */
  streamsWithOpenTick(): RecordedStreams {
    if (this.tickOpenedAt < 0) return this.streamsSoFar();
    return {
      events: Buffer.from(this.log.events.bytes().subarray(0, this.tickOpenedAt)),
      gaps: Buffer.from(this.log.gaps.bytes()),
      payload: Buffer.concat(this.log.payloads, this.log.payloadBytes).subarray(0, this.payloadAtTickOpen),
      ticks: this.ticksDone + 1,
      steps: this.log.steps,
      tasks: this.taskCount,
      sockets: this.socketCount,
      openTick: true,
      openTickTasks: {
        nextId: this.nextIdAtTickOpen,
        unnamed: this.unnamedAtTickOpen,
        ...(this.openTickReads.length > 0 ? { reads: [...this.openTickReads] } : {}),
      },
    };
  }

  /**
   * The streams so far, cut after the last complete tick, without a copy (views that stay
   * valid as the recording grows; RunLogReader reads only what is new in them each time).
   */
  soFar(): RecordingSoFar {
    const payloads = this.log.payloads;
    const end = this.chunksAtTickEnd;
    const bytes = this.payloadAtTickEnd;
    return {
      events: this.log.events.bytes().subarray(0, this.lastTickEnd),
      gaps: this.log.gaps.bytes(),
      payloadFrom: (from) => {
        // The chunks after `from` (one per data input, so `from` falls between two), found from the end: only
        // the new ones are looked at.
        let first = end;
        let size = 0;
        while (first > 0 && size < bytes - from) size += payloads[--first]!.length;
        if (size !== bytes - from) throw new RangeError(`payloadFrom(${from}): not where a socket input's bytes begin`);
        return payloads.slice(first, end);
      },
    };
  }

  /** Where soFar() ends (its socket bytes: through the last complete tick's), and its counts. */
  markSoFar(): { readonly mark: StreamMark; readonly counts: StreamCounts } {
    return {
      mark: { events: this.lastTickEnd, gaps: this.log.gaps.length, payload: this.payloadAtTickEnd },
      counts: { ticks: this.ticksDone, steps: this.log.steps, tasks: this.taskCount, sockets: this.socketCount },
    };
  }

  /**
   * The event log so far without a copy (a view that stays valid): read it only up to `upTo`, the end of the
   * last complete tick.
   */
  eventsSoFar(): { readonly bytes: Buffer; readonly upTo: number } {
    return { bytes: this.log.events.bytes(), upTo: this.lastTickEnd };
  }

  /**
   * CANCEL records by no task written so far (a replay makes a cancel from outside once, not once per cancel
   * it made in turn).
   */
  get noTaskCancels(): number {
    return this.noTaskCancelsWritten;
  }

  /** Ticks recorded so far. */
  get ticks(): number {
    return this.ticksDone;
  }

  /** Stops recording (the loop keeps its other observers). */
  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    const loop = this.loop!;
    loopsRecorded.delete(loop);
    setSocketIoTap(loop, null);
    setOutsideValueTap(loop, null);
    loop.removeObserver(this);
    this.flushStep();
  }

  /** Bytes of the event log so far (the payload bytes apart). */
  eventBytes(): number {
    return this.log.events.length;
  }

  // --- LoopObserver ----------------------------------------------------------------------

  tickStart(_tick: number): void {
    this.flushStep();
    this.log.tick(this.clock.startTick());
    this.tickOpenedAt = this.log.events.length;
    this.payloadAtTickOpen = this.log.payloadBytes;
    this.nextIdAtTickOpen = nextTaskIdNow();
    this.unnamedAtTickOpen = unnamedTasksNow();
    if (this.openTickReads.length > 0) this.openTickReads = [];
  }

  tickEnd(_tick: number, callbacksRun: number): void {
    this.flushStep();
    this.log.tickEnd(callbacksRun);
    this.clock.endTick();
    this.lastTickEnd = this.log.events.length;
    this.tickOpenedAt = -1;
    this.payloadAtTickEnd = this.log.payloadBytes;
    this.chunksAtTickEnd = this.log.payloads.length;
    this.ticksDone++;
    this.afterTick?.(this.ticksDone);
  }

  taskCreated(task: Task<unknown>): void {
    this.flushStep();
    const current = this.loop?.currentTask() ?? null;
    const parent = current === null ? 0 : (this.taskNumbers.get(current) ?? 0);
    this.taskNumbers.set(task, ++this.taskCount);
    this.log.created(parent, task.name, task.id);
    this.taskNumbered?.(task, this.taskCount);
  }

  taskStepStart(task: Task<unknown>): void {
    if (this.stepped !== null) this.flushStep();
    this.log.step(this.numberOf(task));
  }

  taskStepEnd(task: Task<unknown>): void {
    this.stepped = task;
  }

  taskSuspended(task: Task<unknown>, _fut: Future<unknown>): void {
    // Where it suspended is known now: written at once, and its await watched from here on.
    if (this.stepped === task) this.flushStep();
  }

  taskDone(task: Task<unknown>): void {
    this.flushStep();
    if (task.cancelled()) {
      // Its readers take the oldest pending cancel as the one in effect; say so when another ended it.
      const effect = task.cancelInEffect();
      const k = effect === null || effect === task.cancelRequests()[0] ? undefined : this.cancelNumbers.get(effect);
      if (k !== undefined) this.log.cancelEffect(this.numberOf(task), k);
    }
    const outcome = task.cancelled()
      ? Outcome.CANCELLED
      : exceptionOf(task) !== undefined
        ? Outcome.EXCEPTION
        : Outcome.RESULT;
    this.log.done(this.numberOf(task), outcome);
    this.outcomes?.push(outcomeOf(task) ?? '');
  }

  taskCancelRequested(task: Task<unknown>, by: Task<unknown> | null, request: CancelRequest): void {
    this.flushStep();
    this.log.cancel(this.numberOf(task), by === null ? 0 : this.numberOf(by));
    const k = (this.cancelsLogged.get(task) ?? 0) + 1;
    this.cancelsLogged.set(task, k);
    this.cancelNumbers.set(request, k);
    if (by !== null) return;
    this.noTaskCancelsWritten++;
    this.askedCancels?.push(cancelAskedNow());
  }

  taskUncancelled(task: Task<unknown>, request: CancelRequest): void {
    const k = this.cancelNumbers.get(request);
    if (k === undefined) return; // asked before the recording began
    this.flushStep();
    this.log.uncancel(this.numberOf(task), k);
  }

  timerFired(_handle: TimerHandle): void {
    this.flushStep();
    this.log.timer();
  }

  /**
   * The future `task` awaits has just completed (its step is queued): by the running task, or by which kind
   * of callback.
   */
  taskWoken(task: Task<unknown>, fut: Future<unknown>): void {
    // Only its current await wakes it (a task stepped by other means is not woken by an old one).
    if (task.awaiting() !== fut) return;
    this.flushStep();
    const loop = this.loop!;
    const current = loop.currentTask();
    let by: number;
    if (current !== null) by = WokenBy.TASK_BASE + this.numberOf(current);
    else {
      const source = loop.callbackSource();
      by = source === 'io' ? WokenBy.IO : source === 'timer' ? WokenBy.TIMER : WokenBy.CALLBACK;
    }
    this.log.wake(this.numberOf(task), by);
  }

  // --- SocketIoTap -------------------------------------------------------------------------

  opening(sock: Socket, host: string, port: number): SocketConnection | null {
    const n = ++this.socketCount;
    this.socketNumbers.set(sock, n);
    this.flushStep();
    this.log.socket(host, port);
    return this.connections === undefined ? null : this.connections(sock, n);
  }

  input(sock: Socket, kind: SocketInputKind, payload: Buffer | Error | null): void {
    const n = this.socketNumbers.get(sock);
    if (n === undefined) return; // opened before the recording began
    this.flushStep();
    this.log.input(n, kind, payload);
  }

  // --- internals -------------------------------------------------------------------------

  /** The log's number of a task; a task created before the recording began gets one now. */
  private numberOf(task: Task<unknown>): number {
    const n = this.taskNumbers.get(task);
    if (n !== undefined) return n;
    this.taskNumbers.set(task, ++this.taskCount);
    this.log.created(0, task.name, task.id);
    this.taskNumbered?.(task, this.taskCount);
    return this.taskCount;
  }

  /**
   * The string number of a SITE with frames: its text ('kind @ a>b|c', '|' after the `kept`
   * frames) is made and interned once for each kind, chain of functions and kept count, found
   * again by walking those parts (no text built, nothing allocated, at each step).
   */
  private siteOf(kind: string, frames: readonly CoroutineFrame[], kept: number): number {
    let node: SiteTextNode | undefined = this.siteTexts.get(kind);
    if (node === undefined) this.siteTexts.set(kind, (node = { next: new Map(), ids: [] }));
    for (let i = 0; i < frames.length; i++) {
      const fn = frames[i]!.fn;
      let next: SiteTextNode | undefined = node.next.get(fn);
      if (next === undefined) node.next.set(fn, (next = { next: new Map(), ids: [] }));
      node = next;
    }
    const known = node.ids[kept];
    if (known !== undefined) return known;
    let chain = '';
    for (let i = 0; i < frames.length; i++) chain += (i === kept ? '|' : i === 0 ? '' : '>') + frames[i]!.fn.name;
    const id = this.log.string(kind + ' @ ' + (kept === frames.length ? chain + '|' : chain));
    node.ids[kept] = id;
    return id;
  }

  /** Writes where the last stepped task suspended: what it awaits (and its frames, when tracked). */
  private flushStep(): void {
    const task = this.stepped;
    if (task === null) return;
    this.stepped = null;
    const waiter = task.awaiting();
    // A view is one small object whose getters read the future (nothing copied); its kind is the origin's, or
    // 'task'/'future'.
    const kind = waiter === null ? (task.done() ? 'done' : 'ready') : waiter[inspect]().kind;
    const frames = this.frames ? task[inspect]().frames : null;
    if (frames !== null && frames.length > 0) {
      // The frames not written before are the innermost ones (those called since the last SITE).
      let written = this.framesWritten.get(task);
      if (written === undefined) this.framesWritten.set(task, (written = []));
      let kept = 0;
      while (kept < frames.length && kept < written.length && written[kept] === frames[kept]) kept++;
      for (let i = kept; i < frames.length; i++) written[i] = frames[i]!;
      written.length = frames.length;
      this.log.siteRef(this.siteOf(kind, frames, kept));
    } else this.log.site(kind);
    if (this.awaitDetails !== null) {
      // One copy of each text (the reads of one socket all say the same).
      const detail = waiter === null ? '' : awaitInfoOf(waiter).detail;
      let kept = this.detailTexts.get(detail);
      if (kept === undefined) this.detailTexts.set(detail, (kept = detail));
      this.awaitDetails.push(kept);
      this.awaitTasks!.push(waiter === null ? NO_TASKS : awaitedTaskIds(waiter));
    }
  }
}
