// webview/state/chart.ts: the rate chart's axis top, its smoothed line, the filled area under it
// and the ticks, as numbers and SVG path text (the dashboard draws them as given).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProgressPoint } from '../../../protocol/webview-protocol';
import { niceMax, rateChart } from '../../../webview/state/chart';

const point = (t: number, rate: number): ProgressPoint => ({ t, done: 0, rate, queued: 0, inFlight: 0 });

describe('niceMax', () => {
  it('is 1 for nothing to show (zero, negative, NaN)', () => {
    assert.deepEqual([niceMax(0), niceMax(-5), niceMax(Number.NaN)], [1, 1, 1]);
  });

  it('is the first of 1, 2, 2.5, 5, 10 × 10^k at or above the value', () => {
    const cases: Array<[number, number]> = [
      [0.3, 0.5],
      [1, 1],
      [1.01, 2],
      [2.1, 2.5],
      [2.6, 5],
      [5.5, 10],
      [99, 100],
      [100, 100],
      [101, 200],
      [251, 500],
      [12_345, 20_000],
    ];
    for (const [v, top] of cases) assert.equal(niceMax(v), top, `niceMax(${v})`);
  });
});

describe('rateChart', () => {
  it('smooths each rate over the last `smoothing` points (fewer at the start)', () => {
    // Rates 0, 30, 60, 90 averaged over 3: 0, 15, 30, 60; the top is niceMax(60) = 100.
    const c = rateChart([point(0, 0), point(1, 30), point(2, 60), point(4, 90)], 200, 100);
    assert.equal(c.yMax, 100);
    assert.equal(c.tMax, 4);
    assert.equal(c.path, 'M0.0 100.0 L50.0 85.0 L100.0 70.0 L200.0 40.0');
    assert.deepEqual(c.yTicks, [0, 50, 100]);
  });

  it('without smoothing (1) draws the rates as they are', () => {
    const c = rateChart([point(0, 0), point(1, 30), point(2, 60), point(4, 90)], 200, 100, 1);
    assert.equal(c.path, 'M0.0 100.0 L50.0 70.0 L100.0 40.0 L200.0 10.0');
  });

  it('closes the area down to the axis, from the last point back to the first', () => {
    const c = rateChart([point(1, 5), point(2, 5)], 100, 40, 1);
    assert.equal(c.yMax, 5);
    assert.equal(c.path, 'M50.0 0.0 L100.0 0.0');
    assert.equal(c.area, 'M50.0 0.0 L100.0 0.0 L100.0 40 L50.0 40 Z');
  });

  it('spans at least one second and a rate axis of 1 when there is little to show', () => {
    const one = rateChart([point(0.5, 0)], 100, 10);
    assert.deepEqual([one.tMax, one.yMax, one.path], [1, 1, 'M50.0 10.0']);
    const none = rateChart([], 100, 10);
    assert.deepEqual(none, { path: '', area: '', yMax: 1, tMax: 1, yTicks: [0, 0.5, 1] });
  });
});
