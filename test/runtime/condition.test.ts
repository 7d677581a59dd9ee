// Tests of runtime/condition.ts (asyncio.Condition), ported from CPython's
// Lib/test/test_asyncio/test_locks.py (class ConditionTests) and rewritten in this
// runtime's API, on the virtual clock.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  Condition,
  Lock,
  CancelledError,
  RuntimeError,
  TimeoutError,
  coroutine,
  sleep,
  withTimeout,
  type Coroutine,
  type Task,
  inspect,
  inspectResource,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

/** Runs the loop for `n` ticks (asyncio's test_utils.run_briefly, repeated). */
async function runTicks(loop: EventLoop, n = 1): Promise<void> {
  for (let i = 0; i < n; i++) await loop.runOnce();
}

/** A coroutine that waits on `cond` holding its lock, records `id` in `result` when woken, releases. */
const waiter = coroutine(function* waiter(cond: Condition, result: number[], id: number): Coroutine<boolean> {
  yield* cond.acquire();
  try {
    if (yield* cond.wait()) result.push(id);
    return true;
  } finally {
    cond.release();
  }
});

const notifier = coroutine(function* notifier(cond: Condition, n: number | 'all'): Coroutine<void> {
  yield* cond.acquire();
  try {
    if (n === 'all') cond.notifyAll();
    else cond.notify(n);
  } finally {
    cond.release();
  }
});

