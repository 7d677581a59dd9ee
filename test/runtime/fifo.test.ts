// Fifo: first in, first out across the head index's compaction, remove() of any element, and
// wakeFirstPending never spending a wake-up on a waiter already done.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Fifo, wakeFirstPending } from '../../runtime/fifo';
import { Future } from '../../runtime/future';
import { EventLoop } from '../../runtime/loop';

test('items come out in the order they went in, across the compaction of a long queue', () => {
  const q = new Fifo<number>();
  let next = 0;
  let expected = 0;
  // 5,000 pushes and 4,000 shifts interleaved: the head passes 1024 many times and compacts.
  for (let round = 0; round < 1000; round++) {
    for (let k = 0; k < 5; k++) q.push(next++);
    for (let k = 0; k < 4; k++) assert.equal(q.shift(), expected++);
  }
  assert.equal(q.length, 1000);
  assert.equal(q.peek(), expected);
  assert.deepEqual(
    [...q],
    Array.from({ length: 1000 }, (_, i) => expected + i),
  );
  while (q.length > 0) assert.equal(q.shift(), expected++);
  assert.equal(expected, next);
  assert.equal(q.shift(), undefined);
  assert.equal(q.peek(), undefined);
});

test('remove() takes out the first occurrence only, after shifts too; clear() empties', () => {
  const q = new Fifo<string>();
  for (const s of ['a', 'b', 'c', 'b', 'd']) q.push(s);
  assert.equal(q.shift(), 'a');
  assert.equal(q.remove('b'), true);
  assert.deepEqual([...q], ['c', 'b', 'd']);
  assert.equal(q.remove('a'), false, 'an item already shifted is not found');
  assert.equal(q.remove('z'), false);
  assert.equal(q.length, 3);
  q.clear();
  assert.equal(q.length, 0);
  assert.deepEqual([...q], []);
});

test('wakeFirstPending wakes the first waiter not done and drops the done ones before it', () => {
  const loop = new EventLoop();
  try {
    const waiters = new Fifo<Future<undefined>>();
    const [cancelled, woken, later] = [
      loop.createFuture<undefined>(),
      loop.createFuture<undefined>(),
      loop.createFuture<undefined>(),
    ];
    for (const w of [cancelled, woken, later]) waiters.push(w);
    cancelled.cancel();
    wakeFirstPending(waiters);
    assert.equal(woken.done(), true);
    assert.equal(later.done(), false);
    assert.deepEqual([...waiters], [later], 'the cancelled waiter was dropped, the woken one taken');
    later.cancel();
    wakeFirstPending(waiters);
    assert.equal(waiters.length, 0, 'only done waiters: every one dropped, none woken');
  } finally {
    loop.close();
  }
});
