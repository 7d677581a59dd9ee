// Tests of runtime/wait-for.ts (asyncio.wait_for, CPython 3.12 semantics): the result in
// time; on timeout the inner is cancelled and waited for before TimeoutError is thrown; an
// inner that ignores the cancellation and returns gives its result; cancelling the caller
// cancels the inner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  TimeoutError,
  CancelledError,
  coroutine,
  sleep,
  waitFor,
  currentTask,
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

test('gives the result when the awaitable finishes in time, and leaves no timer behind', async () => {
  const loop = virtualLoop();
  const main = coroutine(function* main(): Coroutine<string> {
    const v = yield* waitFor(delayed(1, 'quick'), 5);
    return `${v}@${loop.time()}`;
  });
  assert.equal(await loop.runUntilComplete(main()), 'quick@1');
  await loop.runOnce();
  assert.equal(loop.time(), 1, 'the timeout timer was cancelled');
  loop.close();
});

test('throws the exception of the awaitable', async () => {
  const loop = virtualLoop();
  const err = new Error('inner failed');
  const failing = coroutine(function* failing(): Coroutine<void> {
    yield* sleep(1);
    throw err;
  });
  const main = coroutine(function* main(): Coroutine<void> {
    yield* waitFor(failing(), 5);
  });
  await assert.rejects(loop.runUntilComplete(main()), (e) => e === err);
  loop.close();
});

test('on timeout cancels the inner, waits for its cleanup, then throws TimeoutError', async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  const slow = coroutine(function* slow(): Coroutine<string> {
    try {
      yield* sleep(10);
      return 'late';
    } catch (e) {
      log.push(`inner got ${(e as Error).name}@${loop.time()}`);
      throw e;
    } finally {
      yield* sleep(1); // slow cleanup
      log.push(`inner cleaned up@${loop.time()}`);
    }
  });
  const main = coroutine(function* main(): Coroutine<void> {
    try {
      yield* waitFor(slow(), 2);
    } catch (e) {
      log.push(`caller got ${e instanceof TimeoutError ? 'TimeoutError' : String(e)}@${loop.time()}`);
    }
  });
  await loop.runUntilComplete(main());
  assert.deepEqual(log, ['inner got CancelledError@2', 'inner cleaned up@3', 'caller got TimeoutError@3']);
  loop.close();
});

test('on timeout a Future is cancelled', async () => {
  const loop = virtualLoop();
  const fut = loop.createFuture<number>();
  const main = coroutine(function* main(): Coroutine<void> {
    yield* waitFor(fut, 1);
  });
  await assert.rejects(loop.runUntilComplete(main()), TimeoutError);
  assert.equal(fut.cancelled(), true);
  loop.close();
});

test('an inner that ignores the cancellation and returns gives its result (3.12)', async () => {
  const loop = virtualLoop();
  const stubborn = coroutine(function* stubborn(): Coroutine<string> {
    try {
      yield* sleep(10);
    } catch {
      // ignored
    }
    yield* sleep(1);
    return 'finished anyway';
  });
  const main = coroutine(function* main(): Coroutine<string> {
    const v = yield* waitFor(stubborn(), 2);
    return `${v}@${loop.time()}`;
  });
  assert.equal(await loop.runUntilComplete(main()), 'finished anyway@3');
  loop.close();
});

test('an inner that fails while being cancelled gives that failure', async () => {
  const loop = virtualLoop();
  const err = new Error('cleanup failed');
  const broken = coroutine(function* broken(): Coroutine<string> {
    try {
      yield* sleep(10);
    } catch {
      throw err;
    }
    return 'no';
  });
  const main = coroutine(function* main(): Coroutine<void> {
    yield* waitFor(broken(), 1);
  });
  await assert.rejects(loop.runUntilComplete(main()), (e) => e === err);
  loop.close();
});

test('a null timeout waits as long as it takes', async () => {
  const loop = virtualLoop();
  const main = coroutine(function* main(): Coroutine<string> {
    return yield* waitFor(delayed(1000, 'eventually'), null);
  });
  assert.equal(await loop.runUntilComplete(main()), 'eventually');
  assert.equal(loop.time(), 1000);
  loop.close();
});

