// Tests of the crawl's progress as the protocol says it (runtime/host/main-thread/crawl-progress.ts), with a
// fake crawler: the crawler's counts, the elapsed seconds given and the rate (0 at 0 s), and the errors
// by kind (an Error by its name, anything else by the exception name its text starts with, else
// 'Error'), each error counted once however often progress is asked, the table a copy each time.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Crawler } from '../../../../runtime/crawler/crawler';
import { CrawlProgressCounter } from '../../../../runtime/host/main-thread/crawl-progress';

function crawler(): { crawler: Crawler; errors: Array<{ url: string; error: unknown }>; done: { n: number } } {
  const errors: Array<{ url: string; error: unknown }> = [];
  const done = { n: 0 };
  const fake = {
    errors,
    progress: () => ({ done: done.n, queued: 3, inFlight: 2, errors: errors.length, seen: 9, excluded: 1 }),
  };
  return { crawler: fake as unknown as Crawler, errors, done };
}

test('counts, seconds and rate, and the errors by kind counted once each', () => {
  const c = crawler();
  const counter = new CrawlProgressCounter(c.crawler);
  assert.deepEqual(counter.progress(0), {
    done: 0,
    queued: 3,
    inFlight: 2,
    errors: 0,
    seen: 9,
    excluded: 1,
    seconds: 0,
    rate: 0,
    errorsByKind: {},
  });
  c.done.n = 6;
  c.errors.push({ url: '/a', error: new TypeError('x') }, { url: '/b', error: 'ConnectionResetError: reset' });
  const first = counter.progress(2);
  assert.deepEqual(
    { rate: first.rate, errors: first.errors, byKind: first.errorsByKind },
    { rate: 3, errors: 2, byKind: { TypeError: 1, ConnectionResetError: 1 } },
  );
  // An Error's own name, even one its text would not tell.
  const named = Object.assign(new Error('z'), { name: 'Fetch failed' });
  c.errors.push({ url: '/c', error: new TypeError('y') }, { url: '/d', error: 42 }, { url: '/e', error: named });
  const second = counter.progress(3);
  assert.deepEqual(second.errorsByKind, { TypeError: 2, ConnectionResetError: 1, Error: 1, 'Fetch failed': 1 });
  assert.deepEqual(counter.progress(4).errorsByKind, second.errorsByKind, 'asked again: nothing counted twice');
  assert.deepEqual(first.errorsByKind, { TypeError: 1, ConnectionResetError: 1 }, 'an answer given is not changed');
});
