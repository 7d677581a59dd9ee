// TaskTable: the debug adapter's copy of the host's task summaries, kept current with the
// host's incremental snapshots (`snapshot {since: version}`): a full snapshot replaces the
// table, a delta upserts the tasks it carries and drops the ids it lists as removed.
//
// Invariants: `version` is the version of the last snapshot applied (the `since` of the
// next request); after `reset()` (a new run) the next request asks for a full snapshot.
// The table holds live tasks and the host's recent history of finished ones, each id once.

import type { CrawlProgress, Snapshot, TaskState, TaskSummary } from '../../protocol/host-protocol';

/** States of a task that has ended. */
export const FINISHED_STATES: ReadonlySet<TaskState> = new Set<TaskState>(['done', 'cancelled', 'failed']);

export function isFinished(task: TaskSummary): boolean {
  return FINISHED_STATES.has(task.state);
}

export class TaskTable {
  private readonly tasks = new Map<number, TaskSummary>();
  private versionSeen: number | undefined;
  tick = 0;
  paused = false;
  counts: Record<TaskState, number> = { scheduled: 0, running: 0, suspended: 0, done: 0, cancelled: 0, failed: 0 };
  progress: CrawlProgress | null = null;

  /** The `since` to ask the host for (undefined: a full snapshot). */
  get since(): number | undefined {
    return this.versionSeen;
  }

  /** Forgets everything (a new run): the next snapshot is full. */
  reset(): void {
    this.tasks.clear();
    this.versionSeen = undefined;
    this.tick = 0;
    this.paused = false;
    this.progress = null;
  }

  apply(snapshot: Snapshot): void {
    if (snapshot.full) this.tasks.clear();
    for (const id of snapshot.removed) this.tasks.delete(id);
    for (const t of snapshot.tasks) this.tasks.set(t.id, t);
    this.versionSeen = snapshot.version;
    this.tick = snapshot.tick;
    this.paused = snapshot.paused;
    this.counts = snapshot.counts;
    this.progress = snapshot.progress;
  }

  get(id: number): TaskSummary | undefined {
    return this.tasks.get(id);
  }

  /** Records a summary that arrived with an event (taskCreated, taskFinished). */
  upsert(task: TaskSummary): void {
    this.tasks.set(task.id, task);
  }

  /** Every task known, by id. */
  all(): TaskSummary[] {
    return [...this.tasks.values()].sort((a, b) => a.id - b.id);
  }

  /** Tasks that have not ended, by id. */
  live(): TaskSummary[] {
    return this.all().filter((t) => !isFinished(t));
  }

  get size(): number {
    return this.tasks.size;
  }
}
