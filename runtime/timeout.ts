// Deadlines on a block run in the current task, as Python 3.11's asyncio.timeout / timeout_at:
// withTimeout(delay, body), timeoutAt(when, body), driven by a Timeout (when(), reschedule(),
// expired()). At the deadline the task is cancelled and the CancelledError becomes TimeoutError.
// No new task is started, so the body's frames stay in the caller's chain.
//
// Invariants (created → active → expiring → expired, or → finished):
// - A Timeout runs one block, once; reschedule() only while it runs.
// - Once expired, its cancel is always taken back when the block ends; the error becomes
//   TimeoutError only if no other cancellation of the task is pending.
// - A deadline already passed cancels at the next tick (call_soon), not through a timer.

import { coroutine } from './coroutine';
import { CancelledError, RuntimeError, TimeoutError } from './errors';
import type { Handle } from './handle';
import type { CancelRequest } from './cancel-request';
import { getRunningLoop } from './running-loop';
import { isCoroutine, type Coroutine, type Task } from './task';

/** What a deadline applies to: a coroutine, or a function given the Timeout that makes one. */
export type TimeoutBody<T> = Coroutine<T> | ((timeout: Timeout) => Coroutine<T>);

type TimeoutState = 'created' | 'active' | 'expiring' | 'expired' | 'finished';

export class Timeout {
  private _state: TimeoutState = 'created';
  private _when: number | null;
  private _handle: Handle | null = null;
  private _task: Task<unknown> | null = null;
  private _cancellingBefore = 0;
  // The cancel it asked when it expired: the one it takes back (not another party's).
  private _request: CancelRequest | null = null;
  private readonly _message: string | undefined;
  // withTimeout's delay, turned into a deadline when the block starts (not when it is made).
  private readonly _delay: number | null;

  /** A deadline at loop time `when` (seconds; null: none). Run a block under it with run(). */
  constructor(when: number | null, message?: string, /** @internal */ delay: number | null = null) {
    this._when = when === Infinity ? null : when;
    this._message = message;
    this._delay = delay === Infinity ? null : delay;
  }

  /** The current deadline (loop time), or null. */
  when(): number | null {
    return this._when;
  }

  /** Moves the deadline (null: none); only while the block runs. */
  reschedule(when: number | null): void {
    if (this._state !== 'active') {
      if (this._state === 'created') throw new RuntimeError('Timeout has not been entered');
      throw new RuntimeError(`Cannot change state of ${this._state} Timeout`);
    }
    this._when = when === Infinity ? null : when;
    this._handle?.cancel();
    if (this._when === null) {
      this._handle = null;
    } else {
      const loop = getRunningLoop();
      this._handle = this._when <= loop.time() ? loop.callSoon(expire, this) : loop.callAt(this._when, expire, this);
    }
  }

  /** True once the deadline has passed while the block ran. */
  expired(): boolean {
    return this._state === 'expiring' || this._state === 'expired';
  }

  /**
   * Runs `coro` (or the coroutine of `coro(this)`) in the current task under this deadline (the `async with`
   * block).
   */
  run<T>(coro: TimeoutBody<T>): Coroutine<T> {
    return runUnderTimeout(this, coro) as Coroutine<T>;
  }

  toString(): string {
    return `<Timeout [${this._state}]${this._state === 'active' ? ` when=${this._when}` : ''}>`;
  }

  /** @internal asyncio's __aenter__. */
  _enter(): void {
    if (this._state !== 'created') throw new RuntimeError('Timeout has already been entered');
    const task = getRunningLoop().currentTask();
    if (task === null) throw new RuntimeError('Timeout should be used inside a task');
    this._state = 'active';
    this._task = task;
    this._cancellingBefore = task.cancelling();
    if (this._delay !== null) this._when = getRunningLoop().time() + this._delay;
    this.reschedule(this._when);
  }

  /** @internal asyncio's __aexit__: the error to throw instead of `err` (or `err` itself). */
  _exit(err: unknown, failed: boolean): unknown {
    this._handle?.cancel();
    this._handle = null;
    if (this._state === 'expiring') {
      this._state = 'expired';
      if (
        this._task!._withdrawCancel(this._request) <= this._cancellingBefore &&
        failed &&
        err instanceof CancelledError
      ) {
        return new TimeoutError(this._message ?? `timed out (deadline ${this._when})`, { cause: err });
      }
    } else if (this._state === 'active') {
      this._state = 'finished';
    }
    return err;
  }

  /** @internal The deadline passed. */
  _expire(): void {
    if (this._task!.cancel()) this._request = this._task!._lastCancelRequest();
    this._state = 'expiring';
    this._handle = null;
  }
}

function expire(timeout: Timeout): void {
  timeout._expire();
}

// The block itself, whichever way it was asked for. Its frame is named withTimeout, the
// name programs use most, and it delegates straight to the body: the inspector shows
// `withTimeout → body`, as before the handle existed.
const runUnderTimeout = coroutine(function* withTimeout(
  timeout: Timeout,
  coro: TimeoutBody<unknown>,
): Coroutine<unknown> {
  timeout._enter();
  let result: unknown;
  try {
    result = yield* isCoroutine(coro) ? coro : coro(timeout);
  } catch (e) {
    throw timeout._exit(e, true);
  }
  // The body may have swallowed our cancellation: the request is taken back all the same.
  timeout._exit(undefined, false);
  return result;
});

/**
 * Awaits `coro` in the current task; throws TimeoutError if it takes more than `delay`
 * seconds from when it starts (null or Infinity: no limit). A function instead of a
 * coroutine is called with the Timeout handle and its coroutine awaited.
 */
export function withTimeout<T>(delay: number | null, coro: TimeoutBody<T>, message?: string): Coroutine<T> {
  // No limit and no use for a handle: the coroutine itself, awaited in place, inside a task or not.
  if ((delay === null || delay === Infinity) && isCoroutine(coro)) return coro;
  return new Timeout(null, message ?? `timed out after ${delay}s`, delay).run(coro);
}

/**
 * Like withTimeout, with the deadline as a loop time (`loop.time()` seconds) instead of a delay
 * (asyncio.timeout_at).
 */
export function timeoutAt<T>(when: number | null, coro: TimeoutBody<T>, message?: string): Coroutine<T> {
  return new Timeout(when, message).run(coro);
}
