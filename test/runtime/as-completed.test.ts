// Tests of runtime/as-completed.ts: the i-th coroutine asCompleted() returns gives the i-th
// outcome to complete (result or exception); with a timeout the ones still waiting throw
// TimeoutError and the awaitables are left running; a consumer cancelled while waiting
// loses no outcome.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  TimeoutError,
  CancelledError,
  asCompleted,
  coroutine,
  sleep,
  Future,
  type Coroutine,
  type Task,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

const delayed = coroutine(function* delayed<T>(delay: number, value: T): Coroutine<T> {
  yield* sleep(delay);
  return value;
});

test('gives the outcomes in completion order, each as soon as it is ready', async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  const main = coroutine(function* main(): Coroutine<void> {
    for (const next of asCompleted([delayed(3, 'c'), delayed(1, 'a'), delayed(2, 'b')])) {
      const v = yield* next;
      log.push(`${v}@${loop.time()}`);
    }
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['a@1', 'b@2', 'c@3']);
  loop.close();
});

test('an exception is thrown by the coroutine of its completion rank', async () => {
  const loop = virtualLoop();
  const err = new Error('middle failed');
  const failing = coroutine(function* failing(): Coroutine<string> {
    yield* sleep(2);
    throw err;
  });
  const main = coroutine(function* main(): Coroutine<string[]> {
    const out: string[] = [];
    for (const next of asCompleted([delayed(3, 'c'), failing(), delayed(1, 'a')])) {
      try {
        out.push(yield* next);
      } catch (e) {
        out.push(e === err ? 'error' : 'other');
      }
    }
    return out;
  });
  assert.deepEqual(await loop.runUntilComplete(main()), ['a', 'error', 'c']);
  loop.close();
});

test('with a timeout, the outcomes not there in time throw TimeoutError; the awaitables run on', async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  let slow: Task<string> | null = null;
  const main = coroutine(function* main(): Coroutine<void> {
    slow = loop.createTask(delayed(10, 'slow'));
    for (const next of asCompleted([slow, delayed(1, 'fast')], { timeout: 5 })) {
      try {
        log.push(`${yield* next}@${loop.time()}`);
      } catch (e) {
        log.push(`${e instanceof TimeoutError ? 'TimeoutError' : String(e)}@${loop.time()}`);
      }
    }
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['fast@1', 'TimeoutError@5']);
  assert.equal(slow!.done(), false);
  assert.equal(await loop.runUntilComplete(slow!), 'slow');
  assert.equal(loop.time(), 10);
  loop.close();
});

test('the timeout timer is cancelled once everything completed', async () => {
  const loop = virtualLoop();
  const main = coroutine(function* main(): Coroutine<number[]> {
    const out: number[] = [];
    for (const next of asCompleted([delayed(1, 1), delayed(2, 2)], { timeout: 100 })) out.push(yield* next);
    return out;
  });
  assert.deepEqual(await loop.runUntilComplete(main()), [1, 2]);
  await loop.runOnce();
  assert.equal(loop.time(), 2, 'no timer left to jump to');
  loop.close();
});

test('one coroutine per distinct awaitable (duplicates count once, as in asyncio)', async () => {
  const loop = virtualLoop();
  const main = coroutine(function* main(): Coroutine<string[]> {
    const t = loop.createTask(delayed(1, 'x'));
    const its = asCompleted([t, t]);
    const out: string[] = [];
    for (const next of its) out.push(yield* next);
    return out;
  });
  assert.deepEqual(await loop.runUntilComplete(main()), ['x']);
  loop.close();
});

test('a consumer cancelled while waiting does not hold back the next one', async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  const consumer = coroutine(function* consumer(name: string, next: Coroutine<string>): Coroutine<void> {
    try {
      log.push(`${name} got ${yield* next}@${loop.time()}`);
    } catch (e) {
      log.push(`${name} ${e instanceof CancelledError ? 'cancelled' : String(e)}@${loop.time()}`);
      throw e;
    }
  });
  const main = coroutine(function* main(): Coroutine<void> {
    const [first, second] = asCompleted([delayed(1, 'one'), delayed(2, 'two')]);
    const a = loop.createTask(consumer('A', first!));
    const b = loop.createTask(consumer('B', second!));
    yield* sleep(0.5);
    a.cancel();
    yield* sleep(5);
    assert.equal(b.done(), true);
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['A cancelled@0.5', 'B got one@1']);
  loop.close();
});

test('a consumer woken and then cancelled before it runs passes the outcome on', async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  const consumer = coroutine(function* consumer(name: string, next: Coroutine<string>): Coroutine<void> {
    try {
      log.push(`${name} got ${yield* next}@${loop.time()}`);
    } catch (e) {
      log.push(`${name} ${e instanceof CancelledError ? 'cancelled' : String(e)}@${loop.time()}`);
    }
  });
  const main = coroutine(function* main(): Coroutine<void> {
    const fut = loop.createFuture<string>();
    const [first, second] = asCompleted([fut, delayed(10, 'late')]);
    const a = loop.createTask(consumer('A', first!));
    const b = loop.createTask(consumer('B', second!));
    yield* sleep(1);
    fut.setResult('early');
    // Let fut's done callback wake A's waiter, then cancel A before A runs.
    yield;
    a.cancel();
    yield* sleep(20);
    assert.equal(b.done(), true);
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['A cancelled@1', 'B got early@1']);
  loop.close();
});

// CPython 3.11, Lib/test/test_asyncio/test_tasks.py, rewritten for this runtime.
test('test_as_completed_invalid_args: a future or a coroutine instead of an iterable is a TypeError', async () => {
  const loop = virtualLoop();
  const fut: Future<number> = loop.createFuture<number>();
  let bodyRan = false;
  const body = coroutine(function* body(): Coroutine<number> {
    bodyRan = true;
    return 1;
  });
  const main = coroutine(function* main(): Coroutine<void> {
    assert.throws(() => asCompleted(fut), TypeError);
    const coro = body();
    assert.throws(() => asCompleted(coro as unknown as Iterable<Coroutine<number>>), TypeError);
    assert.equal(bodyRan, false, 'the coroutine must not run outside a task');
    coro.return(0);
  });
  await loop.runUntilComplete(main());
  assert.equal(fut.done(), false);
  fut.cancel();
  loop.close();
});
