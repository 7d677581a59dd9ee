// Runs on a line replay host's worker thread (a host started with --line-replay): its replay
// role. LineReplayRole: what it answers its live host (line-replay-host.ts): pastLine walks the
// live stop's tick (past-line-walk.ts, with replayLineTick), and before its first line into the
// step before; pastHit searches the past for a breakpoint's hit (past-hit-search.ts);
// pastHitLine walks the hit's task's lines from there; pastWarm parks replays ahead of a stop's walks.
//
// Invariants: one walk at a time (disposed before another is made); `stopWalk` is the live
// stop's walk only while `walk` is in an earlier step of its task; a search releases the walk,
// a walk releases the search's stop; every answer echoes its request's moment id.

import { sameReading } from '../../../protocol/line-readings';
import type {
  ArmedBreakpoint,
  BreakpointHitLanding,
  HitBound,
  LineReading,
  LineReadingBefore,
  LineStopPrint,
  LineWatched,
  PastLineLanding,
  ScanTicksResult,
  Timeline,
} from '../../../protocol/host-protocol';
import { idOf } from '../../../protocol/moment-ids';
import type { MomentEcho, ReplayHostMethods } from '../../../protocol/replay-host-protocol';
import { parseReplayHostRequest } from '../../../protocol/replay-host-requests';
import { ProtocolError } from '../../../protocol/rpc';
import type { LineDebugger } from '../worker/line-debugger';
import { stepEnds, stepsBefore } from '../worker/past-lines';
import { PastHitSearch } from './past-hit-search';
import { PastLineWalk } from './past-line-walk';
import { sayingUnsearched, searchTheWay } from './way-unsearched';

/** Two readings of the watched values alike, value by value. */
function sameReadings(a: readonly LineReading[], b: readonly LineReading[]): boolean {
  return a.every((r, i) => b[i] !== undefined && sameReading(r, b[i]));
}

/** How a step's landing on a line holding a breakpoint's hit is said (its `paused` description). */
function landedOnBreakpoint(
  landing: Extract<PastLineLanding, { landed: 'line' }>,
  tick: number,
  taskId: number,
): string {
  const who = landing.task ?? `task #${landing.taskId ?? taskId}`;
  const at = landing.line === null ? '' : ` at ${landing.line.file}:${landing.line.line}`;
  return `${who} hit a breakpoint on a past line${at} (tick ${tick}, replayed)`;
}

export class LineReplayRole {
  /** The walk through the replayed lines (past-line-walk.ts). */
  private walk: PastLineWalk | null = null;
  /**
   * While `walk` is in an earlier step of a live stop's task (a step back from its first line of the step):
   * the live stop's walk, where a step forward out of it goes on.
   */
  private stopWalk: PastLineWalk | null = null;
  /** The breakpoint searches (past-hit-search.ts). */
  private hits: PastHitSearch | null = null;
  /**
   * What this host's line debugger printed during the move under way: a forward line step's words on its
   * task's suspension and what the loop ran meanwhile, which the live host prints as its own (`said`).
   */
  private said: string[] = [];
  /**
   * Warm-ups and moves asked so far: a warm-up (pastWarm) stops between its ticks once another is asked, or a
   * walk or search (its replays, its breakpoints planted, must not wait for a warm-up nor slow it).
   */
  private warming = 0;

  constructor(
    private readonly lineDebugger: LineDebugger,
    /** Asks this host's main thread. */
    private readonly askMain: (method: string, params: unknown) => Promise<unknown>,
  ) {}

  /** This host's line debugger printed `text` (its output event). */
  heard(text: string): void {
    this.said.push(text);
  }

  /** A forward step's landing with the words its line step printed on the way, as the live one prints them. */
  private withWords(move: string, landing: PastLineLanding): PastLineLanding {
    const said = this.said;
    this.said = [];
    if (said.length === 0 || move === 'back' || move === 'leave' || landing.landed === 'suspension') return landing;
    // Its line step's words first, then what the move itself says (a way not searched).
    return { ...landing, said: [...said, ...(landing.said ?? [])] };
  }

