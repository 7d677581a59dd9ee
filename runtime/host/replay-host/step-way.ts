// Runs only on a line replay host's worker thread. What a forward step's or Continue's search
// (past-hit-search.ts, from the line a step left to its landing, `until`) tells beside a hit on the way:
// whether the landing itself holds a breakpoint's hit (the live step says 'breakpoint' there), and the
// logpoints' messages met on the way, which the live step or Continue prints (before a line hit, through a
// loop breakpoint's tick) (docs/design/breakpoint-search.md, "Continue and steps from a past line").
//
// Invariants: messages come in replay order, from the moment the search starts from (its marker) on, the
// landing's own included; a search stopped on a hit tells those before it only.

import type { ArmedBreakpoint, BreakpointHitLanding, ScanTicksResult } from '../../../protocol/host-protocol';
import type { LineDebugger } from '../worker/line-debugger';
import { messagesAfter } from '../shared/hit-scan';

/**
 * A search that found no hit before `until`: with the breakpoint hit at `until` itself, if any, and the
 * logpoints' messages met since the marker (in ticks after `start`, the tick before the search's moment).
 */
export function wayToUntil(
  none: BreakpointHitLanding,
  r: ScanTicksResult,
  breakpoints: readonly ArmedBreakpoint[],
  start: number,
): BreakpointHitLanding {
  if (none.landed !== 'none') return none;
  const bp = r.untilHit === undefined ? undefined : breakpoints[r.untilHit];
  const printed = messagesAfter(r.hits, r.marked, start);
  return {
    ...none,
    ...(bp === undefined ? {} : { atUntil: { file: bp.file, line: bp.line } }),
    ...(printed.length === 0 ? {} : { printed }),
  };
}

/** A hit the search stopped on: with the logpoints' messages met before it, asked of the scan while it holds. */
export async function printedBefore(dbg: LineDebugger, hit: BreakpointHitLanding): Promise<BreakpointHitLanding> {
  const printed = await dbg.callMain('scanPrinted()').catch(() => []);
  return Array.isArray(printed) && printed.length > 0 && hit.landed === 'line'
    ? { ...hit, printed: printed.map(String) }
    : hit;
}

/**
 * A scan run whole (a forward search with a loop breakpoint armed): the logpoints' messages met after the
 * marker (and `start`) through tick `through`, the tick after which the loop's stop comes.
 */
export function printedThrough(r: ScanTicksResult, start: number, through: number): string[] {
  return messagesAfter(
    r.hits.filter((h) => h.tick <= through),
    r.marked,
    start,
  );
}

/** A scan run whole: the logpoints' messages met after the marker (and `start`) before the hit `hits[index]`. */
export function printedBeforeHit(r: ScanTicksResult, start: number, index: number): string[] {
  return messagesAfter(r.hits.slice(0, index), r.marked, start);
}

/** A landing with the messages printed on the way to it (none: as it is). */
export function withPrinted(landing: BreakpointHitLanding, printed: readonly string[]): BreakpointHitLanding {
  if (printed.length === 0 || landing.landed === 'none') return landing;
  return { ...landing, printed: [...printed] };
}
