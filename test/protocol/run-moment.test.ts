// The one definition of the moment the views show (protocol/run-moment.ts): the present's
// tick from the newest source, a past tick, an opened recording's tick (no present), a line
// stop within its tick, the run's clock at a tick, and the crawl's numbers of the moment.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CrawlProgress } from '../../protocol/host-protocol';
import {
  elapsedSecondsAt,
  loopTickText,
  offersPresent,
  progressAt,
  presentTick,
  runMoment,
  tickText,
} from '../../protocol/run-moment';
import type { RunStatus } from '../../protocol/webview-protocol';

function status(over: Partial<RunStatus> = {}): RunStatus {
  return { phase: 'running', runId: 1, title: 'Crawl', detail: 'Running', tick: 0, ...over };
}

function progress(done: number, seconds: number): CrawlProgress {
  return { done, queued: 0, inFlight: 0, errors: 0, seen: done, excluded: 0, seconds, rate: 0, errorsByKind: {} };
}

describe('the moment the views show', () => {
  it('the present: the newest tick any source said (a status of tick 8, the timeline at 71: tick 71)', () => {
    const s = status({ tick: 8 });
    assert.equal(presentTick(s, { timelineTicks: 71 }), 71);
    assert.equal(presentTick(s, { presentSnapshotTick: 72, timelineTicks: 71 }), 72);
    const m = runMoment(s, { timelineTicks: 71 });
    assert.deepEqual(m, { kind: 'present', tick: 71, lastTick: 71, onLine: false });
    assert.equal(tickText(m), 'tick 71');
    assert.equal(offersPresent(m), false);
  });

  it('a finished run: its last tick, wherever the status stopped counting', () => {
    const m = runMoment(status({ phase: 'finished', tick: 717 }), { presentSnapshotTick: 724, timelineTicks: 724 });
    assert.equal(tickText(m), 'tick 724');
  });

  it('a line stop: within its tick, as the debugger says it', () => {
    const m = runMoment(status({ phase: 'paused', tick: 4, onLine: true }), { timelineTicks: 3 });
    assert.equal(m.tick, 4);
    assert.equal(tickText(m), 'in tick 4 (on a line)');
    assert.equal(loopTickText(m.tick, { paused: true, onLine: true }), 'stopped on a line in tick 4');
    assert.equal(loopTickText(4, { paused: true }), 'paused after tick 4');
    assert.equal(loopTickText(9, { paused: false }), 'running, tick 9');
  });

  it('a past line (a step back, a hit found in the past): within its tick, as the debugger says it', () => {
    const m = runMoment(status({ phase: 'paused', tick: 12, onLine: true, viewedTick: 8, viewedLine: true }));
    assert.deepEqual(m, { kind: 'past', tick: 8, lastTick: 12, onLine: true });
    assert.equal(tickText(m), 'in tick 8 of 12 (past, on a line)');
    // A seek under way to a tick is not on a line.
    assert.equal(runMoment(status({ tick: 12, viewedTick: 8, viewedLine: true }), { wantedTick: 5 }).onLine, false);
  });

  it('a past tick of a live or finished run: "of" the present, with the way back', () => {
    const m = runMoment(status({ phase: 'finished', tick: 724, viewedTick: 290 }));
    assert.deepEqual(m, { kind: 'past', tick: 290, lastTick: 724, onLine: false });
    assert.equal(tickText(m), 'tick 290 of 724 (past)');
    assert.equal(offersPresent(m), true);
    // A seek under way counts before the host answers; null: the present asked for.
    assert.equal(runMoment(status({ tick: 724, viewedTick: 290 }), { wantedTick: 300 }).tick, 300);
    assert.equal(runMoment(status({ tick: 724, viewedTick: 290 }), { wantedTick: null }).kind, 'present');
  });

  it('an opened recording has no present: "tick N of M", never past, no way back', () => {
    const opened = status({
      phase: 'finished',
      tick: 724,
      viewedTick: 724,
      recorded: true,
      recordingFile: '/tmp/crawl.corotrace',
    });
    const end = runMoment(opened);
    assert.deepEqual(end, { kind: 'recording', tick: 724, lastTick: 724, onLine: false });
    assert.equal(tickText(end), 'tick 724 of 724');
    assert.equal(offersPresent(end), false);
    assert.equal(tickText(runMoment({ ...opened, viewedTick: 10 })), 'tick 10 of 724');
    assert.equal(tickText(runMoment(opened, { wantedTick: null })), 'tick 724 of 724');
  });

  it("the run's clock at a tick: when it began, since tick 1 began; unknown outside the ticks", () => {
    const times = [100.5, 100.5, 100.75, 103];
    assert.equal(elapsedSecondsAt(times, 1), 0);
    assert.equal(elapsedSecondsAt(times, 3), 0.25);
    assert.equal(elapsedSecondsAt(times, 4), 2.5);
    assert.equal(elapsedSecondsAt(times, 0), null);
    assert.equal(elapsedSecondsAt(times, 5), null);
  });

  it("the crawl's numbers: the present's live ones; a past tick's its own, never the live totals", () => {
    const live = progress(372, 17.9);
    const past = progress(172, 8);
    assert.equal(progressAt(runMoment(status({ tick: 800 })), live, null), live);
    assert.equal(progressAt(runMoment(status({ tick: 800, viewedTick: 300 })), live, past), past);
    assert.equal(progressAt(runMoment(status({ tick: 800, viewedTick: 300 })), live, null), null);
    // Back to the present: the live numbers again, not the past tick's last seen.
    assert.equal(progressAt(runMoment(status({ tick: 800 })), live, past), live);
  });
});
