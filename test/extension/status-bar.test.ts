// The status bar item (extension/status-bar.ts) through the stub of the editor's API (debug/vscode-stub.ts),
// on Node's mocked setTimeout and Date: no item before the first update; the first update shows at once
// (its words status-bar-text.ts's, a click opening the inspector); updates within 250 ms of the last shown
// wait until 250 ms after it and show the latest values, once; a paused run is marked as a warning, a host
// that died as an error; dispose drops a pending update and the item.
import { stubWindow } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it, type TestContext } from 'node:test';
import type { CrawlProgress, TaskState } from '../../protocol/host-protocol';
import type { RunMoment } from '../../protocol/run-moment';
import type { RunStatus } from '../../protocol/webview-protocol';
import { CoroscopeStatusBar } from '../../extension/status-bar';
import { statusText } from '../../extension/status-bar-text';

const COUNTS: Record<TaskState, number> = { scheduled: 1, running: 0, suspended: 2, done: 3, cancelled: 0, failed: 0 };
const PRESENT: RunMoment = { kind: 'present', tick: 30, lastTick: 30, onLine: false };

function progress(done: number): CrawlProgress {
  return {
    done,
    queued: 1,
    inFlight: 1,
    errors: 0,
    seen: done + 2,
    excluded: 0,
    seconds: 1,
    rate: done,
    errorsByKind: {},
  };
}

function status(phase: RunStatus['phase']): RunStatus {
  return { phase, runId: 7, title: 'Crawl of the demo site', detail: phase, tick: 30 };
}

/** The item as shown: its text, its background's theme colour, how often it was shown. */
function shown(): { text: string; background: string | null; shows: number } | null {
  const item = stubWindow.statusItems[0];
  return item === undefined
    ? null
    : { text: item.text, background: item.backgroundColor?.id ?? null, shows: item.shows };
}

const textOf = (phase: RunStatus['phase'], done: number): string =>
  statusText(status(phase), PRESENT, progress(done), COUNTS).text;

function clock(t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
}

beforeEach(() => stubWindow.reset());

describe('the status bar item', () => {
  it('none before the first update; the first shows at once, clicking it opens the inspector', (t) => {
    clock(t);
    const bar = new CoroscopeStatusBar();
    assert.equal(shown(), null);
    bar.update(status('running'), PRESENT, progress(4), COUNTS);
    const item = stubWindow.statusItems[0];
    assert.deepEqual(
      { id: item?.id, name: item?.name, command: item?.command, tooltip: item?.tooltip },
      {
        id: 'coroscope.status',
        name: 'Coroscope',
        command: 'coroscope.openInspector',
        tooltip: statusText(status('running'), PRESENT, progress(4), COUNTS).tooltip,
      },
    );
    assert.deepEqual(shown(), { text: textOf('running', 4), background: null, shows: 1 });
    bar.dispose();
  });

  it('updates within 250 ms of the last shown wait for it, then show the latest once', (t) => {
    clock(t);
    const bar = new CoroscopeStatusBar();
    bar.update(status('running'), PRESENT, progress(1), COUNTS);
    t.mock.timers.tick(100);
    bar.update(status('running'), PRESENT, progress(2), COUNTS);
    t.mock.timers.tick(100);
    bar.update(status('running'), PRESENT, progress(3), COUNTS);
    t.mock.timers.tick(49);
    assert.deepEqual(shown(), { text: textOf('running', 1), background: null, shows: 1 });
    t.mock.timers.tick(1);
    assert.deepEqual(shown(), { text: textOf('running', 3), background: null, shows: 2 });
    // 250 ms after that one: at once again.
    t.mock.timers.tick(250);
    bar.update(status('running'), PRESENT, progress(9), COUNTS);
    assert.deepEqual(shown(), { text: textOf('running', 9), background: null, shows: 3 });
    assert.equal(stubWindow.statusItems.length, 1, 'one item, updated');
    bar.dispose();
  });

  it('a paused run is marked as a warning, a dead host as an error, a finished run not', (t) => {
    clock(t);
    const bar = new CoroscopeStatusBar();
    const backgrounds: Array<string | null> = [];
    for (const phase of ['paused', 'hostDied', 'finished'] as const) {
      bar.update(status(phase), PRESENT, progress(1), COUNTS);
      backgrounds.push(shown()?.background ?? null);
      t.mock.timers.tick(250);
    }
    assert.deepEqual(backgrounds, ['statusBarItem.warningBackground', 'statusBarItem.errorBackground', null]);
    bar.dispose();
  });

  it('dispose drops the update pending and the item', (t) => {
    clock(t);
    const bar = new CoroscopeStatusBar();
    bar.update(status('running'), PRESENT, progress(1), COUNTS);
    bar.update(status('running'), PRESENT, progress(2), COUNTS);
    bar.dispose();
    t.mock.timers.tick(1000);
    assert.deepEqual(
      { ...shown(), disposed: stubWindow.statusItems[0]?.disposed },
      { text: textOf('running', 1), background: null, shows: 1, disposed: true },
    );
  });
});
