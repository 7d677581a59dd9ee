// The CPU-bound work of the asyncio-vs-Node article's samples: Fibonacci numbers computed the
// slowest way (exponential recursion), so that a single call keeps a thread busy for a while.
//
// The article prints "Hello" every 3 seconds while computing; the samples print every
// TICK_PERIOD_SECONDS so they finish quickly. How long fib(n) takes depends on the machine, so
// `chooseFibN` measures a small one and picks the n that takes about the wanted time here.

/** The article's 3 seconds, shortened. */
export const TICK_PERIOD_SECONDS = 0.3;

export function fib(n: number): number {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

const GOLDEN_RATIO = (1 + Math.sqrt(5)) / 2;
const PROBE_N = 25;
const PROBE_RUNS = 15;

/**
 * The smallest n whose fib(n) should take at least `seconds` on this machine (within 25..40).
 * The speed is the fastest of many short runs: a run slowed down because other processes had
 * the CPU would make n too small, and then the computation too short to show anything.
 */
export function chooseFibN(seconds: number): number {
  let fastest = Infinity;
  for (let i = 0; i < PROBE_RUNS; i++) {
    const t0 = performance.now();
    fib(PROBE_N);
    fastest = Math.min(fastest, (performance.now() - t0) / 1000);
  }
  const perCall = Math.max(fastest, 1e-6);
  const n = PROBE_N + Math.ceil(Math.log(seconds / perCall) / Math.log(GOLDEN_RATIO));
  return Math.min(40, Math.max(25, n));
}
