// CancelRequest: one call of Task.cancel() that counted (the task was not done), kept by the
// task until it ends or uncancel() takes it back, so "who cancelled this task" names the cancel
// that took effect, not a timeout's that was taken back. See docs/design/runtime-core.md.
//
// Invariants:
// - A task's pending requests are exactly those counted by cancelling().
// - `delivered` is the last request whose CancelledError went into the task; a later one never
//   replaces it while its cancelled future is still to be read.
// - The cancel in effect: for a task that ended cancelled, the delivered request if still
//   pending, else the oldest pending (also for any other task); null when none is pending.

import type { Task } from './task';

export class CancelRequest {
  constructor(
    /** The task that was running when the cancel was asked (null: a callback, a timer, code outside the loop). */
    readonly by: Task<unknown> | null,
    /** The message given to cancel(), if any. */
    readonly message: string | undefined,
    /** Its number among the cancels counted for this task, from 1 (withdrawn ones included). */
    readonly seq: number,
  ) {}

  toString(): string {
    return `<CancelRequest #${this.seq} by ${this.by === null ? 'no task' : `task #${this.by.id}`}>`;
  }
}

/** @internal A task's cancel requests (created at its first counted cancel). */
export class CancelRequests {
  /** Pending requests, oldest first. */
  readonly pending: CancelRequest[] = [];
  /** See the header: the last request that started delivering a CancelledError. */
  delivered: CancelRequest | null = null;
  private asked = 0;

  ask(by: Task<unknown> | null, message: string | undefined): CancelRequest {
    const request = new CancelRequest(by, message, ++this.asked);
    this.pending.push(request);
    return request;
  }

  /**
   * Takes back `request` (null: the delivered one if pending, else the oldest); returns the one taken back,
   * or null if none was pending.
   */
  withdraw(request: CancelRequest | null): CancelRequest | null {
    let i = request === null ? -1 : this.pending.indexOf(request);
    if (i < 0 && this.delivered !== null) i = this.pending.indexOf(this.delivered);
    if (i < 0) i = this.pending.length > 0 ? 0 : -1;
    if (i < 0) return null;
    return this.pending.splice(i, 1)[0]!;
  }

  /** The cancel in effect (see the header); `endedCancelled`: the task ended cancelled. */
  inEffect(endedCancelled: boolean): CancelRequest | null {
    if (endedCancelled && this.delivered !== null && this.pending.includes(this.delivered)) return this.delivered;
    return this.pending[0] ?? null;
  }
}
