// Tests of which loop is running (runtime/running-loop.ts), on a virtual clock: none outside a loop's
// ticks (getRunningLoop throws RuntimeError, runningLoopOrNull is null); the loop itself in its callbacks
// and coroutine steps, and none again after; setRunningLoop answers the loop it replaces, so a loop run
// inside another's tick can put the outer one back.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Coroutine, coroutine, EventLoop, RuntimeError, VirtualClock } from '../../runtime/index';
import { getRunningLoop, runningLoopOrNull, setRunningLoop } from '../../runtime/running-loop';

test('outside a tick: none; in a callback and a coroutine step: that loop; after: none again', async () => {
  assert.throws(
    () => getRunningLoop(),
    (e: unknown) => e instanceof RuntimeError && e.message === 'no running event loop',
  );
  assert.equal(runningLoopOrNull(), null);
  const loop = new EventLoop({ clock: new VirtualClock() });
  const seen: Array<EventLoop | null> = [];
  loop.callSoon(() => seen.push(getRunningLoop()));
  const main = coroutine(function* (): Coroutine<void> {
    seen.push(getRunningLoop());
    yield;
    seen.push(runningLoopOrNull());
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(
    seen.map((l) => l === loop),
    [true, true, true],
  );
  assert.equal(runningLoopOrNull(), null);
  loop.close();
});

test('setRunningLoop answers the loop it replaces', () => {
  const outer = new EventLoop({ clock: new VirtualClock() });
  const inner = new EventLoop({ clock: new VirtualClock() });
  assert.equal(setRunningLoop(outer), null);
  assert.equal(setRunningLoop(inner), outer);
  assert.equal(getRunningLoop(), inner);
  assert.equal(setRunningLoop(outer), inner);
  assert.equal(setRunningLoop(null), outer);
  assert.equal(runningLoopOrNull(), null);
  outer.close();
  inner.close();
});
