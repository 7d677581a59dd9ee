// Future: a result that is not ready yet, asyncio's Future with its exact rules.
//
// Invariants:
// - A future completes once (setResult, setException, cancel); a second completion throws
//   InvalidStateError (cancel() on a done future returns false).
// - Done callbacks never run synchronously: each goes on the loop's ready queue, in order.
// - `yield* fut` suspends until done, then gives the result or throws; the first next() yields
//   the future with `blocking` set, so the Task tells `yield*` from a bare `yield fut`; next()
//   answers with one of two shared result objects, read at once (the loop empties them each tick).
// - An exception nobody retrieved is reported when the loop closes ("... was never retrieved").

import { CancelledError, InvalidStateError, RuntimeError } from './errors';
import {
  inspect,
  isInspectable,
  type FutureInspection,
  type FutureOutcome,
  type Inspectable,
  type WokenBy,
} from './inspection';
import type { EventLoop } from './loop';
import type { ReadyFn } from './ready-queue';
import type { Task } from './task';

const PENDING = 0;
const FINISHED = 1;
const CANCELLED = 2;
type FutureState = typeof PENDING | typeof FINISHED | typeof CANCELLED;

export type DoneCallback<T> = (fut: Future<T>) => void;
/** A done callback of any future type, as stored (callbacks are only ever called with their own future). */
type StoredCallback = ((fut: never) => void) | FutureWaiter | CompletionRecorder;

/**
 * Something a done future wakes without a closure: a Task registers itself this way, so
 * suspending on a future allocates nothing for the wake-up.
 */
export interface FutureWaiter {
  /** @internal Called from the ready queue after the awaited future completed. */
  wakeUp(fut: Future<unknown>): void;
  /**
   * @internal A ready-queue function to call as `fn(waiter, NO_EXCEPTION)` instead of
   * wakeUp (a Task's step): saves two calls on the hottest path of the runtime.
   */
  readonly _wakeStep?: ReadyFn;
}

/**
 * @internal The task behind each wake-up closure a Task registered through a subclass's own
 * addDoneCallback (wakeup-callback.ts): such a task waits on the future as surely as one
 * registered as a FutureWaiter, and the inspection lists it the same way.
 */
export const wakeupClosureTasks = new WeakMap<DoneCallback<unknown>, Task<unknown>>();

/**
 * @internal Told of a future's completion synchronously, at the moment it completes (or at
 * once if it is already done), while the future is still in cache: gather() records a
 * child's outcome this way instead of re-reading 100k children a tick later. It must not run
 * user code; anything observable it schedules on the loop itself, so the order of effects
 * stays asyncio's (a done callback runs on the next tick).
 */
export interface CompletionRecorder {
  _recordCompletion(fut: Future<unknown>): void;
}

/** Marks "no exception to throw in" on the ready queue (undefined is a valid thing to throw). */
export const NO_EXCEPTION: unique symbol = Symbol('no exception');

/** What a pending future stands for, so the inspector can say what a task waits on. */
export interface FutureOrigin {
  /** e.g. 'sleep', 'queue.get', 'lock', 'event', 'socket.read', 'gather', 'waitFor', 'task' */
  readonly kind: string;
  /** The object it belongs to (the Queue, the Lock, the socket, ...), if any. */
  readonly target?: unknown;
  /** A short human-readable detail (a timer's due time, a URL, ...). */
  readonly detail?: string;
}

/**
 * Hook the inspector sets to see an exception arrive at a suspension point with the whole `yield*` chain on
 * the stack.
 */
export type AwaitThrowHook = (fut: Future<unknown> | null, err: unknown) => void;
let awaitThrowHook: AwaitThrowHook | null = null;
/** @internal */
export function setAwaitThrowHook(hook: AwaitThrowHook | null): void {
  awaitThrowHook = hook;
}

// The results Future.next() answers with, one for "suspend on me" and one for "here is my
// outcome": `yield*` reads a result the moment next() returns (passing a pending one up the
// chain as is, to the Task), so one object of each kind serves every future. A fresh
// {value, done} per call was 40 B allocated per suspension and per resume, and one more held
// by each generator suspended in a chain of `yield*`. The loop empties both at the end of
// each tick (releaseStepResults), so they keep no future or result alive past its tick; not
// in Task._step, where the line debugger reads the step's result `r` after the resume.
const SUSPEND_STEP: { value: unknown; done: false } = { value: undefined, done: false };
const OUTCOME_STEP: { value: unknown; done: true } = { value: undefined, done: true };

/** @internal Forgets the future and the outcome last passed through the shared step results. */
export function releaseStepResults(): void {
  SUSPEND_STEP.value = undefined;
  OUTCOME_STEP.value = undefined;
}

