// keepSuspendedLocals(): makes V8 keep every local of a suspended generator, so that what the
// inspector reads of a suspended coroutine (node:inspector's [[Scopes]] of the generator
// object: runtime/inspect/generator-reader.ts) is what the frame holds, however hot its code.
//
// Why: a suspended generator's locals live in the registers it saved at its `yield`. The
// interpreter and Sparkplug save them all; V8's optimizing compilers save only those the
// generator still reads after that `yield` and store "optimized out" for the others, which
// the debugger hands back as `undefined`. So one frame of waitReadable read `fut: <Future
// pending socket.read …>`, `kind: "socket.read"` while its code was cold, and `fut:
// undefined`, `kind: undefined` once it was hot: in the host's replays of the past (they run
// in the live run's isolate, on the code the whole run made hot), at late ticks of long runs,
// in a replay process after its first few hundred ticks. The fix is at that cause:
// - TurboFan keeps every register at a suspension when it is built without liveness
//   analysis (`--no-analyze-environment-liveness`; it then also keeps dead values in its
//   deoptimization frames). Measured: CPU of a
//   2,000-page `coroscope crawl --demo --instant --inspect`, median of 5, 2.22 -> 2.34 s;
// - Maglev (on by default in newer V8s, Electron's among them) always drops the dead
//   registers of a generator: it is turned off (`--no-maglev`); TurboFan optimizes instead.
//
// Invariants: flags of the compilers only (what optimized code keeps, never what a program
// computes); process-wide (worker threads included); idempotent. Code optimized before the
// first call keeps its choice until it is deoptimized, so a process that reads frames calls
// this before the program's code runs: setCoroutineTracking(true) does (coroutine.ts: frames
// are read only with tracking on, turned on before the coroutines are created), and the
// runtime host at its start.

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
