// EventLoop: asyncio's event loop, run as a guest on top of Node's own loop. One tick (runOnce)
// is asyncio's _run_once: poll sockets without blocking, move due timers, then run exactly the
// callbacks ready when the tick began. Ticks run back to back for at most SLICE_MS, then it
// yields to Node (setImmediate); with nothing ready it sleeps until a timer or socket wakes it.
// How the guest run works: docs/design/runtime-core.md.
//
// Invariants: callbacks never run re-entrantly (one tick at a time); stop() lets the current
// tick finish; a closed loop runs nothing and refuses new work; every slice of ticks, the first
// too, starts from Node's immediates, so a tick's stack below the loop is the same live and replayed.

import { MonotonicClock, type Clock } from './clock';
import { RuntimeError, ValueError } from './errors';
import { Future, NO_EXCEPTION, describeValue, releaseStepResults } from './future';
import { Handle, TimerHandle, type TimerCancelListener } from './handle';
import { inspect, type LoopInspection, type ScheduledStep } from './inspection';
import { ObserverFanout } from './observer-fanout';
import { ReadyQueue, type ReadyFn } from './ready-queue';
import { anchorShapes } from './shape-anchors';
import { runningLoopOrNull, setRunningLoop } from './running-loop';
import { DefaultSelector, EVENT_READ, EVENT_WRITE, type FileObject } from './selector';
import { Task, isCoroutine, type Coroutine } from './task';
import type { CancelRequest } from './cancel-request';
import { TimerHeap } from './timer-heap';
import { flushWrites } from './write-batch';
import { realNow } from './outside-values';

/** How long the loop runs ticks back to back before letting Node poll its sockets. */
const SLICE_MS = 2;
/** The longest delay a Node timer accepts (about 24.8 days). */
const MAX_NODE_TIMEOUT_MS = 2 ** 31 - 1;
/** asyncio's heap rebuild rule: more than this many cancelled timers, and more than half. */
const MIN_CANCELLED_FOR_REBUILD = 100;

export interface ExceptionContext {
  message: string;
  exception?: unknown;
  future?: Future<unknown>;
  task?: Task<unknown>;
  handle?: Handle;
  [key: string]: unknown;
}
export type ExceptionHandler = (loop: EventLoop, context: ExceptionContext) => void;

/** Where the loop's warnings and default error reports go. */
export interface LoopLogger {
  warn(message: string): void;
  error(message: string): void;
}

/**
 * What an inspector learns from the loop. Every call site is guarded by a null check, so
 * a loop without an observer pays nothing.
 */
export interface LoopObserver {
  taskCreated?(task: Task<unknown>): void;
  taskStepStart?(task: Task<unknown>): void;
  taskStepEnd?(task: Task<unknown>): void;
  /** The task's step ended suspended on `fut` (it is registered as its waiter). */
  taskSuspended?(task: Task<unknown>, fut: Future<unknown>): void;
  /** `fut`, which `task` awaits, completed (or was already done): the task's step is queued. */
  taskWoken?(task: Task<unknown>, fut: Future<unknown>): void;
  taskDone?(task: Task<unknown>): void;
  /** A cancel of `task` was counted (`request`, by the task running: `by`); see cancel-request.ts. */
  taskCancelRequested?(task: Task<unknown>, by: Task<unknown> | null, request: CancelRequest): void;
  /** `request`, a pending cancel of `task`, was taken back (uncancel()): it no longer cancels the task. */
  taskUncancelled?(task: Task<unknown>, request: CancelRequest): void;
  tickStart?(tick: number): void;
  tickEnd?(tick: number, callbacksRun: number): void;
  /** A due timer is about to run its callback. */
  timerFired?(handle: TimerHandle): void;
  slowCallback?(description: string, seconds: number, task: Task<unknown> | null): void;
  callbackError?(context: ExceptionContext): void;
}

/**
 * @internal What a replay (runtime/record) puts in place of waiting for time and I/O: the
 * recorded run's ticks, one after another. Asked before every tick; it throws when the
 * recording has no tick left (the replay has diverged), which ends the run instead of hanging.
 */
export interface TickFeed {
  nextTick(): void;
}

export interface EventLoopOptions {
  clock?: Clock;
  debug?: boolean;
  logger?: LoopLogger;
}

export type Awaitable<T> = Future<T> | Coroutine<T>;

function runHandle(h: unknown): void {
  (h as Handle).run();
}

