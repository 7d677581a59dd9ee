import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scrollToRow, visibleRange } from '../../webview/virtual-range';

describe('visibleRange (task table virtualisation)', () => {
  it('covers the viewport plus the overscan, clamped to the rows', () => {
    const r = visibleRange(0, 440, 22, 10_000, 8);
    assert.deepEqual(r, { start: 0, end: 28, offset: 0, total: 220_000 });
    const mid = visibleRange(22 * 1000, 440, 22, 10_000, 8);
    assert.equal(mid.start, 992);
    assert.equal(mid.end, 1028);
    assert.equal(mid.offset, 992 * 22);
  });

  it('renders a bounded number of rows whatever the count', () => {
    for (const count of [1, 100, 10_000, 1_000_000]) {
      const r = visibleRange(count * 11, 600, 22, count, 8);
      assert.ok(r.end - r.start <= Math.ceil(600 / 22) + 1 + 16, `count ${count}: ${r.end - r.start} rows`);
      assert.ok(r.start >= 0 && r.end <= count && r.start <= r.end);
    }
  });

  it('clamps a scroll position past the end (rows removed under the scrollbar)', () => {
    const r = visibleRange(1_000_000, 440, 22, 50, 4);
    assert.equal(r.end, 50);
    assert.ok(r.start < 50);
    assert.equal(r.total, 50 * 22);
  });

  it('handles no rows and a zero-height viewport', () => {
    assert.deepEqual(visibleRange(0, 400, 22, 0), { start: 0, end: 0, offset: 0, total: 0 });
    const r = visibleRange(0, 0, 22, 10, 0);
    assert.equal(r.start, 0);
    assert.equal(r.end, 1);
  });

  it('scrollToRow brings a row into view only when it is out of view', () => {
    assert.equal(scrollToRow(5, 0, 440, 22), 0); // visible
    assert.equal(scrollToRow(100, 0, 440, 22), 101 * 22 - 440); // below: to the bottom edge
    assert.equal(scrollToRow(3, 500, 440, 22), 66); // above: to the top edge
  });
});
