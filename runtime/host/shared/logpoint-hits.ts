// Loaded by a live runtime host's line debugger worker and by the CLI's `replay --log`: logpoints in
// the past as their lists say them. A client's logpoint becomes the breakpoint a line replay host's
// scan arms (armedLogpoint), and the scan's hits (ScanHit, in replay order) become the list's entries
// (logpointHitsOf): the logpoint's place, the hit's tick, time and task, its message, and its ordinal
// among that logpoint's hits of its tick (the handle pastBreakpointHit's `logpointHit` goes back by).
//
// Invariants: the entries keep the scan's order; ordinals count from 0 per logpoint and tick; a hit
// without a time of its own takes its tick's from `tickTimes` (0 when that is not known either).

import type { ArmedBreakpoint, Breakpoint, LogpointHit, ScanHit } from '../../../protocol/host-protocol';

/** A logpoint as a replay of the past arms it (its hit condition counted from the run's start). */
export function armedLogpoint(b: Breakpoint): ArmedBreakpoint {
  const out: ArmedBreakpoint = { file: b.file, line: b.line };
  if (b.condition !== undefined && b.condition.trim() !== '') out.condition = b.condition;
  if (b.hitCondition !== undefined && b.hitCondition.trim() !== '') out.hitCondition = b.hitCondition;
  if (b.logMessage !== undefined && b.logMessage !== '') out.logMessage = b.logMessage;
  return out;
}

/** Whether a scan's hits lack a time of their own (the timeline's tick times are then needed). */
export function hitsNeedTickTimes(hits: readonly ScanHit[]): boolean {
  return hits.some((h) => h.time === undefined);
}

/** The list's entries of a scan's `hits` of `logpoints` (ScanHit.bp indexes them), in the scan's order. */
export function logpointHitsOf(
  hits: readonly ScanHit[],
  logpoints: readonly Breakpoint[],
  tickTimes: readonly number[],
): LogpointHit[] {
  const ordinals = new Map<string, number>();
  return hits.map((h): LogpointHit => {
    const lp = logpoints[h.bp]!;
    const key = `${h.bp}:${h.tick}`;
    const ordinal = ordinals.get(key) ?? 0;
    ordinals.set(key, ordinal + 1);
    return {
      logpoint: h.bp,
      file: lp.file,
      line: lp.line,
      tick: h.tick,
      ordinal,
      taskId: h.taskId,
      task: h.taskName === undefined || h.taskName === '' ? null : h.taskName,
      time: h.time ?? tickTimes[h.tick - 1] ?? 0,
      message: h.message ?? '',
    };
  });
}
