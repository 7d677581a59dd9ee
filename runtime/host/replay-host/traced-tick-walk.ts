// Runs only on a line replay host's worker thread (a runtime host started with --line-replay).
// TracedTickWalk: the replay under a past line walk (past-line-walk.ts): the main thread runs task
// `taskId`'s tick `tick` again (replayLineTick; a hit's walk the ticks after it, through `ceiling`)
// with a breakpoint on each function of the stop's chain, planted as the task's step begins (at the
// walk's gate, walk-gate.ts: the other tasks' steps before it run with none) once the tick before has landed;
// each pause is an entry learnt (past-lines.ts) or the walk's target: the live stop, an entry, or
// a line step's stop. A line the task runs again at once may be passed at full speed (RepeatsPassed).
//
// Invariants: every walk passes the first walk's entries, else it is refused ('replayFailed': not
// the run that was recorded); one walk at a time (release() lets the thread go and waits for its
// tick to end); the walk's breakpoints are removed while the ticks before its own are replayed.

import type {
  HitBound,
  LineReading,
  LineWatched,
  LineStepKind,
  LineStopPrint,
  SourcePosition,
} from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { CdpPaused, LineDebugger, WalkFrame, WalkVerdict } from '../worker/line-debugger';
import { sameEntry, type PastLineEntry } from '../worker/past-lines';
import { entryOf, isAtStop } from './line-stop-match';

/**
 * Where a walk is going: to learn the live stop (and stop there: `stop`), to an entry, or wherever the line
 * step under way stops (`untilTaskEnds`: a Step Out of the task's top frame limited to it, which no line of the
 * task stops: the walk's breakpoints learn them and let it go on to the task's end, where the step lapses).
 */
export type Target =
  | { kind: 'live'; stop?: boolean }
  | { kind: 'entry'; index: number }
  | { kind: 'step'; untilTaskEnds?: boolean };

/**
 * How a walk's move ended: reached (stopped there, or the live stop learnt), the recording ran out (a hit's
 * walk: the present), or refused.
 */
export type Outcome = 'reached' | 'end' | Error;

/**
 * Which runs of a line after its first (the task running it again at once) the walk's breakpoints pass over
 * without a stop: none; all but those of the stop's own line (the stop may be its 57th run); all.
 */
export type RepeatsPassed = 'none' | 'butStop' | 'all';

const PASSED_RANK: Readonly<Record<RepeatsPassed, number>> = { none: 0, butStop: 1, all: 2 };

/** The walk breakpoints planted so far in this process: each planting's conditions name their generation. */
let plantings = 0;

/** A line step a walk took (`oneTask`: limited to the walk's task, lapsed at its end: line-steps.ts). */
export interface WalkStep {
  readonly kind: LineStepKind;
  readonly oneTask: boolean;
}

/**
 * A line of the walk shown: its entry, and the line steps taken from there into a call (stepped into), or into
 * another task (a step limited to the walk's task that lapsed at its end).
 */
export interface WalkMark {
  readonly entry: number;
  readonly path: readonly WalkStep[];
}

/** The walk under way: the entries it has passed, where it is going, and how its move is answered. */
export interface Walking {
  readonly entries: PastLineEntry[];
  target: Target;
  settle: (outcome: Outcome) => void;
}

export abstract class TracedTickWalk {
  private ids: Set<string> | null = null;
  /** The runs of a line the breakpoints planted pass over (plant's `passed`), and their generation. */
  protected passing: RepeatsPassed = 'none';
  private generation = 0;
  /** The walk's breakpoints wait for the walk's gate, to be planted there passing these runs (null: not waiting). */
  private gating: RepeatsPassed | null = null;
  /** The id of the breakpoint on the walk's gate (null: none set yet, or this main thread has none). */
  private gateId: string | null = null;
  /** The entries of the step up to the live stop (the first walk's), and the live stop's index. */
  protected trace: PastLineEntry[] | null = null;
  protected live = -1;
  /** The entry the main thread is stopped on (null: not stopped by the walk, or inside a call). */
  protected at: number | null = null;
  /**
   * How the line shown was reached (null: none shown): an entry's first run, then the line steps taken from
   * it (a line run again after a call it made is that entry's, reached only by stepping).
   */
  protected route: WalkMark | null = null;
  protected landedAt: SourcePosition | null = null;
  protected walking: Walking | null = null;
  /** The traced tick under way (replayLineTick), until it has run to its end. */
  private tickRun: Promise<unknown> | null = null;
  /** A walk reading watched values (valuesBack): what, and the readings at each entry, by index. */
  protected reading: { readonly watched: readonly LineWatched[]; readonly at: Map<number, LineReading[]> } | null =
    null;
  /** A walk reading watched values: the position of each entry read, by index. */
  protected readAt = new Map<number, SourcePosition | null>();
  /**
   * A landing held ready (hold): the main thread stopped on entry `entry`, not shown; a move back to it is
   * answered at once, any other move lets it go first.
   */
  protected held: { readonly entry: number; readonly at: SourcePosition | null } | null = null;

