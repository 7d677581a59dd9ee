// Runs only on a line replay host's worker thread (a runtime host started with --line-replay).
// ScanBreakpoints: the V8 breakpoints a past hit search (past-hit-search.ts) plants and the scans
// it runs with them (scanTicks, hit-scan.ts): one per place V8 puts the breakpoints and the
// markers, probed, its condition calling `__coroscopeLine.scanHit` with each breakpoint's own
// condition (a logpoint's message); a pause on one is the marker, the `until` stop, or the hit
// asked for (onHit). See docs/design/breakpoint-search.md.
//
// Invariants: the scan breakpoints exist only from plant() to release(), which lets the thread
// go and waits for the scan's tick to end before removing them; the ticks before a stretch are
// replayed with them removed (a function with one runs unoptimized), set again for the stretch.

import { readFileSync } from 'node:fs';
import type { ArmedBreakpoint, HitBound, ScanTicksParams, ScanTicksResult } from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { CdpPaused, LineDebugger } from '../worker/line-debugger';
import {
  loggedMessageCounted,
  loggedMessageExpression,
  loggedMessageOrThrow,
  lookedAt,
  mayReadOutside,
} from '../worker/logpoint-message';
import { isAtStop } from './line-stop-match';

type ScanResult = ScanTicksResult;

/** The scan breakpoints planted, as a scan's parameters name them (locations: indices of `places`). */
export interface Planted {
  readonly ids: Set<string>;
  readonly locations: number[][];
  readonly markerLocation: number | null;
  /** Where the live line stop a forward search ends at is (null: none). */
  readonly untilLocation: number | null;
  readonly places: Array<{ url: string; lineNumber: number; columnNumber: number; condition: string }>;
}

export class ScanBreakpoints {
  private planted: Planted | null = null;
  /** The scan under way (scanTicks), until it has run to its end. */
  private scanRun: Promise<unknown> | null = null;
  private waiting: ((outcome: 'stopped' | ScanResult | Error) => void) | null = null;
  /** The line stop the search starts from (the marker's), during a scan: set by the search before it. */
  print: HitBound['print'] | null = null;
  /** The live line stop a forward search ends at (the `until` marker's), during a scan: set alike. */
  untilPrint: HitBound['print'] | null = null;

  constructor(
    private readonly dbg: LineDebugger,
    /** Asks the main thread to scan a stretch (scanTicks). */
    private readonly scanTicks: (params: ScanTicksParams) => Promise<ScanResult>,
    /** Asks the main thread to replay the run to right after `tick` (a seek, untraced); resolves once it has landed. */
    private readonly seekTo: (tick: number) => Promise<unknown>,
  ) {}

  /** Lets the main thread go (off the hit), waits for its scan to end, and removes the scan breakpoints. */
  async release(): Promise<void> {
    this.waiting = null;
    if (this.dbg.isStopped() && this.planted !== null) await this.dbg.resume(false);
    const run = this.scanRun;
    this.scanRun = null;
    await run?.catch(() => undefined);
    const planted = this.planted;
    this.planted = null;
    if (planted === null) return;
    this.dbg.setWalkHook(new Set(), null, null);
    await removeBreakpoints(this.dbg, planted.ids);
  }

  /** Whether the main thread is stopped on a hit this search found. */
  isStopped(): boolean {
    return this.planted !== null && this.dbg.isStopped();
  }

  /**
   * Runs one scan: its result when it ran to its end, 'stopped' when the thread stopped on a hit (the scan
   * goes on once released).
   */
  async scan(params: ScanTicksParams): Promise<'stopped' | ScanResult> {
    // The ticks before the stretch replayed without the scan breakpoints (a function with one runs
    // unoptimized), set again for the stretch.
    const planted = this.planted;
    if (params.from > 0 && planted !== null && planted.ids.size > 0) {
      await removeBreakpoints(this.dbg, planted.ids);
      planted.ids.clear();
      await this.seekTo(params.from);
      for (const place of planted.places)
        planted.ids.add(
          (await this.dbg.cdp<{ breakpointId: string }>('Debugger.setBreakpointByUrl', place)).breakpointId,
        );
    }
    const outcome = new Promise<'stopped' | ScanResult | Error>((resolve) => {
      this.waiting = resolve;
    });
    const settle = (o: 'stopped' | ScanResult | Error): void => {
      const w = this.waiting;
      this.waiting = null;
      w?.(o);
    };
    this.scanRun = this.scanTicks(params).then(settle, (e: unknown) =>
      settle(e instanceof Error ? e : new Error(String(e))),
    );
    const o = await outcome;
    if (o instanceof Error)
      throw o instanceof ProtocolError ? o : new ProtocolError(`pastHit: ${o.message}`, 'replayFailed');
    return o;
  }

