// Sample 2, the traditional approach: a fetch that blocks, then pools of threads and processes
// that each block in one fetch at a time.
//
// Durations are measured with runningNow() (held-time.ts): a learner stopped on a line of the
// pool (its fetch-pool.ts reply handler, say) holds this thread, and that hold is not time the
// fetches took, so the sample's comparison of the approaches still holds after the stop.

import { runningNow } from '../held-time';
import { BlockingFetcher } from './blocking-fetch';
import type { FetchPool } from './fetch-pool';
import { countOk, resultOf } from './page-fetch';
import { startProcessPool } from './process-pool';
import { startRemoteCopy } from './remote-site';
import { SOURCES, type Sample } from './sample';
import { listPagePaths } from './site-pages';
import { startThreadPool } from './thread-pool';
import { Transcript, secs } from './transcript';

/**
 * Pages fetched, and the latency of the server that serves them. The comparison is of round
 * trips: the pools save four (two against six), 600 ms, which their own costs on a busy machine
 * (three threads or processes, each waiting for a CPU at every wake-up) do not eat up, as they
 * did the 200 ms saved at 50 ms a response: the pools lost about 1 run in 10 beside two busy
 * loops on 2 cores with other work (warmed, the processes still took up to 0.8 s for their two
 * round trips there).
 */
const PAGES = 6;
const LATENCY_MS = 150;
const POOL_SIZE = 3;

/**
 * Times a pool's fetches of `paths`, once each member has fetched one page (untimed, counted in
 * its start): a fresh thread or process loads and compiles the fetch code at its first fetch,
 * which on a busy machine waits for a CPU, three members at once; that is starting, not a
 * round trip. The blocking fetcher is warmed alike.
 */
async function timedPool(start: (size: number) => Promise<FetchPool>, host: string, port: number, paths: readonly string[]): Promise<{ seconds: number; ok: number; startup: number }> {
  const s0 = runningNow();
  const pool = await start(POOL_SIZE);
  try {
    // One job per idle member: each fetches once.
    await pool.fetchAll(host, port, paths.slice(0, pool.size));
    const startup = (runningNow() - s0) / 1000;
    const t0 = runningNow();
    const replies = await pool.fetchAll(host, port, paths);
    return { seconds: (runningNow() - t0) / 1000, ok: countOk(replies), startup };
  } finally {
    await pool.close();
  }
}

export const blockingSample: Sample = {
  id: 'blocking',
  ownLoop: true,
  title: 'Blocking fetches, then pools of threads and processes',
  chapter: `${SOURCES.chapter}: "The Traditional Approach"; ${SOURCES.blockingToAsyncio}: the blocking way, processes, threads`,
  explanation:
    'fetch() here really blocks: the socket work happens on a helper thread while this thread sleeps in Atomics.wait until the page is in. ' +
    'Watch the timer set up before the loop: it cannot fire even once while the fetches run, because nothing else can run on a blocked thread. ' +
    'The pages come from a copy of the demo site served by another thread, 150 ms away; the site itself lives on this thread and could not answer while it is blocked. ' +
    'Six pages one after another take six round trips. ' +
    'A pool of 3 worker threads or 3 child processes, each doing one fetch at a time (its thread sleeps until the socket answers), takes two round trips, but every unit of concurrency costs a whole thread or process.',
  async run(ctx) {
    const t = new Transcript(ctx);
    const paths = (await listPagePaths(ctx.siteUrl)).slice(0, PAGES);
    const copy = await startRemoteCopy(ctx.siteUrl, paths, { latencyMs: LATENCY_MS });
    const fetcher = await BlockingFetcher.start();
    try {
      t.log(`copied ${paths.length} pages of the demo site to a server on another thread, ${LATENCY_MS} ms per response`);
      // Warmed as the pools are (timedPool): its first fetch, untimed.
      fetcher.fetch(copy.host, copy.port, paths[0]!);
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      const t0 = runningNow();
      let ok = 0;
      for (const path of paths) {
        const f0 = runningNow();
        const result = resultOf(path, fetcher.fetch(copy.host, copy.port, path).raw);
        if (result.status === 200) ok++;
        t.log(`blocking fetch ${path}: ${String(result.status)}, ${result.bytes} bytes, ${secs((runningNow() - f0) / 1000)}`);
      }
      const blockingSeconds = t.note('blockingSeconds', (runningNow() - t0) / 1000);
      const ticksWhileBlocked = t.note('timerTicksWhileBlocked', ticks);
      clearInterval(timer);
      t.log(`${ok} pages one after another: ${secs(blockingSeconds)}, about ${paths.length} x ${LATENCY_MS} ms`);
      t.log(`a 5 ms timer fired ${ticksWhileBlocked} times meanwhile: the thread was blocked, nothing else ran`);
      t.check(ok === paths.length, 'every blocking fetch got a 200');
      t.check(ticksWhileBlocked === 0, 'no timer fires while the thread is blocked');
      t.check(blockingSeconds >= (paths.length * LATENCY_MS) / 1000, 'sequential fetches take one round trip each');

      const threads = await timedPool(startThreadPool, copy.host, copy.port, paths);
      t.note('threadsSeconds', threads.seconds);
      t.log(`${POOL_SIZE} worker threads, one fetch at a time each: ${threads.ok} pages in ${secs(threads.seconds)} (the threads took ${secs(threads.startup)} to start and fetch a first page each)`);
      const processes = await timedPool(startProcessPool, copy.host, copy.port, paths);
      t.note('processesSeconds', processes.seconds);
      t.log(`${POOL_SIZE} child processes, one fetch at a time each: ${processes.ok} pages in ${secs(processes.seconds)} (the processes took ${secs(processes.startup)} to start and fetch a first page each)`);
      t.check(threads.ok === paths.length && processes.ok === paths.length, 'the pools fetched every page');
      t.check(threads.seconds < blockingSeconds && processes.seconds < blockingSeconds, 'the pools are faster than one blocked thread');
      return t.outcome();
    } finally {
      await fetcher.close();
      await copy.close();
    }
  },
};