describe('ConditionTests (CPython test_locks.py)', () => {
  test('test_wait: waiters wake in order, one notify at a time, each holding the lock again', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const result: number[] = [];
    const tasks = [1, 2, 3].map((id) => loop.createTask(waiter(cond, result, id)));
    await runTicks(loop, 3);
    assert.deepEqual(result, []);
    assert.equal(cond.locked(), false);
    loop.createTask(notifier(cond, 1));
    await runTicks(loop, 4);
    assert.deepEqual(result, [1]);
    loop.createTask(notifier(cond, 2));
    await runTicks(loop, 6);
    assert.deepEqual(result, [1, 2, 3]);
    for (const t of tasks) assert.equal(t.result(), true);
    loop.close();
  });

  test('test_wait_cancel: a cancelled wait leaves no waiter and still holds the lock', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const main = coroutine(function* main(): Coroutine<boolean> {
      yield* cond.acquire();
      return yield* cond.wait();
    });
    const t = loop.createTask(main());
    await runTicks(loop, 2);
    t.cancel();
    await assert.rejects(loop.runUntilComplete(t), CancelledError);
    assert.equal(cond.waiterCount(), 0);
    assert.equal(cond.locked(), true);
    loop.close();
  });

  test('test_wait_cancel_contested: cancelled while the lock is contested, it still takes the lock back', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const main = coroutine(function* main(): Coroutine<void> {
      yield* cond.acquire();
      const waitTask = loop.createTask(
        coroutine(function* waitTask(): Coroutine<boolean> {
          yield* cond.acquire();
          return yield* cond.wait();
        })(),
      );
      cond.release();
      yield* sleep(0);
      assert.equal(cond.locked(), false);
      yield* cond.acquire();
      assert.equal(cond.locked(), true);
      // Notify, then cancel while the waiter is re-acquiring.
      cond.notify();
      yield* sleep(0);
      waitTask.cancel();
      yield* sleep(0);
      assert.equal(cond.locked(), true);
      cond.release();
      try {
        yield* waitTask;
      } catch (e) {
        assert.ok(e instanceof CancelledError);
      }
      // Cancelled or not, it ended holding the lock (a cancellation may not leave it unlocked).
      assert.equal(cond.locked(), true);
    });
    await loop.runUntilComplete(main());
    loop.close();
  });

  test('test_wait_cancel_after_notify: cancelled after being notified, it ends cancelled and the next waiter is unaffected', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const waited: string[] = [];
    const main = coroutine(function* main(): Coroutine<void> {
      const w = coroutine(function* w(id: string): Coroutine<void> {
        yield* cond.acquire();
        try {
          yield* cond.wait();
          waited.push(id);
        } finally {
          cond.release();
        }
      });
      const t1 = loop.createTask(w('a'));
      const t2 = loop.createTask(w('b'));
      yield* sleep(0);
      yield* sleep(0);
      yield* cond.acquire();
      cond.notify(2);
      t1.cancel();
      cond.release();
      try {
        yield* t1;
      } catch (e) {
        assert.ok(e instanceof CancelledError);
      }
      yield* t2;
      assert.equal(t1.cancelled(), true);
    });
    await loop.runUntilComplete(main());
    assert.deepEqual(waited, ['b']);
    assert.equal(cond.locked(), false);
    loop.close();
  });

  test('test_wait_unacquired: wait() without the lock is a RuntimeError', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    await assert.rejects(
      loop.runUntilComplete(cond.wait()),
      (e) => e instanceof RuntimeError && /un-acquired lock/.test(e.message),
    );
    loop.close();
  });

  test('test_wait_for: waitFor returns once the predicate holds, with its value', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    let presult = false;
    const predicate = (): boolean => presult;
    const result: number[] = [];
    const c1 = coroutine(function* c1(): Coroutine<boolean> {
      yield* cond.acquire();
      try {
        if (yield* cond.waitFor(predicate)) result.push(1);
        return true;
      } finally {
        cond.release();
      }
    });
    const t = loop.createTask(c1());
    await runTicks(loop, 2);
    assert.deepEqual(result, []);
    await loop.runUntilComplete(notifier(cond, 1));
    await runTicks(loop, 2);
    assert.deepEqual(result, []);
    presult = true;
    await loop.runUntilComplete(notifier(cond, 1));
    await runTicks(loop, 2);
    assert.deepEqual(result, [1]);
    assert.equal(t.result(), true);
    loop.close();
  });

  test('test_wait_for_unacquired: a true predicate returns at once; otherwise RuntimeError', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    assert.equal(await loop.runUntilComplete(cond.waitFor(() => 123)), 123);
    await assert.rejects(loop.runUntilComplete(cond.waitFor(() => false)), RuntimeError);
    loop.close();
  });

  test('test_notify: notify(n) wakes n waiters in arrival order', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const result: number[] = [];
    const tasks = [1, 2, 3].map((id) => loop.createTask(waiter(cond, result, id)));
    await runTicks(loop, 3);
    await loop.runUntilComplete(notifier(cond, 1));
    await runTicks(loop, 3);
    assert.deepEqual(result, [1]);
    await loop.runUntilComplete(notifier(cond, 1));
    await loop.runUntilComplete(notifier(cond, 2048));
    await runTicks(loop, 6);
    assert.deepEqual(result, [1, 2, 3]);
    for (const t of tasks) assert.equal(t.done(), true);
    loop.close();
  });

  test('test_notify_all: every waiter wakes', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const result: number[] = [];
    const tasks = [1, 2].map((id) => loop.createTask(waiter(cond, result, id)));
    await runTicks(loop, 3);
    await loop.runUntilComplete(notifier(cond, 'all'));
    await runTicks(loop, 6);
    assert.deepEqual(result, [1, 2]);
    for (const t of tasks) assert.equal(t.result(), true);
    loop.close();
  });

  test('test_notify_unacquired / test_notify_all_unacquired: RuntimeError', () => {
    const cond = new Condition();
    assert.throws(
      () => cond.notify(),
      (e) => e instanceof RuntimeError && /un-acquired lock/.test(e.message),
    );
    assert.throws(() => cond.notifyAll(), RuntimeError);
  });

  test('test_repr: locked state and waiters', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    assert.match(cond.toString(), /unlocked/);
    await loop.runUntilComplete(cond.acquire());
    assert.match(cond.toString(), /locked/);
    loop.createTask(cond.wait());
    await runTicks(loop, 1);
    assert.match(cond.toString(), /waiters=1/);
    loop.close();
  });

  test('test_explicit_lock: a condition shares the lock it is given', async () => {
    const loop = virtualLoop();
    const lock = new Lock();
    const cond = new Condition(lock);
    assert.equal(cond.lock(), lock);
    await loop.runUntilComplete(lock.acquire());
    assert.equal(cond.locked(), true);
    cond.release();
    assert.equal(lock.locked(), false);
    loop.close();
  });

  test('test_timeout_in_block: a timeout around wait() ends in TimeoutError, the lock held again', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const main = coroutine(function* main(): Coroutine<boolean> {
      yield* cond.acquire();
      try {
        yield* withTimeout(0.01, cond.wait());
      } catch (e) {
        assert.ok(e instanceof TimeoutError);
        return cond.locked();
      } finally {
        cond.release();
      }
      return false;
    });
    assert.equal(await loop.runUntilComplete(main()), true);
    loop.close();
  });

  test('test_cancelled_error_wakeup: cancelled right after a notify, the waiter ends cancelled holding the lock', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const main = coroutine(function* main(): Coroutine<void> {
      let wakeTask!: Task<void>;
      const wait = coroutine(function* wait(): Coroutine<void> {
        yield* cond.acquire();
        try {
          yield* cond.wait();
        } finally {
          assert.equal(cond.locked(), true);
          cond.release();
        }
      });
      wakeTask = loop.createTask(wait());
      yield* sleep(0);
      yield* cond.acquire();
      cond.notify();
      wakeTask.cancel();
      cond.release();
      try {
        yield* wakeTask;
        assert.fail('the wait must end cancelled');
      } catch (e) {
        assert.ok(e instanceof CancelledError);
      }
    });
    await loop.runUntilComplete(main());
    assert.equal(cond.locked(), false);
    loop.close();
  });

  test('test_cancelled_error_re_aquire: cancelled while re-acquiring, it waits for the lock and then ends cancelled', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const log: string[] = [];
    const main = coroutine(function* main(): Coroutine<void> {
      const wait = coroutine(function* wait(): Coroutine<void> {
        yield* cond.acquire();
        try {
          yield* cond.wait();
        } catch (e) {
          log.push(`${(e as Error).name}, locked=${cond.locked()}`);
          throw e;
        } finally {
          cond.release();
        }
      });
      const t = loop.createTask(wait());
      yield* sleep(0);
      yield* cond.acquire();
      cond.notify();
      yield* sleep(0);
      // The waiter now waits for the lock we hold: cancel it there.
      t.cancel();
      yield* sleep(0);
      yield* sleep(0);
      cond.release();
      try {
        yield* t;
      } catch (e) {
        assert.ok(e instanceof CancelledError);
      }
    });
    await loop.runUntilComplete(main());
    assert.deepEqual(log, ['CancelledError, locked=true']);
    loop.close();
  });
});

describe('Condition: the inspection interface', () => {
  test('lists the waiters not yet notified and the holder of its lock', async () => {
    const loop = virtualLoop();
    const cond = new Condition();
    const result: number[] = [];
    const tasks = [1, 2].map((id) => loop.createTask(waiter(cond, result, id)));
    await runTicks(loop, 3);
    const view = inspectResource(cond)!;
    assert.equal(view.kind, 'condition');
    assert.equal(view.wokenBy, 'loop');
    assert.deepEqual(
      view.waiters().map((f) => f[inspect]().waitingTasks()[0]),
      tasks,
    );
    assert.deepEqual(view.holders(), []);
    const holder = loop.createTask(cond.acquire());
    await runTicks(loop, 1);
    assert.deepEqual(view.holders(), [holder]);
    cond.notifyAll();
    assert.deepEqual(view.waiters(), []);
    cond.release();
    await runTicks(loop, 6);
    assert.deepEqual(result, [1, 2]);
    loop.close();
  });
});
