// RunTimeline: a recorded run's event log (run-log.ts) read as lanes over ticks, one per task
// (its segments running, suspended on what, scheduled; who woke it; how it ended; who cancelled
// it), marks (I/O, timers, failures, cancels) and each tick's start: the protocol's Timeline. Fed
// incrementally (`update(events, upTo)`: only the new records). Await details and cancels asked
// from outside are told in docs/design/run-timeline.md.
//
// Invariants: lanes and marks name tasks by the run's own ids, never the log's numbers; a lane's
// segments are in tick order and overlap only at their ends; timeline(since) gives every lane
// that changed after `since` (or is open), a suffix of its segments; a suspended segment keeps
// its SITE record's interned string (nothing copied), its frames going out only in one task's
// timeline.

import type {
  CancelOrigin,
  Timeline,
  TimelineLane,
  TimelineMark,
  TimelineSegment,
  Waker,
} from '../../protocol/host-protocol';
import { Outcome, WokenBy, siteChain as chainOf, type RunLogVisitor } from './run-log';
import type { SocketInputKind } from '../socket';
import { NoTaskCancels, type AskedCancel, type OutsideCancels } from './asked-cancels';
import { LoggedCancels } from './logged-cancels';
import { RunLogFeed } from './run-log-feed';

/**
 * When tick `tick` (1 ..) began, in ms after the run's first tick (microsecond precision), from the clock readings
 * of the ticks in order (`times[i - 1]`: tick i's): a Timeline's `tickTimes`, and a logpoint hit's time.
 */
export function tickTimeMs(times: ArrayLike<number>, tick: number): number {
  return Math.round(((times[tick - 1] ?? 0) - (times[0] ?? 0)) * 1e6) / 1e3;
}

/**
 * A segment as built: a suspended one keeps the SITE record it began with ('queue.get @
 * a>b|c', frames root first, '|' after those going since the task's previous SITE), and how
 * many frames have been going since its previous suspension (a SITE between them, a 'ready'
 * one, may have cut the chain shorter).
 */
interface BuiltSegment extends TimelineSegment {
  site?: string;
  kept?: number;
}

/** The protocol's copy of a built segment: its frames only for a one-task timeline. */
function segmentOut(built: BuiltSegment, withFrames: boolean): TimelineSegment {
  const { site, kept, ...segment } = built;
  const chain = withFrames && site !== undefined ? chainOf(site) : null;
  if (chain !== null) {
    segment.frames = chain.frames;
    segment.framesKept = Math.min(chain.kept, kept ?? chain.kept);
  }
  return segment;
}

/** A lane as built: the protocol's lane plus what is still open. */
interface LaneState {
  readonly lane: TimelineLane & { segments: BuiltSegment[] };
  /** The open segment (not yet in lane.segments), null once the task ended. */
  open: BuiltSegment | null;
  /** The last tick at which anything of the lane changed. */
  changed: number;
  /** The tick each segment of lane.segments last changed at (only the last one ever changes, or new ones come). */
  readonly segChanged: number[];
  /** The fewest frames kept by a 'ready' SITE since the lane's last suspension (Infinity: none). */
  keptSince: number;
  /** Its cancels (asked, taken back, the one that ended it): the lane's cancelledBy is the one in effect. */
  readonly cancels: LoggedCancels;
}

export class RunTimeline implements RunLogVisitor {
  /** The decode of the log it reads (shared with the run's other reader, when given one). */
  private readonly feed: RunLogFeed;
  private readonly lanes: LaneState[] = [];
  private readonly marks: TimelineMark[] = [];
  /** Seconds of each tick's start, tick i at index i - 1. */
  private readonly times: number[] = [];
  private readonly sockets: string[] = [];
  private lastTick = 0;
  /** The task whose step came last (its SITE record follows). */
  private stepped: LaneState | null = null;
  /** Inputs that arrived after the last tick, marked at the next. */
  private arriving: Array<{ kind: SocketInputKind; socket: number; bytes: number }> = [];
  private timersThisTick = 0;
  /** SITE records decoded so far (the index of the next one's await detail). */
  private sites = 0;
  private details: readonly string[] | null = null;
  private asked: ReadonlyArray<AskedCancel | null> | null = null;
  private readonly noTaskCancels: NoTaskCancels;
  /** Between a TICK and its TICK_END (a cancel by no task outside one was asked from outside the loop). */
  private inTick = false;

  constructor(
    what: string,
    outsideCancels: OutsideCancels | null = null,
    /** One decode of the run's log for its readers (run-log-feed.ts); default: a decode of its own. */
    feed: RunLogFeed = new RunLogFeed(what),
  ) {
    this.feed = feed;
    feed.join(this);
    this.noTaskCancels = new NoTaskCancels(outsideCancels);
  }

  /** Ticks decoded so far. */
  get ticks(): number {
    return this.lastTick;
  }

