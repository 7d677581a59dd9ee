// Sample 7f, from the asyncio-vs-Node article: waiting for several coroutines, with gather
// (results in the order asked) and with asCompleted (outcomes in the order they finish).

import { asCompleted } from '../as-completed';
import { coroutine } from '../coroutine';
import { gather } from '../gather';
import { getRunningLoop } from '../running-loop';
import { sleep } from '../sleep';
import type { Coroutine } from '../task';
import { runOnLoop } from './run-on-loop';
import { SOURCES, type Sample } from './sample';
import { Transcript } from './transcript';

/** Stand-ins for downloads: fixed durations (the article draws them at random) so the orders are known. */
const DOWNLOADS: ReadonlyArray<readonly [string, number]> = [
  ['URL1', 0.12],
  ['URL2', 0.04],
  ['URL3', 0.08],
];

const getUrl = coroutine(function* getUrl(t: Transcript, url: string, seconds: number): Coroutine<[string, number]> {
  yield* sleep(seconds);
  t.log(`  done: ${url} took ${seconds.toFixed(2)} s`);
  return [url, seconds];
});

const compareWaits = coroutine(function* compareWaits(t: Transcript): Coroutine<{ completed: string[]; gathered: string[] }> {
  const loop = getRunningLoop();
  const start = loop.time();
  t.log('asCompleted: each result as soon as it is in');
  const completed: string[] = [];
  for (const next of asCompleted(DOWNLOADS.map(([url, s]) => loop.createTask(getUrl(t, url, s), { name: url })))) {
    const [url] = yield* next;
    completed.push(url);
    t.log(`  handled ${url} at +${(loop.time() - start).toFixed(2)} s`);
  }
  t.log('gather: every result at once, in the order asked');
  const results = yield* gather(...DOWNLOADS.map(([url, s]) => loop.createTask(getUrl(t, url, s), { name: url })));
  const gathered = results.map(([url]) => url);
  t.log(`  results: ${results.map(([url, s]) => `${url} (${s.toFixed(2)} s)`).join(', ')}`);
  return { completed, gathered };
});

export const gatherVsAsCompletedSample: Sample = {
  id: 'gather-vs-ascompleted',
  ownLoop: false,
  title: 'gather against asCompleted',
  chapter: `${SOURCES.asyncioVsNode}: waiting on several coroutines with gather and as_completed`,
  explanation:
    'Three downloads are simulated with sleeps of 0.12, 0.04 and 0.08 s, all started at once. ' +
    'asCompleted hands back awaitables in the order the downloads finish, so the fastest is handled first: URL2, URL3, URL1. ' +
    'gather waits for all of them and gives the results in the order they were passed, URL1, URL2, URL3, whatever the order they finished in. ' +
    'Both run the three concurrently: the whole wait is the longest download, not the sum. ' +
    'Each download runs as a task named after its URL (createTask with a name, as asyncio.create_task(name=...)): ' +
    'step through it and watch URL1, URL2 and URL3 suspended in sleep at the same time.',
  async run(ctx) {
    const t = new Transcript(ctx);
    const { completed, gathered } = await runOnLoop(ctx.loop, compareWaits(t), compareWaits.name);
    t.check(completed.join(',') === 'URL2,URL3,URL1', 'asCompleted gives completion order');
    t.check(gathered.join(',') === 'URL1,URL2,URL3', 'gather gives argument order');
    return t.outcome();
  },
};
