// Runs only on a line replay host's worker thread (a runtime host started with --line-replay).
// PastLineWalk: the lines task `taskId` ran in tick `tick` up to the live stop, replayed: the
// main thread runs the tick again (replayLineTick) with breakpoints on the stop chain's
// functions, planted once the tick before has landed. The first walk learns the entries
// (past-lines.ts); steps walk again. A walk may be anchored at a hit (`ceiling`) or at the last
// line of an earlier step (`lastOfTick`); a step in is the replay host's own line step.
// See docs/design/line-replay-and-breakpoint-search.md.
//
// Invariants: exact or refused (an entry is shown only when reached, and every walk must pass
// the first walk's entries, else the move is refused with the reason); one walk at a time (the
// main thread let go and its tick ended first); a landing is answered only once the main thread
// is stopped there.

import type {
  HitBound,
  LineReading,
  LineStepKind,
  LineWatched,
  LineStopPrint,
  PastLineLanding,
  SourcePosition,
} from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { CdpPaused, LineDebugger, WalkFrame, WalkVerdict } from '../worker/line-debugger';
import { nextLine, previousLine, sameEntry, type PastLineEntry } from '../worker/past-lines';
import { entryOf, isAtStop } from './line-stop-match';

/**
 * Where a walk is going: to learn the live stop (and stop there: `stop`), to an entry, or wherever the line
 * step under way stops.
 */
type Target = { kind: 'live'; stop?: boolean } | { kind: 'entry'; index: number } | { kind: 'step' };

/**
 * How a walk's move ended: reached (stopped there, or the live stop learnt), the recording ran out (a hit's
 * walk: the present), or refused.
 */
type Outcome = 'reached' | 'end' | Error;

/** A line of the walk shown: its entry, and the line steps taken from there into a call (stepped into). */
export interface WalkMark {
  readonly entry: number;
  readonly path: readonly LineStepKind[];
}

interface Walking {
  readonly entries: PastLineEntry[];
  target: Target;
  settle: (outcome: Outcome) => void;
}

export class PastLineWalk {
  private ids: Set<string> | null = null;
  /** The breakpoints planted pass over a line run again at once by the task (plant's `skipRepeats`). */
  private skipping = false;
  /** The entries of the step up to the live stop (the first walk's), and the live stop's index. */
  private trace: PastLineEntry[] | null = null;
  private live = -1;
  /** The entry the main thread is stopped on (null: not stopped by the walk, or inside a call). */
  private at: number | null = null;
  /**
   * Stopped inside a call entered by a step in (a line step's stop, not an entry): the entry of the line that
   * made it.
   */
  private inCall: number | null = null;
  /**
   * Inside such a call: the line steps taken from that entry to the line shown (a step back replays them but
   * the last).
   */
  private path: LineStepKind[] = [];
  /**
   * How the line shown was reached (null: none shown): an entry's first run, then the line steps taken from
   * it (a line run again after a call it made is that entry's, reached only by stepping).
   */
  private route: WalkMark | null = null;
  private landedAt: SourcePosition | null = null;
  private walking: Walking | null = null;
  /** The traced tick under way (replayLineTick), until it has run to its end. */
  private tickRun: Promise<unknown> | null = null;
  /** A walk reading watched values (valuesBack): what, and the readings at each entry, by index. */
  private reading: { readonly watched: readonly LineWatched[]; readonly at: Map<number, LineReading[]> } | null = null;
  /** The entry shown before valuesBack let the thread go: the next step back starts there. */
  private backFrom: number | null = null;
  /** The last reading valuesBack answered is at the task's first line of the step (entry 0). */
  readsToFirst = false;
  /** A walk reading watched values: the position of each entry read, by index. */
  private readAt = new Map<number, SourcePosition | null>();
  /**
   * A landing held ready (hold): the main thread stopped on entry `entry`, not shown; a move back to it is
   * answered at once, any other move lets it go first.
   */
  private held: { readonly entry: number; readonly at: SourcePosition | null } | null = null;

