// Lock: asyncio.Lock, a mutex for coroutines. Fair: waiters get the lock in arrival order,
// and a coroutine arriving while others wait queues behind them even if the lock is free
// for a moment. A waiter woken and then cancelled passes the lock on, so it is never lost.
//
//   yield* lock.acquire();
//   try { ... } finally { lock.release(); }

import { coroutine } from './coroutine';
import { CancelledError, RuntimeError } from './errors';
import { Fifo } from './fifo';
import type { Future } from './future';
import { captureSite, noteCreationSite, type CapturedStack } from './creation-sites';
import { inspect, type Inspectable, type ResourceInspection } from './inspection';
import { getRunningLoop, runningLoopOrNull } from './running-loop';
import type { Coroutine, Task } from './task';

export class Lock implements Inspectable {
  private _locked = false;
  private _waiters = new Fifo<Future<boolean>>();
  /** The task that took it (null: taken outside any task); meaningful only while locked. */
  private _holder: Task<unknown> | null = null;
  /** Where the holder took it (captured while coroutine tracking is on); meaningful only while locked. */
  private _takenAt: CapturedStack | null = null;

  constructor() {
    noteCreationSite(this);
  }

  locked(): boolean {
    return this._locked;
  }

  /** Waits for the lock and takes it; evaluates to true. */
  acquire(): Coroutine<boolean> {
    return lockAcquire(this);
  }

  /** Releases the lock and wakes the first waiter. Throws if it is not held. */
  release(): void {
    if (!this._locked) throw new RuntimeError('Lock is not acquired.');
    this._locked = false;
    this._holder = null;
    this._takenAt = null;
    this._wakeUpFirst();
  }

  /** Number of coroutines waiting (inspection). */
  waiterCount(): number {
    return this._waiters.length;
  }

  toString(): string {
    return `<Lock ${this._locked ? 'locked' : 'unlocked'} waiters=${this._waiters.length}>`;
  }

  /** Inspection: its waiters in arrival order, and the task holding it. */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'lock',
      wokenBy: 'loop',
      description: () => this.toString(),
      waiters: () => Array.from(this._waiters).filter((f) => !f.done()),
      holders: () => (this._locked ? [this._holder] : []),
      heldSince: () => (this._locked ? [this._takenAt] : []),
    };
  }

  /** @internal */
  _canTakeNow(): boolean {
    if (this._locked) return false;
    for (const w of this._waiters) if (!w.cancelled()) return false;
    return true;
  }
  /** @internal */
  _take(): void {
    this._locked = true;
    this._holder = runningLoopOrNull()?.currentTask() ?? null;
    // Few frames: above lockTake are the acquire coroutine, its tracking wrapper, then the program's line.
    this._takenAt = captureSite(lockTake, ACQUIRE_FRAMES);
  }
  /** @internal */
  _enqueue(fut: Future<boolean>): void {
    this._waiters.push(fut);
  }
  /** @internal */
  _dequeue(fut: Future<boolean>): void {
    this._waiters.remove(fut);
  }
  /** @internal */
  _wakeUpFirst(): void {
    const first = this._waiters.peek();
    if (first !== undefined && !first.done()) first.setResult(true);
  }
}

/** Frames captured where a Lock is taken (acquire, its tracking wrapper, the program's frame, and a spare). */
const ACQUIRE_FRAMES = 5;

/** The frame captureSite starts above: the acquire coroutine's frame, then the program's line that acquired. */
function lockTake(lock: Lock): void {
  lock._take();
}

const lockAcquire = coroutine(function* acquire(lock: Lock): Coroutine<boolean> {
  if (lock._canTakeNow()) {
    lockTake(lock);
    return true;
  }
  const fut = getRunningLoop().createFuture<boolean>();
  fut._origin = { kind: 'lock', target: lock };
  lock._enqueue(fut);
  try {
    try {
      yield* fut;
    } finally {
      lock._dequeue(fut);
    }
  } catch (e) {
    if (e instanceof CancelledError && !lock.locked()) lock._wakeUpFirst();
    throw e;
  }
  lockTake(lock);
  return true;
});
