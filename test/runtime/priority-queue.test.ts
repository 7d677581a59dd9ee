// Tests of runtime/priority-queue.ts (asyncio.PriorityQueue), ported from CPython's
// Lib/test/test_asyncio/test_queues.py (PriorityQueueTests, and the join tests CPython
// runs for every queue class) and rewritten in this runtime's API.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  PriorityQueue,
  comparePriority,
  coroutine,
  type Coroutine,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

describe('PriorityQueueTests (CPython test_queues.py)', () => {
  test('test_order: the smallest item comes out first', () => {
    const q = new PriorityQueue<number>();
    for (const i of [1, 3, 2]) q.putNowait(i);
    assert.deepEqual(
      [1, 2, 3].map(() => q.getNowait()),
      [1, 2, 3],
    );
  });

  test('tuples as arrays: (priority, data) ordered element by element', () => {
    const q = new PriorityQueue<[number, string]>();
    const entries: Array<[number, string]> = [
      [5, 'write code'],
      [7, 'release'],
      [1, 'write spec'],
      [3, 'create tests'],
      [3, 'another test'],
    ];
    for (const e of entries) q.putNowait(e);
    const out: string[] = [];
    while (!q.empty()) out.push(q.getNowait()[1]);
    assert.deepEqual(out, ['write spec', 'another test', 'create tests', 'write code', 'release']);
  });

  test('many items in random order come out sorted', () => {
    const q = new PriorityQueue<number>();
    const values = Array.from({ length: 500 }, (_, i) => (i * 7919) % 503);
    for (const v of values) q.putNowait(v);
    assert.equal(q.qsize(), 500);
    const out: number[] = [];
    while (!q.empty()) out.push(q.getNowait());
    assert.deepEqual(
      out,
      [...values].sort((a, b) => a - b),
    );
  });

  test('unorderable entries are a TypeError, as Python refuses them; a compare function orders anything', () => {
    const q = new PriorityQueue<unknown>();
    q.putNowait({ a: 1 });
    assert.throws(() => q.putNowait({ b: 2 }), TypeError);
    assert.throws(() => comparePriority(1, 'a'), TypeError);
    const byCost = new PriorityQueue<{ cost: number }>(0, (a, b) => a.cost - b.cost);
    byCost.putNowait({ cost: 3 });
    byCost.putNowait({ cost: 1 });
    assert.equal(byCost.getNowait().cost, 1);
  });

  test('get() waits for an item; join() waits for taskDone()', async () => {
    const loop = virtualLoop();
    const q = new PriorityQueue<number>(2);
    const main = coroutine(function* main(): Coroutine<number[]> {
      const getter = loop.createTask(q.get());
      yield;
      yield* q.put(9);
      yield* q.put(4);
      const first = yield* getter;
      const second = yield* q.get();
      q.taskDone();
      q.taskDone();
      yield* q.join();
      return [first, second];
    });
    // The getter was woken by the first put but runs after the second: it takes the smaller.
    assert.deepEqual(await loop.runUntilComplete(main()), [4, 9]);
    loop.close();
  });
});
