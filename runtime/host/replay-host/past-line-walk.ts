// Runs only on a line replay host's worker thread (a runtime host started with --line-replay).
// PastLineWalk: the moves over the lines task `taskId` ran in tick `tick` up to the live stop
// (a step back, over, into or out, the values read at each line back, a landing held ready), each
// a walk of the tick replayed (traced-tick-walk.ts). The first walk learns the entries
// (past-lines.ts); steps walk again. A walk may be anchored at a hit (`ceiling`) or at the last
// line of an earlier step (`lastOfTick`); a step in is the replay host's own line step.
// See docs/design/line-replay.md.
//
// Invariants: exact or refused (an entry is shown only when reached, and every walk must pass
// the first walk's entries, else the move is refused with the reason); one walk at a time (the
// main thread let go and its tick ended first); a landing is answered only once the main thread
// is stopped there.

import type {
  LineReading,
  LineStepKind,
  LineWatched,
  LineStopPrint,
  PastLineLanding,
  SourcePosition,
} from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import { nextLine, previousLine, sameEntry } from '../worker/past-lines';
import { entryOf, isAtStop } from './line-stop-match';
import { TracedTickWalk, type Outcome, type Target, type WalkMark, type WalkStep } from './traced-tick-walk';

export class PastLineWalk extends TracedTickWalk {
  /**
   * Stopped inside a call entered by a step in (a line step's stop, not an entry): the entry of the line that
   * made it.
   */
  private inCall: number | null = null;
  /**
   * Inside such a call: the line steps taken from that entry to the line shown (a step back replays them but
   * the last).
   */
  private path: WalkStep[] = [];
  /** The entry shown before valuesBack let the thread go: the next step back starts there. */
  private backFrom: number | null = null;
  /** The last reading valuesBack answered is at the task's first line of the step (entry 0). */
  readsToFirst = false;

  /**
   * A walk anchored at the task's last line in its tick: learns the lines the task ran there
   * (the whole tick) and stops on the last, with `note` on the landing; null when the task ran
   * no line of the walk's functions in that tick.
   */
  async enterLast(note: string): Promise<PastLineLanding | null> {
    if (!this.lastOfTick || this.trace !== null)
      throw new ProtocolError('pastLine: not a walk to the last line of a step', 'badState');
    await this.walk({ kind: 'live' });
    await this.release();
    if (this.live < 0) return null;
    if ((await this.walk({ kind: 'entry', index: this.live })) === 'end') return this.ranOut();
    const landing = await this.landing();
    return landing.landed === 'line' ? { ...landing, note } : landing;
  }

  /**
   * The task's first line of the step, a step forward from its step before comes into (the
   * present when that is the live stop itself).
   */
  async enterFirst(): Promise<PastLineLanding> {
    if (this.trace === null) {
      if ((await this.walk({ kind: 'live' })) === 'end') return this.ranOut();
      await this.release();
    }
    if (this.live <= 0 && this.ceiling === null) return { landed: 'present' };
    if ((await this.walk({ kind: 'entry', index: 0 })) === 'end') return this.ranOut();
    return this.landing();
  }

  /** The line shown, to come back to after the thread was let go (a search between: returnTo); null: none. */
  shown(): WalkMark | null {
    return this.at === null && this.inCall === null ? null : this.route;
  }

  /** Back on the line `mark` (shown() before the thread was let go): its entry, and the line steps taken from it. */
  async returnTo(mark: WalkMark): Promise<PastLineLanding> {
    await this.release();
    if ((await this.walk({ kind: 'entry', index: mark.entry })) === 'end') return this.ranOut();
    let landing = await this.landing();
    for (const step of mark.path) {
      landing = await this.lineStep(step.kind, step.oneTask);
      if (landing.landed !== 'line') return landing;
    }
    return landing;
  }

  /** Whether this walk is of that live stop. */
  isOf(tick: number, taskId: number, print: LineStopPrint): boolean {
    return (
      tick === this.tick &&
      taskId === this.taskId &&
      JSON.stringify(print.frames) === JSON.stringify(this.print.frames) &&
      JSON.stringify(print.locals) === JSON.stringify(this.print.locals)
    );
  }

