// Stage 1, the callback Fetcher: the shared teaching-stage suite, plus the point of the stage:
// an error in a callback has a "ripped" stack, loop → readResponse → parse, with nothing of
// the fetch() that began the chain or of the page that led to the URL.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CallbackCrawl, Fetcher, crawlWithCallbacks, runCallbackLoop } from '../../../runtime/crawler/callback-fetcher';
import { startDemoSite } from '../../../runtime/demo-site/index';
import { frameNames, teachingStageSuite, within } from './teaching-stage-suite';

teachingStageSuite('callback stage', crawlWithCallbacks, (error) => {
  const names = frameNames(error.stack);
  const readResponse = names.indexOf('Fetcher.readResponse');
  assert.ok(readResponse >= 0, `thrown under readResponse:\n${error.stack}`);
  assert.equal(names[readResponse + 1], 'runCallbackLoop', 'called by the loop itself');
  assert.ok(
    names.slice(0, readResponse).some((n) => n === 'extractLinks'),
    'thrown while parsing',
  );
  // Ripped: neither the fetch that started this chain nor the crawl that asked for it.
  for (const name of names) {
    assert.doesNotMatch(
      name,
      /(?:^|\.)fetch$|Fetcher\.connected|^new Fetcher|crawlWithCallbacks/,
      `unexpected frame ${name}`,
    );
  }
});

test('callback stage: the chapter-shaped API, driven by hand', async () => {
  const site = await startDemoSite({ pages: 3 });
  try {
    const crawl = new CallbackCrawl([site.url]);
    assert.equal(crawl.stopped, false);
    for (const root of crawl.admitRoots()) new Fetcher(root.url, crawl).fetch();
    assert.equal(crawl.inFlight, 1);
    assert.equal(crawl.selector.getMap().size, 1, 'fetch() registered the socket and returned');
    await within(runCallbackLoop(crawl));
    assert.equal(crawl.stopped, true);
    assert.equal(crawl.inFlight, 0);
    assert.equal(crawl.selector.getMap().size, 0, 'every socket unregistered');
    assert.deepEqual([...crawl.seenUrls].sort(), [...site.model.expectedOutcomes(site.url).keys()].sort());
    crawl.close();
  } finally {
    await site.close();
  }
});
