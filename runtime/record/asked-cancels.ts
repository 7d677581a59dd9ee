// Who asked the cancels no task asked: for each CANCEL record by no task (a view's cancel or
// Stop, the CLI's signal, the crawl's deadline, a callback), the AskedCancel being made then
// (who, its message) or null, kept beside the log and saved in the recording's metadata
// (`askedCancels`); a replay asks each again between ticks (docs/design/run-recorder.md).
//
// Invariants: the list is beside the log, never in it (the log is byte-identical with or
// without it); a recording without it reads such cancels as its signal says, else 'unknown'.

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
