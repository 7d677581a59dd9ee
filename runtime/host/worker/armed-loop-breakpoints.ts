// Runs on a runtime host's line debugger worker thread (live or line replay host).
// ArmedLoopBreakpoints: the line breakpoints on `yield` lines the worker sends on to the loop,
// kept as a breakpoint search of the past arms them (ArmedBreakpoint.atSuspension), beside the
// line debugger's own.
//
// Invariants: a file's breakpoints are replaced whole, as the loop's are; logpoints are left out;
// a hit condition counts as the loop's does (from the run's start when set before it or after it
// ended, else from the tick after it was set); a new run (newRun) counts from its start again.

import { resolve as resolvePath } from 'node:path';
import type { ArmedBreakpoint, Breakpoint, BreakpointStatus } from '../../../protocol/host-protocol';
import { HitsSince, type BreakpointsSetAt } from '../../inspect/hit-count';

interface FileBreakpoints {
  readonly breakpoints: ArmedBreakpoint[];
  /**
   * Since when the file's hit conditions count (hit-count.ts; null: from the run's start; the tick unknown
   * until the main thread has said it).
   */
  since: HitsSince | null;
}

export class ArmedLoopBreakpoints {
  private readonly files = new Map<string, FileBreakpoints>();

  /** The file's breakpoints as the loop verified them (`statuses`, in order), set at `setAt`. */
  set(
    file: string,
    breakpoints: readonly Breakpoint[],
    statuses: readonly BreakpointStatus[],
    setAt: BreakpointsSetAt,
  ): void {
    const path = resolvePath(file);
    const armed: ArmedBreakpoint[] = [];
    breakpoints.forEach((b, i) => {
      if (statuses[i]?.verified !== true || (b.logMessage !== undefined && b.logMessage !== '')) return;
      const bp: ArmedBreakpoint = { file: path, line: b.line, atSuspension: true };
      if (b.condition !== undefined && b.condition.trim() !== '') bp.condition = b.condition;
      if (b.hitCondition !== undefined && b.hitCondition.trim() !== '') bp.hitCondition = b.hitCondition;
      armed.push(bp);
    });
    if (armed.length === 0) {
      this.files.delete(path);
      return;
    }
    // The loop's count starts again at each set of the file: no hit of it is counted before (no tick noted).
    this.files.set(path, { breakpoints: armed, since: HitsSince.from(setAt) });
  }

  /** A new run (a launch, a recording opened): the hit conditions count from its start. */
  newRun(): void {
    for (const f of this.files.values()) f.since = null;
  }

  /** The breakpoints set, as a search of the past arms them. */
  armed(): ArmedBreakpoint[] {
    const out: ArmedBreakpoint[] = [];
    for (const f of this.files.values()) {
      const since = f.since?.offset() ?? null;
      for (const b of f.breakpoints)
        out.push(b.hitCondition !== undefined && since !== null ? { ...b, hitsSince: since } : { ...b });
    }
    return out;
  }
}
