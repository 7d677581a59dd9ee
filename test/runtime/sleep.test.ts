// Tests of runtime/sleep.ts: sleep(delay, value) resumes at exactly delay seconds of the
// loop's (virtual) clock with value; sleep(0) is one tick with no timer; cancelling a
// sleep removes its timer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop, VirtualClock, CancelledError, coroutine, sleep, type Coroutine } from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

test('sleep resumes at exactly the virtual time and evaluates to the value', async () => {
  const loop = virtualLoop();
  const log: Array<[string, number]> = [];
  const main = coroutine(function* main(): Coroutine<string> {
    log.push(['start', loop.time()]);
    const v = yield* sleep(1.5, 'payload');
    log.push([v, loop.time()]);
    const none = yield* sleep(0.25);
    log.push([String(none), loop.time()]);
    return v;
  });
  assert.equal(await loop.runUntilComplete(main()), 'payload');
  assert.deepEqual(log, [
    ['start', 0],
    ['payload', 1.5],
    ['undefined', 1.75],
  ]);
  loop.close();
});

test('concurrent sleepers wake in order of their deadlines', async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  const sleeper = coroutine(function* sleeper(name: string, delay: number): Coroutine<void> {
    yield* sleep(delay);
    log.push(`${name}@${loop.time()}`);
  });
  const tasks = [
    loop.createTask(sleeper('c', 3)),
    loop.createTask(sleeper('a', 1)),
    loop.createTask(sleeper('b', 2)),
    loop.createTask(sleeper('a2', 1)),
  ];
  for (const t of tasks) await loop.runUntilComplete(t);
  assert.deepEqual(log, ['a@1', 'a2@1', 'b@2', 'c@3']);
  loop.close();
});

test('sleep(0) and negative delays yield for exactly one tick and schedule no timer', async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  const a = coroutine(function* a(): Coroutine<void> {
    log.push('a1');
    const v = yield* sleep(0, 'zero');
    log.push(`a2 ${v}`);
    yield* sleep(-5);
    log.push('a3');
  });
  const b = coroutine(function* b(): Coroutine<void> {
    log.push('b1');
    yield;
    log.push('b2');
    yield;
    log.push('b3');
  });
  loop.createTask(a());
  loop.createTask(b());
  await loop.runOnce();
  assert.equal(loop._timers.size, 0);
  await loop.runOnce();
  await loop.runOnce();
  assert.deepEqual(log, ['a1', 'b1', 'a2 zero', 'b2', 'a3', 'b3']);
  assert.equal(loop.time(), 0);
  loop.close();
});

test('cancelling a sleeping task cancels its timer', async () => {
  const loop = virtualLoop();
  const task = loop.createTask(sleep(100));
  await loop.runOnce();
  assert.equal(loop._timers.size, 1);
  const timer = loop._timers.peek()!;
  task.cancel();
  await assert.rejects(loop.runUntilComplete(task), CancelledError);
  assert.equal(timer.cancelled(), true);
  assert.equal(loop.time(), 0, 'the clock never reached the cancelled timer');
  loop.close();
});

test('sleep with a delay that is not a number throws TypeError in the caller', async () => {
  const loop = virtualLoop();
  const main = coroutine(function* main(): Coroutine<string> {
    try {
      yield* sleep('1' as unknown as number);
      return 'no';
    } catch (e) {
      return e instanceof TypeError ? 'TypeError' : 'other';
    }
  });
  assert.equal(await loop.runUntilComplete(main()), 'TypeError');
  loop.close();
});

test('sleep outside a running loop fails with RuntimeError (no running event loop)', () => {
  const gen = sleep(1);
  assert.throws(() => gen.next(), /no running event loop/);
});
