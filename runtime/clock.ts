// Where the event loop reads time: seconds, monotonic, like asyncio's loop.time(). The
// VirtualClock (tests) jumps to the next timer when nothing is ready and no socket is in flight.
// The MonotonicClock stands still while a view holds the loop (hold()/release()) and while a
// debugger holds the thread on a line (held-time.ts; docs/design/held-time.md), so no timer
// expires because a person was looking.
//
// Invariant: now() never goes backwards; the first reading after line holds gives the last
// reading before them.

import { heldMs, holdStamp } from './held-time';
import { realNow } from './outside-values';

export interface Clock {
  /** Current time in seconds. Never goes backwards. */
  now(): number;
  /**
   * True for a clock the loop may advance itself; the loop then calls `advanceTo(when)`
   * instead of sleeping until `when`.
   */
  readonly virtual: boolean;
  advanceTo(when: number): void;
  /**
   * The loop is held by a view (paused between ticks) until release(): a clock that has these
   * stands still meanwhile. Holds nest. A clock without them (a virtual one, a replay's) is
   * not moved by a hold anyway, or runs through it.
   */
  hold?(): void;
  release?(): void;
}

/** Real monotonic time from `performance.now()`, less the time the loop or the thread was held. */
export class MonotonicClock implements Clock {
  readonly virtual = false;
  private holds = 0;
  /** performance.now() and heldMs() when the outermost hold() began. */
  private holdStart = 0;
  private holdStartLineMs = 0;
  /** Milliseconds of ended hold() holds, less the debugger's holds inside them (counted in heldMs() already). */
  private loopHeldMs = 0;
  /** heldMs() when the clock was made: holds before it are not its own. */
  private readonly lineHeldAtStart = heldMs();
  private last = 0;
  /** holdStamp() and heldMs() as last read: the counter is read again only when the stamp moved. */
  private stamp = holdStamp();
  private lineMs = this.lineHeldAtStart;
  /** Milliseconds left out around line holds beyond what their debugger counted (the misses: above). */
  private missedMs = 0;

  now(): number {
    const stamp = holdStamp();
    const lineHeldSince = stamp !== this.stamp;
    if (lineHeldSince) {
      this.stamp = stamp;
      this.lineMs = heldMs();
    }
    if ((stamp & 1) === 1) return this.last;
    const wall = realNow();
    const line = this.lineMs;
    // A debugger's hold inside a pause() hold is in both: count it once.
    const paused = this.holds > 0 ? wall - this.holdStart - (line - this.holdStartLineMs) : 0;
    const t = (wall - (line - this.lineHeldAtStart) - this.loopHeldMs - paused - this.missedMs) / 1000;
    // The first reading since a line hold: where the clock was before it, what its count missed left out.
    if (lineHeldSince && t > this.last) {
      this.missedMs += (t - this.last) * 1000;
      return this.last;
    }
    if (t > this.last) this.last = t;
    return this.last;
  }

  advanceTo(_when: number): void {
    throw new Error('the monotonic clock cannot be advanced');
  }

  hold(): void {
    if (this.holds++ > 0) return;
    this.holdStart = realNow();
    this.holdStartLineMs = heldMs();
  }

  release(): void {
    if (this.holds === 0 || --this.holds > 0) return;
    this.loopHeldMs += Math.max(0, realNow() - this.holdStart - (heldMs() - this.holdStartLineMs));
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
