// CancelRequest: one call of Task.cancel() that counted (the task was not done), kept by the
// task until it ends or the request is taken back (uncancel()). asyncio only counts these
// (Task.cancelling()); the runtime keeps each, so that "who cancelled this task" can name
// the cancel that took effect instead of the first one ever asked: a timeout that expired
// and took its cancel back (an HTTP read timeout that was retried, a TaskGroup's cancel of
// its parent) does not cancel the task, a later cancel by another party does.
//
// Invariants:
// - A task's pending requests are exactly those counted by cancelling(): cancel() adds one,
//   uncancel() removes one (pending.length === cancelling()).
// - A withdrawal removes a given request (a Timeout's or a TaskGroup's own, which they keep)
//   or, for a plain uncancel(), the request whose CancelledError was delivered when it is
//   still pending (the handler takes back the cancel it caught), else the oldest pending.
// - `delivered` is the last request whose cancel() started delivering a CancelledError into
//   the task (cancelling its awaited future, or marking it to throw at its next step); a
//   request arriving while an earlier one's cancelled future is still to be read does not
//   replace it (that future's CancelledError is the one the task gets).
// - The cancel in effect: for a task that ended cancelled, the delivered request if still
//   pending (its CancelledError ended the task), else the oldest pending; for any other task,
//   the oldest pending; null when none is pending (never asked, or every request withdrawn).

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
