// The loop's queue of callbacks ready to run, as a FIFO of (fn, a, b) triples: internal wake-ups
// push no Handle, callSoon pushes a Handle runner. One tick runs exactly the entries present when
// it began. Stored as pooled fixed-size segments (why: docs/design/runtime-core.md).
//
// Invariants: entries run in push order; `count` is the number waiting; a run slot is cleared so
// the queue keeps nothing alive; the head segment is never recycled while it holds entries.

import { holdCount } from './held-time';
import { realNow } from './outside-values';

export type ReadyFn = (a: unknown, b: unknown) => void;

/** Slots per segment: 1024 entries of three slots (24 KB with 8-byte pointers). */
const SEGMENT_SLOTS = 3 * 1024;
/** Emptied segments kept for reuse: enough for a burst of 128k entries (3 MB at most). */
const MAX_SPARE_SEGMENTS = 128;

class Segment {
  readonly slots: unknown[] = new Array<unknown>(SEGMENT_SLOTS).fill(undefined);
  next: Segment | null = null;
}

/** Emptied segments, every slot cleared, shared by the loops of this process. */
const spareSegments: Segment[] = [];

function takeSegment(): Segment {
  const seg = spareSegments.pop();
  if (seg === undefined) return new Segment();
  seg.next = null;
  return seg;
}

export class ReadyQueue {
  private head: Segment = takeSegment();
  private headPos = 0;
  private tail: Segment = this.head;
  private tailPos = 0;
  private count = 0;

  /** Number of entries waiting. */
  get length(): number {
    return this.count;
  }

  push(fn: ReadyFn, a: unknown, b: unknown): void {
    let t = this.tailPos;
    if (t === SEGMENT_SLOTS) {
      this.addSegment();
      t = 0;
    }
    const s = this.tail.slots;
    s[t] = fn;
    s[t + 1] = a;
    s[t + 2] = b;
    this.tailPos = t + 3;
    this.count++;
  }

  /**
   * Runs the `count` entries at the head (taken before any of them runs); entries pushed
   * meanwhile stay for the next call. What an entry throws goes to `onError` (which must not
   * throw) and the run goes on. With `timed` (debug mode) each entry's duration is reported,
   * but for an entry during which a debugger held the thread: it has no duration of its own
   * to tell (held-time.ts).
   */
  run(
    count: number,
    onError: (error: unknown, fn: ReadyFn, a: unknown, b: unknown) => void,
    timed: ((fn: ReadyFn, a: unknown, seconds: number) => void) | null = null,
  ): void {
    for (let i = 0; i < count; i++) {
      let h = this.headPos;
      if (h === SEGMENT_SLOTS) {
        this.dropHeadSegment();
        h = 0;
      }
      const s = this.head.slots;
      const fn = s[h] as ReadyFn;
      const a = s[h + 1];
      const b = s[h + 2];
      s[h] = s[h + 1] = s[h + 2] = undefined;
      this.headPos = h + 3;
      this.count--;
      const t0 = timed === null ? 0 : realNow();
      const holds = timed === null ? 0 : holdCount();
      try {
        fn(a, b);
      } catch (e) {
        onError(e, fn, a, b);
      }
      if (timed !== null && holdCount() === holds) timed(fn, a, (realNow() - t0) / 1000);
    }
    if (this.count === 0 && this.head === this.tail) this.headPos = this.tailPos = 0;
  }

  /** Visits the entries in order without removing them (inspection). */
  forEach(visit: (fn: ReadyFn, a: unknown, b: unknown) => void): void {
    let seg: Segment | null = this.head;
    let i = this.headPos;
    while (seg !== null) {
      const end = seg === this.tail ? this.tailPos : SEGMENT_SLOTS;
      const s = seg.slots;
      for (; i < end; i += 3) visit(s[i] as ReadyFn, s[i + 1], s[i + 2]);
      seg = seg === this.tail ? null : seg.next;
      i = 0;
    }
  }

  /** Drops every waiting entry (the loop is closing). */
  clear(): void {
    this.head = this.tail = new Segment();
    this.headPos = this.tailPos = this.count = 0;
  }

  private addSegment(): void {
    const seg = takeSegment();
    this.tail.next = seg;
    this.tail = seg;
    this.tailPos = 0;
  }

  /** The head segment was run to its end: move to the next one and keep the old one as a spare. */
  private dropHeadSegment(): void {
    const old = this.head;
    // The tail is never behind the head, so a full head segment always has a successor here.
    this.head = old.next!;
    this.headPos = 0;
    old.next = null;
    if (spareSegments.length < MAX_SPARE_SEGMENTS) spareSegments.push(old);
  }
}