/** Where the callback running now came from, when no task runs (a recording says who completed a future). */
export type CallbackSource = 'io' | 'timer' | 'callback';

/** An I/O callback: runs marked as I/O, so what it completes is known to be the network's doing. */
function runIoHandle(h: unknown, loop: unknown): void {
  const l = loop as EventLoop;
  l._callbackSource = 'io';
  try {
    (h as Handle).run();
  } finally {
    l._callbackSource = 'callback';
  }
}

/** A due timer: the observer hears it fire, and it runs marked as a timer's. */
function runTimerHandle(h: unknown, loop: unknown): void {
  const l = loop as EventLoop;
  l._observer?.timerFired?.(h as TimerHandle);
  l._callbackSource = 'timer';
  try {
    (h as Handle).run();
  } finally {
    l._callbackSource = 'callback';
  }
}

/**
 * @internal How a replay gives its tasks the ids and names the recorded run's had: asked at
 * each task's creation (`named`: given a name by its creator); null (beyond the recording)
 * leaves the process-wide numbering.
 */
export interface TaskNumbering {
  next(named: boolean): { readonly id: number; readonly name: string } | null;
}

interface IoCallbacks {
  reader: Handle | null;
  writer: Handle | null;
}

export class EventLoop implements TimerCancelListener {
  /** Seconds a callback may run before debug mode reports it as slow. */
  slowCallbackDuration = 0.1;
  /** @internal */ readonly _ready = new ReadyQueue();
  /** @internal */ readonly _timers = new TimerHeap();
  /** @internal */ readonly _selector: DefaultSelector;
  readonly clock: Clock;
  logger: LoopLogger;
  private _timerSeq = 0;
  private _cancelledTimers = 0;
  private _closed = false;
  private _running = false;
  private _stopping = false;
  private _debug: boolean;
  private _paused = false;
  /** The clock is told the loop is held (clock.hold()): paused, and no runOnce() under way. */
  private _clockHeld = false;
  /** runOnce() calls whose tick has not run yet: the loop runs for them, its clock too. */
  private _oneTicksPending = 0;
  private _exceptionHandler: ExceptionHandler | null = null;
  /** @internal The task running a step (Task._step sets it directly). */
  _current: Task<unknown> | null = null;
  /** @internal With no task running: where the running callback came from (runIoHandle, runTimerHandle). */
  _callbackSource: CallbackSource = 'callback';
  /** @internal A replay's numbering of tasks (setTaskNumbering); null: the process-wide one. */
  _taskNumbering: TaskNumbering | null = null;
  private _liveHead: Task<unknown> | null = null;
  private _liveCount = 0;
  private _unretrieved = new Set<Future<unknown>>();
  private _tickCount = 0;
  /** @internal The slot the hot path tests: the one observer, or a fanout of several. */
  _observer: LoopObserver | null = null;
  private _observers: LoopObserver[] = [];
  /** Set by a replay (setTickFeed): ticks come from the recording, never from waiting. */
  private _tickFeed: TickFeed | null = null;
  // Guest-run state.
  private _driveImmediate: NodeJS.Immediate | null = null;
  private _waitTimer: NodeJS.Timeout | null = null;
  private _suspended = false;
  private _runResolve: (() => void) | null = null;
  private _runReject: ((e: unknown) => void) | null = null;
  private _stepWaiters: Array<() => void> = [];
  private readonly _timeCallback: (fn: ReadyFn, a: unknown, seconds: number) => void;
  private readonly _onCallbackError: (error: unknown, fn: ReadyFn, a: unknown, b: unknown) => void;
  private readonly _drive: () => void;

  constructor(options: EventLoopOptions = {}) {
    this.clock = options.clock ?? new MonotonicClock();
    this._debug = options.debug ?? false;
    this.logger = options.logger ?? { warn: (m) => console.warn(m), error: (m) => console.error(m) };
    this._selector = new DefaultSelector();
    this._selector._setWakeHook(() => this._wake());
    this._timeCallback = (fn, a, seconds) => {
      if (seconds >= this.slowCallbackDuration) this._reportSlow(fn, a, seconds);
    };
    this._onCallbackError = (e, _fn, a, b) => this._reportCallbackError(e, a, b);
    this._drive = () => this._driveTicks();
    anchorShapes(() => new EventLoop());
  }

  // --- time and scheduling ------------------------------------------------------------

