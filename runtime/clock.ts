// Where the event loop reads time. Seconds, monotonic, like asyncio's loop.time().
// The VirtualClock is the fake clock for tests (trio's autojump clock): when the loop has
// nothing ready and no socket in flight, it jumps straight to the next timer instead of
// waiting in real time, so timer tests are exact and instant.

export interface Clock {
  /** Current time in seconds. Never goes backwards. */
  now(): number;
  /**
   * True for a clock the loop may advance itself; the loop then calls `advanceTo(when)`
   * instead of sleeping until `when`.
   */
  readonly virtual: boolean;
  advanceTo(when: number): void;
}

/** Real monotonic time from `performance.now()`. */
export class MonotonicClock implements Clock {
  readonly virtual = false;
  now(): number {
    return performance.now() / 1000;
  }
  advanceTo(_when: number): void {
    throw new Error('the monotonic clock cannot be advanced');
  }
}

/** A fake clock that only moves when told to, or when the loop jumps it to its next timer. */
export class VirtualClock implements Clock {
  readonly virtual = true;
  private current: number;
  constructor(start = 0) {
    this.current = start;
  }
  now(): number {
    return this.current;
  }
  /** Moves time forward by `seconds` (tests may call this directly). */
  advance(seconds: number): void {
    if (seconds < 0) throw new RangeError('time cannot go backwards');
    this.current += seconds;
  }
  advanceTo(when: number): void {
    if (when > this.current) this.current = when;
  }
}
