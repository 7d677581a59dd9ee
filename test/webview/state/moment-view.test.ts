// The panel's view of the moment (webview/state/moment-view.ts): the header, the scrubber and
// the dashboard say the same tick, pages and time, whatever order the extension's news comes in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CrawlProgress, Snapshot } from '../../../protocol/host-protocol';
import type { ProgressPoint, RunStatus } from '../../../protocol/webview-protocol';
import {
  dashboardSeconds,
  headerFacts,
  MomentTracker,
  pagesUpTo,
  pointsUpTo,
  scrubberText,
} from '../../../webview/state/moment-view';
import { TimelineModel } from '../../../webview/state/timeline-model';
import { makeTimeline } from '../fixtures-timeline';

function status(over: Partial<RunStatus> = {}): RunStatus {
  return { phase: 'running', runId: 1, title: 'Crawl', detail: 'Running', tick: 0, ...over };
}
function progress(done: number, seconds: number): CrawlProgress {
  return { done, queued: 0, inFlight: 0, errors: 0, seen: done, excluded: 0, seconds, rate: 0, errorsByKind: {} };
}
function snapshot(tick: number, p: CrawlProgress | null): Snapshot {
  return {
    version: tick,
    full: true,
    tick,
    paused: false,
    tasks: [],
    removed: [],
    counts: { scheduled: 0, running: 0, suspended: 0, done: 0, cancelled: 0, failed: 0 },
    progress: p,
  };
}
/** A timeline of `ticks` ticks, tick t beginning 2 (t - 1) ms after tick 1. */
function timeline(ticks: number): TimelineModel {
  const tl = new TimelineModel();
  tl.apply(makeTimeline(2, ticks));
  return tl;
}

describe('the panel says one moment', () => {
  it('header and scrubber say the same present tick, the newest heard (a status of tick 8, snapshots at 71)', () => {
    const tl = timeline(70);
    const m = new MomentTracker();
    const s = status({ tick: 8 });
    m.snapshot(snapshot(71, progress(30, 3)), false);
    const now = m.moment(s, { timelineTicks: tl.lastTick });
    assert.equal(headerFacts(now, 5, m.progressAt(now))[0], 'tick 71');
    assert.equal(scrubberText(now, tl).label, 'Tick 71 · the present');
  });

  it('back to the present: the live pages, not those of the past tick shown last', () => {
    const tl = timeline(372);
    const m = new MomentTracker();
    m.progress(progress(100, 5));
    const pastStatus = status({ tick: 200, viewedTick: 150 });
    m.status(status({ tick: 200 }), pastStatus);
    m.snapshot(snapshot(150, progress(72, 3)), true);
    const past = m.moment(pastStatus, { timelineTicks: tl.lastTick });
    assert.deepEqual(headerFacts(past, 5, m.progressAt(past)), [
      'viewing tick 150 of 372 (past)',
      '5 live tasks',
      '72 pages',
    ]);
    // Meanwhile the live crawl went on.
    m.progress(progress(372, 17.9));
    const present = status({ tick: 372, phase: 'finished' });
    m.status(pastStatus, present);
    const now = m.moment(present, { timelineTicks: tl.lastTick });
    assert.deepEqual(headerFacts(now, 0, m.progressAt(now)), ['tick 372', '0 live tasks', '372 pages']);
  });

  it('a new past tick: its own pages once its snapshot says them, none meanwhile', () => {
    const m = new MomentTracker();
    m.progress(progress(372, 17.9));
    const a = status({ tick: 400, viewedTick: 100 });
    m.status(status({ tick: 400 }), a);
    m.snapshot(snapshot(100, progress(50, 2)), true);
    const b = { ...a, viewedTick: 200 };
    m.status(a, b);
    assert.equal(m.progressAt(m.moment(b, {})), null);
    m.snapshot(snapshot(200, progress(90, 4)), true);
    assert.equal(m.progressAt(m.moment(b, {}))?.done, 90);
  });

  it('an opened recording: "Tick N of M", no "(past)", no Back to present', () => {
    const tl = timeline(724);
    const m = new MomentTracker();
    const s = status({
      phase: 'finished',
      tick: 724,
      viewedTick: 724,
      recorded: true,
      recordingFile: '/tmp/c.corotrace',
    });
    const end = m.moment(s, { timelineTicks: tl.lastTick });
    const words = scrubberText(end, tl);
    assert.match(words.label, /^Tick 724 of 724 · /);
    assert.doesNotMatch(words.label, /past/);
    assert.equal(words.offersPresent, false);
    assert.equal(headerFacts(end, 0, null)[0], 'tick 724 of 724');
    // A live run's past tick offers the way back.
    assert.equal(
      scrubberText(m.moment({ ...s, recordingFile: undefined }, { timelineTicks: 724 }), tl).offersPresent,
      true,
    );
  });

  it('the scrubber and the dashboard say the same time at a past tick, and the chart stops there', () => {
    const tl = timeline(100); // tick t began 2 (t - 1) ms after tick 1
    const m = new MomentTracker();
    const s = status({ tick: 100, viewedTick: 51 });
    const at = m.moment(s, { timelineTicks: tl.lastTick });
    assert.match(scrubberText(at, tl).label, /· 100 ms into the run$/);
    // The past snapshot's own clock reading (a replay's, between ticks) is not the tick's time.
    assert.equal(dashboardSeconds(at, progress(10, 0.1037), tl), 0.1);
    const points: ProgressPoint[] = [0.05, 0.1, 0.102, 0.15].map((t) => ({
      t,
      done: 1,
      rate: 1,
      queued: 0,
      inFlight: 0,
    }));
    assert.deepEqual(
      pointsUpTo(at, points, tl).map((p) => p.t),
      [0.05, 0.1],
    );
    // The present: the crawl's own live time, every point.
    const now = m.moment(status({ tick: 100 }), { timelineTicks: 100 });
    assert.equal(dashboardSeconds(now, progress(10, 0.25), tl), 0.25);
    assert.equal(pointsUpTo(now, points, tl).length, 4);
  });

  it("the dashboard's pages at a past tick: those finished by then, the list trimmed or not", () => {
    const pages = Array.from({ length: 5 }, (_, i) => ({ url: `http://x/${i + 11}`, status: 200 }));
    const past = status({ tick: 100, viewedTick: 40 });
    const m = new MomentTracker().moment(past, {});
    // The list holds pages 11..15 of 15: at a tick with 13 done, 11..13.
    assert.deepEqual(
      pagesUpTo(m, pages, 15, progress(13, 1)).map((p) => p.url),
      ['http://x/11', 'http://x/12', 'http://x/13'],
    );
    assert.equal(pagesUpTo(m, pages, 15, progress(8, 1)).length, 0);
    // The present, or counts that do not say: the whole list.
    assert.equal(
      pagesUpTo(new MomentTracker().moment(status({ tick: 100 }), {}), pages, 15, progress(13, 1)).length,
      5,
    );
    assert.equal(pagesUpTo(m, pages, null, progress(13, 1)).length, 5);
  });
});
