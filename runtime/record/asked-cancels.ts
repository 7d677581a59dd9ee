// Who asked the cancels no task asked: a recorded run's CANCEL records by no task (a view's
// cancelTask or Stop, the CLI's signal, the crawl's deadline, or a callback) say nothing of
// who asked, so the recorder keeps, beside the log and one per such record in log order, the
// AskedCancel that cancelTaskAs was making then (who, and its message), or null (a plain
// cancel from a callback). A recording file keeps them in its metadata (`askedCancels`,
// await-details.ts packs them with the other table notes); the
// log-side task table and the timeline name the tool from them, and a replay makes each such
// cancel asked between ticks again as it was asked (launch-programs.ts outsideCanceller), so
// the replayed moment says what the live run said.
//
// Invariants: the list is beside the log, never in it (the log, which a replay's must equal
// byte for byte, is the same with or without it); a recording without it (made before it was
// kept) reads its cancels by no task as its signal says, else 'unknown'.

import type { CancelOrigin } from '../../protocol/host-protocol';
import { cancelOriginLabel } from '../../protocol/cancel-origin-label';
import type { AskedCancel } from '../inspect/task-recorder';

export type { AskedCancel };

/**
 * Who asked a cancel by no task, as the log's readers say it: the origin, and how a timeline mark names it
 * (null: 'from outside any task').
 */
export interface NoTaskCancel {
  readonly origin: CancelOrigin;
  readonly label: string | null;
}

/**
 * How a recording names who asked its cancels from outside the loop when it keeps no asked cancels: a CLI
 * recording's signal.
 */
export interface OutsideCancels {
  readonly origin: CancelOrigin;
  readonly label: string;
}

const UNKNOWN: NoTaskCancel = { origin: { kind: 'unknown' }, label: null };

/**
 * Counts a log's CANCEL records by no task, in order, and says who asked each: between ticks
 * the recording's outside cancels when it names them (a CLI recording's signal), else its
 * asked cancel when the recording keeps them, else unknown. One per reader of a log (the timeline's, the task table's).
 */
export class NoTaskCancels {
  private seen = 0;

  constructor(private readonly outside: OutsideCancels | null) {}

  /**
   * The next CANCEL record by no task (`inTick`: asked inside a tick, by a callback or a timer); `asked`: the
   * recording's list so far, or null.
   */
  next(inTick: boolean, asked: ReadonlyArray<AskedCancel | null> | null): NoTaskCancel {
    const a = asked?.[this.seen++];
    // (A CLI recording's signal names the signal too.)
    if (!inTick && this.outside !== null) return this.outside;
    if (a === undefined || a === null) return UNKNOWN;
    const origin: CancelOrigin = { kind: a.by };
    return { origin, label: cancelOriginLabel(origin, () => '') };
  }
}
