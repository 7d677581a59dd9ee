// Runs only on a line replay host's worker thread (a runtime host started with --line-replay).
// PastHitSearch: the search of the recorded past for the hits of the user's line breakpoints
// (pastHit: Reverse Continue's last hit before the moment shown, or Continue's first after it):
// the run is replayed with the breakpoints armed (scan-breakpoints.ts), stretch by stretch backwards
// each twice as long, then the hit's tick once more up to the hit, where the thread stops. The
// last stretch's hits are kept for the next move. See
// docs/design/line-replay-and-breakpoint-search.md.
//
// Invariants: exact or refused (a landing is answered only once stopped on the hit; a replay
// that misses the moment or the hit is refused with the reason); hit conditions count as the
// live debugger does, since set; scan breakpoints exist only during a search and on its hit,
// and release() waits for the tick to end before another search or walk.

import type {
  ArmedBreakpoint,
  BreakpointHitLanding,
  HitBound,
  ScanHit,
  ScanTicksParams,
  ScanTicksResult,
} from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { LineDebugger } from '../worker/line-debugger';
import { printedBefore, printedBeforeHit, printedThrough, wayToUntil, withPrinted } from './step-way';
import { FIRST_STRETCH } from '../shared/hit-scan';
import { lineCount, ScanBreakpoints, type Planted } from './scan-breakpoints';
import { checkEnded, checkMarked, endAt, liveEnding, markerOf, ordinalOf, stretchParams } from './hit-scan-params';
import { countedFrom } from '../../inspect/hit-count';

type ScanResult = ScanTicksResult;

export class PastHitSearch {
  /** The breakpoints planted for a search, and its scans (scan-breakpoints.ts). */
  private readonly scans: ScanBreakpoints;
  /**
   * The hits of the stretch the last search scanned (ticks from+1 .. its start), with the
   * breakpoints armed then (`key`) and the one stopped on (`at`): the next search from that hit
   * with the same breakpoints takes its neighbour from here, without scanning again.
   */
  private known: { key: string; hits: ScanHit[]; from: number; at: number } | null = null;
  /** The program was replayed once to load it (ensureLoaded): a file still without code is not the program's. */
  private loaded = false;

  constructor(
    private readonly dbg: LineDebugger,
    /** Asks the main thread to scan a stretch (scanTicks). */
    scanTicks: (params: ScanTicksParams) => Promise<ScanResult>,
    /** Asks the main thread to replay the run to right after `tick` (a seek, untraced); resolves once it has landed. */
    private readonly seekTo: (tick: number) => Promise<unknown>,
  ) {
    this.scans = new ScanBreakpoints(dbg, scanTicks, seekTo);
  }

  /**
   * The hit before (back) or after (forward) `bound`, within ticks floor+1 .. ceiling; the main
   * thread stopped on it. `shown`: the bound is the past line the thread was stopped on, and
   * it is stopped there again when no hit is found (the line stays shown). `until`: forward,
   * the live line stop in tick `ceiling` the search ends at (only the hits before it count).
   */
  async find(
    direction: 'back' | 'forward',
    bound: HitBound,
    floor: number,
    ceiling: number,
    breakpoints: readonly ArmedBreakpoint[],
    shown = false,
    until: HitBound | null = null,
    nth: { tick: number; ordinal: number } | null = null,
  ): Promise<BreakpointHitLanding> {
    await this.release();
    const ending = direction === 'forward' ? liveEnding(until, ceiling) : null;
    this.scans.untilPrint = ending?.print ?? null;
    let landing = noHit(breakpoints, floor, bound.tick);
    this.scans.print = bound.print ?? null;
    const key = JSON.stringify(breakpoints);
    // A neighbour known from the last scan holds only its line hits, of every task: with a suspension
    // breakpoint armed, or a move limited to one task, every search scans.
    const known =
      shown && this.known?.key === key && !breakpoints.some((b) => b.atSuspension === true || b.task !== undefined)
        ? this.known
        : null;
    this.known = null;
    if (ceiling >= 1) await this.ensureLoaded(breakpoints);
    const planted = await this.scans.plant(breakpoints, bound, ending);
    try {
      if (nth !== null && breakpoints.length > 0)
        landing = await this.stopAt(
          { bp: 0, tick: nth.tick, taskId: null, count: 0 },
          nth.ordinal,
          breakpoints,
          planted,
        );
      else if (breakpoints.length > 0)
        landing =
          direction === 'back'
            ? await this.back(bound, floor, breakpoints, planted, key, known)
            : await this.forward(bound, ceiling, breakpoints, planted, known, ending);
      if (landing.landed === 'none' && shown) await this.restop(bound, breakpoints, planted);
      else if (landing.landed !== 'line') await this.release();
      return landing;
    } catch (e) {
      await this.release();
      throw e;
    }
  }

