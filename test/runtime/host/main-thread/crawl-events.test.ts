// Tests of runtime/host/main-thread/crawl-events.ts with a real Crawler that is never started
// (its counters move through record(); elapsed() stays 0), a LoopController whose stopAfterTick is
// recorded, and the statistics given from inside a task of a real loop. Checked: every page
// finished listed in exactly one progress event's `recent` (an event at once when 100 wait), an
// event only when something changed unless forced; a failed URL kept with a recording, and with
// the URL-failed break on an `exception` event (within its limit) then a stop, in that order.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawledPage, HostEvents } from '../../../../protocol/host-protocol';
import { VirtualClock } from '../../../../runtime/clock';
import { coroutine } from '../../../../runtime/coroutine';
import { Crawler } from '../../../../runtime/crawler/crawler';
import type { FetchStatistic } from '../../../../runtime/crawler/report';
import { LoopController, type PauseInfo } from '../../../../runtime/inspect/loop-control';
import { EventLoop } from '../../../../runtime/loop';
import { RunRecorder } from '../../../../runtime/record/run-recorder';
import type { Coroutine } from '../../../../runtime/task';
import { CrawlEvents, type CrawlRun } from '../../../../runtime/host/main-thread/crawl-events';
import type { Emit } from '../../../../runtime/host/main-thread/run-services';
import { UrlFailures } from '../../../../runtime/host/main-thread/url-failures';

/** A controller that only tells the stops asked of it (the loop is never held). */
class RecordingController extends LoopController {
  constructor(
    loop: EventLoop,
    private readonly onStop: (info: Omit<PauseInfo, 'tick'>) => void,
  ) {
    super(loop);
  }
  override stopAfterTick(info: Omit<PauseInfo, 'tick'>): void {
    this.onStop(info);
  }
}

function stat(url: string, extra: Partial<FetchStatistic> = {}): FetchStatistic {
  return {
    url,
    nextUrl: null,
    status: 200,
    exception: null,
    size: 10,
    contentType: 'text/html',
    encoding: 'utf-8',
    numUrls: 0,
    numNewUrls: 0,
    ...extra,
  };
}

interface Setup {
  loop: EventLoop;
  crawler: Crawler;
  urlFailures: UrlFailures;
  events: CrawlEvents;
  /** Emitted events and stops, in order: `progress`, `exception`, `stop` entries with their bodies. */
  log: Array<{ what: string; body: unknown }>;
  /** Runs `fn` inside a task named "worker" of the loop (the crawler's worker fetching). */
  inWorker(fn: () => void): Promise<number>;
}

function setup(
  t: { after(fn: () => void): void },
  options: { breakOnUrlFailed?: boolean; recorded?: boolean; crawler?: boolean; allowExceptions?: boolean } = {},
): Setup {
  const loop = new EventLoop({ clock: new VirtualClock() });
  t.after(() => loop.close());
  const crawler = new Crawler(['http://demo.test/']);
  const log: Array<{ what: string; body: unknown }> = [];
  const controller = new RecordingController(loop, (info) => log.push({ what: 'stop', body: info }));
  const urlFailures = new UrlFailures();
  const run: CrawlRun = {
    loop,
    controller,
    crawler: options.crawler === false ? null : crawler,
    breakOnUrlFailed: options.breakOnUrlFailed ?? false,
    recording: {
      recorder: options.recorded === true ? new RunRecorder({ clock: new VirtualClock() }) : null,
      urlFailures,
    },
  };
  const emit: Emit = <E extends keyof HostEvents & string>(event: E, body: HostEvents[E]) => {
    log.push({ what: event, body });
  };
  const events = new CrawlEvents(run, emit, { allow: () => options.allowExceptions ?? true });
  const inWorker = (fn: () => void): Promise<number> => {
    const task = loop.createTask(
      coroutine(function* worker(): Coroutine<number> {
        fn();
        return loop.tickCount();
      })(),
      { name: 'worker' },
    );
    return loop.runUntilComplete(task);
  };
  return { loop, crawler, urlFailures, events, log, inWorker };
}

/** The `recent` lists of the progress events logged, and their `done` counts. */
function progressEvents(log: Setup['log']): Array<{ done: number; recent: string[] | undefined }> {
  return log
    .filter((e) => e.what === 'progress')
    .map((e) => {
      const p = e.body as HostEvents['progress'];
      return { done: p.done, recent: p.recent?.map((r) => r.url) };
    });
}