  /**
   * The loop's clock, in seconds. It stands still while a view holds the loop (pause(), a
   * debugger stopped on a line) on a clock that knows holds (the MonotonicClock, and the
   * RecordingClock over it): it counts the loop's own time, which timers, a crawl's elapsed
   * time and its rate measure.
   */
  time(): number {
    return this.clock.now();
  }

  /** Runs `fn(...args)` at the next tick, after what is already ready. */
  callSoon<A extends unknown[]>(fn: (...args: A) => unknown, ...args: A): Handle {
    this._checkClosed();
    if (typeof fn !== 'function') throw new TypeError(`callSoon() needs a function, got ${describeValue(fn)}`);
    const h = new Handle(fn as (...a: unknown[]) => unknown, args);
    this._pushReady(runHandle, h, undefined);
    return h;
  }

  /** Runs `fn(...args)` after `delay` seconds. */
  callLater<A extends unknown[]>(delay: number, fn: (...args: A) => unknown, ...args: A): TimerHandle {
    if (typeof delay !== 'number' || Number.isNaN(delay))
      throw new TypeError(`callLater() needs a delay in seconds, got ${describeValue(delay)}`);
    return this.callAt(this.time() + delay, fn, ...args);
  }

  /** Runs `fn(...args)` when the loop's time reaches `when` (seconds). */
  callAt<A extends unknown[]>(when: number, fn: (...args: A) => unknown, ...args: A): TimerHandle {
    this._checkClosed();
    if (typeof when !== 'number' || Number.isNaN(when))
      throw new TypeError(`callAt() needs a time in seconds, got ${describeValue(when)}`);
    if (typeof fn !== 'function') throw new TypeError(`callAt() needs a function, got ${describeValue(fn)}`);
    const h = new TimerHandle(when, this._timerSeq++, fn as (...a: unknown[]) => unknown, args, this);
    this._timers.push(h);
    if (this._suspended) this._wake();
    return h;
  }

  /** @internal TimerCancelListener: counts cancelled timers still in the heap. */
  timerCancelled(_h: TimerHandle): void {
    this._cancelledTimers++;
  }

  createFuture<T = unknown>(): Future<T> {
    const fut = new Future<T>(this);
    fut._createdBy = this._current;
    return fut;
  }

  /** Wraps a coroutine in a Task scheduled on this loop. */
  createTask<T>(coro: Coroutine<T>, options: { name?: string } = {}): Task<T> {
    this._checkClosed();
    return new Task<T>(coro, this, options.name);
  }

  /** A Future as is, or a coroutine wrapped in a Task (asyncio.ensure_future). */
  ensureFuture<T>(aw: Awaitable<T>): Future<T> {
    if (aw instanceof Future) {
      if (aw._loop !== this)
        throw new ValueError('The future belongs to a different loop than the one specified as the loop argument');
      return aw;
    }
    if (isCoroutine(aw)) return this.createTask(aw);
    throw new TypeError(`an awaitable (Future, Task or coroutine) was expected, got ${describeValue(aw)}`);
  }

  // --- running ---------------------------------------------------------------------------

  isRunning(): boolean {
    return this._running;
  }

  isClosed(): boolean {
    return this._closed;
  }

  /**
   * Runs the loop until stop() is called. Resolves when it has stopped. Misuse (a closed loop,
   * one already running, another loop running) throws RuntimeError at the call, as asyncio's
   * run_forever raises it: a coroutine that calls it inside a running loop sees the error
   * where it made the call, and fails with it. The first tick runs from Node's next immediates,
   * not within the call: whoever called (a launch, a replay's seek) is not below its frames.
   */
  runForever(): Promise<void> {
    this._checkCanRun();
    this._running = true;
    const done = new Promise<void>((resolve, reject) => {
      this._runResolve = resolve;
      this._runReject = reject;
    });
    this._scheduleDrive();
    return done;
  }

  /**
   * Runs the loop until the future or coroutine is done; resolves with its result or rejects
   * with its exception. Misuse throws RuntimeError at the call, as in runForever(), and a
   * coroutine given to a loop that cannot run it is closed (asyncio leaves it never awaited).
   */
  runUntilComplete<T>(aw: Awaitable<T>): Promise<T> {
    try {
      this._checkCanRun();
    } catch (e) {
      if (isCoroutine(aw)) aw.return(undefined as T);
      throw e;
    }
    return this._runUntilDone(this.ensureFuture(aw));
  }

