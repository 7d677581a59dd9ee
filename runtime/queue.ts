// Queue: asyncio.Queue, a FIFO for coordinating producer and consumer coroutines.
// - put() waits while the queue is full (maxsize > 0); get() waits while it is empty.
//   Waiters are served first come, first served; a waiter cancelled after being woken
//   passes the wake-up on, so no item or free slot is lost.
// - Every put counts as an unfinished task until a consumer calls taskDone(); join()
//   waits until the count is back to zero. taskDone() beyond zero is an error.

import { coroutine } from './coroutine';
import { QueueEmpty, QueueFull, ValueError } from './errors';
import { Fifo, wakeFirstPending } from './fifo';
import type { Future } from './future';
import { noteCreationSite } from './creation-sites';
import { inspect, type Inspectable, type ResourceInspection } from './inspection';
import { getRunningLoop } from './running-loop';
import { Event } from './event';
import type { Coroutine } from './task';

const wakeupNext = wakeFirstPending;

export class Queue<T = unknown> implements Inspectable {
  readonly maxsize: number;
  private _items = new Fifo<T>();
  private _getters = new Fifo<Future<void>>();
  private _putters = new Fifo<Future<void>>();
  private _unfinished = 0;
  private _finished = new Event();

  constructor(maxsize = 0) {
    // asyncio takes any number (full() compares qsize() >= maxsize, so 1.3 holds two items).
    if (typeof maxsize !== 'number' || Number.isNaN(maxsize))
      throw new TypeError(`maxsize must be a number, got ${String(maxsize)}`);
    this.maxsize = maxsize;
    this._finished.set();
    noteCreationSite(this);
  }

  /** Number of items in the queue. */
  qsize(): number {
    return this._items.length;
  }

  empty(): boolean {
    return this.qsize() === 0;
  }

  /** True if maxsize > 0 and the queue holds maxsize items. */
  full(): boolean {
    return this.maxsize > 0 && this.qsize() >= this.maxsize;
  }

  /** Items put and not yet marked done with taskDone(). */
  unfinishedTasks(): number {
    return this._unfinished;
  }

  /** Coroutines waiting in get() and put() (inspection). */
  waiting(): { getters: number; putters: number } {
    return { getters: this._getters.length, putters: this._putters.length };
  }

  /** Puts an item, waiting for a free slot while the queue is full. */
  put(item: T): Coroutine<void> {
    return queuePut(this as Queue<unknown>, item);
  }

  /** Removes and returns an item, waiting while the queue is empty. */
  get(): Coroutine<T> {
    return queueGet(this as Queue<unknown>) as Coroutine<T>;
  }

  /** Waits until every item put has been marked done with taskDone(). */
  join(): Coroutine<void> {
    return queueJoin(this as Queue<unknown>);
  }

  putNowait(item: T): void {
    if (this.full()) throw new QueueFull(`the queue is full (maxsize=${this.maxsize})`);
    this._putItem(item);
    this._unfinished++;
    this._finished.clear();
    wakeupNext(this._getters);
  }

  getNowait(): T {
    if (this.qsize() === 0) throw new QueueEmpty('the queue is empty');
    const item = this._getItem();
    wakeupNext(this._putters);
    return item;
  }

  /** Marks one item taken with get() as processed. */
  taskDone(): void {
    if (this._unfinished <= 0)
      throw new ValueError('taskDone() called too many times: every call must match an item put');
    this._unfinished--;
    if (this._unfinished === 0) this._finished.set();
  }

  /**
   * The storage order, asyncio's _put/_get: first in, first out here. LifoQueue and
   * PriorityQueue override these and qsize(); everything else (waiters, unfinished count,
   * join) is shared.
   */
  protected _putItem(item: T): void {
    this._items.push(item);
  }

  protected _getItem(): T {
    return this._items.shift() as T;
  }

  toString(): string {
    return `<${this.constructor.name} maxsize=${this.maxsize} size=${this.qsize()} unfinished=${this._unfinished} getters=${this._getters.length} putters=${this._putters.length}>`;
  }

  /** Inspection: its getters, then its putters, then the join() waiters; nobody holds a queue. */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'queue',
      wokenBy: 'loop',
      description: () => this.toString(),
      waiters: () => {
        const out: Future<unknown>[] = [];
        for (const f of this._getters) if (!f.done()) out.push(f);
        for (const f of this._putters) if (!f.done()) out.push(f);
        const joining = this._finished[inspect]();
        out.push(...joining.waiters());
        return out;
      },
      holders: () => [],
    };
  }

  /** @internal */
  static _internals<T>(q: Queue<T>): {
    getters: Fifo<Future<void>>;
    putters: Fifo<Future<void>>;
    finished: Event;
    items: Fifo<T>;
  } {
    return { getters: q._getters, putters: q._putters, finished: q._finished, items: q._items };
  }
}

const queuePut = coroutine(function* put(queue: Queue<unknown>, item: unknown): Coroutine<void> {
  const { putters } = Queue._internals(queue);
  while (queue.full()) {
    const putter = getRunningLoop().createFuture<void>();
    putter._origin = { kind: 'queue.put', target: queue };
    putters.push(putter);
    try {
      yield* putter;
    } catch (e) {
      putter.cancel();
      putters.remove(putter);
      // Woken, then cancelled: hand the free slot to the next putter.
      if (!queue.full() && !putter.cancelled()) wakeupNext(putters);
      throw e;
    }
  }
  queue.putNowait(item);
});

const queueGet = coroutine(function* get(queue: Queue<unknown>): Coroutine<unknown> {
  const { getters } = Queue._internals(queue);
  while (queue.empty()) {
    const getter = getRunningLoop().createFuture<void>();
    getter._origin = { kind: 'queue.get', target: queue };
    getters.push(getter);
    try {
      yield* getter;
    } catch (e) {
      getter.cancel();
      getters.remove(getter);
      // Woken, then cancelled: hand the item to the next getter.
      if (!queue.empty() && !getter.cancelled()) wakeupNext(getters);
      throw e;
    }
  }
  return queue.getNowait();
});

const queueJoin = coroutine(function* join(queue: Queue<unknown>): Coroutine<void> {
  const { finished } = Queue._internals(queue);
  if (queue.unfinishedTasks() > 0) yield* finished.wait({ kind: 'queue.join', target: queue });
});