describe('CrawlEvents progress', () => {
  test('the pages finished go in the next event, with a title and an error only when they have one', (t) => {
    const s = setup(t);
    s.events.onStatistic(stat('http://demo.test/', { title: 'Home' }));
    s.events.onStatistic(stat('http://demo.test/x', { status: null, exception: 'TimeoutError: slow' }));
    s.events.emitProgress(false);
    assert.equal(s.log.length, 1);
    const body = s.log[0]!.body as HostEvents['progress'];
    assert.deepEqual(body.recent, [
      { url: 'http://demo.test/', status: 200, title: 'Home' },
      { url: 'http://demo.test/x', status: null, error: 'TimeoutError: slow' },
    ] satisfies CrawledPage[]);
    assert.deepEqual(
      { ...body, recent: undefined },
      {
        done: 0,
        // The root URL, queued when the crawler was made.
        queued: 1,
        inFlight: 0,
        errors: 0,
        seen: 1,
        excluded: 0,
        seconds: 0,
        rate: 0,
        errorsByKind: {},
        recent: undefined,
      },
    );
  });

  test('an event goes out only when something changed, or when forced', (t) => {
    const s = setup(t);
    s.events.emitProgress(false);
    s.events.emitProgress(false);
    s.crawler.record(stat('http://demo.test/a'));
    s.events.emitProgress(false);
    s.events.emitProgress(false);
    s.events.emitProgress(true);
    assert.deepEqual(progressEvents(s.log), [
      { done: 0, recent: undefined },
      { done: 1, recent: undefined },
      { done: 1, recent: undefined },
    ]);
  });

  test('100 waiting pages go out at once; every page is in exactly one event, oldest first', (t) => {
    const s = setup(t);
    const urls = Array.from({ length: 250 }, (_, i) => `http://demo.test/p${i}`);
    const sizesWhenSent: number[] = [];
    for (const url of urls) {
      const before = s.log.length;
      s.events.onStatistic(stat(url));
      if (s.log.length > before) sizesWhenSent.push(urls.indexOf(url) + 1);
    }
    s.events.emitProgress(false);
    s.events.emitProgress(false);
    const recents = progressEvents(s.log).map((e) => e.recent ?? []);
    assert.deepEqual(sizesWhenSent, [100, 200]);
    assert.deepEqual(
      recents.map((r) => r.length),
      [100, 100, 50],
    );
    assert.deepEqual(recents.flat(), urls);
  });

  test('a run that is no crawl has no progress and sends none', (t) => {
    const s = setup(t, { crawler: false });
    s.events.onStatistic(stat('http://demo.test/'));
    s.events.emitProgress(true);
    assert.equal(s.events.progress(), null);
    assert.deepEqual(s.log, []);
  });
});

describe('CrawlEvents URL failures', () => {
  const failed = stat('http://demo.test/broken', { status: null, exception: 'HttpProtocolError: bad chunk' });

  /** The crawler's own record of the failure, as it keeps it right before record(): the error named in the stop. */
  function crawlerCaught(s: Setup, message: string): void {
    const caught = new Error(message);
    caught.name = 'HttpProtocolError';
    s.crawler.errors.push({ url: 'http://demo.test/broken', error: caught });
  }

  test('without the break and without a recording, a failure is only a page of the next event', async (t) => {
    const s = setup(t);
    await s.inWorker(() => s.events.onStatistic(failed));
    assert.deepEqual(s.log, []);
    assert.deepEqual(s.urlFailures.all(), []);
  });

  test("recorded, break off: the failure is kept with the recording, in the worker's tick, and nothing stops", async (t) => {
    const s = setup(t, { recorded: true });
    crawlerCaught(s, 'bad chunk');
    let workerId = 0;
    const tick = await s.inWorker(() => {
      workerId = s.loop.currentTask()!.id;
      s.events.onStatistic(failed);
    });
    const description = `Task #${workerId} "worker" failed to fetch http://demo.test/broken: HttpProtocolError: bad chunk`;
    assert.deepEqual(s.urlFailures.all(), [{ tick, taskId: workerId, url: 'http://demo.test/broken', description }]);
    assert.deepEqual(s.log, []);
  });

  test('break on: an exception event with the traceback, then a stop after the tick, in that order', async (t) => {
    const s = setup(t, { breakOnUrlFailed: true });
    // The event's traceback is the error the crawler caught, not the statistic's text.
    crawlerCaught(s, 'the chunk size was zz');
    let workerId = 0;
    await s.inWorker(() => {
      workerId = s.loop.currentTask()!.id;
      s.events.onStatistic(failed);
    });
    const description = `Task #${workerId} "worker" failed to fetch http://demo.test/broken: HttpProtocolError: the chunk size was zz`;
    assert.deepEqual(
      s.log.map((e) => e.what),
      ['exception', 'stop'],
    );
    const exception = s.log[0]!.body as HostEvents['exception'];
    assert.deepEqual(
      [exception.taskId, exception.traceback.title, exception.traceback.error],
      [
        workerId,
        `Coroutine traceback of Task #${workerId} "worker", fetching http://demo.test/broken`,
        'HttpProtocolError: the chunk size was zz',
      ],
    );
    assert.deepEqual(s.log[1]!.body, {
      reason: 'exception',
      description,
      url: 'http://demo.test/broken',
      taskId: workerId,
    });
    assert.deepEqual(s.urlFailures.all(), [], 'not recorded: the run records nothing');
  });

  test('break on past the exception events limit: the stop still comes; from a callback it names no task', async (t) => {
    const s = setup(t, { breakOnUrlFailed: true, allowExceptions: false });
    crawlerCaught(s, 'bad chunk');
    s.loop.callSoon(() => s.events.onStatistic(failed));
    await s.loop.runOnce();
    assert.deepEqual(s.log, [
      {
        what: 'stop',
        body: {
          reason: 'exception',
          description: 'a callback failed to fetch http://demo.test/broken: HttpProtocolError: bad chunk',
          url: 'http://demo.test/broken',
        },
      },
    ]);
  });

  test('a page that did not fail, or a run that is no crawl, never stops', async (t) => {
    const s = setup(t, { breakOnUrlFailed: true, recorded: true });
    await s.inWorker(() => s.events.onStatistic(stat('http://demo.test/fine')));
    const none = setup(t, { breakOnUrlFailed: true, recorded: true, crawler: false });
    await none.inWorker(() => none.events.onStatistic(failed));
    assert.deepEqual([s.log, s.urlFailures.all(), none.log, none.urlFailures.all()], [[], [], [], []]);
  });
});
