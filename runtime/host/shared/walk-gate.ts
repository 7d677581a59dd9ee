// Runs on a line replay host's main thread, called as the walked task's step starts in a traced tick
// (ReplayHostServices.replayLineTick's `gate`). Its worker breaks on the call (a breakpoint on the
// function: Debugger.setBreakpointOnFunctionCall, the bridge's handle names it) and plants the
// walk's breakpoints there (traced-tick-walk.ts). The other tasks' steps of the tick run before
// it with none set: each would have V8 evaluate a condition at every break location of the
// walked functions they pass (in a tick of a hundred workers, hundreds of them).
//
// Invariants: it does nothing itself; one function object per process, called only with a gate asked.

/** The walk's gate: its call is where a walk's breakpoints are planted (see the header). */
export function walkGate(): void {
  // Nothing here: the worker's breakpoint on this call is the point.
}
