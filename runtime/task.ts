// Task: a Future that drives a generator coroutine, asyncio's Task.
//
// Invariants (asyncio's step/wakeup rules):
// - The first step is scheduled on the ready queue, never run in the constructor.
// - A task is scheduled, running a step, or suspended on exactly one future (`_waiter`), whose
//   completion schedules the next step; nothing else resumes it. A bare yield runs it next tick.
// - cancel(msg) makes the pending `yield*` throw CancelledError at the suspension point; the task
//   ends cancelled only if the coroutine lets it out. Each counted cancel is a CancelRequest.
// - Anything else yielded is an error thrown into the coroutine at its next step.

import { CancelledError, InvalidStateError, RuntimeError } from './errors';
import { Future, FutureView, NO_EXCEPTION, describeValue, type FutureWaiter } from './future';
import { inspect, type TaskInspection, type WokenBy } from './inspection';
import type { EventLoop } from './loop';
import { isTrackingWrapper, trackedFramesOf, type CoroutineFrame } from './coroutine';
import { addWakeupCallback, overridesAddDoneCallback, removeWakeup } from './wakeup-callback';
import { CancelRequests, type CancelRequest } from './cancel-request';

/** A generator coroutine, the thing `yield*` delegates to and a Task drives. */
export type Coroutine<T = unknown> = Generator<unknown, T, unknown>;

export { NO_EXCEPTION };

let nextTaskId = 1;
/** asyncio's task-name counter: only tasks created without a name use it up. */
let unnamedTasks = 0;

/** True for generator objects and other objects with the generator protocol. */
export function isCoroutine(v: unknown): v is Coroutine<unknown> {
  return (
    typeof v === 'object' &&
    v !== null &&
    !(v instanceof Future) &&
    typeof (v as Coroutine).next === 'function' &&
    typeof (v as Coroutine).throw === 'function' &&
    typeof (v as Coroutine)[Symbol.iterator] === 'function'
  );
}

/** The process-wide task counters: the id the next task gets, and the last `Task-N` number used. */
export interface TaskCounters {
  readonly nextId: number;
  readonly unnamed: number;
}

/** @internal The id the next task created (outside a replay) gets. */
export function nextTaskIdNow(): number {
  return nextTaskId;
}

/** @internal The last `Task-N` number given to a task created without a name. */
export function unnamedTasksNow(): number {
  return unnamedTasks;
}

/**
 * @internal Builds a task that uses up no id and no name number (shape-anchors.ts's inert
 * task): it gets id 0, so a program's first task is #1 and `Task-1`, as in asyncio.
 */
export function uncountedTask<T>(build: () => Task<T>): Task<T> {
  const id = nextTaskId;
  const unnamed = unnamedTasks;
  const task = build();
  nextTaskId = id;
  unnamedTasks = unnamed;
  (task as { id: number }).id = 0;
  return task;
}

const NO_REQUESTS: readonly CancelRequest[] = Object.freeze([]);

/**
 * The tasks whose cancel() is passing the cancel on to the future they await: a cancel that
 * comes back to one of them has gone round a cycle of tasks awaiting each other. Kept here,
 * not as a flag on every task: it holds a task only during such a call.
 */
const tasksInCancel = new Set<Task<unknown>>();

function taskStep(task: unknown, exc: unknown): void {
  (task as Task<unknown>)._step(exc);
}

export class Task<T = unknown> extends Future<T> implements FutureWaiter {
  /** Unique, increasing, for the life of the process. */
  readonly id: number;
  // The given name, or the number N of the default "Task-N", formatted only when asked
  // for: 100k tasks need no 100k name strings.
  private _name: string | number;
  /** @internal */ _coro: Coroutine<T>;
  /** @internal The future this task is suspended on (asyncio's _fut_waiter). */
  _waiter: Future<unknown> | null = null;
  /** @internal A cancel() arrived while not suspended: deliver at the next step. */
  _mustCancel = false;
  // Its counted cancel requests (cancel-request.ts), from its first one: as many pending as
  // cancelling() counts, so the count is not kept apart (one field less on every task).
  /** @internal */ _cancelRequests: CancelRequests | null = null;
  /** @internal Completed steps (resumes) so far. */
  _steps = 0;
  /** @internal Links of the loop's list of live tasks. */
  _prevLive: Task<unknown> | null = null;
  /** @internal */ _nextLive: Task<unknown> | null = null;

