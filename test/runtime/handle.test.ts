// Handle and TimerHandle: a cancelled handle never runs and keeps nothing alive; cancelling twice
// is harmless; a timer's cancel is told to its owner once, and only while it is scheduled; a
// timer inspects as a resource whose waiters are the pending futures it was given.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Handle, TimerHandle } from '../../runtime/handle';
import { inspectResource } from '../../runtime/inspection';
import { EventLoop } from '../../runtime/loop';

test('run() calls the callback with its arguments; a cancelled handle runs nothing and drops them', () => {
  const calls: unknown[][] = [];
  const record = (...args: unknown[]) => calls.push(args);
  const h = new Handle(record, [1, 'two']);
  h.run();
  assert.deepEqual(calls, [[1, 'two']]);
  assert.equal(String(h), '<Handle record>');
  h.cancel();
  h.cancel();
  h.run();
  assert.deepEqual(calls, [[1, 'two']], 'not run again once cancelled');
  assert.equal(h.cancelled(), true);
  assert.equal(h.callback, null);
  assert.deepEqual(h.args, []);
  assert.equal(String(h), '<Handle <cancelled> cancelled>');
});

test("a timer's cancel is told to its owner once, and not once it left the heap", () => {
  const told: TimerHandle[] = [];
  const owner = { timerCancelled: (t: TimerHandle) => told.push(t) };
  const scheduled = new TimerHandle(1.5, 0, () => undefined, [], owner);
  scheduled.cancel();
  scheduled.cancel();
  assert.deepEqual(told, [scheduled]);
  const left = new TimerHandle(2, 1, () => undefined, [], owner);
  left.scheduled = false; // popped from the heap (ran, or dropped)
  left.cancel();
  assert.deepEqual(told, [scheduled]);
  assert.match(
    String(new TimerHandle(0.25, 2, function wake() {}, [], null)),
    /^<TimerHandle when=0\.250 <Handle wake>>$/,
  );
});

test('a timer inspects as a resource woken from outside, waited on by its pending futures', () => {
  const loop = new EventLoop();
  try {
    const pending = loop.createFuture<undefined>();
    const done = loop.createFuture<undefined>();
    done.setResult(undefined);
    const t = new TimerHandle(1, 0, () => undefined, [pending, done, 'not a future'], null);
    const r = inspectResource(t);
    assert.ok(r !== null);
    assert.equal(r.kind, 'timer');
    assert.equal(r.wokenBy, 'outside');
    assert.deepEqual(r.waiters(), [pending]);
    assert.deepEqual(r.holders(), []);
  } finally {
    loop.close();
  }
});
