// A replay's session knows its program from the replay's first tick: a replayed crawl's crawler (the crawl's
// progress a past moment shows) is there while the ticks replay, including the ticks a replay from the start
// runs within the program's own start (a recording's tick feed drives the loop at once, so a traced tick, a
// line stop of the replay host, can come before start() returns). A replay let go mid-run (its rewind closed)
// runs nothing more: the thread is idle after the close.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LaunchOptions, LaunchTarget } from '../../../../protocol/host-protocol';
import { demoSiteOptions, startDemoSite } from '../../../../runtime/demo-site/index';
import { startMain, startReplayed } from '../../../../runtime/host/main-thread/launch-programs';
import type { PastMoment } from '../../../../runtime/host/main-thread/past-moment';
import { RunRewind } from '../../../../runtime/host/main-thread/run-rewind';
import { VirtualClock } from '../../../../runtime/clock';
import { coroutine, setCoroutineTracking } from '../../../../runtime/coroutine';
import { EventLoop } from '../../../../runtime/loop';
import { sleep } from '../../../../runtime/sleep';
import type { Coroutine } from '../../../../runtime/task';
import { wholeRecording } from '../../../../runtime/record/run-log';
import { RunRecorder } from '../../../../runtime/record/run-recorder';

before(() => setCoroutineTracking(true));
after(() => setCoroutineTracking(false));

test("a replayed crawl's progress is known at every traced tick of a replay from the start", async () => {
  const site = await startDemoSite(demoSiteOptions('instant', 12));
  const target: LaunchTarget = { kind: 'demo', pages: 12, latency: 'instant' };
  const options: LaunchOptions = { maxTasks: 2, record: true };
  const rec = new RunRecorder({ frames: true, awaitDetails: true });
  const loop = new EventLoop({ clock: rec.clock, debug: true });
  rec.attach(loop);
  let streams: ReturnType<RunRecorder['finish']>;
  try {
    await loop.runUntilComplete(startMain(loop, target, options, site.url).task);
    streams = rec.finish();
  } finally {
    rec.detach();
    loop.close();
    await site.close();
  }
  const rewind = new RunRewind({
    runId: 1,
    what: 'demo crawl',
    frames: true,
    debug: true,
    recording: () => wholeRecording(streams),
    ticks: () => streams.ticks,
    program: { start: (l) => startReplayed(l, target, options, site.url) },
    lints: () => [],
  });
  try {
    const to = Math.floor(streams.ticks / 2);
    // What a stop in the traced ticks reads: the moment's crawl progress, tick by tick.
    const seen: Array<{ tick: number; progress: boolean }> = [];
    let moment: PastMoment | null = null;
    await rewind.traceTick(
      to,
      (l, m) => {
        moment = m;
        l?.addObserver({
          tickStart: () => seen.push({ tick: l.tickCount(), progress: moment?.snapshot().progress != null }),
        });
      },
      0,
    );
    assert.ok(seen.length >= to, `${seen.length} ticks seen, ${to} traced`);
    assert.deepEqual(
      seen.filter((s) => !s.progress).map((s) => s.tick),
      [],
      'the ticks whose moment said no crawl progress',
    );
  } finally {
    rewind.close();
  }
});

/** A program of many short sleeps: its replay takes a while. */
const ticking = coroutine(function* ticking(rounds: number): Coroutine<number> {
  let n = 0;
  for (let i = 0; i < rounds; i++) {
    yield* sleep(0.001);
    n++;
  }
  return n;
});

test('a replay let go mid-run runs nothing more once closed: no loop left spinning', async () => {
  const rounds = 30_000;
  const rec = new RunRecorder({ clock: new VirtualClock() });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  let streams: ReturnType<RunRecorder['finish']>;
  try {
    await loop.runUntilComplete(loop.createTask(ticking(rounds), { name: 'ticking' }));
    streams = rec.finish();
  } finally {
    rec.detach();
    loop.close();
  }
  const rewind = new RunRewind({
    runId: 1,
    what: 'ticking',
    frames: false,
    debug: false,
    recording: () => wholeRecording(streams),
    ticks: () => streams.ticks,
    program: {
      start: (l) => ({
        crawler: null,
        run: () => l.runUntilComplete(l.createTask(ticking(rounds), { name: 'ticking' })),
      }),
    },
    lints: () => [],
  });
  // A seek to the end, let go while its replay is under way.
  void rewind.seek(streams.ticks - 1).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 30));
  rewind.close();
  await new Promise((resolve) => setTimeout(resolve, 30));
  const since = performance.eventLoopUtilization();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const busy = performance.eventLoopUtilization(since).utilization;
  assert.ok(busy < 0.3, `the thread was busy ${Math.round(busy * 100)}% of the 300 ms after the close`);
});
