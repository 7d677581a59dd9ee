// Runs on a runtime host's main thread (a live host's, and a line replay host's).
//
// RecordedMoment: a past tick of a recorded run as its event log tells it, at once, with no
// replay (recorded-tasks.ts): the task table and a task's detail with its frames by function
// name, answered while the replay to that tick (run-rewind.ts, a PastMoment once it lands)
// is under way. What needs the replayed program (positions, locals, variables, the await
// graph, evaluate) is not answered here: the host waits for the PastMoment for those.
//
// Invariants: snapshots are always full and marked `fromLog` (their busyMs is not in the log,
// nor an await's resourceId, nor the crawl's progress); details are marked `fromLog`, every
// frame with no position and no locals; task ids are the run's own.

import type { Lint, Snapshot, TaskDetail } from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { RecordedTable, RecordedTasks } from '../../record/recorded-tasks';
import { SnapshotTracker } from './snapshots';

/** Finished tasks a moment lists (as many as a replayed moment's history keeps: run-rewind.ts). */
export const MOMENT_HISTORY = 1000;

export class RecordedMoment {
  private table: RecordedTable | null = null;
  private readonly snapshots = new SnapshotTracker();

  constructor(
    readonly runId: number,
    /** The tick this moment is right after. */
    readonly tick: number,
    private readonly tasks: RecordedTasks,
    /** The lints the run reported: those by this tick are shown. */
    private readonly lintsThen: () => Lint[],
  ) {}

  snapshot(): Snapshot {
    const snapshot = this.snapshots.snapshot(undefined, this.tableNow().rows, {
      tick: this.tick,
      paused: true,
      progress: null,
    });
    snapshot.fromLog = true;
    return snapshot;
  }

  taskDetail(taskId: number): TaskDetail {
    const d = this.tableNow().detailOf(taskId);
    if (d === undefined)
      throw new ProtocolError(
        `taskDetail: no task #${taskId} at tick ${this.tick} of run ${this.runId}`,
        'unknownTask',
      );
    return {
      task: d.task,
      frames: d.frames.map((name, index) => ({ index, name, position: null, generated: null, locals: [] })),
      awaitChain: d.awaitChain,
      createdAt: null,
      traceback: null,
      fromLog: true,
    };
  }

  lints(): Lint[] {
    return this.lintsThen().filter((l) => l.tick <= this.tick);
  }

  private tableNow(): RecordedTable {
    return (this.table ??= this.tasks.tableAt(this.tick, MOMENT_HISTORY));
  }
}