  constructor(
    protected readonly dbg: LineDebugger,
    /**
     * Asks the main thread to run tick `tick` again, traced (replayLineTick), calling the walk's gate as task
     * `gate`'s first step in it begins.
     */
    private readonly replayTick: (tick: number, gate?: number) => Promise<unknown>,
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
    protected readonly lastOfTick = false,
    /**
     * A hit's walk of the task of a live line stop held (that stop; `ceiling` its tick): reaching it is the
     * present, not a line of the past.
     */
    readonly present: HitBound | null = null,
  ) {}

  /**
   * Lets the main thread go (breakpoints off) and waits for its traced tick to end; the line shown is
   * forgotten (PastLineWalk's override forgets its own part of it too).
   */
  async release(): Promise<void> {
    this.held = null;
    this.walking = null;
    this.at = null;
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

  /**
   * Runs the traced tick and walks it to `target`; resolves once reached (stopped there, or the live stop
   * learnt), or 'end' (a hit's walk ran out of ticks).
   */
  protected async walk(target: Target): Promise<'reached' | 'end'> {
    // To the tick before with none of the walk's breakpoints set (a function with a breakpoint
    // set, active or not, runs unoptimized and traps at each of its break locations: every tick
    // replayed would be many times slower) and any other off, then the walk's planted and the
    // traced tick run with them on. A landing held ready is let go first.
    if (this.held !== null) await this.release();
    await this.unplant();
    await this.dbg.cdp('Debugger.setBreakpointsActive', { active: false });
    if (this.tick > 1) await this.seekTo(this.tick - 1);
    // The breakpoints wait for the walk's gate, as the task's step begins: the other tasks' steps before it do not
    // have V8 evaluate their conditions. Where the main thread has no gate, they are planted now.
    const gate = await this.gate();
    if (gate === null) await this.plant(this.repeatsPassed(target));
    else {
      this.gating = this.repeatsPassed(target);
      this.dbg.setWalkHook(
        new Set([gate]),
        (paused) => this.onHit(paused),
        () => this.onStopped(),
      );
    }
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
        await this.replayTick(tick, this.gating !== null ? this.taskId : undefined);
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
  protected async settled(r: Outcome): Promise<'reached' | 'end'> {
    if (r instanceof Error) {
      await this.release().catch(() => undefined);
      throw r;
    }
    return r;
  }

  /** From the entry stopped on, on in the same walk to entry `index`. */
  protected async goOn(index: number): Promise<'reached' | 'end'> {
    const walking = this.walking;
    if (walking === null) throw new ProtocolError('pastLine: the walk has ended', 'badState');
    const outcome = new Promise<Outcome>((resolve) => {
      walking.settle = resolve;
    });
    walking.target = { kind: 'entry', index };
    if (PASSED_RANK[this.passing] > PASSED_RANK[this.repeatsPassed(walking.target)]) await this.stopAtEveryRun();
    this.at = null;
    await this.dbg.resume(false);
    return this.settled(await outcome);
  }

  private async onHit(paused: CdpPaused): Promise<WalkVerdict> {
    if (this.gateId !== null && (paused.hitBreakpoints ?? []).includes(this.gateId)) {
      // The walk's gate: the task's step begins, its breakpoints are planted now (once).
      const passed = this.gating;
      this.gating = null;
      if (passed !== null) await this.plant(passed);
      return 'resume';
    }
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
      // Learnt, left to the line step (which lets it go on).
      if (walking.target.kind === 'step' && walking.target.untilTaskEnds === true) return 'step';
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

  private describe(target: Target): string {
    if (target.kind === 'entry') return `line ${target.index + 1} of the task's step`;
    if (target.kind === 'step') return "the line step's stop";
    const top = this.print.frames[0];
    return top === undefined
      ? 'the live stop'
      : `the live stop (${top.url.replace(/^file:\/\//, '')}, generated line ${top.line + 1})`;
  }

  /** The id of the breakpoint on the main thread's walk gate, set on first use; null where it has none. */
  private async gate(): Promise<string | null> {
    try {
      this.gateId = await this.dbg.walkGate();
    } catch {
      this.gateId = null;
    }
    return this.gateId;
  }

  /**
   * Which runs of a line after its first a walk to `target` may pass over (plant's `passed`): a line the task runs
   * again at once is one entry, so walking to a known entry, or learning a whole tick's lines, needs its first run
   * only; learning the live stop (or a hit's), every run of the stop's own line (the stop may be on the 57th run
   * of a loop's line), the first of any other. A line step, or a walk that may meet the present (a live stop held,
   * in a tick the walk runs), checks every run. Within one tick before the present's: a walk of the live stop's
   * own tick, or of a step before's (lastOfTick) to one of its entries.
   */
  private repeatsPassed(target: Target): RepeatsPassed {
    if (this.present !== null && this.present.tick <= this.tick) return 'none';
    if (target.kind === 'live') return this.lastOfTick && this.trace === null ? 'all' : 'butStop';
    if (target.kind !== 'entry') return 'none';
    const all = this.ceiling === null ? this.present === null : this.lastOfTick && target.index <= this.live;
    return all ? 'all' : 'none';
  }

  /**
   * At a stop: the walk's breakpoints stop at every run of their line from now on (the bridge's everyRun). Not
   * planted again: a breakpoint removed and set again in the paused function makes V8's step from the stop run on
   * past the next line.
   */
  protected async stopAtEveryRun(): Promise<void> {
    if (this.passing === 'none') return;
    if (!this.dbg.isStopped()) {
      // No stop, no step from it: planted again.
      await this.unplant();
      await this.plant('none');
      return;
    }
    await this.dbg.callMain(`everyRun(${this.generation})`);
    this.passing = 'none';
  }

  /**
   * Plants the walk's breakpoints: each stops when the walked task runs there; where `passed` says, not when the
   * task's last stop was on the same line (the bridge's traced(), in V8, without a stop): a loop on one line
   * run a hundred times is one entry, walked past at full speed.
   */
  private async plant(passed: RepeatsPassed): Promise<void> {
    if (this.ids !== null) return;
    const ids = new Set<string>();
    const seen = new Set<string>();
    const top = this.print.frames[0];
    const stopLine = passed === 'butStop' && top !== undefined ? this.dbg.lineAt(top.url, top.line, top.column) : null;
    const generation = ++plantings;
    const setting: Array<Promise<void>> = [];
    for (const loc of this.print.locations) {
      const key = `${loc.url}:${loc.line}:${loc.column}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const at = passed === 'none' ? null : this.dbg.lineAt(loc.url, loc.line, loc.column);
      const line = at === null || (passed === 'butStop' && (stopLine === null || at === stopLine)) ? null : at;
      const condition = `globalThis.__coroscopeLine.traced(${this.taskId}${line === null ? '' : `, ${JSON.stringify(line)}, ${generation}`})`;
      // Asked all at once (the main thread may be held at the gate meanwhile), answered in order.
      setting.push(
        this.dbg
          .cdp<{ breakpointId: string }>('Debugger.setBreakpointByUrl', {
            url: loc.url,
            lineNumber: loc.line,
            columnNumber: loc.column,
            condition,
          })
          .then(
            (r) => void ids.add(r.breakpointId),
            // A location set twice: one breakpoint does.
            () => undefined,
          ),
      );
    }
    await Promise.all(setting);
    this.ids = ids;
    this.passing = passed;
    this.generation = generation;
    this.dbg.setWalkHook(
      this.gateId === null ? ids : new Set([...ids, this.gateId]),
      (paused) => this.onHit(paused),
      () => this.onStopped(),
    );
  }

  /** Removes the walk's breakpoints (planted again by the next walk, once it has replayed the ticks before its own). */
  private async unplant(): Promise<void> {
    this.gating = null;
    this.dbg.setWalkHook(new Set(), null, null);
    for (const id of this.ids ?? [])
      await this.dbg.cdp('Debugger.removeBreakpoint', { breakpointId: id }).catch(() => undefined);
    this.ids = null;
  }
}