  /** The breakpoint searches, made at the first. */
  private search(): PastHitSearch {
    this.hits ??= new PastHitSearch(
      this.lineDebugger,
      async (ps) => (await this.askMain('scanTicks', ps)) as ScanTicksResult,
      (tick) => this.askMain('seekTick', { tick, replayed: true }),
    );
    return this.hits;
  }

  /**
   * pastLog: every hit of the logpoints in the opened recording through `ceiling` (up to the live stop `until`
   * in it), with its message (a walk or a hit shown is left).
   */
  async pastLog(params: unknown): Promise<ReplayHostMethods['pastLog']['result']> {
    const p = parseReplayHostRequest('pastLog', params);
    this.warming++;
    await this.walk?.dispose();
    this.walk = null;
    this.stopWalk = null;
    return { hits: await this.search().logHits(p.logpoints, p.ceiling, p.until ?? null) };
  }

  /** pastHit: a breakpoint search of the opened recording, from the past line shown if any. */
  async pastHit(params: unknown): Promise<unknown> {
    const d = this.lineDebugger;
    const p = parseReplayHostRequest('pastHit', params);
    this.warming++;
    let bound = p.bound;
    const shown = p.shown === true && d.isStopped();
    if (shown) {
      const at = await d.stopPrint();
      bound = at.taskId === null ? { tick: at.tick } : { tick: at.tick, taskId: at.taskId, print: at.print };
    }
    await this.walk?.dispose();
    this.walk = null;
    this.stopWalk = null;
    return {
      ...(await this.search().find(
        p.direction,
        bound,
        p.floor,
        p.ceiling,
        p.breakpoints,
        shown,
        p.until ?? null,
        p.nth ?? null,
      )),
      ...idOf(p.moment),
    };
  }

  /**
   * pastHitLine: a move through the lines of the task of the hit shown (a walk anchored there), or of a line
   * reached from it.
   */
  async pastHitLine(params: unknown): Promise<MomentEcho<PastLineLanding>> {
    const p = parseReplayHostRequest('pastHitLine', params);
    this.warming++;
    this.said = [];
    return { ...this.withWords(p.move, await this.hitLine(p)), ...idOf(p.moment) };
  }

  private async hitLine(p: ReplayHostMethods['pastHitLine']['params']): Promise<PastLineLanding> {
    const d = this.lineDebugger;
    // A forward step: the line it leaves, where a step that runs on past the task's lines goes on from.
    const forward = p.move !== 'back' && p.move !== 'leave';
    const left = forward && d.isStopped() ? await d.stopPrint().catch(() => null) : null;
    let walk = await this.hitWalk('pastHitLine', p, left);
    let landing = await walk.move(p.move, p.lines ?? 1, p.oneTask === true);
    if (
      landing.landed === 'present' &&
      p.move !== 'back' &&
      p.move !== 'leave' &&
      this.stopWalk !== null &&
      walk.present === null
    ) {
      // Forward out of the live stop's task's step before, into the live stop's step: its first line (the
      // present when that is the live stop).
      // A walk with the live stop as its present ran on into the stop's tick itself: its present is that stop.
      await walk.dispose();
      walk = this.walk = this.stopWalk;
      this.stopWalk = null;
      landing = await walk.enterFirst();
    }
    if (landing.landed === 'present' && left !== null && left.taskId !== null)
      return { ...landing, ranOnFrom: { tick: left.tick, taskId: left.taskId, print: left.print } };
    // A step limited to the walk's task that lapsed at its end landed in another task: held by a search as a
    // hit, so that a walk of that task goes on from it (as from the live step's landing), breakpoints or none.
    const lapsed = p.oneTask === true && landing.landed === 'line' && (landing.taskId ?? walk.taskId) !== walk.taskId;
    if (
      landing.landed === 'line' &&
      left !== null &&
      left.taskId !== null &&
      ((p.breakpoints?.length ?? 0) > 0 || lapsed)
    ) {
      const from: HitBound = { tick: left.tick, taskId: left.taskId, print: left.print };
      return this.hitOnTheWay(walk, from, landing, p.breakpoints ?? []);
    }
    // Before the task's first line of this step: the last line of its step before, when it ran one the walk sees.
    return landing.landed === 'suspension' && p.move === 'back' ? this.intoStepBefore(walk, p.ceiling) : landing;
  }

