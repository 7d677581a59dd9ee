// LoggedCancels: one task's cancel requests as a recorded run's log tells them (CANCEL,
// UNCANCEL and CANCEL_EFFECT records, run-log.ts), for the log's readers (the timeline, the
// task table of a past tick): which cancel was in effect right after a tick, by the runtime's
// rule (runtime/cancel-request.ts), so a cancel taken back by uncancel() (an expired timeout
// that was handled) is never named as the task's canceller.
//
// Invariants:
// - Requests are numbered 1, 2, ... in the order of the task's CANCEL records (the numbers
//   UNCANCEL and CANCEL_EFFECT records give).
// - In effect right after tick T: for a task that had ended cancelled by then, the request its
//   CANCEL_EFFECT names (when not taken back by then), else the oldest request asked by T and
//   not taken back by T; null when there is none.

import type { CancelOrigin } from '../../protocol/host-protocol';

/** A cancel request of the log: the tick it counts for and who asked it. */
export interface LoggedCancel {
  readonly tick: number;
  readonly origin: CancelOrigin;
  /** The tick its UNCANCEL counts for, or null while it is pending. */
  withdrawnTick: number | null;
}

export class LoggedCancels {
  private readonly requests: LoggedCancel[] = [];
  /** The request a CANCEL_EFFECT record named (index), or -1. */
  private ended = -1;

  get count(): number {
    return this.requests.length;
  }

  asked(tick: number, origin: CancelOrigin): LoggedCancel {
    const c: LoggedCancel = { tick, origin, withdrawnTick: null };
    this.requests.push(c);
    return c;
  }

  /** Request `k` (from 1) was taken back at `tick`; returns it (undefined: no such request). */
  withdrawn(k: number, tick: number): LoggedCancel | undefined {
    const c = this.requests[k - 1];
    if (c !== undefined && c.withdrawnTick === null) c.withdrawnTick = tick;
    return c;
  }

  /** Request `k` (from 1) is the one whose CancelledError ended the task. */
  endedBy(k: number): void {
    if (k >= 1 && k <= this.requests.length) this.ended = k - 1;
  }

  /**
   * The request in effect right after `tick` (Infinity: after everything read); `endedCancelled`: the task
   * had ended cancelled by then.
   */
  inEffectAt(tick: number, endedCancelled: boolean): LoggedCancel | null {
    const pending = (c: LoggedCancel): boolean =>
      c.tick <= tick && (c.withdrawnTick === null || c.withdrawnTick > tick);
    if (endedCancelled && this.ended >= 0 && pending(this.requests[this.ended]!)) return this.requests[this.ended]!;
    for (const c of this.requests) if (pending(c)) return c;
    return null;
  }
}
