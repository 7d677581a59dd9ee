// Tests for runtime/crawler/report.ts: the per-URL lines, their order, the counters as text
// and as data, the totals and rate, and edge cases (empty crawl, zero time).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  exceptionKind,
  formatReport,
  formatStatisticLine,
  summarize,
  urlsPerSecondPerTask,
  type FetchStatistic,
} from '../../../runtime/crawler/report';

function stat(fields: Partial<FetchStatistic> & { url: string }): FetchStatistic {
  return {
    nextUrl: null,
    status: 200,
    exception: null,
    size: 0,
    contentType: 'text/html',
    encoding: 'utf-8',
    numUrls: 0,
    numNewUrls: 0,
    ...fields,
  };
}

const BASE = 'http://127.0.0.1:8080';
const stats: FetchStatistic[] = [
  stat({ url: `${BASE}/z-last`, size: 300, numUrls: 4, numNewUrls: 1 }),
  stat({ url: `${BASE}/`, size: 1200, contentType: 'text/html; charset=utf-8', numUrls: 10, numNewUrls: 7 }),
  stat({ url: `${BASE}/old`, status: 301, nextUrl: `${BASE}/new`, size: 0, contentType: null, encoding: null }),
  stat({ url: `${BASE}/logo.png`, size: 5000, contentType: 'image/png', encoding: null }),
  stat({ url: `${BASE}/missing`, status: 404, size: 120, numUrls: 1, numNewUrls: 0 }),
  stat({
    url: `${BASE}/slow`,
    status: null,
    exception: 'TimeoutError: timed out after 5 s',
    contentType: null,
    encoding: null,
  }),
  stat({
    url: `${BASE}/bad-charset.html`,
    status: 200,
    exception:
      'UnknownCharsetError: unknown charset "x-coroscope-unknown" declared by http://127.0.0.1:8080/bad-charset.html',
    size: 88,
  }),
  stat({ url: `${BASE}/boom`, status: 500, size: 42, contentType: 'text/plain', encoding: 'utf-8' }),
  stat({
    url: `${BASE}/refused`,
    status: null,
    exception: 'Error: connect ECONNREFUSED 127.0.0.1:9',
    contentType: null,
  }),
  stat({ url: `${BASE}/slow2`, status: null, exception: 'TimeoutError: timed out after 5 s', contentType: null }),
];

describe('per-URL lines', () => {
  test('a page: url status content-type size; N/M new urls', () => {
    assert.equal(formatStatisticLine(stats[1]), `${BASE}/ 200 text/html 1200; 7/10 new urls`);
  });

  test('a non-HTML page has no link counts', () => {
    assert.equal(formatStatisticLine(stats[3]), `${BASE}/logo.png 200 image/png 5000`);
  });

  test('a redirect: url redirect -> next', () => {
    assert.equal(formatStatisticLine(stats[2]), `${BASE}/old redirect -> ${BASE}/new`);
  });

  test('an error: url error: message', () => {
    assert.equal(formatStatisticLine(stats[5]), `${BASE}/slow error: TimeoutError: timed out after 5 s`);
  });

  test('missing status and content type print as -', () => {
    assert.equal(
      formatStatisticLine(stat({ url: 'http://x/', status: null, contentType: null, size: 3 })),
      'http://x/ - - 3',
    );
  });
});