  /**
   * One breakpoint per generated location of the breakpoints (and the marker's, where the search starts from
   * a line stop), merged where V8 puts them at one place.
   */
  async plant(
    breakpoints: readonly ArmedBreakpoint[],
    bound: HitBound,
    ending: HitBound | null = null,
  ): Promise<Planted> {
    const wanted: Array<{
      url: string;
      line0: number;
      column0: number;
      bp: number | 'marker' | 'until';
      condition: string;
      /** A logpoint's message that throws where the condition's `false` would be (null: none). */
      throwing: string | null;
    }> = [];
    for (const [i, b] of breakpoints.entries()) {
      // The loop's own (its hits are the scan's check on the replay's loop): nothing to plant.
      if (b.atSuspension === true) continue;
      for (const at of this.dbg.generatedLocations(b.file, b.line, lineCount(b.file))) {
        wanted.push({
          url: at.url,
          line0: at.line0,
          column0: at.column0,
          bp: i,
          // A logpoint's is its message where its condition holds (logpoint-message.ts).
          condition:
            b.logMessage !== undefined && b.logMessage !== ''
              ? (b.hitCondition ?? '').trim() === ''
                ? loggedMessageExpression(b.logMessage, b.condition)
                : loggedMessageCounted(b.logMessage, b.condition)
              : b.condition === undefined
                ? 'true'
                : `(() => { try { return !!(${b.condition}); } catch { return false; } })()`,
          // Without a hit condition: a hit whose message throws counts for nothing either way.
          throwing:
            b.logMessage !== undefined && b.logMessage !== '' && (b.hitCondition ?? '').trim() === ''
              ? loggedMessageOrThrow(b.logMessage, b.condition)
              : null,
        });
      }
    }
    const top = bound.print?.frames[0];
    if (top !== undefined)
      wanted.push({ url: top.url, line0: top.line, column0: top.column, bp: 'marker', condition: '', throwing: null });
    const end = ending?.print?.frames[0];
    if (end !== undefined)
      wanted.push({ url: end.url, line0: end.line, column0: end.column, bp: 'until', condition: '', throwing: null });
    // Where V8 puts each (a requested column slides to a break location): the markers and a breakpoint at one
    // place are one breakpoint.
    const byPlace = new Map<
      string,
      {
        url: string;
        line0: number;
        column0: number;
        bps: number[];
        conditions: string[];
        throwing: Array<string | null>;
        marker: boolean;
        until: boolean;
      }
    >();
    for (const w of wanted) {
      const probe = await this.dbg
        .cdp<{
          breakpointId: string;
          locations: Array<{ scriptId: string; lineNumber: number; columnNumber?: number }>;
        }>('Debugger.setBreakpointByUrl', {
          url: w.url,
          lineNumber: w.line0,
          columnNumber: w.column0,
          condition: 'false',
        })
        .catch(() => null);
      if (probe !== null)
        await this.dbg.cdp('Debugger.removeBreakpoint', { breakpointId: probe.breakpointId }).catch(() => undefined);
      // By URL, not script: a program's modules are loaded again at each replay's start, so one URL can name
      // several scripts at once, and V8 takes one breakpoint per URL and place.
      const at = probe?.locations[0];
      const key =
        at === undefined ? `${w.url}:${w.line0}:${w.column0}` : `${w.url}:${at.lineNumber}:${at.columnNumber ?? 0}`;
      let place = byPlace.get(key);
      if (place === undefined)
        byPlace.set(
          key,
          (place = {
            url: w.url,
            line0: at?.lineNumber ?? w.line0,
            column0: at?.columnNumber ?? w.column0,
            bps: [],
            conditions: [],
            throwing: [],
            marker: false,
            until: false,
          }),
        );
      if (w.bp === 'marker') place.marker = true;
      else if (w.bp === 'until') place.until = true;
      else if (!place.bps.includes(w.bp)) {
        place.bps.push(w.bp);
        place.conditions.push(w.condition);
        place.throwing.push(w.throwing);
      }
    }
    const ids = new Set<string>();
    const locations: number[][] = [];
    let markerLocation: number | null = null;
    const places: Planted['places'] = [];
    let untilLocation: number | null = null;
    for (const [key, place] of byPlace) {
      const index = locations.length;
      locations.push(place.bps);
      if (place.marker) markerLocation = index;
      if (place.until) untilLocation = index;
      // A logpoint alone at its place: its message unwrapped (a closure evaluated at every hit costs V8 about
      // as much again as the break itself). Where it throws, no scanHit is made: no hit, nothing counted, as
      // its `false` does; a marker or another breakpoint at the place needs the call whatever it throws.
      const alone = place.bps.length === 1 && !place.marker && !place.until ? place.throwing[0] : null;
      const met = `[${alone ?? place.conditions.join(', ')}]`;
      // A message or condition that may read a random number or a clock reads it as the debugger (outside-values.ts).
      const reads = place.bps.some((i) => mayReadOutside(breakpoints[i]!.condition, breakpoints[i]!.logMessage));
      const condition = `globalThis.__coroscopeLine.scanHit(${index}, ${reads ? lookedAt(met) : met})`;
      try {
        const at = { url: place.url, lineNumber: place.line0, columnNumber: place.column0, condition };
        places.push(at);
        const r = await this.dbg.cdp<{ breakpointId: string }>('Debugger.setBreakpointByUrl', at);
        ids.add(r.breakpointId);
      } catch (e) {
        await removeBreakpoints(this.dbg, ids);
        throw new ProtocolError(`pastHit: cannot arm ${key}: ${e instanceof Error ? e.message : String(e)}`, 'failed');
      }
    }
    const planted: Planted = { ids, locations, markerLocation, untilLocation, places };
    this.planted = planted;
    this.dbg.setWalkHook(
      ids,
      (paused) => this.onHit(paused),
      () => this.waiting?.('stopped'),
    );
    await this.dbg.cdp('Debugger.setBreakpointsActive', { active: true });
    return planted;
  }