  private async _runUntilDone<T>(fut: Future<T>): Promise<T> {
    const stopWhenDone = (): void => this.stop();
    fut.addDoneCallback(stopWhenDone);
    try {
      await this.runForever();
    } finally {
      fut.removeDoneCallback(stopWhenDone);
    }
    if (!fut.done()) throw new RuntimeError('Event loop stopped before Future completed.');
    return fut.result();
  }

  /** asyncio's _check_closed and _check_running: the reasons a loop cannot be run now. */
  private _checkCanRun(): void {
    if (this._closed) throw new RuntimeError('Event loop is closed');
    if (this._running) throw new RuntimeError('This event loop is already running');
    if (this._anotherLoopRuns()) throw new RuntimeError('Cannot run the event loop while another loop is running');
  }

  /** True inside another loop's tick: running this one there would nest loops, which asyncio forbids. */
  private _anotherLoopRuns(): boolean {
    const running = runningLoopOrNull();
    return running !== null && running !== this;
  }

  /** Stops the loop once the current tick has finished (or after one tick if not running yet). */
  stop(): void {
    this._stopping = true;
    if (this._suspended) this._wake();
  }

  /**
   * @internal For a replay (runtime/record): from now on every tick first asks `feed` for the
   * recorded run's next tick instead of waiting for time and I/O.
   */
  setTickFeed(feed: TickFeed): void {
    this._tickFeed = feed;
  }

  /**
   * @internal For a replay (runtime/record): tasks created from now on are numbered by `numbering` (null: as
   * usual).
   */
  setTaskNumbering(numbering: TaskNumbering | null): void {
    this._taskNumbering = numbering;
  }

  /**
   * With no task running (currentTask() null): whether the running callback is an I/O callback, a due
   * timer's, or another.
   */
  callbackSource(): CallbackSource {
    return this._callbackSource;
  }

  /**
   * True while a replay feeds the ticks (setTickFeed): the steps run now are the replay process's, so their
   * CPU time is not the recorded run's (the task recorder leaves a replayed task's busy time unknown).
   */
  isReplayed(): boolean {
    return this._tickFeed !== null;
  }

  /** @internal Ends what setTickFeed(feed) began; a no-op when another feed (or none) is in place. */
  clearTickFeed(feed: TickFeed): void {
    if (this._tickFeed === feed) this._tickFeed = null;
  }