describe('formatReport', () => {
  const report = formatReport(stats, { seconds: 2, todo: 3, busy: 1, maxTasks: 10 });
  const lines = report.split('\n');

  test('starts with one line per URL, sorted by URL', () => {
    assert.equal(lines[0], '*** Report ***');
    const urlLines = lines.slice(1, 1 + stats.length);
    const urls = urlLines.map((line) => line.split(' ')[0]);
    assert.deepEqual(urls, stats.map((s) => s.url).sort());
    assert.equal(urlLines[0], `${BASE}/ 200 text/html 1200; 7/10 new urls`);
    assert.ok(urlLines.includes(`${BASE}/boom 500 text/plain 42`));
    assert.ok(urlLines.includes(`${BASE}/missing 404 text/html 120; 0/1 new urls`));
  });

  test('does not reorder its input', () => {
    assert.equal(stats[0].url, `${BASE}/z-last`);
  });

  test('then the counters', () => {
    const counters = lines.slice(lines.indexOf('*** Counters ***') + 1);
    const has = (count: number, label: string): void => {
      assert.ok(
        counters.includes(`${String(count).padStart(10)} ${label}`),
        `missing counter "${count} ${label}" in\n${report}`,
      );
    };
    has(10, 'urls');
    has(5, 'pages');
    has(1, 'redirects');
    has(4, 'failures');
    has(300 + 1200 + 5000 + 120 + 42, 'bytes');
    has(15, 'links found');
    has(8, 'new links');
    // The page whose charset was unknown got a 200 before failing: its status counts.
    has(4, 'status 2xx');
    has(1, 'status 3xx');
    has(1, 'status 4xx');
    has(1, 'status 5xx');
    has(3, 'content-type text/html (1620 bytes)');
    has(1, 'content-type image/png (5000 bytes)');
    has(1, 'content-type text/plain (42 bytes)');
    has(2, 'error TimeoutError');
    has(1, 'error UnknownCharsetError');
    has(1, 'error Error');
  });

  test('then the totals and the rate in urls/sec/task', () => {
    const finished = lines.find((line) => line.startsWith('Finished'));
    assert.equal(finished, 'Finished 10 urls in 2.000 secs (max_tasks=10) (0.500 urls/sec/task)');
    assert.ok(lines.indexOf(finished) > lines.indexOf('*** Counters ***'));
    assert.ok(report.includes('\nTodo: 3\nBusy: 1\nDone: 10\n'));
    assert.ok(report.endsWith('\n'));
  });

  test('an empty crawl in no time', () => {
    const empty = formatReport([], { seconds: 0, todo: 0, busy: 0, maxTasks: 5 });
    assert.ok(empty.startsWith('*** Report ***\n*** Counters ***\n'));
    assert.ok(empty.includes('Finished 0 urls in 0.000 secs (max_tasks=5) (0.000 urls/sec/task)'));
    assert.ok(empty.includes(`${'0'.padStart(10)} urls`));
  });

  test('odd totals do not produce NaN or Infinity', () => {
    const odd = formatReport(stats, { seconds: Number.NaN, todo: 0, busy: 0, maxTasks: 0 });
    assert.ok(!/NaN|Infinity/.test(odd));
    assert.ok(odd.includes('(max_tasks=0) (0.000 urls/sec/task)'));
  });
});

describe('summarize', () => {
  test('the counters as data, keys sorted', () => {
    const summary = summarize(stats);
    assert.equal(summary.urls, 10);
    assert.equal(summary.pages, 5);
    assert.equal(summary.redirects, 1);
    assert.equal(summary.failures, 4);
    assert.equal(summary.bytes, 6662);
    assert.equal(summary.linksFound, 15);
    assert.equal(summary.newLinks, 8);
    assert.deepEqual(summary.byStatusClass, { '2xx': 4, '3xx': 1, '4xx': 1, '5xx': 1 });
    assert.deepEqual(Object.keys(summary.byStatusClass), ['2xx', '3xx', '4xx', '5xx']);
    assert.deepEqual(summary.byStatus, { '200': 4, '301': 1, '404': 1, '500': 1 });
    assert.deepEqual(summary.byContentType, {
      'image/png': { count: 1, bytes: 5000 },
      'text/html': { count: 3, bytes: 1620 },
      'text/plain': { count: 1, bytes: 42 },
    });
    assert.deepEqual(Object.keys(summary.byContentType), ['image/png', 'text/html', 'text/plain']);
    assert.deepEqual(summary.errorsByKind, { Error: 1, TimeoutError: 2, UnknownCharsetError: 1 });
  });

  test('an empty list', () => {
    assert.deepEqual(summarize([]), {
      urls: 0,
      pages: 0,
      redirects: 0,
      failures: 0,
      bytes: 0,
      linksFound: 0,
      newLinks: 0,
      byStatusClass: {},
      byStatus: {},
      byContentType: {},
      errorsByKind: {},
    });
  });

  test('a page without a content type is counted as unknown', () => {
    assert.deepEqual(summarize([stat({ url: 'http://x/', contentType: null, size: 9 })]).byContentType, {
      unknown: { count: 1, bytes: 9 },
    });
  });
});

describe('helpers', () => {
  test('exceptionKind', () => {
    assert.equal(exceptionKind('TimeoutError: timed out'), 'TimeoutError');
    assert.equal(exceptionKind('CancelledError'), 'CancelledError');
    assert.equal(exceptionKind('http.client.IncompleteRead: 0 bytes'), 'http.client.IncompleteRead');
    assert.equal(exceptionKind('connection reset by peer'), 'Error');
    assert.equal(exceptionKind(''), 'Error');
  });

  test('urlsPerSecondPerTask', () => {
    assert.equal(urlsPerSecondPerTask(100, 2, 10), 5);
    assert.equal(urlsPerSecondPerTask(100, 0, 10), 0);
    assert.equal(urlsPerSecondPerTask(100, 2, 0), 0);
    assert.equal(urlsPerSecondPerTask(100, Number.POSITIVE_INFINITY, 1), 0);
  });
});
