// Tests of runtime/held-time.ts: the clock for how long code ran leaves out the time a
// debugger held the thread, counted from another thread through shared memory; a loop in
// debug mode does not report a callback slow for the time it was held.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { EventLoop, VirtualClock } from '../../runtime/index';
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

test('a loop in debug mode does not call a held callback slow; one that ran as long is', async () => {
  const buffer = new SharedArrayBuffer(HELD_TIME_BYTES);
  shareHeldTime(buffer);
  const warnings: string[] = [];
  const loop = new EventLoop({ clock: new VirtualClock(), debug: true, logger: { warn: (m) => warnings.push(m), error: () => undefined } });
  loop.slowCallbackDuration = 0.1;
  loop.callSoon(function held() {
    spin(150);
    addHeldTime(buffer, 150);
  });
  loop.callSoon(function ran() {
    spin(150);
  });
  // Both have run once this future, set two ticks later, is done.
  const done = loop.createFuture<void>();
  loop.callSoon(() => loop.callSoon(() => done.setResult(undefined)));
  await loop.runUntilComplete(done);
  loop.close();
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0]!, /^Executing <Handle ran> took \d+\.\d{3} seconds$/);
});