  /**
   * A scan breakpoint paused the thread: the marker (is it the stop searched from?), the live stop a forward
   * search ends at, or the hit asked for.
   */
  private async onHit(paused: CdpPaused): Promise<'resume' | 'stop'> {
    const why = await this.dbg.callMain('scanPause()').catch(() => null);
    if (why === 'stop') return 'stop';
    if (why === 'until') {
      const live = this.untilPrint;
      const reached =
        live !== null && live !== undefined && (await isAtStop(this.dbg, this.dbg.walkFrames(paused), live));
      return (await this.dbg.callMain(`scanUntil(${reached})`).catch(() => false)) === true ? 'stop' : 'resume';
    }
    if (why !== 'marker') return 'resume';
    const print = this.print;
    const matched =
      print !== null && print !== undefined && (await isAtStop(this.dbg, this.dbg.walkFrames(paused), print));
    const stop = await this.dbg.callMain(`scanMarked(${matched})`).catch(() => false);
    return stop === true ? 'stop' : 'resume';
  }
}

/** A file's number of lines, as far as a breakpoint's line may slide (0 when unreadable: no slide). */
export function lineCount(file: string): number {
  try {
    return readFileSync(file, 'utf8').split('\n').length;
  } catch {
    return 0;
  }
}

/** Removes the breakpoints `ids` (one already gone, or not set, is no matter). */
async function removeBreakpoints(dbg: LineDebugger, ids: Iterable<string>): Promise<void> {
  for (const id of ids) await dbg.cdp('Debugger.removeBreakpoint', { breakpointId: id }).catch(() => undefined);
}
