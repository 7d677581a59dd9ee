// Tests of runtime/event.ts (asyncio.Event): set() wakes every waiter, waiting on a set
// event returns at once, clear() resets it, a cancelled waiter leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop, VirtualClock, Event, CancelledError, coroutine, type Coroutine } from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

test('set() wakes every waiter, in the order they waited; wait() evaluates to true', async () => {
  const loop = virtualLoop();
  const ev = new Event();
  const log: string[] = [];
  const waiter = coroutine(function* waiter(name: string): Coroutine<void> {
    const v = yield* ev.wait();
    log.push(`${name} ${v}@${loop.time()}`);
  });
  const tasks = ['w1', 'w2', 'w3'].map((n) => loop.createTask(waiter(n)));
  await loop.runOnce();
  assert.equal(ev.waiterCount(), 3);
  loop.callLater(2, () => ev.set());
  for (const t of tasks) await loop.runUntilComplete(t);
  assert.deepEqual(log, ['w1 true@2', 'w2 true@2', 'w3 true@2']);
  assert.equal(ev.isSet(), true);
  assert.equal(ev.waiterCount(), 0);
  loop.close();
});

test('wait() on a set event returns at once, without giving up the loop', async () => {
  const loop = virtualLoop();
  const ev = new Event();
  ev.set();
  ev.set(); // twice is harmless
  const log: string[] = [];
  const a = coroutine(function* a(): Coroutine<void> {
    yield* ev.wait();
    log.push('a waited');
  });
  const b = coroutine(function* b(): Coroutine<void> {
    log.push('b');
    yield;
  });
  loop.createTask(a());
  loop.createTask(b());
  await loop.runOnce();
  assert.deepEqual(log, ['a waited', 'b']);
  loop.close();
});

test('clear() resets the flag so that wait() waits again', async () => {
  const loop = virtualLoop();
  const ev = new Event();
  ev.set();
  ev.clear();
  assert.equal(ev.isSet(), false);
  const main = coroutine(function* main(): Coroutine<number> {
    yield* ev.wait();
    return loop.time();
  });
  loop.callLater(4, () => ev.set());
  assert.equal(await loop.runUntilComplete(main()), 4);
  loop.close();
});

test('set() then clear() before the waiters run still releases them', async () => {
  const loop = virtualLoop();
  const ev = new Event();
  const main = coroutine(function* main(): Coroutine<boolean> {
    return yield* ev.wait();
  });
  const task = loop.createTask(main());
  await loop.runOnce();
  ev.set();
  ev.clear();
  assert.equal(await loop.runUntilComplete(task), true);
  loop.close();
});

test('a cancelled waiter leaves the event', async () => {
  const loop = virtualLoop();
  const ev = new Event();
  const task = loop.createTask(ev.wait());
  await loop.runOnce();
  assert.equal(ev.waiterCount(), 1);
  task.cancel();
  await assert.rejects(loop.runUntilComplete(task), CancelledError);
  assert.equal(ev.waiterCount(), 0);
  loop.close();
});