  /**
   * The walk anchored at the hit shown: made from the hit a search holds (`at`: where it stands, when known),
   * else the walk from a hit (or into an earlier step) under way; refused when neither is shown.
   */
  private async hitWalk(
    method: 'pastHitLine' | 'pastHitLineValues',
    p: { readonly ceiling: number; readonly present?: HitBound },
    at: { taskId: number | null; tick: number; print: LineStopPrint } | null = null,
  ): Promise<PastLineWalk> {
    if (this.hits?.isStopped() === true) {
      const hit = at ?? (await this.lineDebugger.stopPrint());
      if (hit.taskId === null)
        throw new ProtocolError(
          `${method}: the hit shown is outside any task; its lines are walked through a task`,
          'badState',
        );
      await this.hits.leaveHit();
      await this.walk?.dispose();
      this.stopWalk = null;
      // A hit of the live line stop's task: its walk goes on into the stop's tick, to the stop (the present).
      const present =
        p.present !== undefined && p.present.taskId === hit.taskId && p.present.print !== undefined ? p.present : null;
      this.walk = this.walkOf(
        hit.tick,
        hit.taskId,
        hit.print,
        present !== null ? Math.max(p.ceiling, present.tick) : p.ceiling,
        false,
        present,
      );
    } else if (this.walk === null || this.walk.ceiling === null) {
      throw new ProtocolError(`${method}: no breakpoint hit is shown`, 'badState');
    }
    return this.walk;
  }

  /**
   * A forward step from `from` landed on a line (its task's next, in this tick or a later one, or one in a
   * call it stepped into): as the live step stops at any breakpoint's hit on its way (in a call the line
   * makes, or another task's run in between), it stops at the first hit after `from` and before the landing,
   * found by a forward search ending at the landing. None: the landing is shown again, held by the search (a
   * hit's walk goes on from it), else by its walk (PastLineWalk.returnTo: the live stop's own step's, or a
   * hit's where the search cannot stop), or, into the live stop's own step, by that stop's walk.
   */
  private async hitOnTheWay(
    walk: PastLineWalk,
    from: HitBound,
    landing: Extract<PastLineLanding, { landed: 'line' }>,
    breakpoints: readonly ArmedBreakpoint[],
  ): Promise<PastLineLanding> {
    const tick = landing.tick ?? walk.tick;
    if (tick < from.tick || !this.lineDebugger.isStopped()) return landing;
    const at = await this.lineDebugger.stopPrint();
    if (at.taskId === null) return landing;
    const taskId = at.taskId;
    const to: HitBound = { tick, taskId, print: at.print };
    // A line of the live stop's own step (its walk's, not a hit's): that walk shows it again.
    const stopWalk = landing.tick === undefined ? walk : null;
    const mark = walk.shown();
    await walk.dispose();
    if (stopWalk === null) this.walk = null;
    const sameTick = tick === from.tick;
    const way = await searchTheWay(sameTick, tick, () =>
      this.search().find('forward', from, 0, tick, breakpoints, false, to),
    );
    const hit = 'searched' in way ? way.searched : null;
    if (hit?.landed === 'line') return this.atHitOnTheWay(hit);
    if (hit?.landed === 'tick') {
      // A loop breakpoint's hit in a tick before the landing's: the live run stopped after that tick.
      this.walk = null;
      this.stopWalk = null;
      const out: PastLineLanding = { landed: 'tick', tick: hit.tick, taskId: hit.taskId, description: hit.description };
      return hit.printed === undefined ? out : { ...out, printed: hit.printed };
    }
    // The landing itself holds a breakpoint's hit (the search's end, `until`): said as that breakpoint's; the
    // logpoints met on the way (the landing's included) are printed before it. A way not searched (a same-tick
    // search refused mid-line): the landing says so (way-unsearched.ts).
    const onBreakpoint = (l: PastLineLanding): PastLineLanding => {
      if (hit === null) return sayingUnsearched(l, way);
      if (hit.landed !== 'none' || l.landed !== 'line') return l;
      const out = hit.printed === undefined ? l : { ...l, printed: hit.printed };
      return hit.atUntil === undefined ? out : { ...out, breakpoint: landedOnBreakpoint(l, tick, taskId) };
    };
    // Into the live stop's step from the step before: enterFirst's landing again.
    if (stopWalk !== null && (!sameTick || mark === null)) {
      this.walk = stopWalk;
      return onBreakpoint(await stopWalk.enterFirst());
    }
    // A hit's walk: held by the search (a hit's walk goes on from it, its frames' functions the landing's).
    // In the same tick only on an entry's first run: a line reached by steps from one (run again after a call
    // it made, mid-line) may be no place a breakpoint stops at, or stops at its first run instead.
    const held =
      stopWalk === null &&
      (!sameTick || (hit !== null && (mark === null || mark.path.length === 0))) &&
      // Refused mid-line: not held (the walk shows the landing), the way itself was searched.
      (await searchTheWay(sameTick, tick, () =>
        this.search()
          .stopOn(to, breakpoints)
          .then(() => true),
      ).then((held) => 'searched' in held)) === true;
    if (held || mark === null) return onBreakpoint(landing);
    // The live stop's own step, or a hit's walk not held: its walk shows it again, the way it came.
    this.walk = walk;
    return onBreakpoint(await walk.returnTo(mark));
  }

