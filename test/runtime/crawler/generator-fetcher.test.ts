// Stage 2, hand-made generator coroutines: the shared teaching-stage suite, the minimal
// SimpleFuture / SimpleTask pair on its own, and the point of the stage: the broken page's
// error is thrown inside the `fetch` coroutine, resumed by its task.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  GeneratorCrawl,
  SimpleFuture,
  SimpleTask,
  crawlWithGenerators,
  runGeneratorLoop,
  type SimpleCoroutine,
} from '../../../runtime/crawler/generator-fetcher';
import { startDemoSite } from '../../../runtime/demo-site/index';
import { frameNames, teachingStageSuite, within } from './teaching-stage-suite';

teachingStageSuite('generator stage', crawlWithGenerators, (error) => {
  const names = frameNames(error.stack);
  assert.ok(names.includes('extractLinks'), `thrown while parsing:\n${error.stack}`);
  assert.ok(names.includes('GeneratorCrawl.fetch'), 'inside the fetch coroutine');
  assert.ok(names.includes('SimpleTask.step'), 'resumed by its task');
});

test('generator stage: yield* on a SimpleFuture waits for its result; the task resumes the chain', () => {
  const first = new SimpleFuture<number>();
  const second = new SimpleFuture<string>();
  const log: string[] = [];
  function* inner(): SimpleCoroutine<number> {
    const n = yield* first;
    log.push(`inner got ${n}`);
    return n * 2;
  }
  function* outer(): SimpleCoroutine<void> {
    const doubled = yield* inner();
    const text = yield* second;
    log.push(`outer got ${doubled} and ${text}`);
  }
  let done = false;
  const task = new SimpleTask(outer(), () => {
    done = true;
  });
  assert.deepEqual(log, [], 'suspended on the first future');
  first.setResult(21);
  assert.deepEqual(log, ['inner got 21']);
  assert.equal(done, false);
  second.setResult('ok');
  assert.deepEqual(log, ['inner got 21', 'outer got 42 and ok']);
  assert.equal(done, true);
  assert.equal(task.done, true);
});

test('generator stage: throwInto raises at the suspension point, finally blocks run', () => {
  const never = new SimpleFuture<null>();
  const log: string[] = [];
  function* waiting(): SimpleCoroutine<void> {
    try {
      yield* never;
      log.push('resumed');
    } catch (error) {
      log.push(`caught ${(error as Error).message}`);
    } finally {
      log.push('finally');
    }
  }
  const task = new SimpleTask(waiting());
  task.throwInto(new Error('too late'));
  assert.deepEqual(log, ['caught too late', 'finally']);
  assert.equal(task.done, true);
  task.throwInto(new Error('again')); // a finished task ignores it
});

test('generator stage: the chapter-shaped API, driven by hand', async () => {
  const site = await startDemoSite({ pages: 3 });
  try {
    const crawl = new GeneratorCrawl([site.url]);
    for (const root of crawl.admitRoots()) crawl.startFetch(root.url, root.maxRedirect);
    assert.equal(crawl.selector.getMap().size, 1, 'the task ran to its first yield: connecting');
    await within(runGeneratorLoop(crawl));
    assert.equal(crawl.inFlight, 0);
    assert.equal(crawl.selector.getMap().size, 0, 'every socket unregistered');
    assert.deepEqual([...crawl.seenUrls].sort(), [...site.model.expectedOutcomes(site.url).keys()].sort());
    crawl.close();
  } finally {
    await site.close();
  }
});
