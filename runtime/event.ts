// Event: asyncio.Event, a flag coroutines can wait for. set() wakes every waiter;
// waiters that arrive while it is set return at once; clear() resets it.

import { coroutine } from './coroutine';
import type { Future, FutureOrigin } from './future';
import { noteCreationSite } from './creation-sites';
import { inspect, type Inspectable, type ResourceInspection } from './inspection';
import { getRunningLoop } from './running-loop';
import type { Coroutine } from './task';

export class Event implements Inspectable {
  private _value = false;
  private _waiters = new Set<Future<boolean>>();

  constructor() {
    noteCreationSite(this);
  }

  isSet(): boolean {
    return this._value;
  }

  /** Sets the flag and wakes every waiting coroutine. */
  set(): void {
    if (this._value) return;
    this._value = true;
    for (const fut of this._waiters) if (!fut.done()) fut.setResult(true);
  }

  clear(): void {
    this._value = false;
  }

  /** Waits until the flag is set; evaluates to true. */
  wait(origin?: FutureOrigin): Coroutine<boolean> {
    return eventWait(this, origin);
  }

  /** Number of coroutines waiting (inspection). */
  waiterCount(): number {
    return this._waiters.size;
  }

  toString(): string {
    return `<Event ${this._value ? 'set' : 'unset'} waiters=${this._waiters.size}>`;
  }

  /** Inspection: the futures of its waiters, in arrival order; nobody holds an Event. */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'event',
      wokenBy: 'loop',
      description: () => this.toString(),
      waiters: () => Array.from(this._waiters).filter((f) => !f.done()),
      holders: () => [],
    };
  }

  /** @internal */
  static _waitersOf(e: Event): Set<Future<boolean>> {
    return e._waiters;
  }
}

const eventWait = coroutine(function* wait(event: Event, origin?: FutureOrigin): Coroutine<boolean> {
  if (event.isSet()) return true;
  const fut = getRunningLoop().createFuture<boolean>();
  fut._origin = origin ?? { kind: 'event', target: event };
  const waiters = Event._waitersOf(event);
  waiters.add(fut);
  try {
    yield* fut;
    return true;
  } finally {
    waiters.delete(fut);
  }
});