function runDoneCallback(cb: unknown, fut: unknown): void {
  (cb as DoneCallback<unknown>)(fut as Future<unknown>);
}
function wakeWaiter(waiter: unknown, fut: unknown): void {
  (waiter as FutureWaiter).wakeUp(fut as Future<unknown>);
}
/** _cb0Step's mark for a CompletionRecorder: called at completion, not queued. */
function recordCompletion(recorder: unknown, fut: unknown): void {
  (recorder as CompletionRecorder)._recordCompletion(fut as Future<unknown>);
}

export class Future<T = unknown> implements Iterator<Future<T>, T, unknown>, Inspectable {
  /** @internal */ _loop: EventLoop;
  /** @internal */ _state: FutureState = PENDING;
  /** @internal */ _result: T | undefined = undefined;
  // The exception it failed with; for a cancelled task, the CancelledError that ended it,
  // kept until read so its trace survives (_makeCancelledError): one field for both.
  /** @internal */ _exception: unknown = undefined;
  // The first callback is kept apart: most futures have exactly one (the awaiting task).
  private _cb0: StoredCallback | null = null;
  private _cbs: StoredCallback[] | null = null;
  // How to tell _cb0, worked out when it registered: a Task's ready-queue step (waking it
  // then needs no look at the task itself: with 100k tasks each look is a cache miss),
  // recordCompletion for a recorder, null for anything else.
  private _cb0Step: ReadyFn | null = null;
  /** @internal asyncio's _asyncio_future_blocking: set by `yield*`, cleared by the Task. */
  _blocking = false;
  /** @internal */ _cancelMessage: string | undefined = undefined;
  /** @internal What this future stands for (inspection). */
  _origin: FutureOrigin | null = null;
  /**
   * @internal The task running when loop.createFuture() made it (inspection: who is likely to complete a bare
   * future).
   */
  _createdBy: Task<unknown> | null = null;

  constructor(loop: EventLoop) {
    this._loop = loop;
  }

  /** The loop this future belongs to. */
  getLoop(): EventLoop {
    return this._loop;
  }

  done(): boolean {
    return this._state !== PENDING;
  }

  cancelled(): boolean {
    return this._state === CANCELLED;
  }

  /** The result; throws the exception if it failed, CancelledError if cancelled, InvalidStateError if pending. */
  result(): T {
    if (this._state === FINISHED) {
      if (this._exception !== undefined) {
        this._loop._exceptionRetrieved(this);
        throw this._exception;
      }
      return this._result as T;
    }
    if (this._state === CANCELLED) throw this._makeCancelledError();
    throw new InvalidStateError('Result is not ready.');
  }

  /** The exception (undefined if it succeeded); throws CancelledError if cancelled, InvalidStateError if pending. */
  exception(): unknown {
    if (this._state === FINISHED) {
      if (this._exception !== undefined) this._loop._exceptionRetrieved(this);
      return this._exception;
    }
    if (this._state === CANCELLED) throw this._makeCancelledError();
    throw new InvalidStateError('Exception is not set.');
  }

  setResult(value: T): void {
    if (this._state !== PENDING) throw new InvalidStateError(`invalid state: ${this.stateName()}: ${this.toString()}`);
    this._result = value;
    this._state = FINISHED;
    this._scheduleCallbacks();
  }

  setException(exception: unknown): void {
    if (this._state !== PENDING) throw new InvalidStateError(`invalid state: ${this.stateName()}: ${this.toString()}`);
    if (exception === undefined) throw new TypeError('setException() needs an exception (got undefined)');
    this._exception = exception;
    this._state = FINISHED;
    this._loop._exceptionSet(this);
    this._scheduleCallbacks();
  }

  /** Cancels a pending future and schedules its callbacks; false if it was already done. */
  cancel(msg?: string): boolean {
    // Asking to cancel counts as looking at the outcome: a failure nobody retrieved is no
    // longer reported (asyncio clears the log flag before checking the state).
    this._loop._exceptionRetrieved(this as Future<unknown>);
    if (this._state !== PENDING) return false;
    this._state = CANCELLED;
    this._cancelMessage = msg;
    this._scheduleCallbacks();
    return true;
  }

  /** Adds a callback run (through the loop) with this future once it is done; scheduled at once if already done. */
  addDoneCallback(fn: DoneCallback<T>): void {
    this._addCallback(fn);
  }

  /** Removes every registration of `fn`; returns how many were removed. */
  removeDoneCallback(fn: DoneCallback<T>): number {
    let removed = 0;
    if (this._cb0 === (fn as StoredCallback)) {
      this._cb0 = null;
      removed++;
    }
    if (this._cbs !== null) {
      const before = this._cbs.length;
      this._cbs = this._cbs.filter((cb) => cb !== (fn as StoredCallback));
      removed += before - this._cbs.length;
    }
    return removed;
  }

