// Tests of runtime/lock.ts (asyncio.Lock): mutual exclusion, fairness (arrival order, no
// barging while a woken waiter has not run yet), release of an unlocked lock is a
// RuntimeError, and cancellation never loses the lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  Lock,
  RuntimeError,
  CancelledError,
  coroutine,
  sleep,
  type Coroutine,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

test('acquire() of a free lock takes it at once; release() frees it', async () => {
  const loop = virtualLoop();
  const lock = new Lock();
  const main = coroutine(function* main(): Coroutine<boolean> {
    const v = yield* lock.acquire();
    assert.equal(lock.locked(), true);
    lock.release();
    return v;
  });
  assert.equal(await loop.runUntilComplete(main()), true);
  assert.equal(lock.locked(), false);
  loop.close();
});

test('release() of an unlocked lock throws RuntimeError', () => {
  const lock = new Lock();
  assert.throws(
    () => lock.release(),
    (e) => e instanceof RuntimeError && e.message === 'Lock is not acquired.',
  );
});

test('critical sections never overlap, and waiters get the lock in arrival order', async () => {
  const loop = virtualLoop();
  const lock = new Lock();
  const log: string[] = [];
  const worker = coroutine(function* worker(name: string): Coroutine<void> {
    yield* lock.acquire();
    try {
      log.push(`${name} in@${loop.time()}`);
      yield* sleep(1);
      log.push(`${name} out@${loop.time()}`);
    } finally {
      lock.release();
    }
  });
  const tasks = ['a', 'b', 'c'].map((n) => loop.createTask(worker(n)));
  for (const t of tasks) await loop.runUntilComplete(t);
  assert.deepEqual(log, ['a in@0', 'a out@1', 'b in@1', 'b out@2', 'c in@2', 'c out@3']);
  loop.close();
});

test('no barging: a newcomer queues behind a woken waiter that has not run yet', async () => {
  const loop = virtualLoop();
  const lock = new Lock();
  const log: string[] = [];
  const taker = coroutine(function* taker(name: string): Coroutine<void> {
    yield* lock.acquire();
    log.push(name);
    lock.release();
  });
  const main = coroutine(function* main(): Coroutine<void> {
    yield* lock.acquire();
    const waiter = loop.createTask(taker('waiter'));
    yield; // the waiter queues
    lock.release(); // wakes the waiter's future; the lock is free for a moment
    assert.equal(lock.locked(), false);
    const newcomer = loop.createTask(taker('newcomer'));
    yield* waiter;
    yield* newcomer;
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['waiter', 'newcomer']);
  loop.close();
});

test('a cancelled waiter leaves the queue; the lock goes to the next one', async () => {
  const loop = virtualLoop();
  const lock = new Lock();
  const log: string[] = [];
  const taker = coroutine(function* taker(name: string): Coroutine<void> {
    try {
      yield* lock.acquire();
    } catch (e) {
      log.push(`${name} ${e instanceof CancelledError ? 'cancelled' : String(e)}`);
      throw e;
    }
    log.push(`${name} acquired@${loop.time()}`);
    lock.release();
  });
  const main = coroutine(function* main(): Coroutine<void> {
    yield* lock.acquire();
    const a = loop.createTask(taker('a'));
    const b = loop.createTask(taker('b'));
    yield* sleep(1);
    a.cancel();
    yield* sleep(1);
    assert.equal(lock.waiterCount(), 1);
    lock.release();
    yield* b;
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['a cancelled', 'b acquired@2']);
  assert.equal(lock.locked(), false);
  loop.close();
});

test('a waiter woken and then cancelled passes the lock on: it is never lost', async () => {
  const loop = virtualLoop();
  const lock = new Lock();
  const log: string[] = [];
  const taker = coroutine(function* taker(name: string): Coroutine<void> {
    try {
      yield* lock.acquire();
    } catch (e) {
      log.push(`${name} ${e instanceof CancelledError ? 'cancelled' : String(e)}`);
      return;
    }
    log.push(`${name} acquired`);
    lock.release();
  });
  const main = coroutine(function* main(): Coroutine<void> {
    yield* lock.acquire();
    const a = loop.createTask(taker('a'));
    const b = loop.createTask(taker('b'));
    yield;
    lock.release(); // wakes a
    a.cancel(); // a is cancelled before it runs
    yield* a;
    yield* b;
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['a cancelled', 'b acquired']);
  assert.equal(lock.locked(), false);
  assert.equal(lock.waiterCount(), 0);
  loop.close();
});
