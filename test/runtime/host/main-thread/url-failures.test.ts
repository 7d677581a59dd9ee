// UrlFailures: a run's failed URLs by tick and task, and their reading back from a recording's
// metadata (checked field by field: what is not a failure is left out, never an exception).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  UrlFailures,
  savedUrlFailures,
  urlFailedDescription,
  urlFailureNow,
} from '../../../../runtime/host/main-thread/url-failures';
import { Crawler } from '../../../../runtime/crawler/crawler';
import { EventLoop } from '../../../../runtime/loop';
import { VirtualClock } from '../../../../runtime/clock';
import type { FetchStatistic } from '../../../../runtime/crawler/report';

describe('UrlFailures', () => {
  const a = {
    tick: 3,
    taskId: 2,
    url: 'http://a/',
    description: urlFailedDescription('Task #2 "worker-1"', 'http://a/', 'Error: x'),
  };
  const b = {
    tick: 9,
    taskId: 4,
    url: 'http://b/',
    description: urlFailedDescription('Task #4 "worker-3"', 'http://b/', 'Error: y'),
  };

  test('the live stop words a failure with the worker, the URL and the error', () => {
    assert.equal(a.description, 'Task #2 "worker-1" failed to fetch http://a/: Error: x');
  });

  test("a failure whose error the crawler no longer keeps is worded by the statistic's own text", () => {
    const crawler = new Crawler(['http://a/']);
    crawler.errors.push({ url: 'http://a/x', error: new Error('kept') });
    const stat = { url: 'http://a/y', exception: 'HttpProtocolError: bad chunk' } as FetchStatistic & {
      exception: string;
    };
    const loop = new EventLoop({ clock: new VirtualClock() });
    try {
      assert.equal(
        urlFailureNow(stat, crawler, loop).mark.description,
        'a callback failed to fetch http://a/y: HttpProtocolError: bad chunk',
      );
      const kept = { url: 'http://a/x', exception: 'Error: kept' } as FetchStatistic & { exception: string };
      assert.equal(
        urlFailureNow(kept, crawler, loop).mark.description,
        'a callback failed to fetch http://a/x: Error: kept',
      );
    } finally {
      loop.close();
    }
  });

  test('between: after sinceTick, up to toTick, one task', () => {
    const f = new UrlFailures([a]);
    f.add(b);
    assert.deepEqual(f.between(0, 100), [a, b]);
    assert.deepEqual(f.between(3, 100), [b]);
    assert.deepEqual(f.between(0, 8), [a]);
    assert.deepEqual(f.between(0, 100, 4), [b]);
    assert.deepEqual(f.all(), [a, b]);
  });

  test('savedUrlFailures reads back what was saved and leaves out the rest', () => {
    assert.deepEqual(savedUrlFailures(JSON.parse(JSON.stringify([a, b]))), [a, b]);
    assert.deepEqual(savedUrlFailures(undefined), []);
    assert.deepEqual(savedUrlFailures({ tick: 1 }), []);
    assert.deepEqual(
      savedUrlFailures([
        null,
        7,
        { tick: 1.5, url: 'u', description: 'd' },
        { tick: 2, url: 'u' },
        { tick: 2, url: 'u', description: 'd', taskId: 'x' },
      ]),
      [{ tick: 2, url: 'u', description: 'd' }],
    );
  });
});
