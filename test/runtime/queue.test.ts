// Tests of runtime/queue.ts (asyncio.Queue): FIFO items; put() waits while full and get()
// while empty, waiters served first come first served; join()/taskDone(); QueueEmpty and
// QueueFull; a waiter woken and then cancelled passes its item or slot on.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  Queue,
  QueueEmpty,
  QueueFull,
  CancelledError,
  coroutine,
  sleep,
  type Coroutine,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

describe('nowait operations', () => {
  test('FIFO order, sizes, QueueEmpty and QueueFull', () => {
    const q = new Queue<string>(2);
    assert.equal(q.maxsize, 2);
    assert.equal(q.empty(), true);
    assert.equal(q.full(), false);
    assert.throws(() => q.getNowait(), QueueEmpty);
    q.putNowait('a');
    q.putNowait('b');
    assert.equal(q.qsize(), 2);
    assert.equal(q.full(), true);
    assert.throws(() => q.putNowait('c'), QueueFull);
    assert.equal(q.getNowait(), 'a');
    assert.equal(q.getNowait(), 'b');
    assert.equal(q.empty(), true);
    assert.throws(() => q.getNowait(), QueueEmpty);
  });

  test('maxsize 0 (the default) or negative means unbounded', () => {
    const q = new Queue<number>();
    const n = new Queue<number>(-1);
    for (let i = 0; i < 1000; i++) {
      q.putNowait(i);
      n.putNowait(i);
    }
    assert.equal(q.full(), false);
    assert.equal(n.full(), false);
    assert.equal(q.qsize(), 1000);
  });

  // CPython 3.11, Lib/test/test_asyncio/test_queues.py (QueueBasicTests).
  test('test_float_maxsize: a non-integer maxsize is accepted; full() compares qsize() >= maxsize', async () => {
    const q = new Queue<number>(1.3);
    q.putNowait(1);
    assert.equal(q.full(), false);
    q.putNowait(2);
    assert.equal(q.full(), true);
    assert.throws(() => q.putNowait(3), QueueFull);
    const loop = virtualLoop();
    const q2 = new Queue<number>(1.3);
    const main = coroutine(function* main(): Coroutine<void> {
      yield* q2.put(1);
      yield* q2.put(2);
      assert.equal(q2.full(), true);
    });
    await loop.runUntilComplete(main());
    loop.close();
    assert.throws(() => new Queue(Number.NaN), TypeError);
  });

  test('taskDone() more times than items put throws', () => {
    const q = new Queue<number>();
    q.putNowait(1);
    q.getNowait();
    q.taskDone();
    assert.throws(() => q.taskDone(), /too many times/);
    assert.equal(q.unfinishedTasks(), 0);
  });
});

