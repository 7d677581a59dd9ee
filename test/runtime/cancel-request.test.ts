// Tests of runtime/cancel-request.ts through Task.cancelRequests() and Task.cancelInEffect():
// a cancel taken back by uncancel() (a Timeout's, a TaskGroup's, a handler's) is never the
// cancel in effect; the one whose CancelledError ended a task is; the pending requests are
// as many as cancelling() counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop } from '../../runtime/loop';
import { VirtualClock } from '../../runtime/clock';
import { coroutine } from '../../runtime/coroutine';
import { sleep } from '../../runtime/sleep';
import { withTimeout } from '../../runtime/timeout';
import { waitFor } from '../../runtime/wait-for';
import { TaskGroup } from '../../runtime/task-group';
import { CancelledError, TimeoutError } from '../../runtime/errors';
import { getRunningLoop } from '../../runtime/running-loop';
import type { Coroutine, Task } from '../../runtime/task';

function newLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

test('a timeout that expired takes back its own cancel, not the one another task asked while the block unwound', async () => {
  const loop = newLoop();
  let caught: unknown = null;
  const worker = loop.createTask(
    coroutine(function* worker(): Coroutine<void> {
      try {
        yield* withTimeout(
          0.5,
          coroutine(function* read(): Coroutine<void> {
            try {
              yield* sleep(10);
            } finally {
              // Closing the connection takes a while: the boss's cancel arrives meanwhile.
              yield* sleep(0.2);
            }
          })(),
        );
      } catch (e) {
        caught = e;
        throw e;
      }
    })(),
    { name: 'worker' },
  );
  const boss = loop.createTask(
    coroutine(function* boss(): Coroutine<void> {
      yield* sleep(0.6);
      assert.equal(worker.cancelling(), 1, 'the timeout expired: one cancel pending');
      assert.equal(worker.cancelInEffect()?.by, null, 'a timer asked it');
      worker.cancel('boss');
      yield* sleep(1);
    })(),
    { name: 'boss' },
  );
  await loop.runUntilComplete(boss);
  assert.ok(worker.cancelled());
  assert.ok(
    caught instanceof CancelledError && !(caught instanceof TimeoutError),
    "the boss's cancel stays a CancelledError",
  );
  assert.equal(worker.cancelRequests().length, worker.cancelling());
  assert.deepEqual(
    worker.cancelRequests().map((r) => r.message),
    ['boss'],
  );
  assert.equal(worker.cancelInEffect()?.by, boss);
  loop.close();
});

test('a TaskGroup takes back its cancel of the parent: a parent that then returns was not cancelled', async () => {
  const loop = newLoop();
  const parent = loop.createTask(
    coroutine(function* parent(): Coroutine<string> {
      try {
        yield* new TaskGroup().run(function* (g) {
          g.createTask(
            coroutine(function* failing(): Coroutine<void> {
              yield* sleep(0.1);
              throw new RangeError('child failed');
            })(),
          );
          yield* sleep(10);
        });
      } catch {
        // The group's ExceptionGroup: handled.
      }
      assert.equal(getRunningLoop().currentTask()!.cancelling(), 0);
      yield* sleep(0.1);
      return 'carried on';
    })(),
    { name: 'parent' },
  );
  assert.equal(await loop.runUntilComplete(parent), 'carried on');
  assert.deepEqual([parent.cancelRequests().length, parent.cancelInEffect()], [0, null]);
  loop.close();
});

test('uncancel() of a handler takes back the cancel it caught; a later cancel is the one in effect', async () => {
  const loop = newLoop();
  let first: Task<void> | null = null;
  const worker = loop.createTask(
    coroutine(function* worker(): Coroutine<void> {
      try {
        yield* sleep(10);
      } catch (e) {
        if (!(e instanceof CancelledError)) throw e;
        getRunningLoop().currentTask()!.uncancel();
      }
      yield* sleep(10);
    })(),
    { name: 'worker' },
  );
  const main = loop.createTask(
    coroutine(function* main(): Coroutine<void> {
      first = loop.createTask(
        coroutine(function* firstCanceller(): Coroutine<void> {
          worker.cancel('first');
          yield* sleep(0);
        })(),
        { name: 'first' },
      );
      yield* sleep(1);
      assert.deepEqual(
        [worker.done(), worker.cancelInEffect()],
        [false, null],
        'handled and taken back: nothing cancels it',
      );
      worker.cancel('second');
      yield* sleep(1);
    })(),
    { name: 'main' },
  );
  await loop.runUntilComplete(main);
  assert.ok(worker.cancelled());
  assert.notEqual(first, null);
  assert.equal(worker.cancelInEffect()?.by, main);
  assert.equal(worker.cancelInEffect()?.message, 'second');
  loop.close();
});

test('a cancel swallowed without uncancel() stays pending, but the task is ended by the later cancel whose CancelledError it let out', async () => {
  const loop = newLoop();
  const worker = loop.createTask(
    coroutine(function* worker(): Coroutine<void> {
      try {
        yield* sleep(10);
      } catch {
        // Swallowed (asyncio frowns on it): the request still counts.
      }
      yield* sleep(10);
    })(),
    { name: 'worker' },
  );
  const main = loop.createTask(
    coroutine(function* main(): Coroutine<void> {
      yield* sleep(0);
      worker.cancel('first');
      yield* sleep(1);
      assert.equal(worker.cancelInEffect()?.message, 'first', 'live: the oldest pending cancel');
      worker.cancel('second');
      yield* sleep(1);
    })(),
    { name: 'main' },
  );
  await loop.runUntilComplete(main);
  assert.ok(worker.cancelled());
  assert.deepEqual(
    worker.cancelRequests().map((r) => r.message),
    ['first', 'second'],
  );
  assert.equal(worker.cancelling(), 2);
  assert.equal(worker.cancelInEffect()?.message, 'second');
  loop.close();
});

test("two cancels before the task runs again: the first one's CancelledError ends it, and it is the one in effect", async () => {
  const loop = newLoop();
  const worker = loop.createTask(
    coroutine(function* worker(): Coroutine<void> {
      yield* sleep(10);
    })(),
    { name: 'worker' },
  );
  const main = loop.createTask(
    coroutine(function* main(): Coroutine<void> {
      yield* sleep(0);
      worker.cancel('first');
      worker.cancel('second');
      yield* sleep(1);
    })(),
    { name: 'main' },
  );
  await loop.runUntilComplete(main);
  assert.ok(worker.cancelled());
  assert.equal(worker.cancelInEffect()?.message, 'first');
  assert.deepEqual(
    worker.cancelRequests().map((r) => r.seq),
    [1, 2],
  );
  loop.close();
});

test("waitFor cancels its inner task from the caller's task: that cancel is in effect, the caller carries none", async () => {
  const loop = newLoop();
  let inner: Task<unknown> | null = null;
  const caller = loop.createTask(
    coroutine(function* caller(): Coroutine<string> {
      const t = getRunningLoop().createTask(sleep(10), { name: 'inner' });
      inner = t;
      try {
        yield* waitFor(t, 0.5);
      } catch (e) {
        if (!(e instanceof TimeoutError)) throw e;
      }
      return 'timed out';
    })(),
    { name: 'caller' },
  );
  assert.equal(await loop.runUntilComplete(caller), 'timed out');
  const t = inner as Task<unknown> | null;
  assert.ok(t !== null && t.cancelled());
  assert.equal(t.cancelInEffect()?.by, caller);
  assert.equal(caller.cancelInEffect(), null);
  loop.close();
});