  /** @internal A task suspends on this future without allocating a callback. */
  _addWaiter(waiter: FutureWaiter): void {
    this._addCallback(waiter);
  }

  /** @internal Registers a recorder (see CompletionRecorder); called at once if already done. */
  _addRecorder(recorder: CompletionRecorder): void {
    this._addCallback(recorder);
  }

  /** @internal Unregisters a waiter added with _addWaiter or a recorder added with _addRecorder. */
  _removeWaiter(waiter: FutureWaiter | CompletionRecorder): void {
    if (this._cb0 === waiter) this._cb0 = null;
    else if (this._cbs !== null) {
      const i = this._cbs.indexOf(waiter);
      if (i >= 0) this._cbs.splice(i, 1);
    }
  }

  /** @internal The registered callbacks and waiters, in order (inspection: who awaits this). */
  _callbacks(): StoredCallback[] {
    const out: StoredCallback[] = [];
    if (this._cb0 !== null) out.push(this._cb0);
    if (this._cbs !== null) out.push(...this._cbs);
    return out;
  }

  private _addCallback(cb: StoredCallback): void {
    if (this._state !== PENDING) {
      this._schedule(cb);
    } else if (this._cb0 === null && this._cbs === null) {
      this._cb0 = cb;
      this._cb0Step =
        typeof cb === 'function'
          ? null
          : ((cb as FutureWaiter)._wakeStep ??
            ((cb as CompletionRecorder)._recordCompletion !== undefined ? recordCompletion : null));
    } else {
      (this._cbs ??= []).push(cb);
    }
  }

  private _schedule(cb: StoredCallback): void {
    if (typeof cb === 'function') this._loop._pushReady(runDoneCallback as ReadyFn, cb, this);
    else if ((cb as FutureWaiter)._wakeStep !== undefined) {
      this._loop._pushReady((cb as FutureWaiter)._wakeStep!, cb, NO_EXCEPTION);
      this._taskWoken(cb);
    } else if ((cb as CompletionRecorder)._recordCompletion !== undefined)
      (cb as CompletionRecorder)._recordCompletion(this as Future<unknown>);
    else this._loop._pushReady(wakeWaiter as ReadyFn, cb, this);
  }

  /**
   * A task waiting on this future was just queued to wake: the loop's observer hears it (a recording: who
   * woke whom).
   */
  private _taskWoken(waiter: StoredCallback): void {
    const observer = this._loop._observer;
    if (observer !== null && observer.taskWoken !== undefined)
      observer.taskWoken(waiter as unknown as Task<unknown>, this as Future<unknown>);
  }

  private _scheduleCallbacks(): void {
    const cb0 = this._cb0;
    const cbs = this._cbs;
    this._cb0 = null;
    this._cbs = null;
    if (cb0 !== null) {
      const step = this._cb0Step;
      if (step === null) this._schedule(cb0);
      else if (step === recordCompletion) recordCompletion(cb0, this);
      else {
        this._loop._pushReady(step, cb0, NO_EXCEPTION);
        this._taskWoken(cb0);
      }
    }
    if (cbs !== null) for (const cb of cbs) this._schedule(cb);
  }

  /** The inspection interface (runtime/inspection.ts): what it stands for and who waits on it. */
  [inspect](): FutureInspection {
    return new FutureView(this as Future<unknown>);
  }

  /** The futures this one stands for (a waitFor's or shield's inner awaitable); gather overrides it. */
  protected _innerFutures(): readonly Future<unknown>[] {
    const target = this._origin?.target;
    return target instanceof Future && target !== this ? [target as Future<unknown>] : [];
  }

  /** @internal The CancelledError to raise for a cancelled future (the original one if known). */
  _makeCancelledError(): CancelledError {
    if (this._state === CANCELLED && this._exception !== undefined) {
      const exc = this._exception as CancelledError;
      this._exception = undefined;
      return exc;
    }
    return new CancelledError(this._cancelMessage ?? '');
  }

  /** 'PENDING', 'FINISHED' or 'CANCELLED', as asyncio names them. */
  stateName(): 'PENDING' | 'FINISHED' | 'CANCELLED' {
    return this._state === PENDING ? 'PENDING' : this._state === FINISHED ? 'FINISHED' : 'CANCELLED';
  }

  toString(): string {
    const state = this.stateName().toLowerCase();
    let extra = '';
    if (this._state === FINISHED) {
      extra =
        this._exception !== undefined
          ? ` exception=${describeValue(this._exception)}`
          : ` result=${describeValue(this._result)}`;
    } else if (this._origin !== null) {
      extra = ` ${this._origin.kind}${this._origin.detail ? ` ${this._origin.detail}` : ''}`;
    }
    return `<${this.constructor.name} ${state}${extra}>`;
  }

