// LogpointMarks: the hits of the logpoints set over the run shown (protocol LogpointMark), as the
// timeline marks them: by task lane, in tick order, for the window drawn and for the pointer's
// hit test (a click on a mark goes to that hit; hovering it says what it printed).
//
// Invariants: each list replaces the whole set (the extension sends all the hits of the logpoints
// set, so a removed logpoint's marks go with the next list); a new run clears them; a hit outside
// any task has no lane and is not marked; each lane's marks are sorted by tick (then hit order),
// so a window or a hit test is a binary search. Texts are built for textContent/title only.

import type { LogpointMark } from '../../protocol/webview-protocol';

/** The longest message a mark's title shows (a logpoint can print a whole page). */
export const MARK_TITLE_MESSAGE_CHARS = 300;

/** The first index of `marks` (sorted by tick) whose tick is >= `tick`. */
function firstAtOrAfter(marks: readonly LogpointMark[], tick: number): number {
  let lo = 0;
  let hi = marks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (marks[mid]!.tick < tick) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class LogpointMarks {
  private byTask = new Map<number, LogpointMark[]>();
  private count = 0;
  /** Changes with every list (the views redraw). */
  version = 0;

  /** The hits of the logpoints set now: they replace every mark before. */
  replace(hits: readonly LogpointMark[]): void {
    const byTask = new Map<number, LogpointMark[]>();
    let count = 0;
    for (const h of hits) {
      if (h.taskId === null) continue;
      let lane = byTask.get(h.taskId);
      if (lane === undefined) byTask.set(h.taskId, (lane = []));
      lane.push(h);
      count++;
    }
    for (const lane of byTask.values()) lane.sort((a, b) => a.tick - b.tick || a.hit - b.hit);
    this.byTask = byTask;
    this.count = count;
    this.version++;
  }

  /** A new run: no marks. */
  clear(): void {
    this.replace([]);
  }

  /** How many hits are marked (on a lane). */
  get size(): number {
    return this.count;
  }

  /** The marks of task `taskId`'s lane with a tick in [from, to], in tick order. */
  inLane(taskId: number, from: number, to: number): LogpointMark[] {
    const lane = this.byTask.get(taskId);
    if (lane === undefined) return [];
    const out: LogpointMark[] = [];
    for (let i = firstAtOrAfter(lane, from); i < lane.length && lane[i]!.tick <= to; i++) out.push(lane[i]!);
    return out;
  }

  /** The first mark of task `taskId`'s lane after tick `tick` (the lane's first again past its last), null: none. */
  nextAfter(taskId: number, tick: number): LogpointMark | null {
    const lane = this.byTask.get(taskId);
    if (lane === undefined || lane.length === 0) return null;
    return lane[firstAtOrAfter(lane, tick + 1)] ?? lane[0]!;
  }

  /**
   * The mark of task `taskId`'s lane under the pointer: of those with a tick in [from, to] (the ticks a few
   * pixels either side of it), the one nearest `at`; the earliest hit of that tick. Null: none there.
   */
  near(taskId: number, from: number, to: number, at: number): LogpointMark | null {
    let best: LogpointMark | null = null;
    for (const m of this.inLane(taskId, from, to)) {
      if (best === null || Math.abs(m.tick - at) < Math.abs(best.tick - at)) best = m;
    }
    return best;
  }
}

/** A mark's title (tooltip): tick, time, task and what the logpoint printed (cut to MARK_TITLE_MESSAGE_CHARS). */
export function logpointMarkTitle(m: LogpointMark): string {
  const task = m.taskId === null ? 'no task' : `task #${m.taskId}${m.task !== null ? ` ${m.task}` : ''}`;
  const where = m.file !== '' ? ` at ${m.file.split(/[\\/]/).pop()}:${m.line}` : '';
  const message =
    m.message.length > MARK_TITLE_MESSAGE_CHARS ? `${m.message.slice(0, MARK_TITLE_MESSAGE_CHARS)}…` : m.message;
  return `Logpoint hit${where}, tick ${m.tick} (+${m.time.toFixed(1)} ms), ${task}: ${message}\nClick to go to this moment`;
}
