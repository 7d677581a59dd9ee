// The loop's queue of callbacks ready to run, as a flat FIFO of (fn, a, b) triples.
// Internal wake-ups (a task's next step, a future's done callbacks) are pushed without
// allocating a Handle; public callSoon pushes a Handle runner. One tick runs exactly the
// entries present when it began, as asyncio's _run_once does: entries pushed while the tick
// runs wait for the next tick.

export type ReadyFn = (a: unknown, b: unknown) => void;

export class ReadyQueue {
  private buf: unknown[] = [];
  private head = 0;
  private tail = 0;

  /** Number of entries waiting. */
  get length(): number {
    return (this.tail - this.head) / 3;
  }

  push(fn: ReadyFn, a: unknown, b: unknown): void {
    const buf = this.buf;
    const t = this.tail;
    buf[t] = fn;
    buf[t + 1] = a;
    buf[t + 2] = b;
    this.tail = t + 3;
  }

  /**
   * Runs the `count` entries at the head (taken before any of them runs); entries pushed
   * meanwhile stay for the next call. What an entry throws goes to `onError` (which must not
   * throw) and the run goes on. With `timed` (debug mode) each entry's duration is reported.
   */
  run(count: number, onError: (error: unknown, fn: ReadyFn, a: unknown) => void, timed: ((fn: ReadyFn, a: unknown, seconds: number) => void) | null = null): void {
    const buf = this.buf;
    let h = this.head;
    for (let i = 0; i < count; i++) {
      const fn = buf[h] as ReadyFn;
      const a = buf[h + 1];
      const b = buf[h + 2];
      buf[h] = buf[h + 1] = buf[h + 2] = undefined;
      h += 3;
      this.head = h;
      const t0 = timed === null ? 0 : performance.now();
      try {
        fn(a, b);
      } catch (e) {
        onError(e, fn, a);
      }
      if (timed !== null) timed(fn, a, (performance.now() - t0) / 1000);
    }
    this.compact();
  }

  /** Visits the entries in order without removing them (inspection). */
  forEach(visit: (fn: ReadyFn, a: unknown, b: unknown) => void): void {
    const buf = this.buf;
    for (let i = this.head; i < this.tail; i += 3) visit(buf[i] as ReadyFn, buf[i + 1], buf[i + 2]);
  }

  clear(): void {
    this.buf = [];
    this.head = this.tail = 0;
  }

  private compact(): void {
    if (this.head === this.tail) {
      this.head = this.tail = 0;
      // Keep the array's capacity unless a burst made it large.
      if (this.buf.length > 3 * 65536) this.buf = [];
    } else if (this.head > 3 * 4096 && this.head * 2 > this.tail) {
      this.buf.copyWithin(0, this.head, this.tail);
      this.tail -= this.head;
      this.buf.length = this.tail;
      this.head = 0;
    }
  }
}