  // --- `yield* fut`: the future is its own iterator (see the header). -------------------

  [Symbol.iterator](): Future<T> {
    return this;
  }

  next(): IteratorResult<Future<T>, T> {
    if (this._state === PENDING) {
      // Still set: the last `yield*` of this future was resumed without a Task taking it
      // (a Task clears the flag), so nothing waited for completion (asyncio's __await__).
      if (this._blocking) throw new RuntimeError("await wasn't used with future");
      this._blocking = true;
      SUSPEND_STEP.value = this;
      return SUSPEND_STEP as IteratorResult<Future<T>, T>;
    }
    if (awaitThrowHook !== null && (this._state === CANCELLED || this._exception !== undefined)) {
      // The exception surfaces here, at the suspension point, with every generator of the
      // `yield*` chain on the stack: let the inspector capture that chain.
      let err: unknown;
      try {
        OUTCOME_STEP.value = this.result();
        return OUTCOME_STEP as IteratorResult<Future<T>, T>;
      } catch (e) {
        err = e;
      }
      awaitThrowHook(this as Future<unknown>, err);
      throw err;
    }
    OUTCOME_STEP.value = this.result();
    return OUTCOME_STEP as IteratorResult<Future<T>, T>;
  }

  /** A throw() forwarded by `yield*` (a task cancelled or failed at this suspension point). */
  throw(err?: unknown): IteratorResult<Future<T>, T> {
    if (awaitThrowHook !== null) awaitThrowHook(this as Future<unknown>, err);
    throw err;
  }

  return(value: T): IteratorResult<Future<T>, T> {
    return { value, done: true };
  }
}

/**
 * A future's inspection view: one object whose members read the future when asked (no
 * closures, nothing copied up front: a 10k-task snapshot makes one per task). Exported for
 * Task's view only.
 */
export class FutureView implements FutureInspection {
  constructor(protected readonly fut: Future<unknown>) {}

  get role(): 'future' | 'task' {
    return 'future';
  }

  get kind(): string {
    return this.fut._origin?.kind ?? 'future';
  }

  get detail(): string | null {
    return this.fut._origin?.detail ?? null;
  }

  get resource(): Inspectable | null {
    const target = this.fut._origin?.target;
    return target !== this.fut && !(target instanceof Future) && isInspectable(target) ? target : null;
  }

  inner(): readonly Future<unknown>[] {
    return innerFuturesOf(this.fut);
  }

  waitingTasks(): Task<unknown>[] {
    const out: Task<unknown>[] = [];
    // A task is the only FutureWaiter that is not a recorder; a function is a task's only
    // when it is the wake-up it registered through an overriding addDoneCallback.
    for (const cb of this.fut._callbacks()) {
      if (typeof cb === 'function') {
        const task = wakeupClosureTasks.get(cb as DoneCallback<unknown>);
        if (task !== undefined) out.push(task);
      } else if (typeof (cb as FutureWaiter).wakeUp === 'function') out.push(cb as unknown as Task<unknown>);
    }
    return out;
  }

  outcome(): FutureOutcome {
    const f = this.fut;
    if (f._state === PENDING) return { state: 'pending' };
    if (f._state === CANCELLED) return { state: 'cancelled', message: f._cancelMessage };
    return f._exception !== undefined
      ? { state: 'exception', error: f._exception }
      : { state: 'result', value: f._result };
  }

  createdBy(): Task<unknown> | null {
    return this.fut._createdBy;
  }

  wokenBy(): WokenBy {
    const resource = this.resource;
    if (resource !== null) {
      const view = resource[inspect]();
      return view.role === 'resource' ? view.wokenBy : 'outside';
    }
    return this.inner().length > 0 ? 'loop' : 'outside';
  }
}

/** Reaches the protected _innerFutures of any future (gather overrides it). */
function innerFuturesOf(fut: Future<unknown>): readonly Future<unknown>[] {
  return (fut as unknown as { _innerFutures(): readonly Future<unknown>[] })._innerFutures();
}

/** A short, bounded description of a value for messages (never the whole of a big object). */
export function describeValue(v: unknown): string {
  if (v instanceof Error)
    return `${v.name}(${JSON.stringify(v.message.length > 80 ? v.message.slice(0, 77) + '...' : v.message)})`;
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 37) + '...' : v);
  if (v === null || typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return `Array(${v.length})`;
  if (Buffer.isBuffer(v)) return `Buffer(${v.length})`;
  const name = (v as { constructor?: { name?: string } }).constructor?.name;
  return `<${name || 'object'}>`;
}

/** True for a Future or Task. */
export function isFuture(v: unknown): v is Future<unknown> {
  return v instanceof Future;
}
