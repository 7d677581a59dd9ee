// Tests of runtime/clock.ts: looking never changes the program. The loop's real clock stands
// still while a view holds the loop (pause() between ticks) and while a debugger holds the
// thread (held time counted in shared memory), so a timer set before a hold waits the rest of
// its delay after it, in loop time; the clock never goes backwards; a runOnce() tick of a
// paused loop runs on the clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventLoop, MonotonicClock } from '../../runtime/index';
import { HELD_TIME_BYTES, addHeldTime, holdBegan, shareHeldTime } from '../../runtime/held-time';

const sleepWall = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // the thread does nothing else meanwhile, as when a debugger holds it
  }
}

function near(actual: number, expected: number, message = ''): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} s, not ${expected} s ${message}`);
}

/** Runs `body` with performance.now() stepped by hand (`step(ms)`), so the clock's readings are exact. */
function withSteppedPerformance(body: (step: (ms: number) => void) => void): void {
  let now = 1000;
  const descriptor = Object.getOwnPropertyDescriptor(performance, 'now');
  Object.defineProperty(performance, 'now', { configurable: true, writable: true, value: () => now });
  try {
    body((ms) => {
      now += ms;
    });
  } finally {
    if (descriptor === undefined) delete (performance as { now?: unknown }).now;
    else Object.defineProperty(performance, 'now', descriptor);
  }
}

test("a MonotonicClock stands still through its holds and a debugger's, counted once when they overlap, and never goes back", () => {
  const buffer = new SharedArrayBuffer(HELD_TIME_BYTES);
  shareHeldTime(buffer);
  withSteppedPerformance((step) => {
    const clock = new MonotonicClock();
    const t0 = clock.now();
    step(200);
    near(clock.now() - t0, 0.2);
    clock.hold();
    step(500);
    near(clock.now() - t0, 0.2, 'held by the loop: no time passes');
    clock.hold();
    clock.release();
    step(100);
    near(clock.now() - t0, 0.2, 'holds nest: the outer one still holds');
    // A debugger holds the thread inside the loop's hold: 300 ms, counted from its thread.
    holdBegan(buffer);
    step(300);
    near(
      clock.now() - t0,
      0.2,
      'a reading made while a debugger holds the thread (an evaluation in the stop) gives the last one',
    );
    addHeldTime(buffer, 300);
    clock.release();
    near(clock.now() - t0, 0.2, 'the overlap is left out once, not twice');
    step(50);
    near(clock.now() - t0, 0.25);
    // A debugger's hold alone; its count misses a sliver of 2 ms, which the clock leaves out too.
    holdBegan(buffer);
    step(1000);
    addHeldTime(buffer, 998);
    near(clock.now() - t0, 0.25);
    // A counter that says more than passed (a new counter would, too) never takes the clock back.
    const before = clock.now();
    addHeldTime(buffer, 5000);
    step(10);
    assert.equal(clock.now(), before);
    clock.release();
    assert.equal(clock.now(), before, 'a release without a hold changes nothing');
  });
  shareHeldTime(new SharedArrayBuffer(HELD_TIME_BYTES));
});

test("many line holds whose counts miss the debugger's machinery leave the loop's clock exactly where it was", () => {
  const buffer = new SharedArrayBuffer(HELD_TIME_BYTES);
  shareHeldTime(buffer);
  withSteppedPerformance((step) => {
    const clock = new MonotonicClock();
    const loop = new EventLoop({ clock });
    step(40);
    const before = loop.time();
    // 200 line steps: each hold counted 25 ms short (the pause and resume between the threads), with 0.5 ms
    // of stepped code between two holds; a reading (an evaluation) during some of them.
    for (let i = 0; i < 200; i++) {
      holdBegan(buffer);
      step(100);
      if (i % 7 === 0) assert.equal(loop.time(), before);
      addHeldTime(buffer, 75);
      step(0.5);
    }
    assert.equal(loop.time(), before, 'the loop time after the steps is the loop time before them, exactly');
    // Unheld, the clock runs on from there.
    step(10);
    near(loop.time() - before, 0.01);
    loop.close();
  });
  shareHeldTime(new SharedArrayBuffer(HELD_TIME_BYTES));
});

/**
 * A loop on the real clock sets a callLater(0.3) timer, runs 100 ms, then `hold` keeps it for
 * HOLD_MS of wall time. The timer must fire 0.3 s of loop time after it was set (the hold not
 * counted: without the fix it fires at once after a 0.5 s hold) and so after the hold in wall time.
 */
const HOLD_MS = 500;
async function timerAcrossHold(hold: (loop: EventLoop) => Promise<void>): Promise<void> {
  const loop = new EventLoop({ clock: new MonotonicClock() });
  const wall0 = performance.now();
  let set = 0;
  let fired: { loopSeconds: number; wallMs: number } | null = null;
  const done = loop.createFuture<void>();
  loop.callSoon(() => {
    set = loop.time();
    loop.callLater(0.3, () => {
      fired = { loopSeconds: loop.time() - set, wallMs: performance.now() - wall0 };
      done.setResult(undefined);
    });
  });
  const run = loop.runUntilComplete(done);
  await sleepWall(100);
  await hold(loop);
  await run;
  loop.close();
  const f = fired as { loopSeconds: number; wallMs: number } | null;
  assert.ok(f !== null);
  // Below 0.3 + the hold: the hold did not count (a loaded machine may add a little, not 0.5 s).
  assert.ok(
    f.loopSeconds >= 0.3 && f.loopSeconds < 0.3 + HOLD_MS / 1000,
    `fired ${f.loopSeconds.toFixed(3)} s of loop time after it was set`,
  );
  assert.ok(
    f.wallMs >= 300 + HOLD_MS - 10,
    `fired ${f.wallMs.toFixed(0)} ms of wall time after the start: the hold did not count toward the delay`,
  );
}

test('a loop paused 0.5 s between ticks by pause(): its callLater(0.3) timer fires 0.3 s of loop time after it was set, the rest waited after resume', async () => {
  await timerAcrossHold(async (loop) => {
    loop.pause();
    const pausedAt = loop.time();
    await sleepWall(HOLD_MS);
    assert.equal(loop.time(), pausedAt, 'the clock stood still while the loop was paused');
    loop.resume();
  });
});

test("a thread held 0.5 s by a debugger (held time shared by its thread): the loop's callLater(0.3) timer still waits the rest of its delay", async () => {
  const buffer = new SharedArrayBuffer(HELD_TIME_BYTES);
  shareHeldTime(buffer);
  await timerAcrossHold(async () => {
    // The thread is held: nothing of it runs for HOLD_MS, and the holding thread counts the hold.
    holdBegan(buffer);
    const heldAt = performance.now();
    spin(HOLD_MS);
    addHeldTime(buffer, performance.now() - heldAt);
  });
});

test('runOnce() on a paused loop runs on the clock: it waits for the next timer and runs it', async () => {
  const loop = new EventLoop({ clock: new MonotonicClock() });
  loop.pause();
  let ran = false;
  loop.callLater(0.05, () => {
    ran = true;
  });
  const t0 = loop.time();
  for (let i = 0; i < 10 && !ran; i++) await loop.runOnce();
  assert.ok(ran, 'the timer ran in a runOnce() tick');
  assert.ok(loop.time() - t0 >= 0.05);
  const after = loop.time();
  await sleepWall(100);
  assert.equal(loop.time(), after, 'held again once the tick has run');
  loop.resume();
  loop.close();
});
