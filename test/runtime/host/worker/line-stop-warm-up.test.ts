// Tests of a line stop's warm-up (runtime/host/worker/line-stop-warm-up.ts) on Node's mocked setTimeout,
// with a fake replay host and line debugger that log what they are asked: the warm-up starts 150 ms after
// a recorded stop and not before; a newer stop or a cancel supersedes one pending; one due while a client's
// request is served is put off until none is (by 150 ms more); a request begun during a warm-up gets it to
// wait for; a stop no longer held, a stop superseded during the hand-over, or a replay host holding no
// live stop warms nothing; a failed hand-over ends the warm-up quietly.

import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';
import type { LineReplayHost } from '../../../../runtime/host/worker/line-replay-host';
import { LineStopWarmUp } from '../../../../runtime/host/worker/line-stop-warm-up';

interface Fake {
  warmUp: LineStopWarmUp;
  /** What was asked, in order: `ofStop <method>`, `warm`, `warmed`. */
  log: string[];
  stopped: boolean;
  liveStop: boolean;
  /** The hand-over: answered at once unless a test holds it. */
  handOver: () => Promise<void>;
  /** The warm-up's replays: done at once unless a test holds them. */
  replays: () => Promise<void>;
}

function fake(): Fake {
  const f: Fake = {
    warmUp: null as unknown as LineStopWarmUp,
    log: [],
    stopped: true,
    liveStop: true,
    handOver: async () => undefined,
    replays: async () => undefined,
  };
  const replay = {
    hasLiveStop: () => f.liveStop,
    warm: async () => {
      f.log.push('warm');
      await f.replays();
      f.log.push('warmed');
    },
  } as unknown as LineReplayHost;
  f.warmUp = new LineStopWarmUp(
    async (method) => {
      f.log.push(`ofStop ${method}`);
      await f.handOver();
      return replay;
    },
    () => ({ isStopped: () => f.stopped }) as unknown as LineDebugger,
  );
  return f;
}

/** Lets the promises settled so far run their continuations. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Advances the mocked clock by `ms`, then lets what it started run. */
async function tick(t: TestContext, ms: number): Promise<void> {
  t.mock.timers.tick(ms);
  await settle();
}

describe('LineStopWarmUp', () => {
  test('a recorded stop is warmed 150 ms after it, not before', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const f = fake();
    f.warmUp.schedule();
    await tick(t, 149);
    assert.deepEqual(f.log, []);
    await tick(t, 1);
    assert.deepEqual(f.log, ['ofStop pastWarm', 'warm', 'warmed']);
  });

  test('a newer stop supersedes the pending warm-up; a cancel drops it', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const f = fake();
    f.warmUp.schedule();
    await tick(t, 100);
    f.warmUp.schedule();
    await tick(t, 100);
    assert.deepEqual(f.log, [], "the first stop's 150 ms passed: superseded");
    await tick(t, 50);
    assert.deepEqual(f.log, ['ofStop pastWarm', 'warm', 'warmed']);
    f.warmUp.schedule();
    await tick(t, 100);
    f.warmUp.cancel();
    await tick(t, 1000);
    assert.equal(f.log.length, 3);
  });

  test('one due while a request is served is put off until none is, by 150 ms more', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const f = fake();
    f.warmUp.schedule();
    assert.equal(f.warmUp.beginServing(), null, 'no warm-up under way: the request goes at once');
    await tick(t, 150);
    assert.deepEqual(f.log, []);
    f.warmUp.endServing();
    await tick(t, 149);
    assert.deepEqual(f.log, []);
    await tick(t, 1);
    assert.deepEqual(f.log, ['ofStop pastWarm', 'warm', 'warmed']);
  });

  test('a request begun during a warm-up waits for it; after it, none to wait for', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const f = fake();
    let finishReplays: () => void = () => undefined;
    f.replays = () => new Promise((resolve) => (finishReplays = resolve));
    f.warmUp.schedule();
    await tick(t, 150);
    assert.deepEqual(f.log, ['ofStop pastWarm', 'warm']);
    const waitFor = f.warmUp.beginServing();
    assert.notEqual(waitFor, null);
    let waited = false;
    void waitFor?.then(() => (waited = true));
    await settle();
    assert.equal(waited, false);
    finishReplays();
    await settle();
    assert.deepEqual([waited, f.log.at(-1)], [true, 'warmed']);
    f.warmUp.endServing();
    assert.equal(f.warmUp.beginServing(), null);
  });

  test('nothing warmed: the stop not held, superseded during the hand-over, or no live stop', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const notHeld = fake();
    notHeld.stopped = false;
    notHeld.warmUp.schedule();
    await tick(t, 150);
    assert.deepEqual(notHeld.log, []);

    const superseded = fake();
    let answer: () => void = () => undefined;
    superseded.handOver = () => new Promise((resolve) => (answer = resolve));
    superseded.warmUp.schedule();
    await tick(t, 150);
    superseded.warmUp.cancel();
    answer();
    await settle();
    assert.deepEqual(superseded.log, ['ofStop pastWarm']);

    const noLiveStop = fake();
    noLiveStop.liveStop = false;
    noLiveStop.warmUp.schedule();
    await tick(t, 150);
    assert.deepEqual(noLiveStop.log, ['ofStop pastWarm']);
  });

  test('a failed hand-over ends the warm-up quietly: the next request has none to wait for', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const f = fake();
    f.handOver = async () => {
      throw new Error('not recorded');
    };
    f.warmUp.schedule();
    await tick(t, 150);
    assert.deepEqual(f.log, ['ofStop pastWarm']);
    assert.equal(f.warmUp.beginServing(), null);
  });
});
