// Condition: asyncio.Condition, a condition variable for coroutines. A coroutine holding
// the lock waits with wait(), which releases the lock, sleeps until notify() or
// notifyAll(), then takes the lock back before returning; waitFor(predicate) loops on
// wait() until the predicate holds.
//
// Invariants: wait() always returns (or throws) holding the lock again, even when its task
// is cancelled while waiting or while re-acquiring (the cancellation is delivered once the
// lock is held). notify(n) wakes up to n waiters in arrival order, skipping ones already
// woken or cancelled; wait(), notify() and notifyAll() need the lock (RuntimeError).
//
//   yield* cond.acquire();
//   try { while (!ready()) yield* cond.wait(); } finally { cond.release(); }

import { coroutine } from './coroutine';
import { CancelledError, RuntimeError } from './errors';
import { Fifo } from './fifo';
import type { Future } from './future';
import { noteCreationSite } from './creation-sites';
import { inspect, type Inspectable, type ResourceInspection } from './inspection';
import { Lock } from './lock';
import { getRunningLoop } from './running-loop';
import type { Coroutine } from './task';

export class Condition implements Inspectable {
  private readonly _lock: Lock;
  private _waiters = new Fifo<Future<boolean>>();

  /** A condition on `lock`, or on a new Lock of its own. */
  constructor(lock: Lock = new Lock()) {
    this._lock = lock;
    noteCreationSite(this);
  }

  /** The underlying lock (shared when one was given). */
  lock(): Lock {
    return this._lock;
  }

  locked(): boolean {
    return this._lock.locked();
  }

  acquire(): Coroutine<boolean> {
    return this._lock.acquire();
  }

  release(): void {
    this._lock.release();
  }

  /** Releases the lock, waits to be notified, takes the lock back; evaluates to true. */
  wait(): Coroutine<boolean> {
    return conditionWait(this);
  }

  /** Waits until `predicate()` is truthy (checked first, then after every wake-up); evaluates to its value. */
  waitFor<R>(predicate: () => R): Coroutine<R> {
    return conditionWaitFor(this, predicate) as Coroutine<R>;
  }

  /** Wakes up to `n` waiting coroutines (they return once they hold the lock again). */
  notify(n = 1): void {
    if (!this.locked()) throw new RuntimeError('cannot notify on un-acquired lock');
    let woken = 0;
    for (const fut of this._waiters) {
      if (woken >= n) break;
      if (!fut.done()) {
        woken++;
        fut.setResult(false);
      }
    }
  }

  /** Wakes every waiting coroutine. */
  notifyAll(): void {
    this.notify(this._waiters.length);
  }

  /** Coroutines waiting to be notified (inspection). */
  waiterCount(): number {
    return this._waiters.length;
  }

  /** Inspection: the coroutines waiting to be notified; the holder of its lock. */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'condition',
      wokenBy: 'loop',
      description: () => this.toString(),
      waiters: () => Array.from(this._waiters).filter((f) => !f.done()),
      holders: () => this._lock[inspect]().holders(),
    };
  }

  toString(): string {
    return `<Condition ${this.locked() ? 'locked' : 'unlocked'} waiters=${this._waiters.length}>`;
  }

  /** @internal */
  static _waitersOf(cond: Condition): Fifo<Future<boolean>> {
    return cond._waiters;
  }
}

const conditionWait = coroutine(function* wait(cond: Condition): Coroutine<boolean> {
  if (!cond.locked()) throw new RuntimeError('cannot wait on un-acquired lock');
  const waiters = Condition._waitersOf(cond);
  cond.release();
  try {
    const fut = getRunningLoop().createFuture<boolean>();
    fut._origin = { kind: 'condition', target: cond };
    waiters.push(fut);
    try {
      yield* fut;
      return true;
    } finally {
      waiters.remove(fut);
    }
  } finally {
    // The lock must be held again whatever happened; a cancellation meanwhile is
    // delivered once it is.
    let cancelled = false;
    for (;;) {
      try {
        yield* cond.acquire();
        break;
      } catch (e) {
        if (!(e instanceof CancelledError)) throw e;
        cancelled = true;
      }
    }
    if (cancelled) throw new CancelledError();
  }
});

const conditionWaitFor = coroutine(function* waitFor(cond: Condition, predicate: () => unknown): Coroutine<unknown> {
  let result = predicate();
  while (!result) {
    yield* cond.wait();
    result = predicate();
  }
  return result;
});
