// Tests of runtime/timeout.ts (asyncio.timeout as withTimeout): the coroutine runs in the
// caller's own task; at the deadline the task is cancelled and the CancelledError becomes
// TimeoutError; once expired the cancel request is always taken back, so a timeout whose
// cancellation was swallowed leaves nothing behind; a deadline already passed cancels at
// the next tick; a cancellation from elsewhere stays a CancelledError.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  CancelledError,
  TimeoutError,
  RuntimeError,
  Timeout,
  coroutine,
  currentTask,
  sleep,
  timeoutAt,
  withTimeout,
  getRunningLoop,
  type Coroutine,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

const delayed = coroutine(function* delayed<T>(delay: number, value: T): Coroutine<T> {
  yield* sleep(delay);
  return value;
});

describe('withTimeout', () => {
  test("gives the result in time, in the caller's own task", async () => {
    const loop = virtualLoop();
    const main = coroutine(function* main(): Coroutine<[string, boolean]> {
      const me = currentTask();
      const inner = coroutine(function* inner(): Coroutine<boolean> {
        yield* sleep(1);
        return currentTask() === me;
      });
      return [yield* withTimeout(5, delayed(1, 'ok')), yield* withTimeout(5, inner())];
    });
    assert.deepEqual(await loop.runUntilComplete(main()), ['ok', true]);
    assert.equal(loop.time(), 2);
    loop.close();
  });

  test('at the deadline the coroutine is cancelled at its suspension point and TimeoutError comes out', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const slow = coroutine(function* slow(): Coroutine<string> {
      try {
        yield* sleep(10);
        return 'late';
      } finally {
        log.push(`cleanup at ${loop.time()}`);
      }
    });
    const main = coroutine(function* main(): Coroutine<number> {
      try {
        yield* withTimeout(2, slow());
      } catch (e) {
        assert.ok(e instanceof TimeoutError);
        assert.ok((e as TimeoutError).cause instanceof CancelledError);
      }
      return currentTask()!.cancelling();
    });
    assert.equal(await loop.runUntilComplete(main()), 0);
    assert.deepEqual(log, ['cleanup at 2']);
    loop.close();
  });

  test('a swallowed timeout takes its cancel request back: the next timeout is still a TimeoutError', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const stubborn = coroutine(function* stubborn(): Coroutine<string> {
      try {
        yield* sleep(10);
        return 'late';
      } catch {
        return 'swallowed';
      }
    });
    const main = coroutine(function* main(): Coroutine<void> {
      log.push(yield* withTimeout(1, stubborn()));
      log.push(`cancelling ${currentTask()!.cancelling()}`);
      try {
        yield* withTimeout(1, sleep(10));
      } catch (e) {
        log.push((e as Error).constructor.name);
      }
    });
    await loop.runUntilComplete(main());
    assert.deepEqual(log, ['swallowed', 'cancelling 0', 'TimeoutError']);
    loop.close();
  });

  test('an expired timeout whose coroutine throws another error takes its request back too', async () => {
    const loop = virtualLoop();
    const converting = coroutine(function* converting(): Coroutine<never> {
      try {
        yield* sleep(10);
      } catch {
        throw new Error('converted');
      }
      throw new Error('unreachable');
    });
    const main = coroutine(function* main(): Coroutine<number> {
      try {
        yield* withTimeout(1, converting());
      } catch (e) {
        assert.equal((e as Error).message, 'converted');
      }
      return currentTask()!.cancelling();
    });
    assert.equal(await loop.runUntilComplete(main()), 0);
    loop.close();
  });

  test('a deadline already passed cancels at the next tick, before callbacks the coroutine schedules', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const main = coroutine(function* main(): Coroutine<void> {
      const me = currentTask()!;
      const body = coroutine(function* body(): Coroutine<void> {
        loop.callSoon(() => log.push(`callback sees cancelling ${me.cancelling()}`));
        yield* sleep(1);
      });
      try {
        yield* withTimeout(0, body());
      } catch (e) {
        log.push((e as Error).constructor.name);
      }
    });
    await loop.runUntilComplete(main());
    assert.deepEqual(log, ['callback sees cancelling 1', 'TimeoutError']);
    loop.close();
  });

  test('a cancellation from elsewhere during the timeout stays a CancelledError', async () => {
    const loop = virtualLoop();
    const main = coroutine(function* main(): Coroutine<string> {
      return yield* withTimeout(1, delayed(5, 'never'));
    });
    const task = loop.createTask(main());
    loop.callLater(0.5, () => task.cancel('from outside'));
    await assert.rejects(loop.runUntilComplete(task), (e) => e instanceof CancelledError);
    assert.equal(task.cancelled(), true);
    loop.close();
  });

  test('null or Infinity set no deadline', async () => {
    const loop = virtualLoop();
    const main = coroutine(function* main(): Coroutine<string[]> {
      return [yield* withTimeout(null, delayed(100, 'a')), yield* withTimeout(Infinity, delayed(100, 'b'))];
    });
    assert.deepEqual(await loop.runUntilComplete(main()), ['a', 'b']);
    loop.close();
  });
});

