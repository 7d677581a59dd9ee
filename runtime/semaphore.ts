// Semaphore: asyncio.Semaphore, a counter of free slots. acquire() takes a slot, waiting
// in arrival order while there is none; release() gives one back and wakes the next
// waiter. A waiter woken and then cancelled gives its slot back, so none is lost.
// BoundedSemaphore refuses a release above its initial value.
//
// Invariant: _holders and _holderSites are parallel (a slot's holder and where it took the
// slot, captured only while coroutine tracking is on, as a Lock's _takenAt).

import { coroutine } from './coroutine';
import { CancelledError, ValueError } from './errors';
import { Fifo } from './fifo';
import type { Future } from './future';
import { captureSite, noteCreationSite, type CapturedStack } from './creation-sites';
import { inspect, type Inspectable, type ResourceInspection } from './inspection';
import { getRunningLoop, runningLoopOrNull } from './running-loop';
import type { Coroutine, Task } from './task';

export class Semaphore implements Inspectable {
  private _value: number;
  private _waiters = new Fifo<Future<boolean>>();
  /**
   * The tasks holding a slot, in the order they took it (null: taken outside any task). A
   * semaphore has no owner: a release by a task holding no slot frees the oldest holder's.
   */
  private _holders: Array<Task<unknown> | null> = [];
  /** Where each holder of _holders took its slot (null: taken while coroutine tracking was off). */
  private _holderSites: Array<CapturedStack | null> = [];

  constructor(value = 1) {
    if (!Number.isInteger(value) || value < 0)
      throw new ValueError(`Semaphore initial value must be >= 0, got ${String(value)}`);
    this._value = value;
    noteCreationSite(this);
  }

  /** True if acquire() would wait. */
  locked(): boolean {
    if (this._value === 0) return true;
    for (const w of this._waiters) if (!w.cancelled()) return true;
    return false;
  }

  /** Free slots. */
  value(): number {
    return this._value;
  }

  acquire(): Coroutine<boolean> {
    return semaphoreAcquire(this);
  }

  release(): void {
    this._value++;
    this._dropHolder();
    this._wakeUpNext();
  }

  waiterCount(): number {
    return this._waiters.length;
  }

  toString(): string {
    return `<Semaphore value=${this._value} waiters=${this._waiters.length}>`;
  }

  /** Inspection: its waiters in arrival order, and the tasks holding its slots. */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'semaphore',
      wokenBy: 'loop',
      description: () => this.toString(),
      waiters: () => Array.from(this._waiters).filter((f) => !f.done()),
      holders: () => this._holders.slice(),
      heldSince: () => this._holderSites.slice(),
    };
  }

  /**
   * @internal The running task took a slot (called by semaphoreTake: the frames above it end at the program's
   * line).
   */
  _addHolder(): void {
    this._holders.push(runningLoopOrNull()?.currentTask() ?? null);
    this._holderSites.push(captureSite(semaphoreTake, ACQUIRE_FRAMES));
  }

  private _dropHolder(): void {
    if (this._holders.length === 0) return;
    const i = this._holders.indexOf(runningLoopOrNull()?.currentTask() ?? null);
    const at = i >= 0 ? i : 0;
    this._holders.splice(at, 1);
    this._holderSites.splice(at, 1);
  }

  /** @internal */
  _adjust(delta: number): void {
    this._value += delta;
  }
  /** @internal */
  _enqueue(fut: Future<boolean>): void {
    this._waiters.push(fut);
  }
  /** @internal */
  _dequeue(fut: Future<boolean>): void {
    this._waiters.remove(fut);
  }
  /** @internal Wakes the first waiter not done yet, reserving a slot for it. */
  _wakeUpNext(): boolean {
    for (const fut of this._waiters) {
      if (!fut.done()) {
        this._value--;
        fut.setResult(true);
        return true;
      }
    }
    return false;
  }
}

/** asyncio.BoundedSemaphore: releasing above the initial value is an error (ValueError). */
export class BoundedSemaphore extends Semaphore {
  private readonly _bound: number;

  constructor(value = 1) {
    super(value);
    this._bound = value;
  }

  override release(): void {
    if (this.value() >= this._bound) throw new ValueError('BoundedSemaphore released too many times');
    super.release();
  }

  override toString(): string {
    return `<BoundedSemaphore value=${this.value()}/${this._bound} waiters=${this.waiterCount()}>`;
  }
}

/** Frames captured where a slot is taken (acquire, its tracking wrapper, the program's frame, and a spare). */
const ACQUIRE_FRAMES = 5;

/** The frame captureSite starts above: the acquire coroutine's frame, then the program's line that acquired. */
function semaphoreTake(sem: Semaphore): void {
  sem._addHolder();
}

const semaphoreAcquire = coroutine(function* acquire(sem: Semaphore): Coroutine<boolean> {
  if (!sem.locked()) {
    sem._adjust(-1);
    semaphoreTake(sem);
    return true;
  }
  const fut = getRunningLoop().createFuture<boolean>();
  fut._origin = { kind: 'semaphore', target: sem };
  sem._enqueue(fut);
  try {
    try {
      yield* fut;
    } finally {
      sem._dequeue(fut);
    }
  } catch (e) {
    // Woken (a slot was reserved for us) but cancelled: give the slot back.
    if (e instanceof CancelledError && fut.done() && !fut.cancelled()) sem._adjust(1);
    throw e;
  } finally {
    // Others may have queued behind us while slots were free: wake as many as allowed.
    while (sem.value() > 0) if (!sem._wakeUpNext()) break;
  }
  semaphoreTake(sem);
  return true;
});
