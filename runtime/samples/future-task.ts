// Sample 5, the chapter's second stage built up: a Future, a Task that drives a generator with
// it, a fetch written as one generator, and the same fetch factored into coroutines with yield*.

import { GeneratorCrawl, SimpleFuture, SimpleTask, runGeneratorLoop, type SimpleCoroutine } from '../crawler/generator-fetcher';
import { BlockingIOError } from '../errors';
import { EVENT_READ, EVENT_WRITE, type DefaultSelector } from '../selector';
import { Socket } from '../socket';
import { fetchPage } from './generator-pages';
import { failureOf, requestFor, resultOf, type Origin, type PageResult } from './page-fetch';
import { SOURCES, type Sample } from './sample';
import { listPagePaths } from './site-pages';
import { Transcript, secs } from './transcript';

const PAGES = 5;

type ReadOutcome = { chunk: Buffer } | { error: unknown };

/**
 * The fetch in one piece, as the chapter first writes it: each wait is a new future, resolved
 * by the selector's callback, and `yield*` on it suspends until then.
 */
function* fetchInOnePiece(selector: DefaultSelector, origin: Origin, path: string): SimpleCoroutine<PageResult> {
  const sock = new Socket();
  sock.setBlocking(false);
  try {
    try {
      sock.connect([origin.host, origin.port]);
    } catch (error) {
      if (!(error instanceof BlockingIOError)) throw error;
    }
    const connected = new SimpleFuture<null>();
    selector.register(sock, EVENT_WRITE, () => connected.setResult(null));
    yield* connected;
    selector.unregister(sock);
    const failure = sock.error();
    if (failure !== null) throw failure;
    sock.send(requestFor(origin, path)); // a small request: it fits in the send buffer at once
    const chunks: Buffer[] = [];
    for (;;) {
      const readable = new SimpleFuture<ReadOutcome>();
      selector.register(sock, EVENT_READ, () => {
        try {
          readable.setResult({ chunk: sock.recv(4096) });
        } catch (error) {
          if (!(error instanceof BlockingIOError)) readable.setResult({ error });
        }
      });
      const outcome = yield* readable;
      selector.unregister(sock);
      if ('error' in outcome) throw outcome.error;
      if (outcome.chunk.length === 0) break;
      chunks.push(outcome.chunk);
    }
    return resultOf(path, Buffer.concat(chunks));
  } catch (error) {
    return failureOf(path, error);
  } finally {
    sock.close();
  }
}

type PageCoroutine = (crawl: GeneratorCrawl, origin: Origin, path: string) => SimpleCoroutine<PageResult>;

/** Runs one task per path on stage 2's loop; resolves with the results and the time taken. */
async function fetchAllWith(siteUrl: string, origin: Origin, paths: readonly string[], page: PageCoroutine): Promise<{ results: PageResult[]; seconds: number }> {
  const crawl = new GeneratorCrawl([siteUrl]);
  const results: PageResult[] = [];
  let left = paths.length;
  const t0 = performance.now();
  for (const path of paths) {
    const record = function* record(): SimpleCoroutine<void> {
      results.push(yield* page(crawl, origin, path));
    };
    new SimpleTask(record(), () => {
      if (--left === 0) crawl.stopped = true;
    });
  }
  try {
    await runGeneratorLoop(crawl);
  } finally {
    crawl.close();
  }
  return { results, seconds: (performance.now() - t0) / 1000 };
}

export const futureTaskSample: Sample = {
  id: 'future-task',
  ownLoop: true,
  title: 'Future + Task + a generator fetch, then factored with yield*',
  chapter: `${SOURCES.chapter}: "Building Coroutines With Generators" and "Factoring Coroutines With yield from"`,
  explanation:
    'A Future is a result that is not there yet, plus the callbacks to call when it is. ' +
    'A Task drives a generator: it resumes it with the last future\'s result, the generator runs to its next yield* on a future, and the task registers itself as that future\'s callback. ' +
    'In the one-piece fetch, the selector\'s callbacks only resolve futures; the fetch itself reads top to bottom and keeps its state in locals, which you can watch while it is suspended. ' +
    'The factored fetch does the same through connect, sendAll and readAll (readAll calls read): yield* passes each future up to the task and each result back down, and each sub-coroutine returns its value to its caller. ' +
    'All the tasks run at once on one selector loop, so every page arrives in about one round trip.',
  async run(ctx) {
    const t = new Transcript(ctx);
    t.log('A future resolved by hand:');
    const future = new SimpleFuture<string>();
    let resumedWith: string | null = null;
    const waiter = function* waiter(): SimpleCoroutine<void> {
      resumedWith = yield* future;
      t.log(`  the coroutine resumed with "${resumedWith}"`);
    };
    const task = new SimpleTask(waiter());
    t.log(`  task started; it is suspended on the future (done=${String(task.done)})`);
    future.setResult('hello');
    t.log(`  after setResult("hello"): done=${String(task.done)}`);
    t.check(task.done && resumedWith === 'hello', 'setResult resumes the task with the result');

    const site = new URL(ctx.siteUrl);
    const origin: Origin = { host: site.hostname, port: Number(site.port || 80) };
    const paths = (await listPagePaths(ctx.siteUrl)).slice(0, PAGES);

    const onePiece = await fetchAllWith(ctx.siteUrl, origin, paths, (crawl, o, p) => fetchInOnePiece(crawl.selector, o, p));
    t.note('onePieceSeconds', onePiece.seconds);
    t.log(`one-piece generator fetch, ${paths.length} tasks at once: ${secs(onePiece.seconds)}`);
    for (const r of onePiece.results) t.log(`  ${String(r.status)} ${r.path} ${r.bytes} bytes`);

    const factored = await fetchAllWith(ctx.siteUrl, origin, paths, fetchPage);
    t.note('factoredSeconds', factored.seconds);
    t.log(`factored fetch (fetchPage -> connect, sendAll, readAll -> read), ${paths.length} tasks at once: ${secs(factored.seconds)}`);
    for (const r of factored.results) t.log(`  ${String(r.status)} ${r.path} ${r.bytes} bytes`);
    t.check(onePiece.results.length === paths.length && onePiece.results.every((r) => r.status === 200), 'the one-piece fetch got every page');
    t.check(factored.results.length === paths.length && factored.results.every((r) => r.status === 200), 'the factored fetch got every page');
    return t.outcome();
  },
};
