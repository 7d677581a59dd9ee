// keepSuspendedLocals(): makes V8 keep every local of a suspended generator, so that what the
// inspector reads of a suspended coroutine ([[Scopes]] of the generator object:
// runtime/inspect/generator-reader.ts) is what the frame holds, however hot its code: TurboFan
// without liveness analysis, Maglev off. Why, and what it costs, is in
// docs/design/suspended-locals.md.
//
// Invariants: flags of the compilers only (what optimized code keeps, never what a program
// computes); process-wide (worker threads included); idempotent. Code optimized before the
// first call keeps its choice until deoptimized, so a process that reads frames calls this
// before the program's code runs (setCoroutineTracking(true) does, and the runtime host at its start).

import { setFlagsFromString } from 'node:v8';

/** The V8 flags that make optimized generators save every register at a suspension. */
export const KEEP_SUSPENDED_LOCALS_FLAGS: readonly string[] = ['--no-analyze-environment-liveness', '--no-maglev'];

let kept = false;

/** From now on, code V8 optimizes keeps every local of a suspended generator (see the header). */
export function keepSuspendedLocals(): void {
  if (kept) return;
  kept = true;
  for (const flag of KEEP_SUSPENDED_LOCALS_FLAGS) setFlagsFromString(flag);
}

/** True once keepSuspendedLocals has run in this process. */
export function suspendedLocalsKept(): boolean {
  return kept;
}
