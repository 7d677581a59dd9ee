// The crawl's progress notification (extension/crawl-progress.ts) through the stub of the editor's API
// (debug/vscode-stub.ts) and a fake run session of emitters: what it reports as the crawl goes (pages,
// queue, in flight, rate, errors when there are any; the increment as the share of the work done since),
// a pause's detail, and when it ends: the run finished, the host died, the session reset or went idle, a
// new run starting, or Cancel (which stops the run); once ended it reports nothing more.
import { stubWindow } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { CrawlProgress } from '../../protocol/host-protocol';
import type { RunStatus } from '../../protocol/webview-protocol';
import { showCrawlProgress } from '../../extension/crawl-progress';
import { Emitter } from '../../extension/emitter';
import type { RunSession } from '../../extension/run-session';

interface FakeSession {
  session: RunSession;
  onProgress: Emitter<{ point: null; progress: CrawlProgress }>;
  onStatus: Emitter<RunStatus>;
  onReset: Emitter<RunStatus>;
  stopped: number;
}

function fakeSession(runId: number | null): FakeSession {
  const f = {
    onProgress: new Emitter<{ point: null; progress: CrawlProgress }>(),
    onStatus: new Emitter<RunStatus>(),
    onReset: new Emitter<RunStatus>(),
    stopped: 0,
  } as FakeSession;
  f.session = {
    status: { runId },
    onProgress: f.onProgress,
    onStatus: f.onStatus,
    onReset: f.onReset,
    stopRun: async () => {
      f.stopped++;
    },
  } as unknown as RunSession;
  return f;
}

function progress(done: number, queued: number, inFlight: number, rate: number, errors = 0): CrawlProgress {
  return { done, queued, inFlight, errors, seen: done + queued, excluded: 0, seconds: 1, rate, errorsByKind: {} };
}

const status = (phase: RunStatus['phase'], detail = ''): RunStatus =>
  ({ phase, runId: 1, title: 'Crawl', detail, tick: 0 }) as RunStatus;

beforeEach(() => stubWindow.reset());

describe('the crawl progress notification', () => {
  it('reports pages, queue and rate, errors once there are some, and the share of the work done since', () => {
    const f = fakeSession(1);
    showCrawlProgress(f.session, 'Crawl of the demo site');
    f.onProgress.fire({ point: null, progress: progress(10, 6, 4, 12.4) });
    f.onProgress.fire({ point: null, progress: progress(15, 3, 2, 12.6, 2) });
    f.onProgress.fire({ point: null, progress: progress(0, 0, 0, 0) });
    f.onStatus.fire(status('paused', 'Paused after tick 9'));
    assert.deepEqual(stubWindow.shown, [{ kind: 'progress', text: 'Coroscope: Crawl of the demo site' }]);
    assert.deepEqual(stubWindow.reported, [
      { message: '10 pages · 6 queued · 4 in flight · 12/s', increment: 50 },
      { message: '15 pages · 3 queued · 2 in flight · 13/s · 2 errors', increment: 25 },
      { message: '0 pages · 0 queued · 0 in flight · 0/s', increment: undefined },
      { message: 'Paused: Paused after tick 9' },
    ]);
  });

  it('ends with the run (finished, host died, idle), a reset, or a new run: nothing reported after', () => {
    const endings: Array<[string, (f: FakeSession) => void]> = [
      ['finished', (f) => f.onStatus.fire(status('finished'))],
      ['hostDied', (f) => f.onStatus.fire(status('hostDied'))],
      ['idle', (f) => f.onStatus.fire(status('idle'))],
      ['reset', (f) => f.onReset.fire(status('idle'))],
      ['a new run', (f) => f.onStatus.fire(status('starting'))],
    ];
    const after: Record<string, number> = {};
    for (const [name, end] of endings) {
      stubWindow.reset();
      const f = fakeSession(1);
      showCrawlProgress(f.session, 'Crawl');
      end(f);
      f.onProgress.fire({ point: null, progress: progress(1, 1, 1, 1) });
      f.onStatus.fire(status('paused', 'p'));
      after[name] = stubWindow.reported.length;
    }
    assert.deepEqual(after, { finished: 0, hostDied: 0, idle: 0, reset: 0, 'a new run': 0 });
  });

  it('a run starting before the first launch (no run id then) is this one: not an end', () => {
    const f = fakeSession(null);
    showCrawlProgress(f.session, 'Crawl');
    f.onStatus.fire(status('starting'));
    f.onProgress.fire({ point: null, progress: progress(1, 1, 0, 1) });
    assert.equal(stubWindow.reported.length, 1);
  });

  it('Cancel stops the run and ends the notification', () => {
    const f = fakeSession(1);
    showCrawlProgress(f.session, 'Crawl');
    stubWindow.cancelProgress.fire();
    f.onProgress.fire({ point: null, progress: progress(1, 1, 1, 1) });
    assert.deepEqual({ stopped: f.stopped, reported: stubWindow.reported.length }, { stopped: 1, reported: 0 });
  });
});
