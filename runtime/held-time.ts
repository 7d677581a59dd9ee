// The time this thread has spent held by a debugger (stopped on a line through node:inspector),
// and the clock that leaves it out: how long code *ran*. A task step stopped on a breakpoint
// for five seconds did not block the loop for five seconds, so the slow-step report, the
// never-yields lint and a task's busy time measure with runningNow(), not performance.now().
//
// The debugger holding the thread cannot tell it anything while it is held, so it counts from
// its own thread: shareHeldTime() gives this thread a counter in shared memory (microseconds,
// an Int64 written with Atomics) that the debugger adds each hold to before it lets the thread
// go on. Without a shared counter nothing is held and runningNow() is performance.now().
//
// Invariant: heldMs() never decreases, so a duration measured with runningNow() is never more
// than the same duration measured with performance.now(), and never negative.

let held: BigInt64Array | null = null;

/** Bytes of the shared memory a debugger counts in (one Int64). */
export const HELD_TIME_BYTES = 8;

/** Makes `buffer` (HELD_TIME_BYTES or more) this thread's held-time counter. */
export function shareHeldTime(buffer: SharedArrayBuffer): void {
  held = new BigInt64Array(buffer, 0, 1);
}

/** Adds a hold of `ms` to the counter in `buffer` (called by the thread that held this one). */
export function addHeldTime(buffer: SharedArrayBuffer, ms: number): void {
  if (ms > 0) Atomics.add(new BigInt64Array(buffer, 0, 1), 0, BigInt(Math.round(ms * 1000)));
}

/** Milliseconds this thread has been held by a debugger so far. */
export function heldMs(): number {
  return held === null ? 0 : Number(Atomics.load(held, 0)) / 1000;
}

/** performance.now() less the time held: the clock for how long code ran. */
export function runningNow(): number {
  return held === null ? performance.now() : performance.now() - heldMs();
}
