// Tests of runtime/semaphore.ts (asyncio.Semaphore and BoundedSemaphore): at most `value` holders at a time,
// waiters served in arrival order, FIFO even when a slot is free while others wait, and
// cancellation never loses a slot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  Semaphore,
  BoundedSemaphore,
  ValueError,
  CancelledError,
  coroutine,
  sleep,
  type Coroutine,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

test('the initial value must be a non-negative integer', () => {
  assert.throws(() => new Semaphore(-1), RangeError);
  assert.throws(() => new Semaphore(1.5), RangeError);
  assert.equal(new Semaphore().value(), 1);
  assert.equal(new Semaphore(0).locked(), true);
});

test('at most `value` coroutines hold it at once; the others wait in arrival order', async () => {
  const loop = virtualLoop();
  const sem = new Semaphore(2);
  const log: string[] = [];
  let inside = 0;
  let most = 0;
  const worker = coroutine(function* worker(name: string): Coroutine<void> {
    yield* sem.acquire();
    try {
      inside++;
      most = Math.max(most, inside);
      log.push(`${name}@${loop.time()}`);
      yield* sleep(1);
    } finally {
      inside--;
      sem.release();
    }
  });
  const tasks = ['a', 'b', 'c', 'd', 'e'].map((n) => loop.createTask(worker(n)));
  for (const t of tasks) await loop.runUntilComplete(t);
  assert.equal(most, 2);
  assert.deepEqual(log, ['a@0', 'b@0', 'c@1', 'd@1', 'e@2']);
  assert.equal(sem.value(), 2);
  loop.close();
});

test('acquire and release adjust value() and locked()', async () => {
  const loop = virtualLoop();
  const sem = new Semaphore(1);
  const main = coroutine(function* main(): Coroutine<void> {
    assert.equal(sem.locked(), false);
    assert.equal(yield* sem.acquire(), true);
    assert.equal(sem.value(), 0);
    assert.equal(sem.locked(), true);
    sem.release();
    sem.release(); // a plain Semaphore may go above its initial value
    assert.equal(sem.value(), 2);
  });
  await loop.runUntilComplete(main());
  loop.close();
});

test('FIFO: a newcomer waits behind queued waiters even if a slot was just freed', async () => {
  const loop = virtualLoop();
  const sem = new Semaphore(1);
  const log: string[] = [];
  const taker = coroutine(function* taker(name: string): Coroutine<void> {
    yield* sem.acquire();
    log.push(name);
    sem.release();
  });
  const main = coroutine(function* main(): Coroutine<void> {
    yield* sem.acquire();
    const waiter = loop.createTask(taker('waiter'));
    yield;
    sem.release();
    const newcomer = loop.createTask(taker('newcomer'));
    yield* waiter;
    yield* newcomer;
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['waiter', 'newcomer']);
  loop.close();
});

test('a waiter woken and then cancelled gives its slot to the next waiter', async () => {
  const loop = virtualLoop();
  const sem = new Semaphore(0);
  const log: string[] = [];
  const taker = coroutine(function* taker(name: string): Coroutine<void> {
    try {
      yield* sem.acquire();
    } catch (e) {
      log.push(`${name} ${e instanceof CancelledError ? 'cancelled' : String(e)}`);
      return;
    }
    log.push(`${name} acquired`);
  });
  const main = coroutine(function* main(): Coroutine<void> {
    const a = loop.createTask(taker('a'));
    const b = loop.createTask(taker('b'));
    yield;
    sem.release(); // reserves the slot for a
    a.cancel(); // before a runs
    yield* a;
    yield* b;
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['a cancelled', 'b acquired']);
  assert.equal(sem.value(), 0);
  assert.equal(sem.waiterCount(), 0);
  loop.close();
});

test('a waiter cancelled while waiting leaves; the value is unchanged', async () => {
  const loop = virtualLoop();
  const sem = new Semaphore(0);
  const task = loop.createTask(sem.acquire());
  await loop.runOnce();
  assert.equal(sem.waiterCount(), 1);
  task.cancel();
  await assert.rejects(loop.runUntilComplete(task), CancelledError);
  assert.equal(sem.waiterCount(), 0);
  assert.equal(sem.value(), 0);
  sem.release();
  assert.equal(sem.value(), 1);
  loop.close();
});

test('a negative value is a ValueError (also a RangeError)', () => {
  assert.throws(() => new Semaphore(-1), ValueError);
});

test('BoundedSemaphore: releasing above the initial value is a ValueError and changes nothing', async () => {
  const loop = new EventLoop({ clock: new VirtualClock() });
  const sem = new BoundedSemaphore(2);
  assert.throws(
    () => sem.release(),
    (e) => e instanceof ValueError && /released too many times/.test((e as Error).message),
  );
  const main = coroutine(function* main(): Coroutine<number> {
    yield* sem.acquire();
    yield* sem.acquire();
    assert.equal(sem.locked(), true);
    sem.release();
    sem.release();
    assert.throws(() => sem.release(), ValueError);
    return sem.value();
  });
  assert.equal(await loop.runUntilComplete(main()), 2);
  loop.close();
});