test('a timeout of 0: a done future gives its result, a pending one times out at once', async () => {
  const loop = virtualLoop();
  const done = loop.createFuture<number>();
  done.setResult(4);
  const pending = loop.createFuture<number>();
  const main = coroutine(function* main(): Coroutine<string> {
    const v = yield* waitFor(done, 0);
    try {
      yield* waitFor(pending, 0);
      return 'no';
    } catch (e) {
      return `${v} ${e instanceof TimeoutError ? 'TimeoutError' : String(e)}@${loop.time()}`;
    }
  });
  assert.equal(await loop.runUntilComplete(main()), '4 TimeoutError@0');
  assert.equal(pending.cancelled(), true);
  loop.close();
});

test('cancelling the caller cancels the inner and waits for it', async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  let inner: Task<string> | null = null;
  const slow = coroutine(function* slow(): Coroutine<string> {
    try {
      yield* sleep(10);
      return 'late';
    } finally {
      log.push(`inner finally@${loop.time()}`);
    }
  });
  const main = coroutine(function* main(): Coroutine<void> {
    inner = loop.createTask(slow());
    try {
      yield* waitFor(inner, 5);
    } catch (e) {
      log.push(`caller got ${(e as Error).name}@${loop.time()}`);
      throw e;
    }
  });
  const task = loop.createTask(main());
  loop.callLater(1, () => task.cancel());
  await assert.rejects(loop.runUntilComplete(task), CancelledError);
  assert.deepEqual(log, ['inner finally@1', 'caller got CancelledError@1']);
  assert.equal(inner!.cancelled(), true);
  loop.close();
});

test("without a deadline a coroutine is awaited in the caller's own task, with no extra ticks", async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  const tick = (i: number): void => {
    log.push(`tick ${i}`);
    if (i < 3) loop.callSoon(tick, i + 1);
  };
  const main = coroutine(function* main(): Coroutine<void> {
    const me = currentTask();
    const inner = coroutine(function* inner(): Coroutine<boolean> {
      yield* sleep(0);
      log.push('inner done');
      return currentTask() === me;
    });
    loop.callSoon(tick, 0);
    const sameTask = yield* waitFor(inner(), null);
    log.push(`result ${String(sameTask)}`);
  });
  await loop.runUntilComplete(main());
  // As asyncio's `return await fut`: the same order as awaiting inner() directly.
  assert.deepEqual(log.slice(0, 3), ['tick 0', 'inner done', 'result true']);
  loop.close();
});

// CPython 3.11, Lib/test/test_asyncio/test_waitfor.py, rewritten for this runtime.
const slowToCancel = coroutine(function* inner(state: { done: boolean }): Coroutine<void> {
  try {
    yield* sleep(10);
  } catch (e) {
    yield* sleep(0.0001);
    throw e;
  } finally {
    state.done = true;
  }
});

test('test_wait_for_waits_for_task_cancellation: the TimeoutError chains the inner CancelledError', async () => {
  const loop = virtualLoop();
  const state = { done: false };
  const main = coroutine(function* main(): Coroutine<unknown> {
    const inner = loop.createTask(slowToCancel(state));
    try {
      yield* waitFor(inner, 0.0001);
    } catch (e) {
      return e;
    }
    return null;
  });
  const err = await loop.runUntilComplete(main());
  assert.ok(err instanceof TimeoutError);
  assert.equal(state.done, true);
  assert.ok((err as TimeoutError).cause instanceof CancelledError);
  loop.close();
});

test('test_wait_for_waits_for_task_cancellation_w_timeout_0: the same with a timeout of 0', async () => {
  const loop = virtualLoop();
  const state = { done: false };
  const main = coroutine(function* main(): Coroutine<unknown> {
    const inner = loop.createTask(slowToCancel(state));
    yield* sleep(0.0001);
    try {
      yield* waitFor(inner, 0);
    } catch (e) {
      return e;
    }
    return null;
  });
  const err = await loop.runUntilComplete(main());
  assert.ok(err instanceof TimeoutError);
  assert.equal(state.done, true);
  assert.ok((err as TimeoutError).cause instanceof CancelledError);
  loop.close();
});