  /**
   * A forward step of the live stop's walk from a past line `from` came to the live stop: as live, it stops
   * at the first breakpoint hit between (found by a forward search ending at the stop); none, the present.
   */
  private async hitBeforeStop(
    from: HitBound,
    p: ReplayHostMethods['pastLine']['params'],
    breakpoints: readonly ArmedBreakpoint[],
  ): Promise<PastLineLanding> {
    const stop: HitBound = { tick: p.tick, taskId: p.taskId, print: p.stop };
    await this.walk?.dispose();
    this.walk = null;
    this.stopWalk = null;
    const way = await searchTheWay(true, p.tick, () =>
      this.search().find('forward', from, 0, p.tick, breakpoints, false, stop),
    );
    if (!('searched' in way)) return sayingUnsearched({ landed: 'present' }, way);
    const hit = way.searched;
    if (hit.landed === 'line') return this.atHitOnTheWay(hit);
    // The logpoints met up to the live stop (its own included) print as the live step's did.
    return hit.landed === 'none' && hit.printed !== undefined
      ? { landed: 'present', printed: hit.printed }
      : { landed: 'present' };
  }

  /** A step stopped at a hit on its way: the search holds it (a hit's walk goes on from it, as from any hit). */
  private atHitOnTheWay(hit: Extract<BreakpointHitLanding, { landed: 'line' }>): PastLineLanding {
    this.walk = null;
    this.stopWalk = null;
    const out: PastLineLanding = { landed: 'line', line: hit.line, tick: hit.tick, breakpoint: hit.description };
    if (hit.taskId !== null) out.taskId = hit.taskId;
    if (hit.printed !== undefined) out.printed = hit.printed;
    return out;
  }

  /** pastLine: a move through the replayed lines of the live host's stop. */
  async pastLine(params: unknown): Promise<MomentEcho<PastLineLanding>> {
    const p = parseReplayHostRequest('pastLine', params);
    this.warming++;
    this.said = [];
    return { ...this.withWords(p.move, await this.stopLine(p)), ...idOf(p.moment) };
  }

  /**
   * pastLineValues: the watched values at each line a step back from the line shown lands on within the live
   * stop's tick, in one replay (null: that line is not the stop walk's, e.g. in an earlier step). Read back to
   * the step's first line with no change, the values at the last line of the step before too; changed there,
   * the landing (that first line, where the new value is first seen) is held ready in the same replay (`held`).
   */
  async pastLineValues(params: unknown): Promise<ReplayHostMethods['pastLineValues']['result']> {
    const p = parseReplayHostRequest('pastLineValues', params);
    this.warming++;
    await this.hits?.release();
    let walk = this.walk;
    if (walk !== null && (this.stopWalk !== null || !walk.isOf(p.tick, p.taskId, p.stop)))
      return { readings: null, why: "the line shown is not in the live stop's step" };
    // The stop's tick first: its replay starts from the one parked at the tick before (pastWarm, while the stop
    // was read). The step before's, when needed, goes on from its own tick to the landing (held below).
    if (walk === null) walk = this.walk = this.walkOf(p.tick, p.taskId, p.stop);
    return this.valuesBack(walk, p.watched, p.tick, { tick: p.tick, taskId: p.taskId, print: p.stop });
  }

