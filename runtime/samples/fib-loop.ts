// Sample 7b, from the asyncio-vs-Node article: the same program on one loop. The Fibonacci
// number is computed inside a task's step, the loop cannot run anything else meanwhile, the
// ticker comes late, and the loop's debug mode reports the slow step.

import { coroutine } from '../coroutine';
import type { LoopLogger } from '../loop';
import { getRunningLoop } from '../running-loop';
import { sleep } from '../sleep';
import type { Coroutine } from '../task';
import { TICK_PERIOD_SECONDS, chooseFibN, fib } from './fib';
import { runOnLoop } from './run-on-loop';
import { SOURCES, measuredBy, type Sample } from './sample';
import { ticker, type TickRecord } from './ticker';
import { Transcript } from './transcript';

const computeOnTheLoop = coroutine(function* computeOnTheLoop(t: Transcript, n: number): Coroutine<number> {
  // As if the user typed n half a period after the start.
  yield* sleep(TICK_PERIOD_SECONDS / 2);
  const t0 = performance.now();
  const value = fib(n); // one step of this task: the loop waits until it returns
  t.log(`fib(${n}) = ${value}, computed on the loop in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  return value;
});

const fibBlockingTheLoop = coroutine(function* fibBlockingTheLoop(t: Transcript, n: number, ticks: TickRecord, warnings: string[]): Coroutine<void> {
  // Said here, in the first step, so that a run held at entry has printed nothing yet.
  t.log(`computing fib(${n}) on the loop, half a period after the start; it takes at least ${(TICK_PERIOD_SECONDS * 1.5).toFixed(2)} s here`);
  const loop = getRunningLoop();
  const previousDebug = loop.getDebug();
  const previousLogger = loop.logger;
  const capture: LoopLogger = {
    warn: (message) => {
      warnings.push(message);
      t.log(`loop warning: ${message}`);
    },
    error: (message) => previousLogger.error(message),
  };
  loop.setDebug(true);
  loop.logger = capture;
  const tick = loop.createTask(ticker(t, TICK_PERIOD_SECONDS, ticks), { name: 'ticker' });
  try {
    yield* loop.createTask(computeOnTheLoop(t, n), { name: 'fib' });
    // One more period, so the ticker shows it is back on time.
    yield* sleep(TICK_PERIOD_SECONDS * 1.2);
  } finally {
    tick.cancel();
    loop.setDebug(previousDebug);
    loop.logger = previousLogger;
  }
});

export const fibLoopSample: Sample = {
  id: 'fib-loop',
  ownLoop: false,
  title: 'One loop blocked by CPU work, caught by the slow-callback warning',
  chapter: `${SOURCES.asyncioVsNode}: the same program on one event loop, where Fibonacci blocks the ticks`,
  explanation:
    'The same ticker, but now fib(n) runs inside a task on the loop itself. ' +
    'A coroutine only gives the loop back at a yield*, and fib has none: the whole computation is a single step, and while it runs no other callback or task can. ' +
    'Look at the tick after the computation: it comes late by about the time fib took. ' +
    'The loop runs in debug mode here, so it times every step and warns about any longer than slowCallbackDuration (0.1 s), naming the task. ' +
    'This is Node\'s situation too: one thread, so CPU-bound work belongs on a worker thread (fib-threads).',
  async run(ctx) {
    const t = new Transcript(ctx);
    const n = measuredBy(ctx, 'fibN', () => chooseFibN(TICK_PERIOD_SECONDS * 1.5));
    t.note('n', n);
    const ticks: TickRecord = { count: 0, maxLateness: 0 };
    const warnings: string[] = [];
    await runOnLoop(ctx.loop, fibBlockingTheLoop(t, n, ticks, warnings), fibBlockingTheLoop.name);
    t.note('ticks', ticks.count);
    t.note('maxLatenessSeconds', ticks.maxLateness);
    t.note('slowCallbackWarnings', warnings.length);
    t.log(`${ticks.count} ticks; the latest came ${ticks.maxLateness.toFixed(2)} s after it was due: the loop was busy computing`);
    t.check(warnings.some((w) => /^Executing .*fib.* took \d+\.\d+ seconds$/.test(w)), 'debug mode reported the slow step of the fib task');
    t.check(ticks.maxLateness >= TICK_PERIOD_SECONDS / 2, 'a tick came late while fib ran');
    return t.outcome();
  },
};
