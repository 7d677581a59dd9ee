// The panel's copy of the run's timeline (tasks as lanes over ticks, I/O and timer marks, wall
// time per tick) and the questions the timeline view asks of it. Pure (no DOM).
//
// Invariants:
// - Ticks are the host's: 1 .. lastTick; a task created before the first tick has createdTick 0.
// - A segment covers fromTick <= t <= toTick (neighbours share their end tick). An update cuts
//   each lane it carries to its `segmentsFrom` entries and appends, so applying it twice is harmless.
// - Marks are sorted by tick; an update replaces the marks after its sinceTick.
// - msAt(t) is the wall time tick t began; beyond the last tick, extrapolated at the mean.

import type { Timeline, TimelineLane, TimelineMark, TimelineSegment, Waker } from '../../protocol/host-protocol';

/** What a stretch of a lane is drawn as: its state, and for a wait, what kind of thing it waits on. */
export type SegmentKind =
  | 'running'
  | 'scheduled'
  | 'io'
  | 'timer'
  | 'sync'
  | 'task'
  | 'wait'
  | 'failed'
  | 'cancelled'
  | 'done';

export const SEGMENT_KINDS: readonly SegmentKind[] = [
  'running',
  'scheduled',
  'io',
  'timer',
  'sync',
  'task',
  'wait',
  'failed',
  'cancelled',
  'done',
];

export const SEGMENT_LABELS: Readonly<Record<SegmentKind, string>> = {
  running: 'Running',
  scheduled: 'Scheduled (ready)',
  io: 'Awaiting I/O',
  timer: 'Awaiting a timer',
  sync: 'Awaiting a queue, lock or event',
  task: 'Awaiting another task',
  wait: 'Awaiting a future',
  failed: 'Failed',
  cancelled: 'Cancelled',
  done: 'Done',
};

/** The category of an await kind ('socket.read', 'sleep', 'queue.get', 'gather', ...). */
export function awaitCategory(kind: string): 'io' | 'timer' | 'sync' | 'task' | 'wait' {
  if (/^(socket|http|dns|stream|connect|ssl|tls)/.test(kind)) return 'io';
  if (kind === 'sleep' || kind.startsWith('timer') || kind === 'timeout' || kind === 'timeoutAt') return 'timer';
  if (/^(queue|lock|event|semaphore|condition|barrier)/.test(kind)) return 'sync';
  if (/^(task|gather|waitFor|shield|taskgroup|taskGroup|wait)/.test(kind)) return 'task';
  return 'wait';
}

export function segmentKind(s: TimelineSegment): SegmentKind {
  switch (s.state) {
    case 'running':
    case 'scheduled':
      return s.state;
    case 'suspended':
      return s.awaiting === undefined ? 'wait' : awaitCategory(s.awaiting);
  }
}

/** The first tick a seek can show. */
export const FIRST_TICK = 1;

/** Where a task stands at a tick: not created yet, in a segment, or ended. */
export type LaneStateAt =
  | { kind: 'notCreated' }
  | { kind: 'segment'; segment: TimelineSegment }
  | { kind: 'ended'; state: 'done' | 'failed' | 'cancelled' };

/** The ticks a task's jumps lead to, at a given tick. */
export interface LaneJumps {
  /** The tick the future it awaits at this tick was completed, and by what (a task's id, 'io', 'timer', 'callback'). */
  woken: { tick: number; by: Waker | null } | null;
  /** The tick it was created in (the first tick for a task created before it). */
  created: number;
  cancelled: { tick: number } | null;
}

