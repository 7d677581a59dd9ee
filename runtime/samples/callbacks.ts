// Sample 4, the chapter's first stage: a crawl with callbacks on a selector loop, and the
// "ripped" stack trace of a failure in one of its callbacks.

import { crawlWithCallbacks } from '../crawler/callback-fetcher';
import { crawlWithGenerators } from '../crawler/generator-fetcher';
import { SOURCES, type Sample } from './sample';
import { formatFrames, frameNames } from './stack-frames';
import { Transcript, secs } from './transcript';

const CRAWL_PAGES = 12;

export const callbacksSample: Sample = {
  id: 'callbacks',
  ownLoop: true,
  title: 'The select loop with callbacks, and its ripped stack trace',
  chapter: `${SOURCES.chapter}: "Async" and "Programming With Callbacks"; ${SOURCES.blockingToAsyncio}: select and callbacks`,
  explanation:
    'Each URL gets a Fetcher whose work is cut into callbacks: fetch() starts connecting and registers connected(); connected() sends the request and registers readResponse(); readResponse() takes 4 KiB per call. ' +
    'The loop at the bottom waits in select() and calls whichever callback is ready, so many fetches overlap on one thread: the whole crawl takes a few round trips. ' +
    'Between callbacks a Fetcher keeps its state in its fields, since no stack frame survives. ' +
    'That is also why the trace of the failure on /broken/ is ripped: it reads parse <- readResponse <- the loop, and nothing says which fetch began it or which page linked there. ' +
    'Compare it with the same failure in the generator stage, whose trace still holds the fetch coroutine.',
  async run(ctx) {
    const t = new Transcript(ctx);
    const crawl = await crawlWithCallbacks([ctx.siteUrl], { maxPages: CRAWL_PAGES });
    const ok = crawl.stats.filter((s) => s.status === 200).length;
    t.note('crawlSeconds', crawl.seconds);
    t.note('urls', crawl.stats.length);
    t.log(`callback crawl from ${ctx.siteUrl}: ${crawl.stats.length} URLs (${ok} pages 200) in ${secs(crawl.seconds)}, on one thread, no coroutine`);
    for (const s of crawl.stats.slice(0, 5)) t.log(`  ${String(s.status)} ${s.url} (${s.numNewUrls} new links)`);
    t.check(crawl.stats.length === CRAWL_PAGES, `the crawl stops at ${CRAWL_PAGES} URLs`);

    const broken = new URL('/broken/', ctx.siteUrl).href;
    const ripped = await crawlWithCallbacks([broken], { maxPages: 1 });
    const rippedError = ripped.errors[0]?.error;
    t.log(`callback fetch of ${broken}: ${ripped.stats[0]?.exception ?? 'no error'}`);
    const rippedFrames = frameNames(rippedError?.stack);
    t.log(`ripped trace: ${formatFrames(rippedFrames)}`);
    t.check(rippedFrames.some((n) => /Fetcher\d*\.readResponse$/.test(n)) && rippedFrames.some((n) => /runCallbackLoop/.test(n)), 'the trace runs from the loop into readResponse');
    t.check(!rippedFrames.some((n) => /(?:^|\.)fetch$|Fetcher\d*\.connected$/.test(n)), 'the trace has no frame of the fetch that began it');

    const whole = await crawlWithGenerators([broken], { maxPages: 1 });
    const wholeFrames = frameNames(whole.errors[0]?.error.stack);
    t.log(`the same failure with generator coroutines: ${formatFrames(wholeFrames, 5)}`);
    t.check(wholeFrames.some((n) => /GeneratorCrawl\d*\.fetch$/.test(n)), 'the generator trace holds the fetch coroutine');
    return t.outcome();
  },
};