  /**
   * Logpoints in the past: every hit of `logpoints` (each with its logMessage) in ticks 1 .. `ceiling`, with
   * its message, in replay order: one scan of the whole stretch, no stop (the thread is released after).
   * `until`: the live line stop in tick `ceiling`: that tick's hits before it (and at it, as the live
   * logpoint prints where a step lands), none after.
   */
  async logHits(
    logpoints: readonly ArmedBreakpoint[],
    ceiling: number,
    until: HitBound | null = null,
  ): Promise<ScanHit[]> {
    await this.release();
    this.known = null;
    this.scans.print = null;
    const ending = liveEnding(until, ceiling);
    if (until !== null && ending === null)
      throw new ProtocolError(`pastLog: the live stop to end at is not a line stop of tick ${ceiling}`);
    this.scans.untilPrint = ending?.print ?? null;
    if (logpoints.length === 0 || ceiling < 1) return [];
    await this.ensureLoaded(logpoints);
    const planted = await this.scans.plant(logpoints, { tick: 0 }, ending);
    try {
      const from = countedFrom(logpoints, 0);
      const params = stretchParams(logpoints, planted, from, ceiling);
      endAt(params, ending, planted);
      const r = await this.scans.scan(params);
      if (r === 'stopped') throw new ProtocolError('pastLog: the scan stopped on no hit asked for', 'replayFailed');
      checkEnded(params, r);
      return r.hits;
    } finally {
      await this.release();
    }
  }

  /**
   * Stops on the line `bound` (its tick replayed to a marker there), with `breakpoints` planted, as on a hit
   * found: a walk from it starts there (a step's landing shown again after a search that found nothing).
   */
  async stopOn(bound: HitBound, breakpoints: readonly ArmedBreakpoint[]): Promise<void> {
    await this.release();
    this.known = null;
    this.scans.untilPrint = null;
    const planted = await this.scans.plant(breakpoints, bound);
    try {
      await this.restop(bound, breakpoints, planted);
    } catch (e) {
      await this.release();
      throw e;
    }
  }

  /** Stops on the line shown before the search again (its tick replayed to the marker). */
  private async restop(bound: HitBound, breakpoints: readonly ArmedBreakpoint[], planted: Planted): Promise<void> {
    const marker = markerOf(bound, planted, bound.tick);
    if (marker === undefined) return;
    this.scans.print = bound.print ?? null;
    const r = await this.scans.scan({
      ...stretchParams(breakpoints, planted, bound.tick - 1, bound.tick),
      marker,
      stop: { kind: 'marker' },
    });
    if (r !== 'stopped')
      throw new ProtocolError(
        `pastHit: the replay of tick ${bound.tick} did not reach the line shown again: it is not the run that was recorded`,
        'replayFailed',
      );
  }

  /** Lets the main thread go (off the hit), waits for its scan to end, and removes the scan breakpoints. */
  async release(): Promise<void> {
    await this.scans.release();
  }

  /**
   * The line shown moves off the hit (a walk from it, past-line-walk.ts): its neighbours are no longer known
   * from there.
   */
  async leaveHit(): Promise<void> {
    this.known = null;
    await this.release();
  }

  /** Whether the main thread is stopped on a hit this search found. */
  isStopped(): boolean {
    return this.scans.isStopped();
  }

  /** A suspension breakpoint's hit, as answered: the caller shows its tick. */
  private tickLanding(hit: ScanHit, breakpoints: readonly ArmedBreakpoint[]): BreakpointHitLanding {
    const bp = breakpoints[hit.bp]!;
    return {
      landed: 'tick',
      tick: hit.tick,
      taskId: hit.taskId ?? 0,
      breakpoint: { file: bp.file, line: bp.line },
      description: hit.description ?? `a breakpoint at ${bp.file}:${bp.line}`,
    };
  }

