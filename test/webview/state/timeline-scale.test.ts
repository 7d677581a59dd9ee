import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TimelineSegment } from '../../../protocol/host-protocol';
import { TimelineModel } from '../../../webview/state/timeline-model';
import {
  clampWindow,
  laneRuns,
  niceStep,
  panWindow,
  shareOfTick,
  TickScale,
  tickAtShare,
  wholeRun,
  windowShowing,
  zoomWindow,
} from '../../../webview/state/timeline-scale';
import { makeTimeline } from '../fixtures-timeline';

describe('timeline scale', () => {
  it('clamps, zooms around a tick and pans within the run', () => {
    // Ticks 1 .. 100.
    assert.deepEqual(wholeRun(100), { from: 1, to: 101 });
    assert.deepEqual(clampWindow({ from: -5, to: 5 }, 100), { from: 1, to: 11 });
    assert.deepEqual(clampWindow({ from: 95, to: 120 }, 100), { from: 76, to: 101 });
    assert.deepEqual(clampWindow({ from: 3, to: 3 }, 100), { from: 3, to: 4 });
    const z = zoomWindow({ from: 1, to: 101 }, 51, 0.5, 100);
    assert.deepEqual(z, { from: 26, to: 76 });
    assert.deepEqual(panWindow(z, 40, 100), { from: 51, to: 101 });
    assert.deepEqual(windowShowing({ from: 1, to: 11 }, 50, 100), { from: 45, to: 55 });
    assert.deepEqual(windowShowing({ from: 1, to: 11 }, 5, 100), { from: 1, to: 11 });
  });

  it('maps ticks to pixels and back, on the tick axis and on the time axis', () => {
    const m = new TimelineModel();
    // Ticks 1..4 begin at 0, 1, 2 and 8 ms; the end of tick 4 is extrapolated (mean 8/3 ms).
    m.apply({ runId: 1, ticks: 4, sinceTick: 0, live: false, lanes: [], marks: [], tickTimes: [0, 1, 2, 8] });
    const ticks = new TickScale(m, 'ticks', { from: 1, to: 5 }, 400);
    assert.equal(ticks.xOf(3), 200);
    assert.equal(ticks.tickAtX(250), 3);
    assert.equal(ticks.tickAtX(9999), 4);
    const time = new TickScale(m, 'time', { from: 1, to: 4 }, 80);
    assert.equal(time.xOf(2), 10);
    assert.equal(time.xOf(3), 20);
    assert.equal(time.tickAtX(50), 3);
    for (const t of [1, 2, 3]) assert.equal(time.tickAtX(time.xOf(t) + 0.5), t);
  });

  it('draws at most one run per pixel, left to right, without overlaps', () => {
    const m = new TimelineModel();
    m.apply(makeTimeline(3, 30_000));
    const lane = m.lane(3)!;
    assert.ok(lane.segments.length > 5000, `${lane.segments.length} segments`);
    const scale = new TickScale(m, 'ticks', wholeRun(30_000), 800);
    const runs = laneRuns(lane, scale, m.lastTick);
    assert.ok(runs.length <= 800, `${runs.length} runs`);
    for (let i = 1; i < runs.length; i++) assert.ok(runs[i]!.x0 >= runs[i - 1]!.x1 && runs[i]!.x1 > runs[i]!.x0);
    // Zoomed in to ten pixels a tick, each stretch is its own run (a one-tick step between two waits shows).
    const zoomed = laneRuns(lane, new TickScale(m, 'ticks', { from: 100, to: 180 }, 800), m.lastTick);
    assert.ok(
      zoomed.some((r) => r.kind === 'running' && r.x1 - r.x0 === 10),
      JSON.stringify(zoomed.slice(0, 6)),
    );
    assert.ok(zoomed.some((r) => r.kind === 'io') && zoomed.some((r) => r.kind === 'sync'));
  });

  it('zoomed out, a pixel shows what covers most of its ticks, not what came first', () => {
    const m = new TimelineModel();
    const segments: TimelineSegment[] = [];
    for (let t = 1; t <= 3100; t += 31) {
      segments.push({ fromTick: t, toTick: t, state: 'running' });
      segments.push({
        fromTick: t + 1,
        toTick: t + 30,
        state: 'suspended',
        awaiting: 'socket.read',
        wokenTick: t + 30,
        wokenBy: 'io',
      });
    }
    m.apply({
      runId: 1,
      ticks: 3100,
      sinceTick: 0,
      live: false,
      lanes: [
        { taskId: 2, name: 'w', parentId: 1, createdTick: 0, segmentsFrom: 0, endTick: null, endState: null, segments },
      ],
      marks: [],
      tickTimes: [],
    });
    const runs = laneRuns(m.lane(2)!, new TickScale(m, 'ticks', wholeRun(3100), 100), m.lastTick);
    const io = runs.filter((r) => r.kind === 'io').reduce((n, r) => n + r.x1 - r.x0, 0);
    assert.ok(io >= 90, `${io} of 100 pixels show the socket wait`);
  });

  it('maps the scrubber track to ticks 1 .. last and back', () => {
    assert.equal(tickAtShare(0, 500), 1);
    assert.equal(tickAtShare(1, 500), 500);
    assert.equal(tickAtShare(0.5, 501), 251);
    assert.equal(shareOfTick(251, 501), 0.5);
    assert.equal(shareOfTick(1, 1), 1);
  });

  it('picks round axis steps', () => {
    assert.equal(niceStep(0.3), 1);
    assert.equal(niceStep(7), 10);
    assert.equal(niceStep(13), 20);
    assert.equal(niceStep(420), 500);
  });
});