  constructor(coro: Coroutine<T>, loop: EventLoop, name?: string) {
    super(loop);
    if (!isCoroutine(coro)) {
      throw new TypeError(
        `a coroutine was expected, got ${describeValue(coro)}: call the generator function (createTask(work()), not createTask(work))`,
      );
    }
    const given = loop._taskNumbering === null ? null : loop._taskNumbering.next(name !== undefined);
    if (given === null) {
      this.id = nextTaskId++;
      this._name = name ?? ++unnamedTasks;
    } else {
      // A replay: the id and name the recorded run's task had.
      this.id = given.id;
      this._name = name ?? given.name;
    }
    this._coro = coro;
    loop._pushReady(taskStep, this, NO_EXCEPTION);
    loop._taskCreated(this as Task<unknown>);
  }

  /** The coroutine this task drives. */
  getCoro(): Coroutine<T> {
    return this._coro;
  }

  /**
   * @internal Frames of the `yield*` chain, innermost last (only with coroutine tracking on), made
   * at each read: the frames link to each other (coroutine.ts), no field of every task holds them.
   */
  get _frames(): CoroutineFrame[] | null {
    return trackedFramesOf(this as Task<unknown>);
  }

  /** The task's name: the one it was given, or `Task-N` (N counts the tasks created without one). */
  get name(): string {
    return typeof this._name === 'number' ? `Task-${this._name}` : this._name;
  }

  set name(name: string) {
    this._name = String(name);
  }

  getName(): string {
    return this.name;
  }

  setName(name: string): void {
    this.name = name;
  }

  /** The future this task is suspended on, or null if it is scheduled, running or done. */
  awaiting(): Future<unknown> | null {
    return this._waiter;
  }

  /** How many steps (resumes of the coroutine) this task has run. */
  steps(): number {
    return this._steps;
  }

  override setResult(_value: T): void {
    throw new RuntimeError('Task does not support setResult(): its coroutine sets the result by returning');
  }

  override setException(_exception: unknown): void {
    throw new RuntimeError('Task does not support setException(): its coroutine fails by throwing');
  }

  /**
   * Requests cancellation: CancelledError is thrown into the coroutine at its suspension
   * point. Returns false if the task is already done.
   */
  override cancel(msg?: string): boolean {
    this._loop._exceptionRetrieved(this as Task<unknown>);
    if (this._state !== 0) return false;
    const requests = (this._cancelRequests ??= new CancelRequests());
    const request = requests.ask(this._loop._current, msg);
    this._loop._taskCancelRequested(this as Task<unknown>, request);
    // Tasks awaiting each other in a cycle would pass the cancel round forever. When it
    // comes back here, stop waiting and take the CancelledError at a step of our own.
    if (this._waiter !== null && tasksInCancel.has(this as Task<unknown>)) {
      removeWakeup(this._waiter, this as Task<unknown>);
      this._waiter = null;
      this._mustCancel = true;
      this._cancelMessage = msg;
      requests.delivered = request;
      this._loop._pushReady(taskStep, this, NO_EXCEPTION);
      return true;
    }
    const waiter = this._waiter;
    if (waiter !== null) {
      tasksInCancel.add(this as Task<unknown>);
      try {
        // Keep _waiter: it may be a task that swallows the cancellation and must be cancelled again.
        if (waiter.cancel(msg)) {
          requests.delivered = request;
          return true;
        }
      } finally {
        tasksInCancel.delete(this as Task<unknown>);
      }
    }
    this._mustCancel = true;
    this._cancelMessage = msg;
    // The next step makes a CancelledError of this message, unless the awaited future's own
    // CancelledError (an earlier request's) is still to be read there (see _step).
    if (!(waiter !== null && waiter.done() && (waiter.cancelled() || waiter._exception instanceof CancelledError)))
      requests.delivered = request;
    return true;
  }

