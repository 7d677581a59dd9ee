// PriorityQueue: asyncio.PriorityQueue, a Queue that hands out its smallest item first.
// Python compares entries with `<` (tuples such as (priority, data) element by element);
// here the order is `compare(a, b) < 0`, by default comparePriority below, which orders
// numbers, strings, bigints and arrays of them (element by element, as tuples) and
// refuses anything else with a TypeError, as Python refuses unorderable entries.
//
// Invariant: the items form a binary min-heap under `compare`; equal items come out in
// no particular order (heapq is not stable either).

import { Queue } from './queue';

export type PriorityCompare<T> = (a: T, b: T) => number;

/** Python's `<` on numbers, strings, bigints and arrays of them (tuples), as a comparator. */
export function comparePriority(a: unknown, b: unknown): number {
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const c = comparePriority(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  const ta = typeof a;
  const numeric = (t: string): boolean => t === 'number' || t === 'bigint';
  if ((numeric(ta) && numeric(typeof b)) || (ta === 'string' && typeof b === 'string')) {
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  }
  throw new TypeError(
    `'<' not supported between ${describeKind(a)} and ${describeKind(b)}: give PriorityQueue a compare function`,
  );
}

function describeKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? `an instance of ${(v as object).constructor?.name ?? 'Object'}` : `a ${typeof v}`;
}

export class PriorityQueue<T = unknown> extends Queue<T> {
  private _heap: T[] = [];
  private readonly _compare: PriorityCompare<T>;

  constructor(maxsize = 0, compare: PriorityCompare<T> = comparePriority) {
    super(maxsize);
    this._compare = compare;
  }

  override qsize(): number {
    return this._heap.length;
  }

  protected override _putItem(item: T): void {
    const heap = this._heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this._compare(heap[i]!, heap[parent]!) >= 0) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  protected override _getItem(): T {
    const heap = this._heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < heap.length && this._compare(heap[l]!, heap[smallest]!) < 0) smallest = l;
        if (r < heap.length && this._compare(heap[r]!, heap[smallest]!) < 0) smallest = r;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
        i = smallest;
      }
    }
    return top;
  }
}