  /**
   * The watched values read at each line a step back from the line shown lands on in turn within this walk's
   * step (the first: the line before it), in one replay; null inside a call stepped into (not an entry), or
   * where the walk knows no line shown. The thread is let go; the next move back starts from the line shown
   * (backFrom).
   */
  async valuesBack(watched: readonly LineWatched[]): Promise<LineReading[][] | null> {
    if (this.inCall !== null) return null;
    const shown = this.at ?? this.backFrom;
    // A walk anchored at the live stop, or a hit's not walked yet (the hit is the line shown), reads up to its
    // anchor (the tick runs on to its end unstopped); any other reads up to the line shown, stopping there (a
    // step before's walk has no anchor to learn again, a hit's may show a line past the hit).
    let toAnchor = true;
    if (this.ceiling !== null) {
      // Not walked yet, a hit's walk shows the hit; walked, the line shown must be known.
      if (this.trace === null ? this.lastOfTick : shown === null) return null;
      toAnchor = !this.lastOfTick && (this.trace === null || shown === this.live);
    }
    await this.release();
    const at = new Map<number, LineReading[]>();
    this.reading = { watched, at };
    try {
      const target: Target = toAnchor ? { kind: 'live' } : { kind: 'entry', index: shown ?? this.live };
      if ((await this.walk(target)) === 'end') return null;
      await this.release();
    } finally {
      this.reading = null;
    }
    const trace = this.trace!;
    const out: LineReading[][] = [];
    let last: number | null = null;
    for (let i = previousLine(trace, shown ?? this.live); i !== null; i = previousLine(trace, i)) {
      const r = at.get(i);
      if (r === undefined) return null;
      out.push(r);
      last = i;
    }
    this.readsToFirst = last === 0;
    this.backFrom = shown;
    return out;
  }

  /**
   * Holds the line a move back of `lines` from the line shown (or the live stop) lands on ready, stopped there in
   * a replay of its own (the tick before it taken from the nearest replay parked: a values walk's); not shown.
   * True once held.
   */
  async hold(lines: number): Promise<boolean> {
    if (this.trace === null || this.inCall !== null) return false;
    const from = this.at ?? this.backFrom;
    let to = previousLine(this.trace, from ?? this.live);
    for (let k = 1; k < lines && to !== null; k++) to = previousLine(this.trace, to);
    if (to === null) return false;
    await this.release();
    if ((await this.walk({ kind: 'entry', index: to })) === 'end') return false;
    this.held = { entry: to, at: this.landedAt };
    this.at = null;
    this.route = null;
    this.backFrom = from;
    return true;
  }

  /**
   * The entry shown before valuesBack let the thread go, while no move has come since (the thread is not
   * stopped on it: a landing held ready, or none); null: none.
   */
  get letGoFrom(): number | null {
    return this.at === null && this.inCall === null ? this.backFrom : null;
  }

  /** Whether a landing is held ready (hold): the main thread is stopped there. */
  get holding(): boolean {
    return this.held !== null;
  }

  /**
   * A walk anchored at the task's last line in its tick (enterLast's): the watched values read there and its
   * line, in one replay of the tick, without stopping on it (the thread let go); null when the task ran no
   * line of the walk's functions in that tick.
   */
  async valuesAtLast(
    watched: readonly LineWatched[],
  ): Promise<{ readings: LineReading[]; line: SourcePosition | null } | null> {
    if (!this.lastOfTick || this.trace !== null)
      throw new ProtocolError('pastLine: not a walk to the last line of a step', 'badState');
    const at = new Map<number, LineReading[]>();
    this.reading = { watched, at };
    this.readAt = new Map();
    try {
      await this.walk({ kind: 'live' });
      await this.release();
    } finally {
      this.reading = null;
    }
    const readings = at.get(this.live);
    if (this.live < 0 || readings === undefined) return null;
    return { readings, line: this.readAt.get(this.live) ?? null };
  }

  /**
   * A move of the walk: back `lines`, forward by a line step (`oneTask`: limited to the walk's task, lapsed into
   * "follow the loop" when it ends, as live: line-steps.ts), or 'leave'.
   */
  async move(move: 'back' | 'leave' | LineStepKind, lines = 1, oneTask = false): Promise<PastLineLanding> {
    const backFrom = this.backFrom;
    this.backFrom = null;
    if (move === 'leave') {
      await this.release();
      return { landed: 'present' };
    }
    const hit = this.ceiling !== null;
    if (this.trace === null) {
      // A hit's walk stops on it to step on from there; a step back walks again, to the line before.
      const stopThere = hit && move !== 'back';
      if ((await this.walk({ kind: 'live', stop: stopThere })) === 'end') return this.ranOut();
      if (!stopThere) await this.release();
    }
    const trace = this.trace!;
    if (move === 'back') {
      if (this.inCall !== null && this.path.length > 1 && lines === 1) return this.backInCall();
      if (this.inCall !== null && lines > 1)
        throw new ProtocolError('pastLine: a move back of several lines from inside a call', 'badState');
      let to = this.inCall ?? previousLine(trace, this.at ?? backFrom ?? this.live);
      for (let k = 1; k < lines && to !== null; k++) to = previousLine(trace, to);
      const held = this.held;
      if (held !== null && to === held.entry && this.inCall === null && this.dbg.isStopped()) {
        // Held ready by the values walk (hold): shown now, no replay.
        this.held = null;
        this.at = to;
        this.route = { entry: to, path: [] };
        this.landedAt = held.at;
        return this.landing();
      }
      await this.release();
      if (to === null) return { landed: 'suspension' };
      if ((await this.walk({ kind: 'entry', index: to })) === 'end') return this.ranOut();
      return this.landing();
    }
    if (this.at === null && this.inCall === null)
      throw new ProtocolError(`pastLine: ${move}: not on a past line`, 'badState');
    // Past a hit, the walk has learnt no line yet: the replay host's own line step finds the next.
    if (move === 'into' || this.at === null || (hit && this.at >= this.live)) return this.lineStep(move, oneTask);
    const to = nextLine(trace, this.at, move, this.live);
    if (to >= this.live && !hit) {
      await this.release();
      return { landed: 'present' };
    }
    if ((await this.goOn(Math.min(to, this.live))) === 'end') return this.ranOut();
    return this.landing();
  }