  /**
   * The cancels asked of this task and not taken back (uncancel()), oldest first: as many as
   * cancelling() counts. Each says which task asked it (null: a callback, a timer, outside the loop).
   */
  cancelRequests(): readonly CancelRequest[] {
    return this._cancelRequests?.pending ?? NO_REQUESTS;
  }

  /**
   * The cancel that took effect: for a task that ended cancelled, the request whose
   * CancelledError ended it (when it was not taken back), else the oldest pending one; for
   * any other task, the oldest pending request. Null when none is pending: never asked, or
   * every request was taken back by uncancel() (a timeout that expired and was handled).
   */
  cancelInEffect(): CancelRequest | null {
    return this._cancelRequests?.inEffect(this.cancelled()) ?? null;
  }

  /** Number of pending cancellation requests (asyncio's Task.cancelling()). */
  cancelling(): number {
    return this._cancelRequests === null ? 0 : this._cancelRequests.pending.length;
  }

  /** Decrements the pending cancellation requests; returns the new count. */
  uncancel(): number {
    return this._withdrawCancel(null);
  }

  /**
   * @internal uncancel() of a given request: the one a Timeout or TaskGroup asked and takes
   * back (null: the cancel in flight, else the oldest; cancel-request.ts).
   */
  _withdrawCancel(request: CancelRequest | null): number {
    const requests = this._cancelRequests;
    if (requests === null || requests.pending.length === 0) return 0;
    // With one pending at least, a withdrawal always takes one back (cancel-request.ts).
    const withdrawn = requests.withdraw(request);
    if (requests.pending.length === 0) this._mustCancel = false;
    if (withdrawn !== null) this._loop._taskUncancelled(this as Task<unknown>, withdrawn);
    return requests.pending.length;
  }

  /**
   * @internal The request this task's last counted cancel() made (a Timeout's or TaskGroup's own, right after
   * it asked).
   */
  _lastCancelRequest(): CancelRequest | null {
    const pending = this._cancelRequests?.pending;
    return pending === undefined || pending.length === 0 ? null : pending[pending.length - 1]!;
  }

  /** @internal The awaited future completed (scheduled by it through the ready queue). */
  wakeUp(_fut: Future<unknown>): void {
    // The coroutine reads the outcome itself: resuming the pending `yield* fut` calls
    // fut.next(), which returns the result or throws the exception at the suspension point.
    this._step(NO_EXCEPTION);
  }