describe('waiting', () => {
  test('get() waits while the queue is empty', async () => {
    const loop = virtualLoop();
    const q = new Queue<string>();
    const log: string[] = [];
    const consumer = coroutine(function* consumer(): Coroutine<void> {
      log.push(`got ${yield* q.get()}@${loop.time()}`);
    });
    loop.callLater(3, () => q.putNowait('item'));
    await loop.runUntilComplete(consumer());
    assert.deepEqual(log, ['got item@3']);
    loop.close();
  });

  test('put() waits while the queue is full, until a get() frees a slot', async () => {
    const loop = virtualLoop();
    const q = new Queue<number>(1);
    const log: string[] = [];
    const producer = coroutine(function* producer(): Coroutine<void> {
      for (let i = 0; i < 3; i++) {
        yield* q.put(i);
        log.push(`put ${i}@${loop.time()}`);
      }
    });
    const consumer = coroutine(function* consumer(): Coroutine<void> {
      for (let i = 0; i < 3; i++) {
        yield* sleep(1);
        log.push(`get ${yield* q.get()}@${loop.time()}`);
      }
    });
    const p = loop.createTask(producer());
    await loop.runUntilComplete(consumer());
    await loop.runUntilComplete(p);
    assert.deepEqual(log, ['put 0@0', 'get 0@1', 'put 1@1', 'get 1@2', 'put 2@2', 'get 2@3']);
    loop.close();
  });

  test('getters are served in the order they started waiting', async () => {
    const loop = virtualLoop();
    const q = new Queue<string>();
    const log: string[] = [];
    const getter = coroutine(function* getter(name: string): Coroutine<void> {
      log.push(`${name} got ${yield* q.get()}`);
    });
    const tasks = ['g1', 'g2', 'g3'].map((n) => loop.createTask(getter(n)));
    loop.callLater(1, () => {
      q.putNowait('a');
      q.putNowait('b');
      q.putNowait('c');
    });
    for (const t of tasks) await loop.runUntilComplete(t);
    assert.deepEqual(log, ['g1 got a', 'g2 got b', 'g3 got c']);
    loop.close();
  });

  test('putters are served in the order they started waiting', async () => {
    const loop = virtualLoop();
    const q = new Queue<string>(1);
    q.putNowait('first');
    const putter = coroutine(function* putter(item: string): Coroutine<void> {
      yield* q.put(item);
    });
    const tasks = ['p1', 'p2', 'p3'].map((n) => loop.createTask(putter(n)));
    const consumer = coroutine(function* consumer(): Coroutine<string[]> {
      const got: string[] = [];
      yield* sleep(1);
      for (let i = 0; i < 4; i++) got.push(yield* q.get());
      return got;
    });
    assert.deepEqual(await loop.runUntilComplete(consumer()), ['first', 'p1', 'p2', 'p3']);
    for (const t of tasks) assert.equal(t.done(), true);
    loop.close();
  });

  test('a waiting getter that is cancelled leaves the queue; the item goes to the next getter', async () => {
    const loop = virtualLoop();
    const q = new Queue<string>();
    const log: string[] = [];
    const getter = coroutine(function* getter(name: string): Coroutine<void> {
      try {
        log.push(`${name} got ${yield* q.get()}`);
      } catch (e) {
        log.push(`${name} ${e instanceof CancelledError ? 'cancelled' : String(e)}`);
      }
    });
    const a = loop.createTask(getter('A'));
    const b = loop.createTask(getter('B'));
    loop.callLater(1, () => a.cancel());
    loop.callLater(2, () => q.putNowait('x'));
    await loop.runUntilComplete(b);
    assert.deepEqual(log, ['A cancelled', 'B got x']);
    assert.deepEqual(q.waiting(), { getters: 0, putters: 0 });
    loop.close();
  });

  test('a getter woken and then cancelled before it runs passes the item on', async () => {
    const loop = virtualLoop();
    const q = new Queue<string>();
    const log: string[] = [];
    const getter = coroutine(function* getter(name: string): Coroutine<void> {
      try {
        log.push(`${name} got ${yield* q.get()}`);
      } catch (e) {
        log.push(`${name} ${e instanceof CancelledError ? 'cancelled' : String(e)}`);
      }
    });
    const a = loop.createTask(getter('A'));
    const b = loop.createTask(getter('B'));
    await loop.runOnce();
    q.putNowait('x'); // wakes A's future
    a.cancel(); // ...but A is cancelled before it could take the item
    await loop.runUntilComplete(b);
    assert.deepEqual(log, ['A cancelled', 'B got x']);
    assert.equal(q.qsize(), 0);
    loop.close();
  });

  test('a putter woken and then cancelled before it runs passes the free slot on', async () => {
    const loop = virtualLoop();
    const q = new Queue<string>(1);
    q.putNowait('full');
    const log: string[] = [];
    const putter = coroutine(function* putter(item: string): Coroutine<void> {
      try {
        yield* q.put(item);
        log.push(`put ${item}`);
      } catch (e) {
        log.push(`${item} ${e instanceof CancelledError ? 'cancelled' : String(e)}`);
      }
    });
    const a = loop.createTask(putter('A'));
    const b = loop.createTask(putter('B'));
    await loop.runOnce();
    assert.equal(q.getNowait(), 'full'); // wakes A's future
    a.cancel();
    await loop.runUntilComplete(b);
    assert.deepEqual(log, ['A cancelled', 'put B']);
    assert.equal(q.getNowait(), 'B');
    loop.close();
  });
});

describe('join and taskDone', () => {
  test('join() waits until every item put has been marked done', async () => {
    const loop = virtualLoop();
    const q = new Queue<number>();
    const log: string[] = [];
    const worker = coroutine(function* worker(): Coroutine<void> {
      for (;;) {
        const n = yield* q.get();
        yield* sleep(n);
        log.push(`done ${n}@${loop.time()}`);
        q.taskDone();
      }
    });
    const main = coroutine(function* main(): Coroutine<void> {
      for (const n of [1, 2, 3]) q.putNowait(n);
      assert.equal(q.unfinishedTasks(), 3);
      const w = loop.createTask(worker());
      yield* q.join();
      log.push(`joined@${loop.time()}`);
      w.cancel();
    });
    await loop.runUntilComplete(main());
    assert.deepEqual(log, ['done 1@1', 'done 2@3', 'done 3@6', 'joined@6']);
    loop.close();
  });

  test('join() returns at once when nothing is unfinished', async () => {
    const loop = virtualLoop();
    const q = new Queue<number>();
    const main = coroutine(function* main(): Coroutine<number> {
      yield* q.join();
      return loop.time();
    });
    assert.equal(await loop.runUntilComplete(main()), 0);
    loop.close();
  });

  test('several joiners are all released', async () => {
    const loop = virtualLoop();
    const q = new Queue<number>();
    q.putNowait(1);
    const log: string[] = [];
    const joiner = coroutine(function* joiner(name: string): Coroutine<void> {
      yield* q.join();
      log.push(`${name}@${loop.time()}`);
    });
    const tasks = [loop.createTask(joiner('j1')), loop.createTask(joiner('j2'))];
    loop.callLater(2, () => {
      q.getNowait();
      q.taskDone();
    });
    for (const t of tasks) await loop.runUntilComplete(t);
    assert.deepEqual(log, ['j1@2', 'j2@2']);
    loop.close();
  });
});