  /**
   * pastHitLineValues: pastLineValues from the line shown of a walk anchored at a hit (made from the hit a
   * search holds), or of a line of an earlier step it or the live stop's walk went into: back to that walk's
   * step's first line, then the last line of its step before (`earlier`), the landing held ready when changed
   * there, as from the live stop.
   */
  async pastHitLineValues(params: unknown): Promise<ReplayHostMethods['pastHitLineValues']['result']> {
    const p = parseReplayHostRequest('pastHitLineValues', params);
    this.warming++;
    let walk: PastLineWalk;
    try {
      walk = await this.hitWalk('pastHitLineValues', p);
    } catch (e) {
      // No line of a task's walk shown (a hit outside any task, none shown): the line-by-line walk says where.
      if (!(e instanceof ProtocolError) || e.code !== 'badState') throw e;
      return { readings: null, why: e.message };
    }
    // The step before's walks of a walk from a hit run as far as its own (intoStepBefore's bounds).
    return this.valuesBack(walk, p.watched, walk.ceiling ?? p.ceiling, walk.present);
  }

  /**
   * The watched values back from the line `walk` shows (PastLineWalk.valuesBack), and when read back to its
   * step's first line with no change, those at the last line of its step before (walked through `ceiling`, with
   * `present`, the live stop held, as its present), the landing held ready when changed there.
   */
  private async valuesBack(
    walk: PastLineWalk,
    watched: readonly LineWatched[],
    ceiling: number,
    present: HitBound | null,
  ): Promise<ReplayHostMethods['pastLineValues']['result']> {
    const readings = await walk.valuesBack(watched);
    if (readings === null)
      return { readings, why: 'not on a line of the walk (inside a call stepped into, or no line known shown)' };
    // Read back to the step's first line with no change among them: the change is further back, most often at
    // the last line of the step before (`x = yield* ...`, resumed in this step): its values read in one replay
    // of that step's tick, without stopping there.
    if (readings.length === 0 || !walk.readsToFirst || !readings.every((r) => sameReadings(r, readings[0]!)))
      return { readings };
    const earlier = await this.valuesBefore(walk, watched, ceiling, present);
    this.walk = walk;
    if (earlier === null) return { readings };
    // Changed there (as the client finds it: the first value that differs, readable there): the client lands on
    // the step's first line, a move back of all the lines read. That replay goes on from the step before's tick
    // (parked there just now) to the line and holds it, so the move is answered at once.
    const first = readings[readings.length - 1]!;
    const changed = watched.findIndex((_, i) => !sameReading(earlier.readings[i]!, first[i]!));
    if (changed < 0 || !earlier.readings[changed]!.reachable) return { readings, earlier };
    const held = await walk.hold(readings.length).catch(() => false);
    return held ? { readings, earlier, held: readings.length } : { readings, earlier };
  }

  /**
   * pastWarm: while the live stop is read, replays parked at the ticks its walks start from (the tick before it,
   * and before its task's step before), so a Step Back or Go to Last Change replays only its own ticks. Skipped
   * when a walk or search holds the thread; a newer warm-up supersedes this one between its ticks.
   */
  async pastWarm(params: unknown): Promise<ReplayHostMethods['pastWarm']['result']> {
    const p = parseReplayHostRequest('pastWarm', params);
    const warming = ++this.warming;
    // The stop's walks end comparing its locals: the script text and parser that takes are read meanwhile too.
    this.lineDebugger.primeLocalsOf(p.stop);
    // An older stop's landing held ready is let go (its stop is gone); this stop's walk has its replays already.
    if (this.walk !== null && !this.walk.isOf(p.tick, p.taskId, p.stop)) await this.letGoHeld();
    if (this.lineDebugger.isStopped() || this.walk?.isOf(p.tick, p.taskId, p.stop) === true) return { parked: [] };
    const ticks = [p.tick - 1];
    const timeline = (await this.askMain('timeline', { taskId: p.taskId })) as Timeline;
    const segments = timeline.lanes.find((l) => l.taskId === p.taskId)?.segments ?? [];
    if (stepEnds(segments, p.tick).length > 0) {
      const before = stepsBefore(segments, p.tick, p.stop.frames.length, p.stop.names)[0];
      if (before !== undefined) ticks.push(before.tick - 1);
    }
    const parked: number[] = [];
    for (const tick of ticks) {
      if (warming !== this.warming || this.lineDebugger.isStopped()) break;
      if (tick < 1 || parked.includes(tick)) continue;
      const r = (await this.askMain('warmTick', { tick, keep: parked })) as { parked: boolean };
      if (r.parked) parked.push(tick);
    }
    return { parked };
  }

