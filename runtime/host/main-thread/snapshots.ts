// Runs on a runtime host's main thread (a live host's, and a line replay host's).
//
// SnapshotTracker: cheap, incremental snapshots. Each snapshot compares every task's summary
// with what it was at the previous snapshot (field by field, on what a client shows: state,
// steps, await, awaited-by, frames, outcome, creator, canceller) and stamps the changed ones with a new
// version; a client passing `since` gets only the tasks stamped after it, and the ids
// removed (finished tasks evicted from the history) after it.
//
// Invariants: versions only grow, across runs too (a tracker starts above every version a
// previous one gave out, so a client still holding an old `since` gets a full snapshot);
// a `since` older than the removals still on record, or newer than the current version,
// gets a full snapshot. Timings (busyMs, sinceResumedMs) do not count as changes.

import type { CancelOrigin, CrawlProgress, Snapshot, TaskState, TaskSummary } from '../../../protocol/host-protocol';

/** Removals kept to answer deltas; a `since` older than them gets a full snapshot. */
const REMOVED_LOG = 10_000;

let lastVersionGiven = 0;

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameCancelOrigin(a: CancelOrigin | undefined, b: CancelOrigin | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.kind === b.kind && (a.kind !== 'task' || b.kind !== 'task' || a.taskId === b.taskId);
}

/** Whether two summaries of a task differ in what a client shows (timings aside). */
function changed(a: TaskSummary, b: TaskSummary): boolean {
  if (
    a.state !== b.state ||
    a.steps !== b.steps ||
    a.name !== b.name ||
    a.outcome !== b.outcome ||
    !sameCancelOrigin(a.cancelledBy, b.cancelledBy) ||
    a.createdBy !== b.createdBy
  )
    return true;
  const x = a.awaiting;
  const y = b.awaiting;
  if (x === y) {
    // The same await (summaries share one AwaitInfo per awaited future).
  } else if (x === null || y === null) {
    if (x !== y) return true;
  } else if (x.kind !== y.kind || x.detail !== y.detail || x.taskId !== y.taskId || x.resourceId !== y.resourceId)
    return true;
  return !sameList(a.awaitedBy, b.awaitedBy) || !sameList(a.frames, b.frames);
}

export function emptyCounts(): Record<TaskState, number> {
  return { scheduled: 0, running: 0, suspended: 0, done: 0, cancelled: 0, failed: 0 };
}

export class SnapshotTracker {
  private version: number;
  /** The oldest `since` a delta can answer. */
  private floor: number;
  private readonly known = new Map<number, { last: TaskSummary; changedAt: number; seen: number }>();
  private generation = 0;
  private removedLog: Array<{ id: number; at: number }> = [];

  constructor() {
    this.version = lastVersionGiven;
    this.floor = lastVersionGiven;
  }

  currentVersion(): number {
    return this.version;
  }

  /**
   * A snapshot of `tasks` (the live ones and the history of finished ones, each id once).
   * `since` undefined: full.
   */
  snapshot(
    since: number | undefined,
    tasks: readonly TaskSummary[],
    info: { tick: number; paused: boolean; progress: CrawlProgress | null },
  ): Snapshot {
    const next = this.version + 1;
    const generation = ++this.generation;
    let anyChange = false;
    const stamps: number[] = new Array<number>(tasks.length);
    for (let i = 0; i < tasks.length; i++) {
      const s = tasks[i]!;
      const k = this.known.get(s.id);
      if (k === undefined) {
        this.known.set(s.id, { last: s, changedAt: next, seen: generation });
        stamps[i] = next;
        anyChange = true;
      } else {
        if (changed(k.last, s)) {
          k.changedAt = next;
          anyChange = true;
        }
        k.last = s;
        k.seen = generation;
        stamps[i] = k.changedAt;
      }
    }
    if (this.known.size > tasks.length) {
      for (const [id, k] of this.known) {
        if (k.seen === generation) continue;
        this.known.delete(id);
        this.removedLog.push({ id, at: next });
        anyChange = true;
      }
    }
    if (this.removedLog.length > REMOVED_LOG) {
      const drop = this.removedLog.length - REMOVED_LOG;
      this.floor = Math.max(this.floor, this.removedLog[drop - 1]!.at);
      this.removedLog = this.removedLog.slice(drop);
    }
    if (anyChange) {
      this.version = next;
      lastVersionGiven = Math.max(lastVersionGiven, next);
    }
    const counts = emptyCounts();
    for (const s of tasks) counts[s.state]++;
    const full = since === undefined || since < this.floor || since > this.version;
    let out: TaskSummary[];
    if (full) out = tasks.slice();
    else {
      out = [];
      for (let i = 0; i < tasks.length; i++) if (stamps[i]! > since) out.push(tasks[i]!);
    }
    const removed = full ? [] : this.removedLog.filter((r) => r.at > since).map((r) => r.id);
    return {
      version: this.version,
      full,
      tick: info.tick,
      paused: info.paused,
      tasks: out,
      removed,
      counts,
      progress: info.progress,
    };
  }
}