  /**
   * Decodes the records written since the last call, up to `upTo` (the end of a tick); `asked`: who asked the
   * cancels by no task so far (asked-cancels.ts).
   */
  update(
    events: Uint8Array,
    upTo = events.length,
    details: readonly string[] | null = null,
    asked: ReadonlyArray<AskedCancel | null> | null = null,
  ): void {
    this.details = details;
    this.asked = asked;
    this.feed.update(events, upTo);
  }

  /**
   * The protocol's Timeline, or what changed after `sinceTick` (clamped to the ticks decoded); `taskId`: only
   * that task's lane and marks.
   */
  timeline(runId: number, sinceTick: number, live: boolean, taskId?: number): Timeline {
    const since = Math.min(Math.max(0, sinceTick), this.lastTick);
    const lanes: TimelineLane[] = [];
    for (const s of this.lanes) {
      if (taskId !== undefined && s.lane.taskId !== taskId) continue;
      if (s.changed <= since && s.open === null) continue;
      const all = s.lane.segments;
      // Only the last segment changes, or new ones are added: what changed after `since` is a suffix.
      let i = all.length;
      while (i > 0 && s.segChanged[i - 1]! > since) i--;
      // Copies: the last one may still grow.
      const withFrames = taskId !== undefined;
      const segments = all.slice(i).map((x) => segmentOut(x, withFrames));
      if (s.open !== null)
        segments.push({
          ...segmentOut(s.open, withFrames),
          toTick: Math.max(s.open.fromTick, this.lastTick),
          open: true,
        });
      lanes.push({ ...s.lane, segmentsFrom: i, segments });
    }
    let m = this.marks.length;
    while (m > 0 && this.marks[m - 1]!.tick > since) m--;
    const tickTimes: number[] = [];
    for (let t = since; t < this.lastTick; t++) tickTimes.push(tickTimeMs(this.times, t + 1));
    const marks = this.marks.slice(m);
    return {
      runId,
      ticks: this.lastTick,
      sinceTick: since,
      live,
      lanes,
      marks: taskId === undefined ? marks : marks.filter((x) => x.taskId === taskId),
      tickTimes,
    };
  }

  // --- RunLogVisitor --------------------------------------------------------------------

  tick(tick: number, time: number): void {
    this.lastTick = tick;
    this.inTick = true;
    this.times.push(time);
    this.timersThisTick = 0;
    for (const a of this.arriving) {
      const peer = this.sockets[a.socket - 1] ?? `socket #${a.socket}`;
      this.marks.push({
        tick,
        kind: 'io',
        detail: a.kind === 'data' ? `data ${a.bytes} bytes ${peer}` : `${a.kind} ${peer}`,
      });
    }
    this.arriving = [];
  }

  tickEnd(tick: number): void {
    this.inTick = false;
    if (this.timersThisTick > 0)
      this.marks.push({
        tick,
        kind: 'timer',
        detail: this.timersThisTick === 1 ? '1 timer' : `${this.timersThisTick} timers`,
      });
  }

  created(_task: number, parent: number, name: string, id: number): void {
    const lane: TimelineLane = {
      taskId: id,
      name,
      parentId: parent === 0 ? null : this.lanes[parent - 1]!.lane.taskId,
      createdTick: this.lastTick,
      endTick: null,
      endState: null,
      segmentsFrom: 0,
      segments: [],
    };
    this.lanes.push({
      lane,
      open: { fromTick: this.lastTick, toTick: this.lastTick, state: 'scheduled' },
      changed: this.lastTick,
      segChanged: [],
      keptSince: Infinity,
      cancels: new LoggedCancels(),
    });
  }

  step(task: number): void {
    const s = this.lanes[task - 1]!;
    const t = this.lastTick;
    this.close(s, t - 1);
    const segs = s.lane.segments;
    const last = segs[segs.length - 1];
    if (last !== undefined && last.state === 'running' && last.toTick >= t - 1) {
      last.toTick = t;
      s.segChanged[segs.length - 1] = t;
    } else this.push(s, { fromTick: t, toTick: t, state: 'running' });
    s.changed = t;
    this.stepped = s;
  }

  site(site: string): void {
    const detail = this.details?.[this.sites] ?? '';
    this.sites++;
    const s = this.stepped;
    if (s === null) return;
    this.stepped = null;
    const cut = site.indexOf(' @ ');
    const kind = cut < 0 ? site : site.slice(0, cut);
    if (kind === 'done') return;
    if (kind === 'ready') {
      s.open = { fromTick: this.lastTick, toTick: this.lastTick, state: 'scheduled' };
      // Frames that returned before this step ended are gone at the next suspension too.
      const chain = cut < 0 ? null : chainOf(site);
      if (chain !== null) s.keptSince = Math.min(s.keptSince, chain.kept);
    } else {
      s.open = { fromTick: this.lastTick, toTick: this.lastTick, state: 'suspended', awaiting: kind };
      if (detail !== '') s.open.awaitDetail = detail;
      if (cut >= 0) {
        s.open.site = site;
        if (s.keptSince !== Infinity) s.open.kept = s.keptSince;
      }
      s.keptSince = Infinity;
    }
  }

