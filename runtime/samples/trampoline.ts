// Sample 7d, from the asyncio-vs-Node article: coroutines on a loop that keeps each task's
// stack of generators itself, doing by hand what `yield*` does (see trampoline-loop.ts).

import { SOURCES, type Sample } from './sample';
import { SleepFor, TrampolineLoop, type TrampolineCoroutine } from './trampoline-loop';
import { Transcript } from './transcript';

const FIB_N = 24;
const TICK_SECONDS = 0.02;

/** Recursive Fibonacci as trampolined coroutines: each call is a `yield` of the callee's generator. */
function* fib(n: number): TrampolineCoroutine {
  if (n < 2) return n;
  const a = (yield fib(n - 1)) as number;
  const b = (yield fib(n - 2)) as number;
  return a + b;
}

export const trampolineSample: Sample = {
  id: 'trampoline',
  ownLoop: true,
  title: 'A coroutine loop with explicit stacks (a trampoline)',
  chapter: `${SOURCES.asyncioVsNode}: the event loop with coroutines, after PEP 342's trampoline`,
  explanation:
    'Here a coroutine calls another by yielding the callee generator, not with yield*. ' +
    'The loop does what yield* would: it pushes the caller on the task\'s own stack, runs the callee, then pops the caller and sends it the return value, or throws the callee\'s error into it. ' +
    `Recursive fib(${FIB_N}) becomes hundreds of thousands of such bounces, and every bounce is a chance for the loop to run another task: the ticker keeps printing while fib is computed on the same thread. ` +
    'The deepest stack the loop kept equals the recursion depth. ' +
    'At the end an error raised two calls deep travels up the explicit stack to a try/catch, exactly as through yield*.',
  async run(ctx) {
    const t = new Transcript(ctx);
    const loop = new TrampolineLoop();
    let fibDone = false;
    let ticksDuringFib = 0;
    const ticker = function* ticker(): Generator<unknown, void, unknown> {
      for (let i = 1; !fibDone; i++) {
        t.log(`tick ${i} at +${loop.time().toFixed(3)} s`);
        ticksDuringFib++;
        yield new SleepFor(TICK_SECONDS);
      }
    };
    const fibReport = function* fibReport(): Generator<unknown, void, unknown> {
      t.log(`fib(${FIB_N}) starts`);
      const value = (yield fib(FIB_N)) as number;
      fibDone = true;
      t.log(`fib(${FIB_N}) = ${value} at +${loop.time().toFixed(3)} s, after ${loop.bounces} bounces; deepest stack: ${loop.deepestStack} waiting callers`);
      t.check(value === 46368, `fib(${FIB_N}) is 46368`);
    };
    const failing = function* failing(): TrampolineCoroutine {
      yield new SleepFor(0.001);
      throw new Error('failure two calls down');
    };
    const middle = function* middle(): TrampolineCoroutine {
      return yield failing();
    };
    const catcher = function* catcher(): TrampolineCoroutine {
      try {
        yield middle();
        t.log('not reached');
      } catch (error) {
        t.log(`caught at the top of the explicit stack: "${(error as Error).message}"`);
        return 'caught';
      }
      return 'not caught';
    };
    loop.spawn(ticker());
    loop.spawn(fibReport());
    await loop.run();
    t.note('bounces', loop.bounces);
    t.note('deepestStack', loop.deepestStack);
    t.note('ticks', ticksDuringFib);
    t.check(ticksDuringFib >= 2, 'the ticker ran while fib was being computed');
    t.check(loop.deepestStack === FIB_N, `the deepest stack is the recursion depth, ${FIB_N}`);

    const errors = new TrampolineLoop();
    let verdict: unknown = null;
    const record = function* record(): Generator<unknown, void, unknown> {
      verdict = yield catcher();
    };
    errors.spawn(record());
    await errors.run();
    t.check(verdict === 'caught' && errors.failures.length === 0, 'the error was caught two frames up');
    return t.outcome();
  },
};