// CPython 3.11, Lib/test/test_asyncio/test_timeouts.py (class TimeoutTests), rewritten in
// this runtime's API: `async with asyncio.timeout(d) as cm:` is
// `yield* withTimeout(d, function* (cm) {...})`, `timeout_at(when)` is `timeoutAt(when, ...)`.
describe('TimeoutTests (CPython test_timeouts.py)', () => {
  async function runMain<T>(main: () => Coroutine<T>): Promise<T> {
    const loop = virtualLoop();
    try {
      return await loop.runUntilComplete(main());
    } finally {
      loop.close();
    }
  }

  test('test_timeout_basic: the handle says expired() after a TimeoutError', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        let handle: Timeout | null = null;
        try {
          yield* withTimeout(0.01, function* block(cm) {
            handle = cm;
            yield* sleep(10);
          });
          assert.fail('no TimeoutError');
        } catch (e) {
          assert.ok(e instanceof TimeoutError);
        }
        assert.equal(handle!.expired(), true);
      }),
    );
  });

  test('test_timeout_at_basic: timeoutAt takes a loop time; when() gives it back', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const deadline = getRunningLoop().time() + 0.01;
        let handle: Timeout | null = null;
        try {
          yield* timeoutAt(deadline, function* block(cm) {
            handle = cm;
            yield* sleep(10);
          });
          assert.fail('no TimeoutError');
        } catch (e) {
          assert.ok(e instanceof TimeoutError);
        }
        assert.equal(handle!.expired(), true);
        assert.equal(handle!.when(), deadline);
      }),
    );
  });

  test('test_nested_timeouts: the inner, shorter one fires; the outer is not expired', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        let outer: Timeout | null = null;
        let inner: Timeout | null = null;
        try {
          yield* withTimeout(0.01, function* o(cm1) {
            outer = cm1;
            yield* withTimeout(0.001, function* i(cm2) {
              inner = cm2;
              yield* sleep(10);
            });
          });
          assert.fail('no TimeoutError');
        } catch (e) {
          assert.ok(e instanceof TimeoutError);
        }
        assert.equal(inner!.expired(), true);
        assert.equal(outer!.expired(), false);
      }),
    );
  });

  test('test_waiter_cancelled: a body that swallows the cancellation returns normally; the handle is expired', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        let handle: Timeout | null = null;
        yield* withTimeout(0.01, function* block(cm) {
          handle = cm;
          try {
            yield* sleep(10);
          } catch (e) {
            assert.ok(e instanceof CancelledError);
          }
        });
        assert.equal(handle!.expired(), true);
        assert.equal(currentTask()!.cancelling(), 0);
      }),
    );
  });

  test('test_timeout_not_called: a body that finishes in time leaves the handle not expired', async () => {
    const t = await runMain(
      coroutine(function* main(): Coroutine<number> {
        let handle: Timeout | null = null;
        const t0 = getRunningLoop().time();
        yield* withTimeout(10, function* block(cm) {
          handle = cm;
          yield* sleep(0.01);
        });
        assert.equal(handle!.expired(), false);
        // The deadline was not moved.
        assert.equal(handle!.when(), t0 + 10);
        return getRunningLoop().time() - t0;
      }),
    );
    assert.ok(t < 0.1);
  });

  test('test_timeout_disabled / test_timeout_at_disabled: null sets no deadline', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        for (const run of [withTimeout, timeoutAt]) {
          let handle: Timeout | null = null;
          yield* run(null, function* block(cm) {
            handle = cm;
            yield* sleep(0.01);
          });
          assert.equal(handle!.expired(), false);
          assert.equal(handle!.when(), null);
        }
      }),
    );
  });

  test('test_timeout_zero / test_timeout_in_the_past_sleep_zero: a deadline already passed fires at the next tick', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        for (const deadline of [getRunningLoop().time(), getRunningLoop().time() - 11]) {
          let handle: Timeout | null = null;
          try {
            yield* timeoutAt(deadline, function* block(cm) {
              handle = cm;
              yield* sleep(0);
              assert.fail('a passed deadline must stop the body at its first suspension');
            });
          } catch (e) {
            assert.ok(e instanceof TimeoutError);
          }
          assert.equal(handle!.expired(), true);
        }
      }),
    );
  });

  test('test_foreign_exception_passed / test_foreign_exception_on_timeout: other errors pass through', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        class KeyErr extends Error {}
        try {
          yield* withTimeout(0.01, function* block() {
            throw new KeyErr('before');
          });
        } catch (e) {
          assert.ok(e instanceof KeyErr);
        }
        try {
          yield* withTimeout(0.01, function* block() {
            try {
              yield* sleep(1);
            } finally {
              // eslint-disable-next-line no-unsafe-finally
              throw new KeyErr('on timeout');
            }
          });
        } catch (e) {
          assert.ok(e instanceof KeyErr);
        }
        assert.equal(currentTask()!.cancelling(), 0);
      }),
    );
  });

  test('test_foreign_cancel_doesnt_timeout_if_not_expired: a cancel from elsewhere stays CancelledError', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const inner = getRunningLoop().createTask(
          withTimeout(10, function* block(cm) {
            try {
              yield* sleep(5);
            } finally {
              assert.equal(cm.expired(), false);
            }
          }),
        );
        yield* sleep(0);
        inner.cancel();
        try {
          yield* inner;
          assert.fail('no CancelledError');
        } catch (e) {
          assert.ok(e instanceof CancelledError);
        }
      }),
    );
  });

  test('test_outer_task_is_not_cancelled: after a timeout the task carries no cancellation on', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        try {
          yield* withTimeout(0.001, sleep(10));
        } catch (e) {
          assert.ok(e instanceof TimeoutError);
        }
        assert.equal(currentTask()!.cancelling(), 0);
        yield* sleep(0.01);
      }),
    );
  });

  test('test_nested_timeouts_concurrent: the outer one fires first: the outer gets the TimeoutError', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        let outer: Timeout | null = null;
        let inner: Timeout | null = null;
        try {
          yield* withTimeout(0.002, function* o(cm1) {
            outer = cm1;
            try {
              yield* withTimeout(0.1, function* i(cm2) {
                inner = cm2;
                yield* sleep(1);
              });
            } catch (e) {
              // The inner one did not expire: the CancelledError passes through it.
              assert.ok(e instanceof CancelledError);
              throw e;
            }
          });
          assert.fail('no TimeoutError');
        } catch (e) {
          assert.ok(e instanceof TimeoutError);
        }
        assert.equal(outer!.expired(), true);
        assert.equal(inner!.expired(), false);
      }),
    );
  });

  test('test_reschedule: moving the deadline forward, back and away, only while the block runs', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const loop = getRunningLoop();
        const cm = new Timeout(null);
        assert.throws(
          () => cm.reschedule(1),
          (e) => e instanceof RuntimeError && /not been entered/.test(e.message),
        );
        const t0 = loop.time();
        try {
          yield* cm.run(function* block(handle) {
            handle.reschedule(t0 + 0.5);
            assert.equal(handle.when(), t0 + 0.5);
            yield* sleep(0.3);
            // Postponed: not fired at 0.5.
            handle.reschedule(t0 + 1);
            yield* sleep(0.5);
            handle.reschedule(null);
            yield* sleep(1);
            // Back in the past: fires at the next tick.
            handle.reschedule(loop.time() - 1);
            yield* sleep(10);
          });
          assert.fail('no TimeoutError');
        } catch (e) {
          assert.ok(e instanceof TimeoutError);
        }
        assert.equal(Math.round((loop.time() - t0) * 10) / 10, 1.8);
        assert.throws(
          () => cm.reschedule(1),
          (e) => e instanceof RuntimeError && /Cannot change state of expired Timeout/.test(e.message),
        );
        assert.throws(
          () => cm.run(sleep(0)).next(),
          (e) => e instanceof RuntimeError && /already been entered/.test(e.message),
        );
      }),
    );
  });

  test('test_repr_active / test_repr_expired / test_repr_finished / test_repr_disabled', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const loop = getRunningLoop();
        const cm = new Timeout(loop.time() + 10);
        assert.match(cm.toString(), /^<Timeout \[created\]>$/);
        yield* cm.run(function* block() {
          assert.match(cm.toString(), /^<Timeout \[active\] when=10>$/);
        });
        assert.equal(cm.toString(), '<Timeout [finished]>');
        const expired = new Timeout(loop.time());
        try {
          yield* expired.run(sleep(1));
        } catch (e) {
          assert.ok(e instanceof TimeoutError);
        }
        assert.equal(expired.toString(), '<Timeout [expired]>');
        const disabled = new Timeout(null);
        yield* disabled.run(function* block() {
          assert.equal(disabled.toString(), '<Timeout [active] when=null>');
        });
      }),
    );
  });

  test('test_timeout_without_task: a Timeout needs a task', async () => {
    const loop = virtualLoop();
    loop.callSoon(() => {
      assert.throws(
        () => new Timeout(null).run(sleep(0)).next(),
        (e) => e instanceof RuntimeError && /inside a task/.test(e.message),
      );
    });
    await loop.runUntilComplete(
      coroutine(function* main(): Coroutine<void> {
        yield* sleep(0);
        yield* sleep(0);
      })(),
    );
    loop.close();
  });
});
