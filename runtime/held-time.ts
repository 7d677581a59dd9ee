// The time this thread has spent held by a debugger (stopped on a line through node:inspector),
// and the clocks that leave it out: how long code *ran* (runningNow) and the event loop's
// MonotonicClock (clock.ts), which stands still while a person looks. The debugger counts each
// hold from its own thread into a counter in shared memory (shareHeldTime, holdBegan,
// addHeldTime); what a hold misses, measured, is in docs/design/held-time.md.
//
// Invariants: heldMs() and holdCount() never decrease, so a duration measured with runningNow()
// is never more than the same one measured with performance.now(), and never negative; a
// callback during which the thread was held is not timed (slow steps, never-yields);
// holdUnderWay() is true only between holdBegan() and the addHeldTime() that ends that hold,
// and holdStamp() changes at both. Without a shared counter runningNow() is performance.now().

/** performance.now() as Node reads it, taken before a program's reads are wrapped (outside-values.ts). */
const nodeNow = performance.now.bind(performance);
/** The wrapper outside-values.ts puts in performance.now's place, once it has (null: not yet). */
let programNow: (() => number) | null = null;

/** @internal outside-values.ts tells its wrapper, which realNow() passes over. */
export function setProgramNow(wrapper: () => number): void {
  programNow = wrapper;
}

/**
 * performance.now() for the runtime's own timings, never a program's read: Node's, past the program's wrapper.
 * Whatever else stands in its place is read (a test steps the clocks by hand that way).
 */
export function realNow(): number {
  const now = performance.now;
  return now === programNow ? nodeNow() : now.call(performance);
}

let held: BigInt64Array | null = null;
let stamps: Int32Array | null = null;

/** Int64 slots of the shared counter: microseconds held, holds ended. */
const HELD_US = 0;
const HOLDS = 1;
/**
 * The Int32 at byte 16: a stamp that changes at every hold's start and end, odd while one is under way (one
 * Int32 load tells a reader whether to read the rest).
 */
const STAMP = 4;

/** Bytes of the shared memory a debugger counts in (two Int64s and the stamp). */
export const HELD_TIME_BYTES = 24;

function counter(buffer: SharedArrayBuffer): BigInt64Array {
  return new BigInt64Array(buffer, 0, 2);
}

function stampOf(buffer: SharedArrayBuffer): Int32Array {
  return new Int32Array(buffer, 0, STAMP + 1);
}

/** Makes `buffer` (HELD_TIME_BYTES or more) this thread's held-time counter. */
export function shareHeldTime(buffer: SharedArrayBuffer): void {
  held = counter(buffer);
  stamps = stampOf(buffer);
}

/** A hold of the thread counting in `buffer` has begun (called by the thread that holds it, its only writer). */
export function holdBegan(buffer: SharedArrayBuffer): void {
  const s = stampOf(buffer);
  const stamp = Atomics.load(s, STAMP);
  if ((stamp & 1) === 0) Atomics.store(s, STAMP, stamp + 1);
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
  // Written last: a reader that sees the new stamp sees the new counts.
  const s = stampOf(buffer);
  Atomics.store(s, STAMP, (Atomics.load(s, STAMP) | 1) + 1);
}

/** Milliseconds this thread has been held by a debugger so far (holds that ended). */
export function heldMs(): number {
  return held === null ? 0 : Number(Atomics.load(held, HELD_US)) / 1000;
}

/** How many holds of this thread have ended so far. */
export function holdCount(): number {
  return held === null ? 0 : Number(Atomics.load(held, HOLDS));
}

/** Changes at every start and end of a hold of this thread; odd while one is under way; 0 without a counter. */
export function holdStamp(): number {
  return stamps === null ? 0 : Atomics.load(stamps, STAMP);
}

/** True while a debugger holds this thread (it runs only what the debugger evaluates meanwhile). */
export function holdUnderWay(): boolean {
  return (holdStamp() & 1) === 1;
}

/** performance.now() less the time held: the clock for how long code ran. */
export function runningNow(): number {
  return held === null ? realNow() : realNow() - heldMs();
}
