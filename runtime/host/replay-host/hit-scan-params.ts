// Runs only on a line replay host's worker thread (a runtime host started with --line-replay). What a
// past hit search (past-hit-search.ts) asks a scan of a stretch (ScanTicksParams: the breakpoints as
// counted, the counts before, the places planted, its markers) and how it checks and reads the answer
// (a replay that missed a marker refused; a hit's ordinal in its tick): pure functions.
//
// Invariants: hit conditions count as the live debugger's do, since set (hit-count.ts); a marker or
// `until` is asked only of a scan through its own tick; a replay that ended that tick without reaching
// it is refused ('replayFailed'): it is not the run that was recorded.

import type {
  ArmedBreakpoint,
  HitBound,
  ScanHit,
  ScanTicksParams,
  ScanTicksResult,
} from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import { scanCounting } from '../../inspect/hit-count';
import type { Planted } from './scan-breakpoints';

/** A scan of ticks from+1 .. to with `breakpoints` as planted (no marker, no stop: the caller adds them). */
export function stretchParams(
  breakpoints: readonly ArmedBreakpoint[],
  planted: Planted,
  from: number,
  to: number,
): ScanTicksParams {
  return {
    from,
    to,
    breakpoints: asScanned(breakpoints),
    counts: countsBefore(breakpoints),
    locations: planted.locations,
  };
}

/**
 * The breakpoints as a scan counts them (hit conditions: hit-count.ts), a suspension breakpoint with what
 * the loop's check needs.
 */
function asScanned(breakpoints: readonly ArmedBreakpoint[]): ScanTicksParams['breakpoints'] {
  return breakpoints.map((b) => {
    const { hitCondition, since } = scanCounting(b);
    const out: ScanTicksParams['breakpoints'][number] =
      hitCondition === undefined ? {} : since === undefined ? { hitCondition } : { hitCondition, since };
    if (b.task !== undefined) out.task = b.task;
    if (b.atSuspension === true)
      out.atSuspension =
        b.condition === undefined
          ? { file: b.file, line: b.line }
          : { file: b.file, line: b.line, condition: b.condition };
    return out;
  });
}

/** The hits counted before a stretch, per breakpoint: the live debugger's, for one set while the run went. */
function countsBefore(breakpoints: readonly ArmedBreakpoint[]): number[] {
  return breakpoints.map((b) => scanCounting(b).before);
}

/** The marker of the line stop `bound` a scan through its tick (`to`) checks for (undefined: none). */
export function markerOf(bound: HitBound, planted: Planted, to: number): ScanTicksParams['marker'] {
  if (bound.print === undefined || bound.taskId === undefined || planted.markerLocation === null || to !== bound.tick)
    return undefined;
  return { location: planted.markerLocation, tick: bound.tick, taskId: bound.taskId };
}

/** `until` when it is a live line stop in tick `ceiling` a scan can end at (its frames and task known); else null. */
export function liveEnding(until: HitBound | null, ceiling: number): HitBound | null {
  return until !== null && until.tick === ceiling && until.print !== undefined && until.taskId !== undefined
    ? until
    : null;
}

/**
 * A forward search from a past line of a live line stop ends at that stop, in its tick (`until`: hits after
 * it are the present's).
 */
export function endAt(params: ScanTicksParams, ending: HitBound | null, planted: Planted): void {
  if (ending === null || ending.taskId === undefined || planted.untilLocation === null || params.to !== ending.tick)
    return;
  params.until = { location: planted.untilLocation, tick: ending.tick, taskId: ending.taskId };
}

/** A scan that was to mark the line shown ran its tick to the end without reaching it: refused. */
export function checkMarked(params: ScanTicksParams, r: ScanTicksResult): void {
  if (params.marker !== undefined && r.marked === null)
    throw new ProtocolError(
      `pastHit: the replay of tick ${params.marker.tick} ran to its end without reaching the line shown: it is not the run that was recorded`,
      'replayFailed',
    );
}

/** A scan that was to end at the live line stop ran its tick to the end without reaching it: refused. */
export function checkEnded(params: ScanTicksParams, r: ScanTicksResult): void {
  if (params.until !== undefined && r.untilReached !== true)
    throw new ProtocolError(
      `pastHit: the replay of tick ${params.until.tick} ran to its end without reaching the live stop: it is not the run that was recorded`,
      'replayFailed',
    );
}

/** Which hit of its tick `hits[index]` is (0: the first): the hits of a stretch come in replay order. */
export function ordinalOf(hits: readonly ScanHit[], index: number): number {
  let first = index;
  while (first > 0 && hits[first - 1]!.tick === hits[index]!.tick) first--;
  return index - first;
}
