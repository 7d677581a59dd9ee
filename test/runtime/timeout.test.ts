// Tests of runtime/timeout.ts (asyncio.timeout as withTimeout): the coroutine runs in the
// caller's own task; at the deadline the task is cancelled and the CancelledError becomes
// TimeoutError; once expired the cancel request is always taken back, so a timeout whose
// cancellation was swallowed leaves nothing behind; a deadline already passed cancels at
// the next tick; a cancellation from elsewhere stays a CancelledError.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop, VirtualClock, CancelledError, TimeoutError, coroutine, currentTask, sleep, withTimeout, type Coroutine } from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

const delayed = coroutine(function* delayed<T>(delay: number, value: T): Coroutine<T> {
  yield* sleep(delay);
  return value;
});

describe('withTimeout', () => {
  test('gives the result in time, in the caller\'s own task', async () => {
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