  private async back(
    bound: HitBound,
    floor: number,
    breakpoints: readonly ArmedBreakpoint[],
    planted: Planted,
    key: string,
    known: PastHitSearch['known'],
  ): Promise<BreakpointHitLanding> {
    if (known !== null && known.at > 0) {
      // The hit before the one shown was scanned already.
      const hit = known.hits[known.at - 1]!;
      if (hit.tick <= floor) return noHit(breakpoints, floor, bound.tick);
      const landing = await this.stopAt(hit, ordinalOf(known.hits, known.at - 1), breakpoints, planted);
      this.known = { ...known, at: known.at - 1 };
      return landing;
    }
    // Before the stretch known (its first hit shown): from its start down.
    let to = known !== null ? known.from : bound.tick;
    let stretch = FIRST_STRETCH;
    while (to > floor) {
      const from = countedFrom(breakpoints, Math.max(floor, to - stretch));
      const params = stretchParams(breakpoints, planted, from, to);
      const marker = markerOf(bound, planted, to);
      if (marker !== undefined) params.marker = marker;
      const r = await this.scans.scan(params);
      if (r === 'stopped') throw new ProtocolError('pastHit: the scan stopped on no hit asked for', 'replayFailed');
      checkMarked(params, r);
      const before = marker !== undefined && r.marked !== null ? r.hits.slice(0, r.marked) : r.hits;
      // Hits come in replay order: the last one is the latest. A suspension breakpoint's is at its tick's
      // end: after the line hits of its tick; the first of its tick is the stop.
      const last = before.length - 1;
      const latestTick = r.tickHits.reduce(
        (t, h) => (h.tick < bound.tick && h.tick > floor ? Math.max(t, h.tick) : t),
        -1,
      );
      const tickHit = r.tickHits.find((h) => h.tick === latestTick);
      if (tickHit !== undefined && (last < 0 || tickHit.tick >= before[last]!.tick))
        return this.tickLanding(tickHit, breakpoints);
      if (last >= 0 && before[last]!.tick > floor) {
        const hit = before[last]!;
        const landing = await this.stopAt(hit, ordinalOf(before, last), breakpoints, planted);
        this.known = { key, hits: before, from, at: last };
        return landing;
      }
      if (from <= floor) break;
      to = from;
      stretch *= 2;
    }
    return noHit(breakpoints, floor, bound.tick);
  }

  private async forward(
    bound: HitBound,
    ceiling: number,
    breakpoints: readonly ArmedBreakpoint[],
    planted: Planted,
    known: PastHitSearch['known'],
    ending: HitBound | null,
  ): Promise<BreakpointHitLanding> {
    const start = bound.print !== undefined ? bound.tick - 1 : bound.tick;
    const none = noHit(breakpoints, bound.tick, ceiling);
    if (known !== null && known.at + 1 < known.hits.length) {
      // The hit after the one shown was scanned already (no other comes between).
      const hit = known.hits[known.at + 1]!;
      if (hit.tick > ceiling) return none;
      const landing = await this.stopAt(hit, ordinalOf(known.hits, known.at + 1), breakpoints, planted);
      this.known = { ...known, at: known.at + 1 };
      return landing;
    }
    if (start >= ceiling) return none;
    if (breakpoints.some((b) => b.atSuspension === true))
      return this.forwardWithTicks(bound, start, ceiling, breakpoints, planted, none, ending);
    const params: ScanTicksParams = {
      ...stretchParams(breakpoints, planted, countedFrom(breakpoints, start), ceiling),
      stop: { kind: 'first', afterTick: start },
    };
    const marker = markerOf(bound, planted, bound.tick);
    if (marker !== undefined) params.marker = marker;
    endAt(params, ending, planted);
    const r = await this.scans.scan(params);
    if (r === 'stopped') return printedBefore(this.dbg, await this.landing(breakpoints));
    checkMarked(params, r);
    checkEnded(params, r);
    return wayToUntil(none, r, breakpoints, start);
  }