  /** A landing held ready by the values walk (pastLineValues) is let go: another request comes. */
  async letGoHeld(): Promise<void> {
    if (this.walk?.holding === true) await this.walk.release();
  }

  /**
   * A line query comes (its stack, variables, an evaluation) after the values walk let the thread go from the
   * line shown (pastLineValues, pastHitLineValues): the thread is walked back to that line and stopped there
   * again, so the query reads the line shown, not the landing held ready nor a thread gone on.
   */
  async showAgain(): Promise<void> {
    const walk = this.walk;
    const from = walk?.letGoFrom ?? null;
    if (walk === null || from === null) return;
    await walk.returnTo({ entry: from, path: [] });
  }

  /** Whether the stop walk holds a landing ready (the main thread stopped there, not shown). */
  get holding(): boolean {
    return this.walk?.holding === true;
  }

  /**
   * The watched values at the last line the task ran in its step before the stop walk's (the step a step back
   * from its first line goes into: intoStepBefore's), read in a walk of that step's tick let go after; null:
   * none (the task's first step, or its steps before ran no line of these functions).
   */
  private async valuesBefore(
    from: PastLineWalk,
    watched: readonly LineWatched[],
    ceiling: number,
    present: HitBound | null,
  ): Promise<LineReadingBefore | null> {
    const timeline = (await this.askMain('timeline', { taskId: from.taskId })) as Timeline;
    const segments = timeline.lanes.find((l) => l.taskId === from.taskId)?.segments ?? [];
    if (stepEnds(segments, from.tick).length === 0) return null;
    const steps = stepsBefore(segments, from.tick, from.print.frames.length, from.print.names);
    if (steps.length === 0) return null;
    // The stop walk's breakpoints off meanwhile (its trace kept: its next move plants them again).
    await from.dispose();
    for (const step of steps) {
      const earlier = this.walkOf(step.tick, from.taskId, from.print, ceiling, true, present);
      try {
        const last = await earlier.valuesAtLast(watched);
        if (last !== null) return { tick: step.tick, ...last };
      } finally {
        await earlier.dispose();
      }
    }
    return null;
  }

  private async stopLine(p: ReplayHostMethods['pastLine']['params']): Promise<PastLineLanding> {
    await this.hits?.release();
    let walk = this.walk;
    if (walk === null || !walk.isOf(p.tick, p.taskId, p.stop)) {
      await walk?.dispose();
      this.stopWalk = null;
      walk = this.walk = this.walkOf(p.tick, p.taskId, p.stop);
    }
    // A forward step from a past line: the line it leaves, where a search for a hit on its way starts.
    const armed = p.move !== 'back' && p.move !== 'leave' ? (p.breakpoints ?? []) : [];
    const d = this.lineDebugger;
    const left = armed.length > 0 && d.isStopped() ? await d.stopPrint().catch(() => null) : null;
    const from: HitBound | null =
      left === null || left.taskId === null ? null : { tick: left.tick, taskId: left.taskId, print: left.print };
    const landing = await walk.move(p.move, p.lines ?? 1);
    if (from !== null && landing.landed === 'line') return this.hitOnTheWay(walk, from, landing, armed);
    if (from !== null && landing.landed === 'present') return this.hitBeforeStop(from, p, armed);
    if (landing.landed !== 'suspension' || p.move !== 'back') return landing;
    // Before the task's first line of this step: the last line of its step before (a walk anchored there, as
    // from a hit's). It runs on
    // into the live stop's tick with that stop as its present, so a step forward across the task's suspension
    // lands on the task's next
    // line there as live (a line of a function the live stop's frames do not hold included), and reaching the
    // stop is the present.
    const before = await this.intoStepBefore(walk, p.tick, { tick: p.tick, taskId: p.taskId, print: p.stop });
    if (before.landed === 'line' && before.tick !== undefined) this.stopWalk = walk;
    return before;
  }

