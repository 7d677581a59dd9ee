// Tests of runtime/wait.ts (asyncio.wait), ported from CPython's
// Lib/test/test_asyncio/test_tasks.py (BaseTaskTests' test_wait_* methods) and rewritten in
// this runtime's API, on the virtual clock.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  wait,
  FIRST_COMPLETED,
  FIRST_EXCEPTION,
  ALL_COMPLETED,
  ValueError,
  coroutine,
  sleep,
  getRunningLoop,
  type Coroutine,
  type Future,
  type Task,
  type ReturnWhen,
  inspect,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

const valueAfter = coroutine(function* valueAfter<T>(delay: number, value: T): Coroutine<T> {
  yield* sleep(delay);
  return value;
});
const failAfter = coroutine(function* failAfter(delay: number): Coroutine<never> {
  yield* sleep(delay);
  throw new ZeroDivisionError('1 / 0');
});
class ZeroDivisionError extends Error {}

function task<T>(coro: Coroutine<T>): Task<T> {
  return getRunningLoop().createTask(coro);
}

/** Runs `main` on a new virtual loop; gives its result and the loop time at the end. */
async function runMain<T>(main: () => Coroutine<T>): Promise<{ result: T; time: number }> {
  const loop = virtualLoop();
  try {
    const result = await loop.runUntilComplete(main());
    return { result, time: Math.round(loop.time() * 1000) / 1000 };
  } finally {
    loop.close();
  }
}

