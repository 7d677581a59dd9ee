// SnapshotMirror: a client's copy of the host's task table, kept current by applying the
// snapshots of host-protocol.ts (a full one replaces everything, a delta upserts the tasks it
// carries and drops the removed ids). Used by the extension (status bar, decorations, Cancel
// Task), by the debug adapter (threads, the Coroutines view) and by the webview (the task
// table); pure data, no I/O, no DOM, no vscode.
//
// Invariants: after apply(s), `version` is s.version and `tasks` holds exactly the tasks the
// host would list in a full snapshot at that version (deltas are idempotent upserts, so
// applying one twice, or one older than a full snapshot already applied, is harmless);
// `counts`, `tick`, `paused` and `progress` are the latest snapshot's.

import type { CrawlProgress, Snapshot, TaskState, TaskSummary } from './host-protocol';

export interface MirrorChange {
  /** True when the table was replaced (a full snapshot). */
  full: boolean;
  /** Ids added or changed by this snapshot. */
  upserted: number[];
  /** Ids dropped. */
  removed: number[];
}

/** Whether a task has ended (done, cancelled or failed). */
export function isFinished(task: TaskSummary): boolean {
  return task.state === 'done' || task.state === 'cancelled' || task.state === 'failed';
}

export function emptyCounts(): Record<TaskState, number> {
  return { scheduled: 0, running: 0, suspended: 0, done: 0, cancelled: 0, failed: 0 };
}

export class SnapshotMirror {
  readonly tasks = new Map<number, TaskSummary>();
  version = -1;
  tick = 0;
  paused = false;
  counts: Record<TaskState, number> = emptyCounts();
  progress: CrawlProgress | null = null;
  /**
   * How many times the table was forgotten (clear()): a delta asked before a clear is not one of the table
   * held after it.
   */
  clears = 0;

  /** The `since` to ask the host for (undefined: a full snapshot). */
  get since(): number | undefined {
    return this.version >= 0 ? this.version : undefined;
  }

  /** Applies a snapshot; returns what changed. */
  apply(s: Snapshot): MirrorChange {
    const upserted: number[] = new Array<number>(s.tasks.length);
    let removed: number[];
    if (s.full) {
      removed = [];
      const incoming = new Set<number>();
      for (const t of s.tasks) incoming.add(t.id);
      for (const id of this.tasks.keys()) if (!incoming.has(id)) removed.push(id);
      this.tasks.clear();
    } else {
      removed = [];
      for (const id of s.removed) if (this.tasks.delete(id)) removed.push(id);
    }
    for (let i = 0; i < s.tasks.length; i++) {
      const t = s.tasks[i]!;
      this.tasks.set(t.id, t);
      upserted[i] = t.id;
    }
    this.version = s.version;
    this.tick = s.tick;
    this.paused = s.paused;
    this.counts = s.counts;
    if (s.progress !== null) this.progress = s.progress;
    return { full: s.full, upserted, removed };
  }

  /** Forgets everything (a new run, or the host went away). */
  clear(): void {
    this.clears++;
    this.tasks.clear();
    this.version = -1;
    this.tick = 0;
    this.paused = false;
    this.counts = emptyCounts();
    this.progress = null;
  }

  /** The whole table as one full snapshot (for a panel that opens mid-run). */
  toFullSnapshot(): Snapshot {
    return {
      version: this.version,
      full: true,
      tick: this.tick,
      paused: this.paused,
      tasks: [...this.tasks.values()],
      removed: [],
      counts: this.counts,
      progress: this.progress,
    };
  }

  /** Records a summary that arrived outside a snapshot (a taskCreated or taskFinished event, a task's detail). */
  upsert(task: TaskSummary): void {
    this.tasks.set(task.id, task);
  }

  /** Every task held, by id. */
  allTasks(): TaskSummary[] {
    return [...this.tasks.values()].sort((a, b) => a.id - b.id);
  }

  /** Live tasks (not done, cancelled or failed), by id. */
  liveTasks(): TaskSummary[] {
    const out: TaskSummary[] = [];
    for (const t of this.tasks.values()) if (!isFinished(t)) out.push(t);
    return out.sort((a, b) => a.id - b.id);
  }
}
