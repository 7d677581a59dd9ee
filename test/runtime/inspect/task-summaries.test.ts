// Tests of runtime/inspect/task-summaries.ts: how a finished task's outcome reads where a live task's
// await goes (the panel's Awaiting column): `returned` for a coroutine that returns nothing,
// `returned <value>`, the error, or `cancelled (why)`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop } from '../../../runtime/loop';
import { VirtualClock } from '../../../runtime/clock';
import { coroutine } from '../../../runtime/coroutine';
import { sleep } from '../../../runtime/sleep';
import { outcomeOf } from '../../../runtime/inspect/task-summaries';

test('outcomeOf: returned, returned a value, failed, cancelled; nothing while live', async () => {
  const loop = new EventLoop({ clock: new VirtualClock() });
  const nothing = loop.createTask(coroutine(function* worker() {
    yield* sleep(0);
  })());
  const value = loop.createTask(coroutine(function* answer() {
    yield* sleep(0);
    return 42;
  })());
  const failing = loop.createTask(coroutine(function* failing() {
    yield* sleep(0);
    throw new RangeError('no');
  })());
  const cancelled = loop.createTask(coroutine(function* waiting() {
    yield* sleep(10);
  })());
  assert.equal(outcomeOf(nothing), undefined);
  await loop.runUntilComplete(coroutine(function* main() {
    yield* sleep(0);
    cancelled.cancel('enough');
    yield* sleep(1);
  })());
  assert.equal(outcomeOf(nothing), 'returned');
  assert.equal(outcomeOf(value), 'returned 42');
  assert.equal(outcomeOf(failing), 'RangeError: no');
  assert.match(outcomeOf(cancelled) ?? '', /^cancelled/);
  failing.exception();
  loop.close();
});
