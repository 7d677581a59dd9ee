// Tests of runtime/held-time.ts: the clock for how long code ran leaves out the time a
// debugger held the thread, counted from another thread through shared memory; a loop in
// debug mode does not report a callback slow for the time it was held, and a loop on a real
// clock leaves it out of its activeTime (a crawl's elapsed time and rate).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { EventLoop, VirtualClock, type Clock } from '../../runtime/index';
import { HELD_TIME_BYTES, addHeldTime, heldMs, runningNow, shareHeldTime } from '../../runtime/held-time';

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: the callback really runs this long
  }
}

test('holds counted from another thread are left out of runningNow(), never more than what passed', async () => {
  const buffer = new SharedArrayBuffer(HELD_TIME_BYTES);
  shareHeldTime(buffer);
  assert.equal(heldMs(), 0);
  const wall0 = performance.now();
  const run0 = runningNow();
  // Another thread adds a hold of 40 ms, as the line debugger's worker does before it resumes.
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads'); Atomics.add(new BigInt64Array(workerData, 0, 1), 0, 40000n);`,
    { eval: true, workerData: buffer },
  );
  await new Promise((resolve, reject) => worker.once('exit', resolve).once('error', reject));
  spin(60);
  const ran = runningNow() - run0;
  const passed = performance.now() - wall0;
  assert.equal(heldMs(), 40);
  assert.ok(ran <= passed - 39.9 && ran >= 0, `ran ${ran.toFixed(1)} ms of ${passed.toFixed(1)} ms`);
  addHeldTime(buffer, 2.5);
  addHeldTime(buffer, -5);
  assert.equal(heldMs(), 42.5, 'a negative hold is not counted: the counter never decreases');
});

/**
 * Runs `body` with performance.now() (the clock runningNow() reads) stepped by hand: a callback
 * "runs" for `ms` by stepping it, so the durations the loop measures are exact. On the real
 * clock the held callback's few microseconds of its own could grow past any threshold when the
 * machine is busy (its thread waiting for a CPU), and it was reported slow.
 */
async function withSteppedPerformanceClock<T>(body: (run: (ms: number) => void) => Promise<T>): Promise<T> {
  let now = performance.now();
  const descriptor = Object.getOwnPropertyDescriptor(performance, 'now');
  Object.defineProperty(performance, 'now', { configurable: true, writable: true, value: () => now });
  try {
    return await body((ms) => {
      now += ms;
    });
  } finally {
    if (descriptor === undefined) delete (performance as { now?: unknown }).now;
    else Object.defineProperty(performance, 'now', descriptor);
  }
}

test('a loop in debug mode does not call a held callback slow; one that ran as long is', async () => {
  const buffer = new SharedArrayBuffer(HELD_TIME_BYTES);
  shareHeldTime(buffer);
  const warnings: string[] = [];
  const loop = new EventLoop({ clock: new VirtualClock(), debug: true, logger: { warn: (m) => warnings.push(m), error: () => undefined } });
  loop.slowCallbackDuration = 0.3;
  await withSteppedPerformanceClock(async (run) => {
    loop.callSoon(function held() {
      run(400);
      addHeldTime(buffer, 400);
    });
    loop.callSoon(function ran() {
      run(400);
    });
    // Both have run once this future, set two ticks later, is done.
    const done = loop.createFuture<void>();
    loop.callSoon(() => loop.callSoon(() => done.setResult(undefined)));
    await loop.runUntilComplete(done);
  });
  loop.close();
  const about = warnings.filter((w) => /<Handle (held|ran)>/.test(w));
  assert.equal(about.length, 1, warnings.join('\n'));
  assert.equal(about[0], 'Executing <Handle ran> took 0.400 seconds');
});


/** A real (not virtual) clock that moves only when told: a hold's effect is then exact. */
class SteppedRealClock implements Clock {
  readonly virtual = false;
  t = 50;
  now(): number {
    return this.t;
  }
  advanceTo(): void {
    throw new Error('a real clock is not advanced by the loop');
  }
}

test('activeTime leaves out a debugger\'s holds made since the loop began, on a real clock only', () => {
  const buffer = new SharedArrayBuffer(HELD_TIME_BYTES);
  shareHeldTime(buffer);
  addHeldTime(buffer, 3000); // a hold before this loop existed is not this loop's
  const clock = new SteppedRealClock();
  const loop = new EventLoop({ clock });
  const virtual = new EventLoop({ clock: new VirtualClock(50) });
  assert.equal(loop.activeTime(), 50);
  clock.t = 60;
  addHeldTime(buffer, 4000); // 4 s of those 10 were a stop on a line
  assert.equal(loop.activeTime(), 56);
  loop.pause();
  clock.t = 61;
  assert.equal(loop.activeTime(), 56, 'a pause() hold still counts apart');
  loop.resume();
  assert.equal(virtual.activeTime(), 50, 'a virtual clock does not move while the thread is held: nothing to leave out');
  loop.close();
  virtual.close();
});
