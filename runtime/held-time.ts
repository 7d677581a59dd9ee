// The time this thread has spent held by a debugger (stopped on a line through node:inspector),
// and the clocks that leave it out: how long code *ran* (runningNow) and the event
// loop's MonotonicClock (clock.ts), which stands still while a person looks.
// A task step stopped on a breakpoint for five seconds did not block the loop for five
// seconds, so a task's busy time measures with runningNow(), not performance.now(), the
// slow-step report and the never-yields lint do not time a held step at all (below), and no
// timer of the loop expires because of the stop.
//
// The debugger holding the thread cannot tell it anything while it is held, so it counts from
// its own thread: shareHeldTime() gives this thread a counter in shared memory (Int64s written
// with Atomics) that the debugger marks when a hold begins (holdBegan) and adds each hold to,
// in microseconds, before it lets the thread go on (addHeldTime). Without a shared counter
// nothing is held and runningNow() is performance.now().
//
// A hold is counted from the moment the debugger hears of it to the moment it asks the thread
// to go on; what it misses is not small when a line step goes through a task: each step
// through the runtime's machinery is a hold, V8 runs stepped code with its break checks, and
// the pauses and resumes travel between the threads as messages (measured on the demo crawl,
// 12 line steps: 0.42 s of a task step's 1.2 s not counted over its 16 holds, 0.48 s of another's
// 0.65 s over 5, one gap of 0.37 s between a resume and the next stop). A callback during which the thread was held has no
// duration of its own to tell, so holds are counted too (holdCount) and such a callback is
// not timed (the slow-callback report, the never-yields lint).
//
// Invariants: heldMs() and holdCount() never decrease, so a duration measured with
// runningNow() is never more than the same duration measured with performance.now(), and
// never negative; holdUnderWay() is true only between holdBegan() and the addHeldTime() that
// ends that hold (the thread runs in that window only for what the debugger evaluates in it).

let held: BigInt64Array | null = null;

/** Slots of the shared counter. */
const HELD_US = 0;
const HOLDS = 1;
const UNDER_WAY = 2;

/** Bytes of the shared memory a debugger counts in (three Int64s). */
export const HELD_TIME_BYTES = 24;

function counter(buffer: SharedArrayBuffer): BigInt64Array {
  return new BigInt64Array(buffer, 0, 3);
}

/** Makes `buffer` (HELD_TIME_BYTES or more) this thread's held-time counter. */
export function shareHeldTime(buffer: SharedArrayBuffer): void {
  held = counter(buffer);
}

/** A hold of the thread counting in `buffer` has begun (called by the thread that holds it). */
export function holdBegan(buffer: SharedArrayBuffer): void {
  Atomics.store(counter(buffer), UNDER_WAY, 1n);
}

/**
 * Ends a hold of `ms` of the thread counting in `buffer` (called by the thread that held it,
 * before it lets it go on): its time and one hold are added, and no hold is under way. A
 * negative `ms` is no hold.
 */
export function addHeldTime(buffer: SharedArrayBuffer, ms: number): void {
  const c = counter(buffer);
  if (ms >= 0) {
    Atomics.add(c, HELD_US, BigInt(Math.round(ms * 1000)));
    Atomics.add(c, HOLDS, 1n);
  }
  Atomics.store(c, UNDER_WAY, 0n);
}

/** Milliseconds this thread has been held by a debugger so far (holds that ended). */
export function heldMs(): number {
  return held === null ? 0 : Number(Atomics.load(held, HELD_US)) / 1000;
}

/** How many holds of this thread have ended so far. */
export function holdCount(): number {
  return held === null ? 0 : Number(Atomics.load(held, HOLDS));
}

/** True while a debugger holds this thread (it runs only what the debugger evaluates meanwhile). */
export function holdUnderWay(): boolean {
  return held !== null && Atomics.load(held, UNDER_WAY) !== 0n;
}

/** performance.now() less the time held: the clock for how long code ran. */
export function runningNow(): number {
  return held === null ? performance.now() : performance.now() - heldMs();
}

