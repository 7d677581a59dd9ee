// Barrier: asyncio.Barrier, a meeting point for a fixed number of tasks ("parties"). Each
// wait() blocks until `parties` tasks are waiting, then all of them go on together, each
// with its own index 0..parties-1 (arrival order). The barrier then refills for the next
// round.
//
// States (asyncio's): filling (tasks arriving), draining (a round released, its tasks still
// leaving: newcomers wait for the next round), resetting (reset() while tasks waited: they
// get BrokenBarrierError), broken (abort(): every wait() gets BrokenBarrierError until
// reset()). Built on a Condition, so every state change notifies all waiters, which recheck.

import { Condition } from './condition';
import { coroutine } from './coroutine';
import { BrokenBarrierError, ValueError } from './errors';
import { noteCreationSite } from './creation-sites';
import { inspect, type Inspectable, type ResourceInspection } from './inspection';
import type { Coroutine } from './task';

type BarrierState = 'filling' | 'draining' | 'resetting' | 'broken';

export class Barrier implements Inspectable {
  readonly parties: number;
  /** @internal */ _cond = new Condition();
  /** @internal */ _state: BarrierState = 'filling';
  /** @internal Tasks inside wait() (arrived and not yet left). */ _count = 0;

  constructor(parties: number) {
    if (!(parties >= 1)) throw new ValueError('parties must be > 0');
    this.parties = parties;
    noteCreationSite(this);
  }

  /** Waits until `parties` tasks wait; evaluates to this task's index (0..parties-1). */
  wait(): Coroutine<number> {
    return barrierWait(this);
  }

  /** Back to the initial state; tasks waiting now get BrokenBarrierError. */
  reset(): Coroutine<void> {
    return barrierReset(this);
  }

  /** Breaks the barrier: waiting and future wait() calls get BrokenBarrierError until reset(). */
  abort(): Coroutine<void> {
    return barrierAbort(this);
  }

  /** Tasks waiting for the current round to fill. */
  get nWaiting(): number {
    return this._state === 'filling' ? this._count : 0;
  }

  get broken(): boolean {
    return this._state === 'broken';
  }

  /** 'filling', 'draining', 'resetting' or 'broken'. */
  state(): BarrierState {
    return this._state;
  }

  /** Inspection: the parties waiting (on its condition, or for its lock); nobody holds a barrier. */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'barrier',
      wokenBy: 'loop',
      description: () => this.toString(),
      waiters: () => [...this._cond[inspect]().waiters(), ...this._cond.lock()[inspect]().waiters()],
      holders: () => [],
    };
  }

  toString(): string {
    return `<Barrier ${this._state}${this.broken ? '' : ` waiters=${this.nWaiting}/${this.parties}`}>`;
  }
}

const barrierWait = coroutine(function* wait(b: Barrier): Coroutine<number> {
  const cond = b._cond;
  yield* cond.acquire();
  try {
    // Wait out a round still draining or resetting; a broken barrier refuses at once.
    yield* cond.waitFor(() => b._state !== 'draining' && b._state !== 'resetting');
    if (b._state === 'broken') throw new BrokenBarrierError('Barrier aborted');
    const index = b._count++;
    try {
      if (index + 1 === b.parties) {
        // The last party releases the round.
        b._state = 'draining';
        cond.notifyAll();
      } else {
        yield* cond.waitFor(() => b._state !== 'filling');
        const state = b.state(); // changed while waiting
        if (state === 'broken' || state === 'resetting') throw new BrokenBarrierError('Abort or reset of barrier');
      }
      return index;
    } finally {
      b._count--;
      // The last task out ends the draining (or resetting) and lets the next round in.
      if (b._count === 0) {
        if (b._state === 'resetting' || b._state === 'draining') b._state = 'filling';
        cond.notifyAll();
      }
    }
  } finally {
    cond.release();
  }
});

const barrierReset = coroutine(function* reset(b: Barrier): Coroutine<void> {
  const cond = b._cond;
  yield* cond.acquire();
  try {
    if (b._count > 0) {
      if (b._state !== 'resetting') b._state = 'resetting';
    } else {
      b._state = 'filling';
    }
    cond.notifyAll();
  } finally {
    cond.release();
  }
});

const barrierAbort = coroutine(function* abort(b: Barrier): Coroutine<void> {
  const cond = b._cond;
  yield* cond.acquire();
  try {
    b._state = 'broken';
    cond.notifyAll();
  } finally {
    cond.release();
  }
});