  /**
   * Runs one tick. If nothing is ready it first waits for the next timer or socket event.
   * The tick runs synchronously when there is work, so callers that do not await still see
   * its effects. Not allowed while runForever() drives the loop unless it is paused.
   */
  runOnce(): Promise<void> {
    if (this._closed) return Promise.reject(new RuntimeError('Event loop is closed'));
    if (this._running && !this._paused)
      return Promise.reject(new RuntimeError('runOnce(): the loop is running; pause it first'));
    // A paused loop runs for this tick: its clock goes on until the tick has run (waiting for
    // the next timer included, which is the program's own time).
    this._oneTicksPending++;
    this._syncClockHold();
    if (this._tickFeed !== null) {
      try {
        this._tickFeed.nextTick();
      } catch (e) {
        this._oneTickDone();
        return Promise.reject(e);
      }
      this._oneTick();
      return Promise.resolve();
    }
    if (this._hasDueWork()) {
      this._oneTick();
      return Promise.resolve();
    }
    const next = this._timers.peek();
    if (next !== undefined && this.clock.virtual && !this._selector._hasInFlight()) {
      this.clock.advanceTo(next.when);
      this._oneTick();
      return Promise.resolve();
    }
    if (next === undefined && !this._selector._hasInFlight() && this._selector._registeredCount() === 0) {
      // Nothing could ever make work appear but a foreign callback: tick now (asyncio would block forever).
      this._oneTick();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this._stepWaiters.push(() => {
        this._oneTick();
        resolve();
      });
      this._suspendUntilWork();
    });
  }

  /**
   * Holds the loop after the current tick (loop control for the inspector and debugger). Its
   * clock stands still while it is held, but for the ticks runOnce() runs meanwhile.
   */
  pause(): void {
    this._paused = true;
    this._syncClockHold();
  }

  /** Resumes a loop held by pause(). */
  resume(): void {
    if (!this._paused) return;
    this._paused = false;
    this._syncClockHold();
    if (this._running) this._scheduleDrive();
  }

  isPaused(): boolean {
    return this._paused;
  }

  /** Tells the clock whether the loop is held: paused, with no runOnce() tick to run. */
  private _syncClockHold(): void {
    const held = this._paused && this._oneTicksPending === 0;
    if (held === this._clockHeld) return;
    this._clockHeld = held;
    if (held) this.clock.hold?.();
    else this.clock.release?.();
  }

  /** Closes the loop: drops what is scheduled and reports pending tasks and unretrieved exceptions. */
  close(): void {
    if (this._running) throw new RuntimeError('Cannot close a running event loop');
    if (this._closed) return;
    this._closed = true;
    for (let t = this._liveHead; t !== null; t = t._nextLive) {
      this.callExceptionHandler({ message: 'Task was destroyed but it is pending!', task: t });
    }
    for (const fut of this._unretrieved) {
      // asyncio names the class: "Task exception ..." for a task nobody awaited.
      const what = fut instanceof Task ? 'Task' : 'Future';
      this.callExceptionHandler({
        message: `${what} exception was never retrieved`,
        exception: fut._exception,
        future: fut,
      });
    }
    this._unretrieved.clear();
    this._ready.clear();
    this._timers.clear();
    this._selector.close();
    this._cancelWaits();
  }

  setDebug(enabled: boolean): void {
    this._debug = enabled;
  }

  getDebug(): boolean {
    return this._debug;
  }

  setExceptionHandler(handler: ExceptionHandler | null): void {
    if (handler !== null && typeof handler !== 'function')
      throw new TypeError('the exception handler must be a function or null');
    this._exceptionHandler = handler;
  }

  getExceptionHandler(): ExceptionHandler | null {
    return this._exceptionHandler;
  }

  /** Reports an error that has no caller to go to (a callback threw, a task was lost). */
  callExceptionHandler(context: ExceptionContext): void {
    this._observer?.callbackError?.(context);
    if (this._exceptionHandler === null) {
      this.defaultExceptionHandler(context);
      return;
    }
    try {
      this._exceptionHandler(this, context);
    } catch (e) {
      this.defaultExceptionHandler({ message: 'Unhandled error in exception handler', exception: e, context });
    }
  }

  /** Logs the context: its message, what it concerns, and the exception's stack. */
  defaultExceptionHandler(context: ExceptionContext): void {
    const lines = [context.message || 'Unhandled exception in event loop'];
    if (context.task) lines.push(`task: ${context.task.toString()}`);
    else if (context.future) lines.push(`future: ${context.future.toString()}`);
    if (context.handle) lines.push(`handle: ${context.handle.toString()}`);
    const exc = context.exception;
    if (exc !== undefined) lines.push(exc instanceof Error && exc.stack ? exc.stack : String(exc));
    this.logger.error(lines.join('\n'));
  }

  /** The task running right now, or null between steps. */
  currentTask(): Task<unknown> | null {
    return this._current;
  }

  /** Every task not done yet, in creation order. */
  allTasks(): Task<unknown>[] {
    const out: Task<unknown>[] = [];
    for (let t = this._liveHead; t !== null; t = t._nextLive) out.push(t);
    return out.reverse();
  }

  /** Number of tasks not done yet. */
  liveTaskCount(): number {
    return this._liveCount;
  }

  /** Ticks run so far. */
  tickCount(): number {
    return this._tickCount;
  }

  /** Number of callbacks waiting for the next tick. */
  readyCount(): number {
    return this._ready.length;
  }

  /** Makes `observer` the only observer of the loop (null: none), replacing every one added. */
  setObserver(observer: LoopObserver | null): void {
    this._observers = observer === null ? [] : [observer];
    this._observer = observer;
  }

  /**
   * Adds an observer beside the others (`first`: called before them, as a recorder whose
   * records the others read must be). Several share the loop's one slot through an
   * ObserverFanout; a hook that throws is logged and the others still run.
   */
  addObserver(observer: LoopObserver, options: { first?: boolean } = {}): void {
    if (this._observers.includes(observer)) return;
    if (options.first === true) this._observers.unshift(observer);
    else this._observers.push(observer);
    this._installObservers();
  }

  /** Removes an observer added with addObserver or setObserver (nothing if it is not there). */
  removeObserver(observer: LoopObserver): void {
    const i = this._observers.indexOf(observer);
    if (i < 0) return;
    this._observers.splice(i, 1);
    this._installObservers();
  }

  /** True if `observer` is one of the loop's observers. */
  hasObserver(observer: LoopObserver): boolean {
    return this._observers.includes(observer);
  }

  private _installObservers(): void {
    const list = this._observers;
    this._observer =
      list.length === 0
        ? null
        : list.length === 1
          ? list[0]!
          : new ObserverFanout(list, (e, hook) =>
              this.logger.error(
                `loop observer ${hook} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
              ),
            );
  }

  /** The inspection interface (runtime/inspection.ts): what the next tick will step, what may still wake a task. */
  [inspect](): LoopInspection {
    return {
      scheduledSteps: () => {
        const out: ScheduledStep[] = [];
        this._ready.forEach((_fn, a, b) => {
          if (!(a instanceof Task)) return;
          // A task woken by the future it awaited is queued as (its step, task, NO_EXCEPTION)
          // and still names that future until the step runs.
          const w = a.awaiting();
          out.push({
            task: a,
            wokenBy: b === NO_EXCEPTION && w !== null && w.done() ? w : b instanceof Future ? b : null,
          });
        });
        return out;
      },
      pendingTimers: () => {
        let n = 0;
        for (const h of this._timers.all()) if (!h.cancelled()) n++;
        return n;
      },
      watchesIo: () => this._selector._registeredCount() > 0 || this._selector._hasInFlight(),
    };
  }

  // --- sockets -------------------------------------------------------------------------

  /** Calls `fn(...args)` whenever `sock` is readable, until removeReader (asyncio's add_reader). */
  addReader<A extends unknown[]>(sock: FileObject, fn: (...args: A) => unknown, ...args: A): Handle {
    return this._addIo(sock, EVENT_READ, new Handle(fn as (...a: unknown[]) => unknown, args));
  }

  /** Calls `fn(...args)` whenever `sock` is writable, until removeWriter. */
  addWriter<A extends unknown[]>(sock: FileObject, fn: (...args: A) => unknown, ...args: A): Handle {
    return this._addIo(sock, EVENT_WRITE, new Handle(fn as (...a: unknown[]) => unknown, args));
  }

  removeReader(sock: FileObject): boolean {
    return this._removeIo(sock, EVENT_READ);
  }

  removeWriter(sock: FileObject): boolean {
    return this._removeIo(sock, EVENT_WRITE);
  }

  private _addIo(sock: FileObject, event: number, handle: Handle): Handle {
    this._checkClosed();
    const key = this._selector.getKey(sock);
    if (key === undefined) {
      const cbs: IoCallbacks = { reader: null, writer: null };
      if (event === EVENT_READ) cbs.reader = handle;
      else cbs.writer = handle;
      this._selector.register(sock, event, cbs);
    } else {
      const cbs = key.data as IoCallbacks;
      const old = event === EVENT_READ ? cbs.reader : cbs.writer;
      old?.cancel();
      if (event === EVENT_READ) cbs.reader = handle;
      else cbs.writer = handle;
      this._selector.modify(sock, key.events | event, cbs);
    }
    return handle;
  }

  private _removeIo(sock: FileObject, event: number): boolean {
    const key = this._selector.getKey(sock);
    if (key === undefined) return false;
    const cbs = key.data as IoCallbacks;
    const old = event === EVENT_READ ? cbs.reader : cbs.writer;
    if (event === EVENT_READ) cbs.reader = null;
    else cbs.writer = null;
    const events = key.events & ~event;
    if (events === 0) this._selector.unregister(sock);
    else this._selector.modify(sock, events, cbs);
    if (old === null) return false;
    old.cancel();
    return true;
  }

  // --- internals used by Future and Task -------------------------------------------------

  /** @internal Puts an entry on the ready queue, waking the loop if it is suspended. */
  _pushReady(fn: ReadyFn, a: unknown, b: unknown): void {
    this._ready.push(fn, a, b);
    if (this._suspended) this._wake();
  }

  /** @internal */
  _enterTask(task: Task<unknown>): Task<unknown> | null {
    const previous = this._current;
    this._current = task;
    this._observer?.taskStepStart?.(task);
    return previous;
  }

  /** @internal */
  _leaveTask(task: Task<unknown>, previous: Task<unknown> | null): void {
    this._observer?.taskStepEnd?.(task);
    this._current = previous;
  }

  /** @internal */
  _taskCreated(task: Task<unknown>): void {
    task._nextLive = this._liveHead;
    if (this._liveHead !== null) this._liveHead._prevLive = task;
    this._liveHead = task;
    this._liveCount++;
    this._observer?.taskCreated?.(task);
  }

  /** @internal */
  _taskFinished(task: Task<unknown>): void {
    if (task._prevLive !== null) task._prevLive._nextLive = task._nextLive;
    else if (this._liveHead === task) this._liveHead = task._nextLive;
    if (task._nextLive !== null) task._nextLive._prevLive = task._prevLive;
    task._prevLive = task._nextLive = null;
    this._liveCount--;
    this._observer?.taskDone?.(task);
  }

  /** @internal */
  _taskCancelRequested(task: Task<unknown>, request: CancelRequest): void {
    this._observer?.taskCancelRequested?.(task, this._current, request);
  }

  /** @internal */
  _taskUncancelled(task: Task<unknown>, request: CancelRequest): void {
    this._observer?.taskUncancelled?.(task, request);
  }

  /** @internal A future got an exception: remember it until someone retrieves it. */
  _exceptionSet(fut: Future<unknown>): void {
    this._unretrieved.add(fut);
  }

  /** @internal */
  _exceptionRetrieved(fut: Future<unknown>): void {
    this._unretrieved.delete(fut);
  }

  // --- ticks -----------------------------------------------------------------------------

  private _checkClosed(): void {
    if (this._closed) throw new RuntimeError('Event loop is closed');
  }

  private _hasDueWork(): boolean {
    if (this._ready.length > 0 || this._stopping) return true;
    const next = this._timers.peek();
    if (next !== undefined && next.when <= this.clock.now()) return true;
    // Between ticks: look without pruning (see _hasReadyCandidates).
    return this._selector._hasReadyCandidates(false);
  }

  /** One tick, as asyncio's _run_once with a zero select timeout. */
  private _tick(): void {
    const tick = ++this._tickCount;
    this._observer?.tickStart?.(tick);
    // Timer heap upkeep: drop cancelled ones at the top, rebuild when they are many.
    const timers = this._timers;
    if (this._cancelledTimers > MIN_CANCELLED_FOR_REBUILD && this._cancelledTimers * 2 > timers.size) {
      timers.removeCancelled();
      this._cancelledTimers = 0;
    } else {
      let top = timers.peek();
      while (top !== undefined && top.cancelled()) {
        timers.pop();
        top.scheduled = false;
        this._cancelledTimers--;
        top = timers.peek();
      }
    }
    // I/O: callbacks of sockets that are ready now.
    if (this._selector._hasReadyCandidates()) {
      const events = this._selector._poll();
      for (let i = 0; i < events.length; i++) {
        const [key, mask] = events[i]!;
        const cbs = key.data as IoCallbacks;
        if (mask & EVENT_READ && cbs.reader !== null) this._ready.push(runIoHandle, cbs.reader, this);
        if (mask & EVENT_WRITE && cbs.writer !== null) this._ready.push(runIoHandle, cbs.writer, this);
      }
    }
    // Timers that are due.
    if (timers.size > 0) {
      const end = this.clock.now();
      let top = timers.peek();
      while (top !== undefined && top.when <= end) {
        timers.pop();
        top.scheduled = false;
        if (top.cancelled()) this._cancelledTimers--;
        else this._ready.push(runTimerHandle, top, this);
        top = timers.peek();
      }
    }
    const count = this._ready.length;
    this._ready.run(count, this._onCallbackError, this._debug ? this._timeCallback : null);
    // The last future and outcome a `yield*` read stay no longer than their tick (future.ts).
    releaseStepResults();
    // What this tick's callbacks sent leaves now, not at the end of the whole batch of ticks.
    flushWrites();
    this._observer?.tickEnd?.(tick, count);
  }

  /** A callback threw: tell the exception handler what it was. */
  private _reportCallbackError(e: unknown, a: unknown, b: unknown): void {
    const context: ExceptionContext = { message: 'Exception in callback', exception: e };
    if (a instanceof Handle) {
      context.handle = a;
      context.message = `Exception in callback ${a.toString()}`;
    } else if (typeof a === 'function' && b instanceof Future) {
      // A future's done callback, queued without a Handle: report it as asyncio does, with
      // a handle for the callback called with its future.
      const handle = new Handle(a as (...args: unknown[]) => unknown, [b]);
      context.handle = handle;
      context.message = `Exception in callback ${handle.toString()}`;
    } else if (a instanceof Task) {
      context.task = a;
    }
    this.callExceptionHandler(context);
  }

  private _reportSlow(fn: ReadyFn, a: unknown, seconds: number): void {
    let what: string;
    let task: Task<unknown> | null = null;
    if (a instanceof Handle) what = a.toString();
    else if (a instanceof Task) {
      task = a;
      what = `step of ${a.toString()}`;
    } else what = `<${fn.name || 'callback'}>`;
    this.logger.warn(`Executing ${what} took ${seconds.toFixed(3)} seconds`);
    this._observer?.slowCallback?.(what, seconds, task);
  }

  /** runOnce()'s tick: run, then the clock is held again if the loop is paused. */
  private _oneTick(): void {
    try {
      this._tickAsRunning();
    } finally {
      this._oneTickDone();
    }
  }

  private _oneTickDone(): void {
    this._oneTicksPending--;
    this._syncClockHold();
  }

  /** A tick run on behalf of runOnce(): marks the loop as the running one around it. */
  private _tickAsRunning(): void {
    const previous = setRunningLoop(this);
    try {
      this._tick();
    } finally {
      setRunningLoop(previous);
    }
  }

  /** The guest-run driver: ticks back to back for up to SLICE_MS, then yields to Node. */
  private _driveTicks(): void {
    this._driveImmediate = null;
    if (!this._running || this._paused) return;
    const previous = setRunningLoop(this);
    const sliceEnd = realNow() + SLICE_MS;
    let work = 0;
    let ticks = 0;
    try {
      for (;;) {
        if (this._tickFeed !== null) this._tickFeed.nextTick();
        else if (!this._hasDueWork()) {
          const next = this._timers.peek();
          if (next !== undefined && this.clock.virtual && !this._selector._hasInFlight()) {
            this.clock.advanceTo(next.when);
          } else {
            this._suspendUntilWork();
            return;
          }
        }
        work += this._ready.length + 1;
        this._tick();
        if (this._stopping) {
          this._finishRun();
          return;
        }
        if (this._paused) return;
        // The clock is read every 256 callbacks, or every 8 ticks: a few ticks of heavy
        // callbacks (a parse loop's fair share each) must not keep Node's sockets waiting.
        if (work >= 256 || (++ticks & 7) === 0) {
          work = 0;
          if (realNow() >= sliceEnd) {
            this._scheduleDrive();
            return;
          }
        }
      }
    } catch (e) {
      // Only a bug in the loop itself gets here: end the run with it rather than hang.
      this._running = false;
      this._stopping = false;
      const reject = this._runReject;
      this._runResolve = this._runReject = null;
      reject?.(e);
    } finally {
      setRunningLoop(previous);
    }
  }

  private _finishRun(): void {
    this._running = false;
    this._stopping = false;
    this._cancelWaits();
    const resolve = this._runResolve;
    this._runResolve = this._runReject = null;
    resolve?.();
  }

  private _scheduleDrive(): void {
    if (this._driveImmediate === null) this._driveImmediate = setImmediate(this._drive);
  }

  /** Waits (without blocking Node) until a timer is due or work arrives. */
  private _suspendUntilWork(): void {
    this._suspended = true;
    const next = this._timers.peek();
    if (this._waitTimer !== null) {
      clearTimeout(this._waitTimer);
      this._waitTimer = null;
    }
    if (next !== undefined) {
      // Node's timers hold at most 2^31-1 ms (longer ones fire after 1 ms): wake up then and
      // wait again for the rest.
      const ms = Math.min(MAX_NODE_TIMEOUT_MS, Math.max(0, (next.when - this.clock.now()) * 1000));
      this._waitTimer = setTimeout(() => {
        this._waitTimer = null;
        this._wake();
      }, Math.ceil(ms));
    }
  }

  /** Work arrived (a socket event, a foreign callSoon, a timer): resume ticking. */
  private _wake(): void {
    if (!this._suspended) return;
    this._suspended = false;
    if (this._waitTimer !== null) {
      clearTimeout(this._waitTimer);
      this._waitTimer = null;
    }
    if (this._stepWaiters.length > 0) {
      const waiters = this._stepWaiters;
      this._stepWaiters = [];
      setImmediate(() => {
        for (const w of waiters) w();
      });
      return;
    }
    if (this._running && !this._paused) this._scheduleDrive();
  }

  private _cancelWaits(): void {
    this._suspended = false;
    if (this._waitTimer !== null) {
      clearTimeout(this._waitTimer);
      this._waitTimer = null;
    }
    if (this._driveImmediate !== null) {
      clearImmediate(this._driveImmediate);
      this._driveImmediate = null;
    }
  }
}