  /**
   * Forward with a suspension breakpoint armed: the stretch to `ceiling` scanned whole (a
   * suspension hit cannot stop the thread), then the earliest after the moment of its line hits
   * (after the marker) and suspension hits (after `start`'s tick ends), a line hit first in
   * the same tick; a line hit's tick is replayed once more to stop on it.
   */
  private async forwardWithTicks(
    bound: HitBound,
    start: number,
    ceiling: number,
    breakpoints: readonly ArmedBreakpoint[],
    planted: Planted,
    none: BreakpointHitLanding,
    ending: HitBound | null,
  ): Promise<BreakpointHitLanding> {
    const params = stretchParams(breakpoints, planted, countedFrom(breakpoints, start), ceiling);
    const marker = markerOf(bound, planted, bound.tick);
    if (marker !== undefined) params.marker = marker;
    endAt(params, ending, planted);
    const r = await this.scans.scan(params);
    if (r === 'stopped') throw new ProtocolError('pastHit: the scan stopped on no hit asked for', 'replayFailed');
    checkMarked(params, r);
    checkEnded(params, r);
    // A move limited to one task stops at that task's hits only (the others count and print all the same),
    // until the limit lapsed (that task ended).
    const asks = (h: ScanHit): boolean => {
      const only = breakpoints[h.bp]?.task;
      return only === undefined || only === h.taskId || h.lapsed === true;
    };
    let line = -1;
    for (let i = r.marked ?? 0; i < r.hits.length && line < 0; i++)
      if (r.hits[i]!.tick > start && r.hits[i]!.message === undefined && asks(r.hits[i]!)) line = i;
    const tickHit = r.tickHits.find((h) => h.tick > start && asks(h));
    if (tickHit !== undefined && (line < 0 || tickHit.tick < r.hits[line]!.tick))
      // The loop stops after its tick: the logpoints of that tick print before it, as live.
      return withPrinted(this.tickLanding(tickHit, breakpoints), printedThrough(r, start, tickHit.tick));
    if (line < 0) return wayToUntil(none, r, breakpoints, start);
    const hit = r.hits[line]!;
    const landing = await this.stopAt(hit, ordinalOf(r.hits, line), breakpoints, planted);
    return withPrinted(landing, printedBeforeHit(r, start, line));
  }

  /** Replays the hit's tick once more and stops on it (the `ordinal`th hit of its tick). */
  private async stopAt(
    hit: ScanHit,
    ordinal: number,
    breakpoints: readonly ArmedBreakpoint[],
    planted: Planted,
  ): Promise<BreakpointHitLanding> {
    this.scans.print = null;
    const r = await this.scans.scan({
      ...stretchParams(breakpoints, planted, countedFrom(breakpoints, hit.tick - 1), hit.tick),
      stop: { kind: 'nth', tick: hit.tick, ordinal },
    });
    if (r !== 'stopped')
      throw new ProtocolError(
        `pastHit: the replay of tick ${hit.tick} did not hit the breakpoint at ${breakpoints[hit.bp]?.file}:${breakpoints[hit.bp]?.line} again: it is not the run that was recorded`,
        'replayFailed',
      );
    return this.landing(breakpoints);
  }

  /** Where the main thread stopped on a hit, as answered. */
  private async landing(breakpoints: readonly ArmedBreakpoint[]): Promise<BreakpointHitLanding> {
    const w = (await this.dbg.callMain('where()').catch(() => null)) as {
      taskId?: unknown;
      taskName?: unknown;
      tick?: unknown;
    } | null;
    const top = this.dbg.stack().frames[0];
    const line = top?.position ?? top?.generated ?? null;
    const tick = typeof w?.tick === 'number' ? w.tick : 0;
    const taskId = typeof w?.taskId === 'number' ? w.taskId : null;
    const who = typeof w?.taskName === 'string' ? w.taskName : 'the main thread';
    const stopping = breakpoints.filter((b) => (b.logMessage ?? '') === '');
    const bp =
      stopping.find((b) => line !== null && b.file === line.file && b.line <= line.line) ??
      stopping[0] ??
      breakpoints[0]!;
    const at = line === null ? '' : ` at ${line.file}:${line.line}`;
    return {
      landed: 'line',
      tick,
      taskId,
      line,
      breakpoint: { file: bp.file, line: bp.line },
      description: `${who} hit a breakpoint on a past line${at} (tick ${tick}, replayed)`,
    };
  }

  /**
   * A fresh replay host has not run the program yet: a user program's files (loaded, and transpiled, only
   * when a replay starts it) have no code where a breakpoint's line could be found, and a search would plant
   * nothing and find no hit. Replaying the first tick loads them; their scripts' parse events reach this
   * thread apart from the seek's answer, so they are waited for (briefly).
   */
  private async ensureLoaded(breakpoints: readonly ArmedBreakpoint[]): Promise<void> {
    if (this.loaded) return;
    const lines = breakpoints.filter((b) => b.atSuspension !== true).map((b) => [b, lineCount(b.file)] as const);
    const codeless = (): boolean => lines.some(([b, n]) => this.dbg.generatedLocations(b.file, b.line, n).length === 0);
    if (!codeless()) return;
    this.loaded = true;
    await this.seekTo(1);
    for (let i = 0; i < 100 && codeless(); i++) await new Promise((r) => setTimeout(r, 5));
  }
}

/** No hit in ticks from+1 .. to, as answered. */
function noHit(breakpoints: readonly ArmedBreakpoint[], from: number, to: number): BreakpointHitLanding {
  return { landed: 'none', breakpoints: breakpoints.map((b) => ({ file: b.file, line: b.line })), from, to };
}