  constructor(
    private readonly dbg: LineDebugger,
    /** Asks the main thread to run tick `tick` again, traced (replayLineTick). */
    private readonly replayTick: (tick: number) => Promise<unknown>,
    /** Asks the main thread to replay the run to right after `tick` (a seek), untraced; resolves once it has landed. */
    private readonly seekTo: (tick: number) => Promise<unknown>,
    readonly tick: number,
    readonly taskId: number,
    readonly print: LineStopPrint,
    /**
     * Anchored at a breakpoint hit (null: at the live stop, the present): the last tick the walk's replay may
     * run on to.
     */
    readonly ceiling: number | null = null,
    /**
     * Anchored at the last line the task ran in `tick` (its step before a hit's), not at `print`'s stop:
     * enterLast().
     */
    private readonly lastOfTick = false,
    /**
     * A hit's walk of the task of a live line stop held (that stop; `ceiling` its tick): reaching it is the
     * present, not a line of the past.
     */
    readonly present: HitBound | null = null,
  ) {}

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
    for (const kind of mark.path) {
      landing = await this.lineStep(kind);
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
   * The watched values read at each line a step back from the line shown lands on in turn within this tick
   * (the first: the line before it), in one replay; null inside a call stepped into (not an entry). The
   * thread is let go; the next move back starts from the line shown (backFrom).
   */
  async valuesBack(watched: readonly LineWatched[]): Promise<LineReading[][] | null> {
    if (this.inCall !== null || this.ceiling !== null || this.lastOfTick) return null;
    const shown = this.at ?? this.backFrom;
    await this.release();
    const at = new Map<number, LineReading[]>();
    this.reading = { watched, at };
    try {
      if ((await this.walk({ kind: 'live' })) === 'end') return null;
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
    if (this.trace === null || this.inCall !== null || this.ceiling !== null || this.lastOfTick) return false;
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

  /** The watched values read in the paused frames (the frame found by function and depth from the root). */
  private async readWatched(watched: readonly LineWatched[]): Promise<LineReading[]> {
    const names = this.dbg.stack().frames.map((f) => f.name);
    const out: LineReading[] = [];
    for (const w of watched) {
      const index = names.length - 1 - w.depth;
      if (index < 0 || index >= names.length || names[index] !== w.functionName) {
        out.push({ reachable: false, why: `no frame of ${w.functionName} at depth ${w.depth}` });
        continue;
      }
      try {
        const r = await this.dbg.evaluate(w.expression, index);
        out.push({ reachable: true, value: r.value, type: r.type });
      } catch (e) {
        out.push({ reachable: false, why: e instanceof Error ? e.message : String(e) });
      }
    }
    return out;
  }

  async move(move: 'back' | 'leave' | LineStepKind, lines = 1): Promise<PastLineLanding> {
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
    if (move === 'into' || this.at === null || (hit && this.at >= this.live)) return this.lineStep(move);
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
    for (const kind of path) {
      landing = await this.lineStep(kind);
      if (landing.landed !== 'line') return landing;
    }
    return landing;
  }

  /** Lets the main thread go (breakpoints off) and waits for its traced tick to end. */
  async release(): Promise<void> {
    this.held = null;
    this.walking = null;
    this.at = null;
    this.inCall = null;
    this.path = [];
    this.route = null;
    await this.dbg.cdp('Debugger.setBreakpointsActive', { active: false });
    // A line step that has not stopped (the recording ran out under it) is dropped with its temporaries.
    await this.dbg.dropStep();
    if (this.dbg.isStopped()) await this.dbg.resume(false);
    const run = this.tickRun;
    this.tickRun = null;
    await run;
  }

  /** Removes the walk's breakpoints (the replay host is ending or walks another stop). */
  async dispose(): Promise<void> {
    await this.release().catch(() => undefined);
    await this.unplant();
    await this.dbg.cdp('Debugger.setBreakpointsActive', { active: true });
  }

  /** Removes the walk's breakpoints (planted again by the next walk, once it has replayed the ticks before its own). */
  private async unplant(): Promise<void> {
    this.dbg.setWalkHook(new Set(), null, null);
    for (const id of this.ids ?? [])
      await this.dbg.cdp('Debugger.removeBreakpoint', { breakpointId: id }).catch(() => undefined);
    this.ids = null;
  }

  /**
   * Whether a walk to `target` may pass over the runs of a line after its first (plant's skipRepeats): a line
   * the task runs again at once is one entry, so walking to a known entry, or learning a whole tick's lines,
   * needs its first run only; the live stop learnt, a line step, or a walk that may meet the present (a live
   * stop on the 57th run of a loop's line) check every run. Within one tick before the present's: a walk of the
   * live stop's own tick, or of a step before's (lastOfTick) to one of its entries.
   */
  private mayPassRepeats(target: Target): boolean {
    if (this.present !== null && this.present.tick <= this.tick) return false;
    if (target.kind === 'live') return this.lastOfTick && this.trace === null;
    if (target.kind !== 'entry') return false;
    return this.ceiling === null ? this.present === null : this.lastOfTick && target.index <= this.live;
  }

  /** The walk's breakpoints planted again (the main thread stopped: CDP still answers). */
  private async plantAgain(skipRepeats: boolean): Promise<void> {
    await this.unplant();
    await this.plant(skipRepeats);
  }

  /**
   * Plants the walk's breakpoints: each stops when the walked task runs there; with `skipRepeats`, not when the
   * task's last stop was on the same line (the bridge's traced(), in V8, without a stop): a loop on one line
   * run a hundred times is one entry, walked past at full speed.
   */
  private async plant(skipRepeats: boolean): Promise<void> {
    if (this.ids !== null) return;
    const ids = new Set<string>();
    const seen = new Set<string>();
    for (const loc of this.print.locations) {
      const key = `${loc.url}:${loc.line}:${loc.column}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const line = skipRepeats ? this.dbg.lineAt(loc.url, loc.line, loc.column) : null;
      const condition = `globalThis.__coroscopeLine.traced(${this.taskId}${line === null ? '' : `, ${JSON.stringify(line)}`})`;
      try {
        const r = await this.dbg.cdp<{ breakpointId: string }>('Debugger.setBreakpointByUrl', {
          url: loc.url,
          lineNumber: loc.line,
          columnNumber: loc.column,
          condition,
        });
        ids.add(r.breakpointId);
      } catch {
        // A location set twice: one breakpoint does.
      }
    }
    this.ids = ids;
    this.skipping = skipRepeats;
    this.dbg.setWalkHook(
      ids,
      (paused) => this.onHit(paused),
      () => this.onStopped(),
    );
  }

  /**
   * Runs the traced tick and walks it to `target`; resolves once reached (stopped there, or the live stop
   * learnt), or 'end' (a hit's walk ran out of ticks).
   */
  private async walk(target: Target): Promise<'reached' | 'end'> {
    // To the tick before with none of the walk's breakpoints set (a function with a breakpoint
    // set, active or not, runs unoptimized and traps at each of its break locations: every tick
    // replayed would be many times slower) and any other off, then the walk's planted and the
    // traced tick run with them on. A landing held ready is let go first.
    if (this.held !== null) await this.release();
    await this.unplant();
    await this.dbg.cdp('Debugger.setBreakpointsActive', { active: false });
    if (this.tick > 1) await this.seekTo(this.tick - 1);
    await this.plant(this.mayPassRepeats(target));
    await this.dbg.cdp('Debugger.setBreakpointsActive', { active: true });
    const outcome = new Promise<Outcome>((resolve) => {
      this.walking = { entries: [], target, settle: resolve };
    });
    const walking = this.walking!;
    this.tickRun = this.runTicks(walking);
    return this.settled(await outcome);
  }

  /**
   * The traced replay of the walk: tick `tick`, and for a hit's walk the ticks after it, one at
   * a time, while the move under way has not stopped (through `ceiling`).
   */
  private async runTicks(walking: Walking): Promise<void> {
    for (let tick = this.tick; ; tick++) {
      try {
        await this.replayTick(tick);
      } catch (e) {
        walking.settle(e instanceof Error ? e : new Error(String(e)));
        return;
      }
      // Let go (released), or the live stop learnt: the walk is over.
      if (this.walking !== walking) return;
      if (this.lastOfTick && this.trace === null) {
        // The whole tick run: its last line is the walk's anchor.
        this.trace = walking.entries.slice();
        this.live = this.trace.length - 1;
        this.walking = null;
        walking.settle('reached');
        return;
      }
      if (this.ceiling === null) {
        walking.settle(
          new ProtocolError(
            `the replay of tick ${this.tick} ran to its end without reaching ${this.describe(walking.target)}: it is not the run that was recorded`,
            'replayFailed',
          ),
        );
        return;
      }
      if (tick >= this.ceiling) {
        walking.settle('end');
        return;
      }
    }
  }

  /** A move's outcome: an error releases the thread and is thrown. */
  private async settled(r: Outcome): Promise<'reached' | 'end'> {
    if (r instanceof Error) {
      await this.release().catch(() => undefined);
      throw r;
    }
    return r;
  }

  /** From the entry stopped on, on in the same walk to entry `index`. */
  private async goOn(index: number): Promise<'reached' | 'end'> {
    const walking = this.walking;
    if (walking === null) throw new ProtocolError('pastLine: the walk has ended', 'badState');
    const outcome = new Promise<Outcome>((resolve) => {
      walking.settle = resolve;
    });
    walking.target = { kind: 'entry', index };
    if (this.skipping && !this.mayPassRepeats(walking.target)) await this.plantAgain(false);
    this.at = null;
    await this.dbg.resume(false);
    return this.settled(await outcome);
  }

  /**
   * From the line stopped on (an entry, or inside a call), the replay host's own line step: it
   * lands on an entry (onHit stops there), or inside a call (the line debugger's stop).
   */
  private async lineStep(kind: LineStepKind): Promise<PastLineLanding> {
    const walking = this.walking;
    if (walking === null) throw new ProtocolError('pastLine: the walk has ended', 'badState');
    const outcome = new Promise<Outcome>((resolve) => {
      walking.settle = resolve;
    });
    walking.target = { kind: 'step' };
    // A line step stops on each run of a line (a step over in a one-line loop stays in it): every run stops.
    if (this.skipping) await this.plantAgain(false);
    const from = walking.entries.length - 1;
    const path = this.inCall !== null ? this.path : [];
    const route = this.route;
    this.at = null;
    this.inCall = null;
    this.path = [];
    await this.dbg.lineStep(kind);
    if ((await this.settled(await outcome)) === 'end') return this.ranOut();
    // Not on a new entry's first run (onHit's route): this step's way from the route it started on.
    if (this.route === route) this.route = route === null ? null : { entry: route.entry, path: [...route.path, kind] };
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
      this.path = [...path, kind];
    }
    this.landedAt = top === undefined ? null : this.dbg.positionOfFrame(top.frame);
    return this.landing();
  }

  private describe(target: Target): string {
    if (target.kind === 'entry') return `line ${target.index + 1} of the task's step`;
    if (target.kind === 'step') return "the line step's stop";
    const top = this.print.frames[0];
    return top === undefined
      ? 'the live stop'
      : `the live stop (${top.url.replace(/^file:\/\//, '')}, generated line ${top.line + 1})`;
  }

  private async onHit(paused: CdpPaused): Promise<WalkVerdict> {
    const walking = this.walking;
    if (walking === null) return 'resume';
    const frames = this.dbg.walkFrames(paused);
    const top = frames[0];
    if (top === undefined) return 'resume';
    const entry = entryOf(frames, top);
    if (walking.target.kind !== 'live' && (await this.atPresent(frames))) {
      // On from a hit to the live line stop held: the present (ranOut), not a line of the past.
      this.walking = null;
      walking.settle('end');
      return 'resume';
    }
    const last = walking.entries[walking.entries.length - 1];
    if (last === undefined || !sameEntry(last, entry)) {
      const index = walking.entries.length;
      walking.entries.push(entry);
      const known = this.trace?.[index];
      // A hit's walk learns the entries past the hit as it first reaches them.
      if (this.trace !== null && known === undefined && this.ceiling !== null && index === this.trace.length)
        this.trace.push(entry);
      else if (this.trace !== null && (known === undefined || !sameEntry(known, entry))) {
        walking.settle(
          new ProtocolError(
            `the replay of tick ${this.tick} diverged: line ${index + 1} of the task's step was ${known?.line ?? 'none'} and is ${entry.line} now`,
            'replayFailed',
          ),
        );
        this.walking = null;
        return 'resume';
      }
      // Reading watched values (valuesBack): at each entry as first reached, where a step back stops.
      if (this.reading !== null) {
        this.reading.at.set(index, await this.readWatched(this.reading.watched));
        this.readAt.set(index, this.dbg.sourcePositionOfFrame(top.frame));
      }
      if (walking.target.kind === 'step' || (walking.target.kind === 'entry' && walking.target.index === index)) {
        this.at = index;
        this.route = { entry: index, path: [] };
        const p = this.dbg.positionOfFrame(top.frame);
        this.landedAt = p;
        return 'stop';
      }
    }
    // The line of the entry the step started from or came back to: the line step goes on or stops (lineStep
    // sorts out which line it is).
    if (walking.target.kind === 'step') return 'step';
    if (walking.target.kind === 'live' && !this.lastOfTick && (await isAtStop(this.dbg, frames, this.print))) {
      this.trace = walking.entries.slice();
      this.live = walking.entries.length - 1;
      if (walking.target.stop === true) {
        this.at = this.live;
        this.route = { entry: this.live, path: [] };
        this.landedAt = this.dbg.positionOfFrame(top.frame);
        return 'stop';
      }
      walking.settle('reached');
      this.walking = null;
      await this.dbg.cdp('Debugger.setBreakpointsActive', { active: false });
    }
    return 'resume';
  }

  /** Whether the paused thread is at the live line stop `present` (its frames and locals, in its tick). */
  private async atPresent(frames: readonly WalkFrame[]): Promise<boolean> {
    const present = this.present;
    if (present === null || present.print === undefined || !(await isAtStop(this.dbg, frames, present.print)))
      return false;
    const w = (await this.dbg.callMain('where()').catch(() => null)) as { tick?: unknown } | null;
    return w?.tick === present.tick;
  }

  /** The main thread is stopped on the walk's target: the landing is answered now. */
  private onStopped(): void {
    this.walking?.settle('reached');
  }
}
