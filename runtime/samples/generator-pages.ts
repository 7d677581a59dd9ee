// Fetching a list of pages with stage 2's hand-made coroutines, all at once: one SimpleTask
// per page, each driving a generator that waits with `yield*` on stage 2's connect, sendAll and
// readAll (GeneratorCrawl's), on stage 2's loop (runGeneratorLoop).
//
// Like callback-pages.ts, this only fetches (the stage's own fetch also parses and follows
// links). The fetch reads top to bottom, its state in local variables; the selector's
// callbacks only resolve futures. Invariants: every task records exactly one result and closes
// its socket; the loop stops when the last task is done.

import { GeneratorCrawl, SimpleTask, runGeneratorLoop, type SimpleCoroutine } from '../crawler/generator-fetcher';
import { Socket } from '../socket';
import { failureOf, requestFor, resultOf, type Origin, type PageResult } from './page-fetch';

/** One page, as a coroutine of stage 2. */
export function* fetchPage(crawl: GeneratorCrawl, origin: Origin, path: string): SimpleCoroutine<PageResult> {
  const sock = new Socket();
  sock.setBlocking(false);
  try {
    yield* crawl.connect(sock, [origin.host, origin.port]);
    yield* crawl.sendAll(sock, requestFor(origin, path));
    const raw = yield* crawl.readAll(sock);
    return resultOf(path, raw);
  } catch (error) {
    return failureOf(path, error);
  } finally {
    sock.close();
  }
}

export async function fetchPagesWithGenerators(origin: Origin, paths: readonly string[]): Promise<PageResult[]> {
  const crawl = new GeneratorCrawl([`http://${origin.host}:${origin.port}/`]);
  const results: PageResult[] = new Array<PageResult>(paths.length);
  let left = paths.length;
  if (left === 0) crawl.stopped = true;
  paths.forEach((path, i) => {
    const record = function* record(): SimpleCoroutine<void> {
      results[i] = yield* fetchPage(crawl, origin, path);
    };
    new SimpleTask(record(), () => {
      if (--left === 0) crawl.stopped = true;
    });
  });
  try {
    await runGeneratorLoop(crawl);
  } finally {
    crawl.close();
  }
  return results;
}
