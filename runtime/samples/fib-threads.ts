// Sample 7a, from the asyncio-vs-Node article: print every period while Fibonacci numbers are
// computed, the CPU work on worker threads. The loop stays free and the ticks stay on time.

import type { Worker } from 'node:worker_threads';
import { coroutine } from '../coroutine';
import type { Future } from '../future';
import { getRunningLoop } from '../running-loop';
import type { Coroutine } from '../task';
import { startEvalWorker } from './eval-worker';
import { TICK_PERIOD_SECONDS, chooseFibN } from './fib';
import { runOnLoop } from './run-on-loop';
import { SOURCES, measuredBy, type Sample } from './sample';
import { ticker, type TickRecord } from './ticker';
import { FIB_THREAD_SOURCE } from './worker-sources';
import { Transcript } from './transcript';

interface FibAnswer {
  n: number;
  value: number;
  seconds: number;
}

const fibWhileTicking = coroutine(function* fibWhileTicking(t: Transcript, worker: Worker, ns: readonly number[], ticks: TickRecord): Coroutine<void> {
  // Said here, in the first step, so that a run held at entry has printed nothing yet.
  t.log(`computing fib(${ns.join('), fib(')}) on a worker thread; fib(${ns.at(-1)!}) takes at least ${TICK_PERIOD_SECONDS.toFixed(2)} s here`);
  const loop = getRunningLoop();
  const answers = new Map<number, Future<FibAnswer>>(ns.map((n) => [n, loop.createFuture<FibAnswer>()]));
  // The worker answers on Node's side of things: hand each answer to the loop with callSoon,
  // the way asyncio's call_soon_threadsafe brings a thread's result into the loop.
  const onAnswer = (answer: FibAnswer): void => {
    loop.callSoon(() => answers.get(answer.n)?.setResult(answer));
  };
  worker.on('message', onAnswer);
  const tick = loop.createTask(ticker(t, TICK_PERIOD_SECONDS, ticks), { name: 'ticker' });
  try {
    for (const n of ns) worker.postMessage({ n });
    for (const n of ns) {
      const answer = yield* answers.get(n)!;
      t.log(`fib(${answer.n}) = ${answer.value}, computed on a worker thread in ${answer.seconds.toFixed(2)} s`);
    }
  } finally {
    worker.off('message', onAnswer);
    tick.cancel();
  }
});

export const fibThreadsSample: Sample = {
  id: 'fib-threads',
  ownLoop: false,
  title: 'Printing on time while threads compute Fibonacci numbers',
  chapter: `${SOURCES.asyncioVsNode}: "Hello world" every 3 seconds with Fibonacci on threads`,
  explanation:
    `A ticker task prints every ${TICK_PERIOD_SECONDS} s while Fibonacci numbers are computed the slow, exponential way. ` +
    'The computing happens on a worker thread, which has its own event loop and its own CPU time; the runtime loop only waits for the answers. ' +
    'Each answer comes back through a Node message and is handed to the loop with callSoon, which resolves the future the main coroutine waits on. ' +
    'Watch the lateness printed with every tick: it stays near zero, because nothing on the loop\'s thread is busy. ' +
    'Compare with fib-loop, where the same work runs on the loop itself.',
  async run(ctx) {
    const t = new Transcript(ctx);
    // Together they take well over a period, so ticks fall due while the thread computes.
    const n = measuredBy(ctx, 'fibN', () => chooseFibN(TICK_PERIOD_SECONDS));
    const ns = [n - 4, n - 2, n];
    t.note('n', n);
    const { worker } = await startEvalWorker<unknown>(FIB_THREAD_SOURCE);
    const ticks: TickRecord = { count: 0, maxLateness: 0 };
    try {
      await runOnLoop(ctx.loop, fibWhileTicking(t, worker, ns, ticks), fibWhileTicking.name);
    } finally {
      await worker.terminate();
    }
    t.note('ticks', ticks.count);
    t.note('maxLatenessSeconds', ticks.maxLateness);
    t.log(`${ticks.count} ticks; the latest came ${ticks.maxLateness.toFixed(2)} s after it was due: the loop stayed free`);
    t.check(ticks.count >= 2, 'the ticker kept printing during the computation');
    t.check(ticks.maxLateness < TICK_PERIOD_SECONDS / 2, 'no tick came much later than due');
    return t.outcome();
  },
};