  /**
   * A walk through task `taskId`'s replayed lines in tick `tick` (past-line-walk.ts), its ticks replayed by
   * this host's main thread.
   */
  private walkOf(
    tick: number,
    taskId: number,
    print: LineStopPrint,
    ceiling: number | null = null,
    lastOfTick = false,
    present: HitBound | null = null,
  ): PastLineWalk {
    return new PastLineWalk(
      this.lineDebugger,
      (t, gate) => this.askMain('replayLineTick', gate === undefined ? { tick: t } : { tick: t, gate }),
      (t) => this.askMain('seekTick', { tick: t, replayed: true }),
      tick,
      taskId,
      print,
      ceiling,
      lastOfTick,
      present,
    );
  }

  /**
   * A step back before the task's first line of a step (a hit's, or the live stop's:
   * pastHitLine, pastLine): the last line it ran of the walk's functions in an earlier step,
   * however far back (past-lines.ts stepsBefore: the steps spent wholly in deeper calls, or in
   * calls of none of the stop's functions, passed over by their recorded frames), replayed, a
   * walk anchored there that goes on like a hit's, through `ceiling` (with `liveStop`, the live
   * line stop held, as its present: reaching it is the present); at the task's first step,
   * the start of the task (startOfTask); else its previous suspension, saying why.
   */
  private async intoStepBefore(
    from: PastLineWalk,
    ceiling: number,
    liveStop: HitBound | null = null,
  ): Promise<PastLineLanding> {
    const timeline = (await this.askMain('timeline', { taskId: from.taskId })) as Timeline;
    const segments = timeline.lanes.find((l) => l.taskId === from.taskId)?.segments ?? [];
    if (stepEnds(segments, from.tick).length === 0) return this.startOfTask(from);
    const steps = stepsBefore(segments, from.tick, from.print.frames.length, from.print.names);
    if (steps.length === 0)
      return {
        landed: 'suspension',
        why: `its steps before the one at tick ${from.tick} ran no line of the functions on these frames`,
      };
    await from.dispose();
    this.walk = null;
    // However far back: each step tried is one tick replayed, and the recorded chains leave only those that
    // ran one of these functions.
    let skipped = 0;
    for (const step of steps) {
      const present = from.present ?? liveStop;
      const earlier = this.walkOf(
        step.tick,
        from.taskId,
        from.print,
        from.present !== null ? from.ceiling : ceiling,
        true,
        present,
      );
      this.walk = earlier;
      const passed = step.passedOver + skipped;
      const between =
        passed === 0
          ? ''
          : ` (its ${passed === 1 ? 'step' : `${passed} steps`} between ran no line of these frames' functions)`;
      const landing = await earlier.enterLast(
        `the last line of its step at tick ${step.tick}, before its step at tick ${from.tick}${between}`,
      );
      if (landing !== null) return landing;
      await earlier.dispose();
      this.walk = null;
      skipped = passed + 1;
    }
    return {
      landed: 'suspension',
      why: `its steps before the one at tick ${from.tick} ran no line of the functions on these frames (${steps.length} replayed to see)`,
    };
  }

  /**
   * Before the first line of the task's first step: nothing of it ran before, it is the start
   * of the task. The walk stops on that first line again, its landing saying so; when that line
   * is the live stop itself, the answer is a suspension saying why (the client finds none
   * before it, and says the task is at its start).
   */
  private async startOfTask(from: PastLineWalk): Promise<PastLineLanding> {
    const start = `the start of the task: its step at tick ${from.tick} is its first, nothing of it ran before`;
    const again = await from.enterFirst();
    if (again.landed === 'line') return { ...again, note: start, atStart: true };
    return { landed: 'suspension', why: start };
  }
}
