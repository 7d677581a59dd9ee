// A tiny event loop of callbacks and timers, the second program of the asyncio-vs-Node
// article: what Node's own loop does underneath setTimeout, in a few lines.
//
// State: a FIFO of ready callbacks and a binary heap of timers ordered by due time (ties in
// the order they were added). One turn: move every due timer to the ready FIFO, in time
// order; run the callbacks that were ready; when nothing is ready, wait until the next timer
// is due. A real loop waits in select(timeout) so that sockets can wake it too; this one has
// no sockets and awaits a Node timer instead, which keeps Node free meanwhile.
//
// Invariants: callbacks run one at a time, never re-entrantly, and a callback added during a
// turn runs in a later turn; a timer never fires early; runForever returns when stop() was
// called or nothing is left to run.

import { inspect } from '../inspection';
import { whileAnnounced, callbackName, type InspectableProgramLoop, type ProgramLoopInspection } from '../program-loops';

interface Timer {
  readonly when: number;
  readonly seq: number;
  readonly callback: () => void;
}

/** A min-heap of timers by (when, seq). */
class TimerHeap {
  private readonly items: Timer[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Timer | undefined {
    return this.items[0];
  }

  push(timer: Timer): void {
    const items = this.items;
    items.push(timer);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** The timers, soonest first (a copy: the heap is not changed). */
  sorted(): Timer[] {
    return [...this.items].sort((a, b) => (before(a, b) ? -1 : 1));
  }

  pop(): Timer | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < items.length && before(items[l]!, items[smallest]!)) smallest = l;
      if (r < items.length && before(items[r]!, items[smallest]!)) smallest = r;
      if (smallest === i) return top;
      [items[i], items[smallest]] = [items[smallest]!, items[i]!];
      i = smallest;
    }
  }
}

function before(a: Timer, b: Timer): boolean {
  return a.when < b.when || (a.when === b.when && a.seq < b.seq);
}

export class TinyCallbackLoop implements InspectableProgramLoop {
  private ready: Array<() => void> = [];
  /** The turn's callbacks being run, and the index of the one running (for the inspector). */
  private batch: Array<() => void> = [];
  private batchIndex = -1;
  private readonly timers = new TimerHeap();
  private seq = 0;
  private running = false;
  private readonly t0 = performance.now();
  /** Turns run so far. */
  turns = 0;

  /** Seconds since the loop was made. */
  time(): number {
    return (performance.now() - this.t0) / 1000;
  }

  callSoon(callback: () => void): void {
    this.ready.push(callback);
  }

  callLater(delaySeconds: number, callback: () => void): void {
    this.timers.push({ when: this.time() + delaySeconds, seq: this.seq++, callback });
  }

  stop(): void {
    this.running = false;
  }

  /** How many timers are waiting. */
  pendingTimers(): number {
    return this.timers.size;
  }

  async runForever(): Promise<void> {
    this.running = true;
    await whileAnnounced(this, () => this.turnUntilStopped());
  }

  /** The program loop's view of this loop (runtime/program-loops.ts). */
  [inspect](): ProgramLoopInspection {
    const now = this.time();
    const running = this.batch[this.batchIndex];
    return {
      kind: 'timers',
      title: 'a callback loop with a timer heap (TinyCallbackLoop)',
      running: () => (running === undefined ? null : callbackName(running)),
      ready: () => [...this.batch.slice(this.batchIndex + 1), ...this.ready].map(callbackName),
      sockets: () => [],
      timers: () => this.timers.sorted().map((t) => ({ dueInMs: Math.max(0, (t.when - now) * 1000), callback: callbackName(t.callback) })),
      workers: () => [],
      notes: () => [`turn ${this.turns}`],
    };
  }

  private async turnUntilStopped(): Promise<void> {
    while (this.running) {
      this.turns++;
      const now = this.time();
      for (let t = this.timers.peek(); t !== undefined && t.when <= now; t = this.timers.peek()) {
        this.ready.push(this.timers.pop()!.callback);
      }
      const batch = this.ready;
      this.ready = [];
      this.batch = batch;
      for (const [i, callback] of batch.entries()) {
        this.batchIndex = i;
        callback();
      }
      this.batch = [];
      if (!this.running || this.ready.length > 0) continue;
      const next = this.timers.peek();
      if (next === undefined) break;
      const waitMs = Math.max(0, (next.when - this.time()) * 1000);
      await new Promise<void>((resolve) => setTimeout(resolve, Math.ceil(waitMs)));
    }
    this.running = false;
  }
}
