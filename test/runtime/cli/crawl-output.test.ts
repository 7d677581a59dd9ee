// Tests of what `coroscope crawl` prints (runtime/cli/crawl-output.ts): the --json object built from
// the crawl's statistics (counts that add up, results and exclusions sorted by URL, optional fields
// only when the statistic has them, the interrupted lists, timing rounded) and the progress line.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crawlJson, progressLine } from '../../../runtime/cli/crawl-output';
import type { FetchStatistic } from '../../../runtime/crawler/report';

function stat(url: string, more: Partial<FetchStatistic> = {}): FetchStatistic {
  return {
    url,
    nextUrl: null,
    status: 200,
    exception: null,
    size: 10,
    contentType: 'text/html',
    encoding: 'utf-8',
    numUrls: 0,
    numNewUrls: 0,
    ...more,
  };
}

describe('crawlJson', () => {
  const stats = [
    stat('http://h/c'),
    stat('http://h/a', { status: 301, nextUrl: 'http://h/c', size: 0 }),
    stat('http://h/b', {
      status: null,
      exception: 'TimeoutError: too slow',
      size: 0,
      contentType: null,
      tries: 3,
      retry: 'gave up',
    }),
    stat('http://h/d', { size: 7 }),
    // A redirect past the limit: a failure, not a redirect.
    stat('http://h/e', { status: 302, nextUrl: 'http://h/f', exception: 'RedirectLimitError: 10', size: 0 }),
  ];
  const excluded = new Map([
    ['http://other/', 'host'],
    ['http://h/private', 'robots'],
  ]);

  test('counts: pages, errors and redirects add up to what was fetched', () => {
    const j = crawlJson(stats, 2, excluded, 'workers');
    assert.deepEqual(
      { pages: j.pages, fetched: j.fetched, errors: j.errors, redirects: j.redirects, excluded: j.excluded },
      { pages: 2, fetched: 5, errors: 2, redirects: 1, excluded: 2 },
    );
    assert.equal(j.stage, 'workers');
  });

  test('results by URL, each with only the fields its statistic has', () => {
    const j = crawlJson(stats, 2, excluded, 'workers');
    assert.deepEqual(j.results, [
      { url: 'http://h/a', status: 301, contentType: 'text/html', bytes: 0, nextUrl: 'http://h/c' },
      {
        url: 'http://h/b',
        status: null,
        contentType: null,
        bytes: 0,
        error: 'TimeoutError: too slow',
        tries: 3,
        retry: 'gave up',
      },
      { url: 'http://h/c', status: 200, contentType: 'text/html', bytes: 10 },
      { url: 'http://h/d', status: 200, contentType: 'text/html', bytes: 7 },
      {
        url: 'http://h/e',
        status: 302,
        contentType: 'text/html',
        bytes: 0,
        nextUrl: 'http://h/f',
        error: 'RedirectLimitError: 10',
      },
    ]);
    assert.deepEqual(j.excludedUrls, [
      { url: 'http://h/private', reason: 'robots' },
      { url: 'http://other/', reason: 'host' },
    ]);
    assert.equal(stats[0]!.url, 'http://h/c', 'the statistics given are not reordered');
  });

  test('interrupted: the cancelled and never fetched URLs, sorted; absent when not interrupted', () => {
    const whole = crawlJson(stats, 2, excluded, 'workers');
    assert.equal('interrupted' in whole, false);
    const cut = crawlJson(
      stats,
      2,
      excluded,
      'workers',
      { inFlight: ['http://h/z', 'http://h/y'], queued: ['http://h/q'] },
      ['robots.txt kept a root out'],
    );
    assert.deepEqual(cut.interrupted, { cancelled: ['http://h/y', 'http://h/z'], notFetched: ['http://h/q'] });
    assert.deepEqual(cut.notices, ['robots.txt kept a root out']);
  });

  test('seconds to the millisecond, the rate to a tenth, no rate for no time', () => {
    const j = crawlJson(stats, 1.23456, excluded, 'workers');
    assert.equal(j.seconds, 1.235);
    assert.equal(j.rate, 4.1);
    assert.equal(crawlJson(stats, 0, excluded, 'workers').rate, 0);
  });
});

describe('progressLine', () => {
  test('pages done, rate, queue, in flight, errors and time', () => {
    assert.equal(
      progressLine({ done: 30, queued: 5, inFlight: 3, errors: 1 }, 2.5),
      '30 done  12 pages/s  queue 5  in flight 3  errors 1  2.5s',
    );
    assert.equal(
      progressLine({ done: 0, queued: 0, inFlight: 0, errors: 0 }, 0),
      '0 done  0 pages/s  queue 0  in flight 0  errors 0  0.0s',
    );
  });
});
