// RunRecorder: records a run of an event loop as a RunLog (run-log.ts): every tick with
// its time, each task step and the suspension it ended at, tasks created (by whom, named
// what), finished and cancelled (by whom), the sockets opened and every input they
// received (connected, bytes, EOF, errors), and the clock readings made between ticks.
// Those inputs are everything from outside that a run of the loop depends on, so a replay
// (run-replay.ts) can feed them back and re-execute the run exactly.
//
// Use: `const rec = new RunRecorder(); const loop = new EventLoop({ clock: rec.clock });
// rec.attach(loop); ... rec.finish()`. The loop must be built on `rec.clock`.
//
// Invariants:
// - Costs nothing when not attached (the loop tests its observer and the socket module its
//   tap for null). Attached, a step costs one WeakMap lookup and a few bytes; a tick one
//   clock sample.
// - A step's record is written when it starts; where it suspended is only known after the
//   Task has handled what the coroutine yielded, so that SITE record is written just before
//   the next record of any kind (records stay in the order things happened).
// - One recorder per process at a time (sockets have one tap slot): attach refuses a second.
// - finish() detaches and cuts the log after the last complete tick: inputs that arrived
//   after it could not change the run.

import type { Clock } from '../clock';
import { MonotonicClock } from '../clock';
import type { EventLoop, LoopObserver } from '../loop';
import { setSocketIoTap, type Socket, type SocketConnection, type SocketInputKind, type SocketIoTap } from '../socket';
import { exceptionOf, inspect } from '../inspection';
import type { Task } from '../task';
import { RecordingClock } from './record-clocks';
import { Outcome, RunLogWriter } from './run-log';
import { RecordingError } from './recording-errors';

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
}

const DEFAULT_TASK_NAME = /^Task-\d+$/;
let attachedRecorder: RunRecorder | null = null;

export class RunRecorder implements LoopObserver, SocketIoTap {
  readonly clock: RecordingClock;
  readonly log = new RunLogWriter();
  private readonly taskNumbers = new WeakMap<Task<unknown>, number>();
  private taskCount = 0;
  private readonly socketNumbers = new WeakMap<Socket, number>();
  private socketCount = 0;
  /** The task whose step ended and whose suspension site is not written yet. */
  private stepped: Task<unknown> | null = null;
  private loop: EventLoop | null = null;
  private lastTickEnd = 0;
  private ticksDone = 0;
  private readonly connections: RunRecorderOptions['connections'];
  private readonly afterTick: RunRecorderOptions['afterTick'];
  private readonly frames: boolean;

  constructor(options: RunRecorderOptions = {}) {
    this.clock = new RecordingClock(options.clock ?? new MonotonicClock(), (t) => this.log.gapRead(t));
    this.connections = options.connections;
    this.afterTick = options.afterTick;
    this.frames = options.frames ?? false;
  }

  /** Starts recording `loop` (built on this recorder's clock) and every socket opened from now on. */
  attach(loop: EventLoop): this {
    if (loop.clock !== this.clock) throw new RecordingError('the loop must be built on the recorder\'s clock: new EventLoop({ clock: recorder.clock })');
    if (attachedRecorder !== null) throw new RecordingError('another run is being recorded in this process');
    attachedRecorder = this;
    this.loop = loop;
    loop.addObserver(this, { first: true });
    setSocketIoTap(this);
    return this;
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

  /** Stops recording (the loop keeps its other observers). */
  detach(): void {
    if (attachedRecorder !== this) return;
    attachedRecorder = null;
    setSocketIoTap(null);
    this.loop?.removeObserver(this);
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
  }

  tickEnd(_tick: number, callbacksRun: number): void {
    this.flushStep();
    this.log.tickEnd(callbacksRun);
    this.clock.endTick();
    this.lastTickEnd = this.log.events.length;
    this.ticksDone++;
    this.afterTick?.(this.ticksDone);
  }

  taskCreated(task: Task<unknown>): void {
    this.flushStep();
    const current = this.loop?.currentTask() ?? null;
    const parent = current === null ? 0 : (this.taskNumbers.get(current) ?? 0);
    this.taskNumbers.set(task, ++this.taskCount);
    const name = task.name;
    this.log.created(parent, DEFAULT_TASK_NAME.test(name) ? null : name);
  }

  taskStepStart(task: Task<unknown>): void {
    if (this.stepped !== null) this.flushStep();
    this.log.step(this.numberOf(task));
  }

  taskStepEnd(task: Task<unknown>): void {
    this.stepped = task;
  }

  taskDone(task: Task<unknown>): void {
    this.flushStep();
    const outcome = task.cancelled() ? Outcome.CANCELLED : exceptionOf(task) !== undefined ? Outcome.EXCEPTION : Outcome.RESULT;
    this.log.done(this.numberOf(task), outcome);
  }

  taskCancelRequested(task: Task<unknown>, by: Task<unknown> | null): void {
    this.flushStep();
    this.log.cancel(this.numberOf(task), by === null ? 0 : this.numberOf(by));
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
    this.log.created(0, DEFAULT_TASK_NAME.test(task.name) ? null : task.name);
    return this.taskCount;
  }

  /** Writes where the last stepped task suspended: what it awaits (and its frames, when tracked). */
  private flushStep(): void {
    const task = this.stepped;
    if (task === null) return;
    this.stepped = null;
    const waiter = task.awaiting();
    // A view is one small object whose getters read the future (nothing copied); its kind is the origin's, or 'task'/'future'.
    let site = waiter === null ? (task.done() ? 'done' : 'ready') : waiter[inspect]().kind;
    const frames = this.frames ? task[inspect]().frames : null;
    if (frames !== null && frames.length > 0) {
      let chain = frames[0]!.fn.name;
      for (let i = 1; i < frames.length; i++) chain += '>' + frames[i]!.fn.name;
      site += ' @ ' + chain;
    }
    this.log.site(site);
  }
}
