// extension/status-bar-text.ts: the status bar's words for a run: its phase and live numbers in the
// present; at a past tick that tick first and that tick's pages, no live rate, no phase.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CrawlProgress, TaskState } from '../../protocol/host-protocol';
import type { RunMoment } from '../../protocol/run-moment';
import type { RunStatus } from '../../protocol/webview-protocol';
import { statusText } from '../../extension/status-bar-text';

const COUNTS: Record<TaskState, number> = { scheduled: 1, running: 0, suspended: 9, done: 4, cancelled: 1, failed: 2 };
const PROGRESS: CrawlProgress = {
  done: 42,
  queued: 5,
  inFlight: 3,
  errors: 2,
  seen: 50,
  excluded: 0,
  seconds: 2,
  rate: 20.6,
  errorsByKind: {},
};

function status(over: Partial<RunStatus>): RunStatus {
  return { phase: 'running', runId: 7, title: 'Crawl of http://127.0.0.1:1/', detail: 'crawling', tick: 30, ...over };
}
const PRESENT: RunMoment = { kind: 'present', tick: 30, lastTick: 30, onLine: false };

describe('statusText', () => {
  it('a running crawl: a spinner, its pages, its rate and its live tasks; the numbers in the tooltip', () => {
    const { text, tooltip } = statusText(status({}), PRESENT, PROGRESS, COUNTS);
    assert.equal(text, '$(sync~spin) 42 pages · 21/s · 10 tasks');
    assert.deepEqual(tooltip.split('\n'), [
      'Coroscope: Crawl of http://127.0.0.1:1/',
      'crawling',
      'Now: tick 30',
      '42 done, 5 queued, 3 in flight, 2 errors',
      '10 live tasks (9 suspended), 7 finished',
    ]);
  });

  it('paused, finished, host died, stopped: the icon and the word of the phase, no rate', () => {
    const phases: Array<[RunStatus['phase'], string]> = [
      ['paused', '$(debug-pause) 42 pages · 10 tasks · paused'],
      ['finished', '$(pulse) 42 pages · 10 tasks · done'],
      ['hostDied', '$(error) 42 pages · 10 tasks · host died'],
      ['idle', '$(pulse) 42 pages · 10 tasks · stopped'],
    ];
    for (const [phase, expected] of phases)
      assert.equal(statusText(status({ phase }), PRESENT, PROGRESS, COUNTS).text, expected, phase);
  });

  it('a past tick leads the text, with no live rate and no phase; the tooltip says it is viewed', () => {
    const past: RunMoment = { kind: 'past', tick: 12, lastTick: 30, onLine: false };
    const { text, tooltip } = statusText(status({}), past, PROGRESS, COUNTS);
    assert.equal(text, '$(history) tick 12 of 30 (past) · 42 pages · 10 tasks');
    assert.ok(tooltip.split('\n').includes('Viewing tick 12 of 30 (past)'), tooltip);
  });

  it('one live task is "1 task"; no run yet: no tick, no crawl numbers', () => {
    const one: Record<TaskState, number> = { ...COUNTS, scheduled: 0, suspended: 0, running: 1 };
    const { text, tooltip } = statusText(status({ phase: 'idle', runId: null, detail: '' }), PRESENT, null, one);
    assert.equal(text, '$(pulse) 1 task · stopped');
    assert.deepEqual(tooltip.split('\n'), [
      'Coroscope: Crawl of http://127.0.0.1:1/',
      '',
      '1 live tasks (0 suspended), 7 finished',
    ]);
  });
});