describe('test_wait* (CPython test_tasks.py)', () => {
  test('test_wait: ALL_COMPLETED waits for all; a second wait of done tasks returns at once', async () => {
    const { result, time } = await runMain(
      coroutine(function* main(): Coroutine<number> {
        const a = task(sleep(0.1));
        const b = task(sleep(0.15));
        const [done, pending] = yield* wait([b, a]);
        assert.deepEqual(done, new Set([a, b]));
        assert.equal(pending.size, 0);
        const t0 = getRunningLoop().time();
        yield* wait([a, b]);
        return getRunningLoop().time() - t0;
      }),
    );
    assert.equal(result, 0);
    assert.equal(time, 0.15);
  });

  test('test_wait_errors / test_wait_invalid_args: empty set, bad returnWhen, a single future, coroutines', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        assert.throws(() => wait(new Set<Future<unknown>>()), ValueError);
        const fut = getRunningLoop().createFuture<number>();
        assert.throws(
          () => wait([fut], { returnWhen: 'bad' as ReturnWhen }),
          (e) => e instanceof ValueError && /Invalid returnWhen/.test(e.message),
        );
        assert.throws(() => wait(fut as unknown as Iterable<Future<number>>), TypeError);
        const coro = valueAfter(1, 1);
        assert.throws(
          () => wait([coro as unknown as Future<number>]),
          (e) => e instanceof TypeError && /coroutines is forbidden/.test(e.message),
        );
        coro.return(0);
        fut.cancel();
      }),
    );
  });

  test('test_wait_first_completed: returns when the first is done, the other still pending', async () => {
    const { time } = await runMain(
      coroutine(function* main(): Coroutine<void> {
        const a = task(sleep(10));
        const b = task(sleep(0.1));
        const [done, pending] = yield* wait([b, a], { returnWhen: FIRST_COMPLETED });
        assert.deepEqual(done, new Set([b]));
        assert.deepEqual(pending, new Set([a]));
        assert.equal(a.done(), false);
        assert.equal(b.done(), true);
        a.cancel();
      }),
    );
    assert.equal(time, 0.1);
  });

  test('test_wait_really_done: FIRST_COMPLETED with tasks done at the same tick lists them all', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const coro1 = coroutine(function* coro1(): Coroutine<void> {
          yield;
        });
        const coro2 = coroutine(function* coro2(): Coroutine<void> {
          yield;
          yield;
        });
        const a = task(coro1());
        const b = task(coro2());
        const [done, pending] = yield* wait([b, a], { returnWhen: FIRST_COMPLETED });
        assert.deepEqual(done, new Set([a, b]));
        assert.equal(pending.size, 0);
      }),
    );
  });

  test('test_wait_first_exception: returns at the first failure', async () => {
    const { time } = await runMain(
      coroutine(function* main(): Coroutine<void> {
        const a = task(sleep(10));
        const b = task(failAfter(0.1));
        const [done, pending] = yield* wait([b, a], { returnWhen: FIRST_EXCEPTION });
        assert.deepEqual(done, new Set([b]));
        assert.deepEqual(pending, new Set([a]));
        a.cancel();
      }),
    );
    assert.equal(time, 0.1);
  });

  test('test_wait_first_exception_in_wait: a failure while waiting ends the wait', async () => {
    const { time } = await runMain(
      coroutine(function* main(): Coroutine<void> {
        const a = task(sleep(10));
        const b = task(failAfter(0.01));
        const [done, pending] = yield* wait([b, a], { returnWhen: FIRST_EXCEPTION });
        assert.deepEqual(done, new Set([b]));
        assert.deepEqual(pending, new Set([a]));
        assert.ok(b.exception() instanceof ZeroDivisionError);
        a.cancel();
      }),
    );
    assert.equal(time, 0.01);
  });

  test('test_wait_first_exception: without any failure FIRST_EXCEPTION waits for all', async () => {
    const { time } = await runMain(
      coroutine(function* main(): Coroutine<void> {
        const a = task(valueAfter(0.2, 'a'));
        const b = task(valueAfter(0.1, 'b'));
        const [done, pending] = yield* wait([a, b], { returnWhen: FIRST_EXCEPTION });
        assert.equal(done.size, 2);
        assert.equal(pending.size, 0);
      }),
    );
    assert.equal(time, 0.2);
  });

  test('test_wait_with_exception: ALL_COMPLETED includes the failed task and does not raise', async () => {
    const { time } = await runMain(
      coroutine(function* main(): Coroutine<void> {
        const a = task(failAfter(0.1));
        const b = task(sleep(0.15));
        const [done, pending] = yield* wait([b, a]);
        assert.equal(done.size, 2);
        assert.equal(pending.size, 0);
        assert.ok(a.exception() instanceof ZeroDivisionError);
      }),
    );
    assert.equal(time, 0.15);
  });

  test('test_wait_with_timeout: the timeout returns what is done, no TimeoutError, nothing cancelled', async () => {
    const { time } = await runMain(
      coroutine(function* main(): Coroutine<void> {
        const a = task(sleep(0.1));
        const b = task(sleep(0.15));
        const [done, pending] = yield* wait([b, a], { timeout: 0.11 });
        assert.deepEqual(done, new Set([a]));
        assert.deepEqual(pending, new Set([b]));
        assert.equal(b.cancelled(), false);
        yield* b;
      }),
    );
    assert.equal(time, 0.15);
  });

  test('test_wait_concurrent_complete: a timeout while some are done, ALL_COMPLETED', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const a = task(sleep(0.1));
        const b = task(sleep(0.15));
        const [done, pending] = yield* wait([b, a], { timeout: 0.1, returnWhen: ALL_COMPLETED });
        assert.equal(done.size + pending.size, 2);
        assert.ok(pending.has(b));
        b.cancel();
      }),
    );
  });

  test('test_wait_duplicate_futures: the same task twice counts once', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const a = task(valueAfter(0.01, 'test'));
        const [done, pending] = yield* wait([a, a]);
        assert.equal(done.size, 1);
        assert.equal(pending.size, 0);
        assert.equal(a.result(), 'test');
      }),
    );
  });
});

describe('wait(): the inspection interface', () => {
  test('without a timeout it stands for the futures not done; with one, for its timer', async () => {
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const me = getRunningLoop().currentTask()!;
        const a = task(sleep(1));
        const b = task(sleep(2));
        const checker = task(
          coroutine(function* checker(): Coroutine<void> {
            yield* sleep(1.5);
            const view = me[inspect]().awaiting![inspect]();
            assert.equal(view.kind, 'wait');
            assert.deepEqual([...view.inner()], [b]);
            assert.equal(view.wokenBy(), 'loop');
            yield* sleep(1);
            const timed = me[inspect]().awaiting![inspect]();
            assert.equal(timed.inner().length, 0);
            assert.equal(timed.wokenBy(), 'outside');
          })(),
        );
        yield* wait([a, b]);
        const c = task(sleep(5));
        yield* wait([c], { timeout: 3 });
        c.cancel();
        yield* checker;
      }),
    );
  });
});
