// Sample 6, the chapter's third stage: the Crawler on the runtime, a Queue feeding worker
// tasks, redirects followed through the queue, and the workers cancelled at the end.
//
// Invariant: everything it does runs on the loop it is given (the site's page list too, read
// with the runtime's own client), so a recording of the run holds all of it and a replay
// needs no site: Step Back in it replays the recorded bytes.

import { coroutine } from '../coroutine';
import { Crawler } from '../crawler/crawler';
import { ClientSession } from '../http/client-session';
import { gather } from '../gather';
import { getRunningLoop } from '../running-loop';
import { sleep } from '../sleep';
import type { Coroutine, Task } from '../task';
import { runOnLoop } from './run-on-loop';
import { SOURCES, type Sample } from './sample';
import { pagePathsOf } from './site-pages';
import { Transcript, secs } from './transcript';

const WORKERS = 10;

/** The paths of the site's content pages, from its `/api/pages.json`, read on the running loop. */
const sitePagePaths = coroutine(function* sitePagePaths(siteUrl: string): Coroutine<string[]> {
  const session = new ClientSession();
  try {
    const url = new URL('/api/pages.json', siteUrl).href;
    const response = yield* session.get(url);
    const body = yield* response.read();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    return pagePathsOf(url, body.toString('utf8'));
  } finally {
    session.close();
  }
});

const crawlAndReport = coroutine(function* crawlAndReport(t: Transcript, siteUrl: string): Coroutine<void> {
  const loop = getRunningLoop();
  const crawler = new Crawler([siteUrl], { maxTasks: WORKERS });
  const crawl = loop.createTask(crawler.crawl(), { name: 'crawl' });
  // Give way once: crawl() runs its first step and starts its workers; keep hold of them.
  yield* sleep(0);
  const workers: Task<unknown>[] = loop.allTasks().filter((task) => /^worker-\d+$/.test(task.getName()));
  t.log(`crawl() started ${workers.length} workers; they take URLs from the queue (${crawler.q.qsize()} queued)`);
  yield* crawl;
  const stats = crawler.stats;
  const done = crawler.done;
  const redirects = done.filter((s) => s.nextUrl !== null);
  const pages = done.filter((s) => s.status === 200);
  const missing = done.filter((s) => s.status === 404);
  const failed = done.filter((s) => s.exception !== null);
  t.note('urls', done.length);
  t.note('redirects', redirects.length);
  t.note('seconds', crawler.elapsed());
  t.log(`crawled ${done.length} URLs in ${secs(crawler.elapsed())}: ${pages.length} pages, ${redirects.length} redirects, ${missing.length} not found, ${failed.length} failed`);
  const firstRedirect = redirects[0];
  if (firstRedirect !== undefined) t.log(`  e.g. ${firstRedirect.url} -> ${String(firstRedirect.nextUrl)}: the target went into the queue like any link`);
  for (const f of failed.slice(0, 2)) t.log(`  failed: ${f.url}: ${String(f.exception)}`);
  const excluded = crawler.excluded.size;
  t.log(`  ${excluded} URL${excluded === 1 ? '' : 's'} excluded (robots.txt, other hosts)`);
  yield* gather(...workers, { returnExceptions: true });
  const ended = workers.filter((w) => w.done()).length;
  t.note('workersEnded', ended);
  t.log(`q.join() returned once every URL was done; crawl() then cancelled its ${workers.length} workers, all idle in q.get(): ${ended} of them have ended`);
  const pagePaths = yield* sitePagePaths(siteUrl);
  const fetched = new Set(done.filter((s) => s.status === 200).map((s) => new URL(s.url).pathname));
  const missingPages = pagePaths.filter((p) => !fetched.has(p));
  t.check(missingPages.length === 0, `every content page was crawled (missing: ${missingPages.slice(0, 3).join(', ')})`);
  t.check(redirects.length > 0, 'the crawl followed redirects');
  t.check(workers.length === WORKERS && ended === WORKERS, 'every worker was cancelled at the end');
  t.check(stats.urls === done.length, 'the report counts every URL');
});

export const crawlerSample: Sample = {
  id: 'crawler',
  ownLoop: false,
  title: 'The full crawler: a queue, workers, redirects, cancellation',
  chapter: `${SOURCES.chapter}: "Coordinating Coroutines"`,
  explanation:
    'crawl() puts the root URL in a Queue and starts ten worker tasks, then waits on q.join(). ' +
    'Each worker loops on yield* q.get(), fetches the URL with the keep-alive ClientSession, and puts new links back in the queue; pause one and its stack shows work -> fetch -> session.get down to the socket wait. ' +
    'A redirect is not followed inside the fetch: its target goes into the queue like a link, so a page redirected to twice is fetched once. ' +
    'Every q.get() is matched by a taskDone(), so join() returns exactly when the last URL is finished. ' +
    'Then crawl() cancels the workers: CancelledError is thrown into each at its q.get(), and they end.',
  async run(ctx) {
    const t = new Transcript(ctx);
    await runOnLoop(ctx.loop, crawlAndReport(t, ctx.siteUrl), crawlAndReport.name);
    return t.outcome();
  },
};
