// Tests of runtime/lifo-queue.ts (asyncio.LifoQueue), ported from CPython's
// Lib/test/test_asyncio/test_queues.py (LifoQueueTests, and the join tests CPython runs
// for every queue class) and rewritten in this runtime's API.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop, VirtualClock, LifoQueue, QueueFull, coroutine, gather, type Coroutine } from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

describe('LifoQueueTests (CPython test_queues.py)', () => {
  test('test_order: the last item put comes out first', () => {
    const q = new LifoQueue<number>();
    for (const i of [1, 3, 2]) q.putNowait(i);
    const items = [1, 2, 3].map(() => q.getNowait());
    assert.deepEqual(items, [2, 3, 1]);
  });

  test('test_maxsize: a full LifoQueue refuses putNowait and makes put() wait', async () => {
    const loop = virtualLoop();
    const q = new LifoQueue<number>(2);
    q.putNowait(1);
    q.putNowait(2);
    assert.equal(q.full(), true);
    assert.throws(() => q.putNowait(3), QueueFull);
    const main = coroutine(function* main(): Coroutine<number[]> {
      const putter = loop.createTask(q.put(3));
      const got = [yield* q.get()];
      yield* putter;
      got.push(yield* q.get(), yield* q.get());
      return got;
    });
    assert.deepEqual(await loop.runUntilComplete(main()), [2, 3, 1]);
    loop.close();
  });

  test('test_task_done / join: join() waits for every item taken to be marked done', async () => {
    const loop = virtualLoop();
    const q = new LifoQueue<number>();
    for (let i = 0; i < 100; i++) q.putNowait(i);
    let accumulator = 0;
    const worker = coroutine(function* worker(): Coroutine<void> {
      for (;;) {
        const item = yield* q.get();
        accumulator += item;
        q.taskDone();
      }
    });
    const main = coroutine(function* main(): Coroutine<void> {
      const workers = [loop.createTask(worker()), loop.createTask(worker())];
      yield* q.join();
      for (const w of workers) w.cancel();
      yield* gather(...workers, { returnExceptions: true });
    });
    await loop.runUntilComplete(main());
    assert.equal(accumulator, 4950);
    assert.equal(q.unfinishedTasks(), 0);
    assert.match(q.toString(), /^<LifoQueue /);
    loop.close();
  });
});
