// Unit tests of protocol/progress-history.ts: the chart's points and the crawled pages as
// the extension and the panel both keep them (forward in time, bounded, oldest dropped).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CrawlProgress } from '../../protocol/host-protocol';
import { MAX_PAGES, MAX_POINTS, ProgressHistory } from '../../protocol/progress-history';

function report(seconds: number, done: number, over: Partial<CrawlProgress> = {}): CrawlProgress {
  return {
    done,
    queued: 1,
    inFlight: 1,
    errors: 0,
    seen: done + 2,
    excluded: 0,
    seconds,
    rate: 7,
    errorsByKind: {},
    ...over,
  };
}

describe('ProgressHistory', () => {
  it('turns reports into points with the rate between them, and drops repeats and going back in time', () => {
    const h = new ProgressHistory();
    const first = h.pointOf(report(1, 10));
    assert.deepEqual(first, { t: 1, done: 10, rate: 7, queued: 1, inFlight: 1 });
    h.record(first, undefined);
    const second = h.pointOf(report(3, 30));
    assert.equal(second?.rate, 10);
    h.record(second, undefined);
    assert.equal(h.pointOf(report(4, 30)), null, 'nothing new');
    assert.equal(h.pointOf(report(2, 99)), null, 'earlier than the last point');
    h.record({ t: 2, done: 1, rate: 0, queued: 0, inFlight: 0 }, undefined);
    assert.deepEqual(
      h.points.map((p) => p.t),
      [1, 3],
    );
  });

  it('keeps at most MAX_POINTS points and MAX_PAGES pages, the newest', () => {
    const h = new ProgressHistory();
    for (let i = 1; i <= MAX_POINTS + 5; i++)
      h.record({ t: i, done: i, rate: 1, queued: 0, inFlight: 0 }, [{ url: `http://x/${i}`, status: 200 }]);
    assert.equal(h.points.length, MAX_POINTS);
    assert.equal(h.points[0]!.t, 6);
    assert.equal(h.pages.length, MAX_PAGES);
    assert.equal(h.pages[h.pages.length - 1]!.url, `http://x/${MAX_POINTS + 5}`);
    const points = h.points;
    h.reset([{ t: 1, done: 1, rate: 1, queued: 0, inFlight: 0 }], []);
    assert.equal(h.points, points, 'the same list, changed in place (the panel shows it)');
    assert.equal(h.points.length, 1);
    assert.equal(h.pages.length, 0);
  });
});