/** Index of the last segment with fromTick <= tick, or -1. */
export function segmentIndexAt(segments: readonly TimelineSegment[], tick: number): number {
  let lo = 0;
  let hi = segments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid]!.fromTick <= tick) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export class TimelineModel {
  private readonly byId = new Map<number, TimelineLane>();
  private sorted: TimelineLane[] = [];
  private sortedDirty = false;
  private filtered: { key: string; lanes: TimelineLane[] } | null = null;
  marks: TimelineMark[] = [];
  /** startMs[t]: the wall ms at which tick t began, since the first tick. */
  private readonly startMs: number[] = [0, 0];
  /** The last tick the host reported (0: nothing yet). */
  lastTick = 0;
  finished = false;
  /** Increases with every change (views redraw when it moved). */
  version = 0;

  get laneCount(): number {
    return this.byId.size;
  }

  /** The sinceTick to ask next (the host re-sends open segments), undefined for everything. */
  get sinceTick(): number | undefined {
    return this.lastTick > 0 ? this.lastTick : undefined;
  }

  /** True once the host reported at least one tick. */
  get hasTicks(): boolean {
    return this.lastTick >= FIRST_TICK;
  }

  clear(): void {
    this.byId.clear();
    this.sorted = [];
    this.sortedDirty = false;
    this.filtered = null;
    this.marks = [];
    this.startMs.length = 2;
    this.lastTick = 0;
    this.finished = false;
    this.version++;
  }

  apply(t: Timeline): void {
    for (const incoming of t.lanes) {
      const had = this.byId.get(incoming.taskId);
      const kept = had === undefined ? [] : had.segments.slice(0, incoming.segmentsFrom);
      for (const s of incoming.segments) kept.push(s);
      this.byId.set(incoming.taskId, { ...incoming, segmentsFrom: 0, segments: kept });
      this.sortedDirty = true;
    }
    if (t.marks.length > 0 || this.marks.length > 0) {
      const keep = this.marks.filter((m) => m.tick <= t.sinceTick);
      for (const m of t.marks) if (m.tick > t.sinceTick) keep.push(m);
      keep.sort((a, b) => a.tick - b.tick);
      this.marks = keep;
    }
    for (let i = 0; i < t.tickTimes.length; i++) {
      const ms = t.tickTimes[i]!;
      const tick = t.sinceTick + 1 + i;
      const before = this.startMs[tick - 1] ?? 0;
      this.startMs[tick] = Number.isFinite(ms) && ms >= before ? ms : before;
    }
    this.lastTick = Math.max(this.lastTick, t.ticks);
    this.finished = !t.live;
    this.filtered = null;
    this.version++;
  }

  lane(taskId: number): TimelineLane | undefined {
    return this.byId.get(taskId);
  }

  /** Every lane, by task id (creation order). */
  lanes(): readonly TimelineLane[] {
    if (this.sortedDirty) {
      this.sorted = [...this.byId.values()].sort((a, b) => a.taskId - b.taskId);
      this.sortedDirty = false;
    }
    return this.sorted;
  }

  /** The lanes whose "#id name" contains every term of `filter` (case-insensitive); cached per filter and version. */
  visibleLanes(filter: string): readonly TimelineLane[] {
    const key = `${this.version}\u0000${filter}`;
    if (this.filtered?.key === key) return this.filtered.lanes;
    const terms = filter
      .toLowerCase()
      .split(/\s+/)
      .filter((x) => x !== '');
    const all = this.lanes();
    const lanes =
      terms.length === 0
        ? all.slice()
        : all.filter((l) => {
            const text = `#${l.taskId} ${l.name}`.toLowerCase();
            return terms.every((term) => text.includes(term));
          });
    this.filtered = { key, lanes };
    return lanes;
  }

  /** Where the task stands right after `tick`. */
  stateAt(lane: TimelineLane, tick: number): LaneStateAt {
    if (tick < lane.createdTick) return { kind: 'notCreated' };
    if (lane.endTick !== null && tick >= lane.endTick) return { kind: 'ended', state: lane.endState ?? 'done' };
    const i = segmentIndexAt(lane.segments, tick);
    const seg = i >= 0 ? lane.segments[i] : undefined;
    // A gap between recorded segments: the last one before it says the most.
    return seg !== undefined ? { kind: 'segment', segment: seg } : { kind: 'notCreated' };
  }

  /** The jumps offered for a task at `tick` ("Who woke this?", "Created here", "Cancelled by"). */
  jumps(lane: TimelineLane, tick: number): LaneJumps {
    const at = this.stateAt(lane, tick);
    let woken: LaneJumps['woken'] = null;
    if (at.kind === 'segment' && at.segment.state === 'suspended' && at.segment.wokenTick !== undefined)
      woken = { tick: at.segment.wokenTick, by: at.segment.wokenBy ?? null };
    const cancelled = lane.cancelledTick !== undefined ? { tick: lane.cancelledTick } : null;
    return { woken, created: Math.max(FIRST_TICK, lane.createdTick), cancelled };
  }

  /** The wall ms at which `tick` began, since the first tick (extrapolated beyond the last). */
  msAt(tick: number): number {
    const last = this.lastTick;
    if (last < FIRST_TICK) return 0;
    const t = Math.max(FIRST_TICK, Math.floor(tick));
    if (t <= last) return this.startMs[t] ?? 0;
    const mean = last > 1 ? (this.startMs[last] ?? 0) / (last - 1) : 1;
    return (this.startMs[last] ?? 0) + (t - last) * Math.max(mean, 1e-3);
  }

  /** The tick running at `ms` wall milliseconds after the first tick began (the last tick begun by then). */
  tickAtMs(ms: number): number {
    let lo = FIRST_TICK;
    let hi = Math.max(FIRST_TICK, this.lastTick);
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.startMs[mid] ?? 0) <= ms) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The marks with from <= tick < to (binary search on the sorted list). */
  marksIn(from: number, to: number): TimelineMark[] {
    let lo = 0;
    let hi = this.marks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.marks[mid]!.tick < from) lo = mid + 1;
      else hi = mid;
    }
    const out: TimelineMark[] = [];
    for (let i = lo; i < this.marks.length && this.marks[i]!.tick < to; i++) out.push(this.marks[i]!);
    return out;
  }
}