  /** A line shown: where (and, for a hit's walk, in which tick and task: it may be a later one). */
  private async landing(): Promise<PastLineLanding> {
    if (this.ceiling === null) return { landed: 'line', line: this.landedAt };
    const w = (await this.dbg.callMain('where()').catch(() => null)) as {
      taskId?: unknown;
      taskName?: unknown;
      tick?: unknown;
    } | null;
    const landing: PastLineLanding = {
      landed: 'line',
      line: this.landedAt,
      tick: typeof w?.tick === 'number' ? w.tick : this.tick,
    };
    if (typeof w?.taskId === 'number') landing.taskId = w.taskId;
    if (typeof w?.taskName === 'string') landing.task = w.taskName;
    return landing;
  }

  /** A hit's walk ran to its ceiling with the step still under way: nothing later in the recording, the present. */
  private async ranOut(): Promise<PastLineLanding> {
    await this.release();
    return { landed: 'present' };
  }

  /**
   * A step back inside a call entered by a step in, past its first line: the walk stops on the
   * line that made the call again and takes the same line steps but the last.
   */
  private async backInCall(): Promise<PastLineLanding> {
    const path = this.path.slice(0, -1);
    const from = this.inCall!;
    await this.release();
    if ((await this.walk({ kind: 'entry', index: from })) === 'end') return this.ranOut();
    let landing: PastLineLanding = { landed: 'line', line: this.landedAt };
    for (const step of path) {
      landing = await this.lineStep(step.kind, step.oneTask);
      if (landing.landed !== 'line') return landing;
    }
    return landing;
  }

  /**
   * From the line stopped on (an entry, or inside a call), the replay host's own line step: it
   * lands on an entry (onHit stops there), or inside a call (the line debugger's stop).
   */
  private async lineStep(kind: LineStepKind, oneTask = false): Promise<PastLineLanding> {
    const walking = this.walking;
    if (walking === null) throw new ProtocolError('pastLine: the walk has ended', 'badState');
    const outcome = new Promise<Outcome>((resolve) => {
      walking.settle = resolve;
    });
    // Out of the task's top frame, limited to the task: on to its end, as live (line-steps.ts plants no line of it).
    const stoppedIn = this.dbg.stoppedFrames();
    const untilTaskEnds = kind === 'out' && oneTask && new Set(stoppedIn.map((f) => f.functionKey)).size === 1;
    walking.target = untilTaskEnds ? { kind: 'step', untilTaskEnds } : { kind: 'step' };
    // A line step stops on each run of a line (a step over in a one-line loop stays in it): every run stops.
    await this.stopAtEveryRun();
    const from = walking.entries.length - 1;
    const path = this.inCall !== null ? this.path : [];
    const route = this.route;
    this.at = null;
    this.inCall = null;
    this.path = [];
    await this.dbg.lineStep(kind, oneTask);
    if ((await this.settled(await outcome)) === 'end') return this.ranOut();
    // Not on a new entry's first run (onHit's route): this step's way from the route it started on.
    const step: WalkStep = { kind, oneTask };
    if (this.route === route) this.route = route === null ? null : { entry: route.entry, path: [...route.path, step] };
    const frames = this.dbg.stoppedFrames();
    const top = frames[0];
    const last = walking.entries[walking.entries.length - 1];
    // Stopped on the line of the last entry (back from the call it made) or by onHit on a new one: an entry;
    // else inside a call.
    if (this.at === null && last !== undefined && top !== undefined && sameEntry(last, entryOf(frames, top)))
      this.at = walking.entries.length - 1;
    // The live stop's entry is the present only at the stop itself: a line run before a call on it and again
    // after (the live stop) is one entry, and a step in lands on its first run.
    if (
      this.at !== null &&
      this.at >= this.live &&
      this.ceiling === null &&
      top !== undefined &&
      (await isAtStop(this.dbg, frames, this.print))
    ) {
      await this.release();
      return { landed: 'present' };
    }
    if (this.at === null) {
      this.inCall = Math.max(0, from);
      this.path = [...path, step];
    }
    this.landedAt = top === undefined ? null : this.dbg.positionOfFrame(top.frame);
    return this.landing();
  }

  /** Lets the main thread go and waits for its traced tick to end; no call stepped into is shown any more. */
  override async release(): Promise<void> {
    this.inCall = null;
    this.path = [];
    await super.release();
  }
}