  wake(task: number, by: number): void {
    const s = this.lanes[task - 1]!;
    const open = s.open;
    if (open === null || open.state !== 'suspended' || open.wokenTick !== undefined) return;
    open.wokenTick = this.lastTick;
    open.wokenBy = this.waker(by);
    s.changed = this.lastTick;
  }

  done(task: number, outcome: Outcome): void {
    const s = this.lanes[task - 1]!;
    this.close(s, this.lastTick);
    s.open = null;
    s.lane.endTick = this.lastTick;
    s.lane.endState = outcome === Outcome.RESULT ? 'done' : outcome === Outcome.EXCEPTION ? 'failed' : 'cancelled';
    s.changed = this.lastTick;
    this.laneCancel(s);
    if (outcome === Outcome.EXCEPTION)
      this.marks.push({
        tick: this.lastTick,
        kind: 'exception',
        taskId: s.lane.taskId,
        detail: `${s.lane.name} failed`,
      });
  }

  cancel(task: number, by: number): void {
    const s = this.lanes[task - 1]!;
    const noTask = by === 0 ? this.noTaskCancels.next(this.inTick, this.asked) : null;
    const byTask = by === 0 ? 0 : this.lanes[by - 1]!.lane.taskId;
    const origin: CancelOrigin = noTask !== null ? noTask.origin : { kind: 'task', taskId: byTask };
    s.cancels.asked(this.lastTick, origin);
    this.laneCancel(s);
    const who =
      noTask === null ? `by #${byTask}` : noTask.label !== null ? `by ${noTask.label}` : 'from outside any task';
    this.marks.push({
      tick: this.lastTick,
      kind: 'cancel',
      taskId: s.lane.taskId,
      detail: `cancel of ${s.lane.name} asked ${who}`,
    });
  }

  uncancel(task: number, k: number): void {
    const s = this.lanes[task - 1]!;
    const c = s.cancels.withdrawn(k, this.lastTick);
    this.laneCancel(s);
    if (c !== undefined)
      this.marks.push({
        tick: this.lastTick,
        kind: 'cancel',
        taskId: s.lane.taskId,
        detail: `cancel of ${s.lane.name} asked at tick ${c.tick} taken back (uncancel)`,
      });
  }

  cancelEffect(task: number, k: number): void {
    this.lanes[task - 1]!.cancels.endedBy(k);
  }

  socket(_socket: number, host: string, port: number): void {
    this.sockets.push(`${host}:${port}`);
  }

  input(socket: number, kind: SocketInputKind, _payload: unknown, bytes: number): void {
    this.arriving.push({ kind, socket, bytes });
  }

  timer(): void {
    this.timersThisTick++;
  }

  // --- internals --------------------------------------------------------------------------

  /** Ends the lane's open segment before a step at `stepTick` or at its end (`until`: its last tick). */
  private close(s: LaneState, until: number): void {
    const open = s.open;
    if (open === null) return;
    s.open = null;
    if (open.state === 'suspended') {
      const end = open.wokenTick ?? until;
      open.toTick = Math.max(open.fromTick, end);
      this.push(s, open);
      // Woken, but stepped only later (the loop was held, or its queue was long): scheduled meanwhile.
      if (open.wokenTick !== undefined && until > open.wokenTick)
        this.push(s, { fromTick: open.wokenTick + 1, toTick: until, state: 'scheduled' });
    } else if (until >= open.fromTick) {
      open.toTick = until;
      this.push(s, open);
    }
  }

  /**
   * Sets the lane's cancelledTick and cancelledBy to its cancel in effect now (none: a cancel taken back is
   * not the task's canceller).
   */
  private laneCancel(s: LaneState): void {
    const c = s.cancels.inEffectAt(Infinity, s.lane.endState === 'cancelled');
    const lane = s.lane;
    if (c === null) {
      if (lane.cancelledTick === undefined) return;
      delete lane.cancelledTick;
      delete lane.cancelledBy;
    } else {
      if (lane.cancelledTick === c.tick && lane.cancelledBy === c.origin) return;
      lane.cancelledTick = c.tick;
      lane.cancelledBy = c.origin;
    }
    s.changed = this.lastTick;
  }

  private push(s: LaneState, segment: BuiltSegment): void {
    s.lane.segments.push(segment);
    s.segChanged.push(this.lastTick);
  }

  private waker(by: number): Waker {
    if (by === WokenBy.IO) return 'io';
    if (by === WokenBy.TIMER) return 'timer';
    if (by === WokenBy.CALLBACK) return 'callback';
    return this.lanes[by - WokenBy.TASK_BASE - 1]!.lane.taskId;
  }
}
