// A binary min-heap of TimerHandles ordered by (when, seq): the loop's scheduled timers.
// Cancelled timers stay in the heap until they reach the top or until the heap is rebuilt;
// the loop rebuilds it when cancelled ones are many (asyncio's rule: more than 100 and more
// than half), so cancelling costs O(1) and memory stays bounded.

import type { TimerHandle } from './handle';

function before(a: TimerHandle, b: TimerHandle): boolean {
  return a.when < b.when || (a.when === b.when && a.seq < b.seq);
}

export class TimerHeap {
  private items: TimerHandle[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): TimerHandle | undefined {
    return this.items[0];
  }

  push(h: TimerHandle): void {
    const items = this.items;
    let i = items.length;
    items.push(h);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (!before(h, p)) break;
      items[i] = p;
      i = parent;
    }
    items[i] = h;
  }

  pop(): TimerHandle | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    const n = items.length;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(items[r]!, items[l]!) ? r : l;
      if (!before(items[c]!, last)) break;
      items[i] = items[c]!;
      i = c;
    }
    items[i] = last;
    return top;
  }

  /** Drops every cancelled handle and restores the heap property in O(n). */
  removeCancelled(): number {
    const kept: TimerHandle[] = [];
    for (const h of this.items) {
      if (h.cancelled()) h.scheduled = false;
      else kept.push(h);
    }
    const removed = this.items.length - kept.length;
    kept.sort((a, b) => a.when - b.when || a.seq - b.seq);
    this.items = kept;
    return removed;
  }

  /** All handles, in no particular order (for inspection and close()). */
  all(): readonly TimerHandle[] {
    return this.items;
  }

  clear(): void {
    for (const h of this.items) h.scheduled = false;
    this.items = [];
  }
}