  /** @internal One step: resume the coroutine once. See the header for the rules. */
  _step(exc: unknown): void {
    if (this._state !== 0) throw new InvalidStateError(`_step(): already done: ${this.toString()}`);
    if (this._mustCancel) {
      this._mustCancel = false;
      const waiter = this._waiter;
      if (exc === NO_EXCEPTION && waiter !== null && waiter.done()) {
        // Woken by the awaited future after a cancel() it could not take (it was done
        // already): as asyncio's __wakeup reads the future first, a CancelledError of its
        // own (the first cancel's message) comes through at the suspension point; any
        // other outcome counts as read and gives way to the cancellation.
        if (!(waiter.cancelled() || waiter._exception instanceof CancelledError)) {
          if (waiter._exception !== undefined) this._loop._exceptionRetrieved(waiter);
          exc = this._makeCancelledError();
        }
      } else if (!(exc instanceof CancelledError)) {
        exc = this._makeCancelledError();
      }
    }
    this._waiter = null;
    const loop = this._loop;
    // loop._enterTask / _leaveTask, inlined: this is the runtime's hottest path.
    const previous = loop._current;
    loop._current = this as Task<unknown>;
    const observer = loop._observer;
    if (observer !== null) observer.taskStepStart?.(this as Task<unknown>);
    let r: IteratorResult<unknown, T>;
    try {
      // The resume (the line debugger's "follow the loop" steps into the task from this line).
      r = exc === NO_EXCEPTION ? this._coro.next() : this._coro.throw(exc);
    } catch (e) {
      this._steps++;
      loop._leaveTask(this as Task<unknown>, previous);
      if (e instanceof CancelledError) {
        this._exception = e; // the CancelledError it ends with (Future._makeCancelledError)
        super.cancel();
      } else {
        super.setException(e);
      }
      loop._taskFinished(this as Task<unknown>);
      return;
    }
    this._steps++;
    if (observer !== null) observer.taskStepEnd?.(this as Task<unknown>);
    loop._current = previous;
    if (r.done === true) {
      if (this._mustCancel) {
        // Cancelled right before the coroutine returned.
        this._mustCancel = false;
        super.cancel(this._cancelMessage);
      } else {
        super.setResult(r.value);
      }
      loop._taskFinished(this as Task<unknown>);
      return;
    }
    const yielded = r.value;
    if (yielded instanceof Future) {
      // Taken or refused, this `yield*` is answered: a second resume of it is an error (Future.next).
      const blocking = yielded._blocking;
      yielded._blocking = false;
      if (yielded._loop !== loop) {
        this._stepSoonWithError(
          new RuntimeError(`Task ${this.toString()} got Future ${yielded.toString()} attached to a different loop`),
        );
      } else if (!blocking) {
        this._stepSoonWithError(
          new RuntimeError(
            `yield was used instead of yield* in task ${this.toString()} with ${yielded.toString()}: write \`yield* fut\``,
          ),
        );
      } else if (yielded === this) {
        this._stepSoonWithError(new RuntimeError(`Task cannot await on itself: ${this.toString()}`));
      } else {
        // A subclass's own addDoneCallback must see the registration, as asyncio's does.
        if (overridesAddDoneCallback(yielded)) addWakeupCallback(yielded, this as Task<unknown>);
        else yielded._addWaiter(this);
        this._waiter = yielded;
        if (observer !== null) observer.taskSuspended?.(this as Task<unknown>, yielded);
        if (this._mustCancel && yielded.cancel(this._cancelMessage)) this._mustCancel = false;
      }
    } else if (yielded === undefined) {
      // A bare `yield` gives up the loop for one tick (sleep(0)).
      loop._pushReady(taskStep, this, NO_EXCEPTION);
    } else if (isCoroutine(yielded)) {
      this._stepSoonWithError(
        new RuntimeError(
          `yield was used instead of yield* for a coroutine in task ${this.toString()}: write \`yield* coro\``,
        ),
      );
    } else {
      this._stepSoonWithError(
        new RuntimeError(
          `Task got bad yield: ${describeValue(yielded)}: a coroutine may only yield* Futures, Tasks and coroutines`,
        ),
      );
    }
  }

  private _stepSoonWithError(err: Error): void {
    this._loop._pushReady(taskStep, this, err);
  }

  /** The inspection interface (runtime/inspection.ts): what it awaits, its frames, who waits on it. */
  override [inspect](): TaskInspection {
    return new TaskView(this as Task<unknown>);
  }

  override toString(): string {
    const base = super.toString();
    return `${base.slice(0, -1)} name=${JSON.stringify(this.name)}>`;
  }
}

/** A task's inspection view: its future's view, plus what it awaits, its frames and steps. */
class TaskView extends FutureView implements TaskInspection {
  constructor(private readonly task: Task<unknown>) {
    super(task);
  }

  override get role(): 'task' {
    return 'task';
  }

  override get kind(): string {
    return 'task';
  }

  override get detail(): null {
    return null;
  }

  override get resource(): null {
    return null;
  }

  override wokenBy(): WokenBy {
    return 'loop';
  }

  get awaiting(): Future<unknown> | null {
    return this.task._waiter;
  }

  get steps(): number {
    return this.task._steps;
  }

  get frames(): readonly CoroutineFrame[] | null {
    return this.task._frames;
  }

  get coroutine(): Coroutine<unknown> {
    return this.task._coro;
  }

  get coroutineIsWrapper(): boolean {
    return isTrackingWrapper(this.task._coro);
  }

  get cancelInEffect(): CancelRequest | null {
    return this.task.cancelInEffect();
  }
}

// A task woken by the future it awaits steps straight from the ready queue.
Object.defineProperty(Task.prototype, '_wakeStep', { value: taskStep, writable: false, enumerable: false });
