// Tests of runtime/gather.ts: results in argument order; returnExceptions puts failures in
// place; without it the first failure fails the gather at once while the other children
// run on; cancelling the gather cancels its children; an empty gather is done at once.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  CancelledError,
  GatheringFuture,
  coroutine,
  gather,
  sleep,
  ValueError,
  type Coroutine,
  type ExceptionContext,
  type Task,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

const delayed = coroutine(function* delayed<T>(delay: number, value: T, log?: string[]): Coroutine<T> {
  yield* sleep(delay);
  log?.push(`${String(value)}@${delay}`);
  return value;
});

const failAfter = coroutine(function* failAfter(delay: number, err: Error): Coroutine<never> {
  yield* sleep(delay);
  throw err;
});

describe('gather', () => {
  test('gives the results in argument order, whatever the completion order', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const main = coroutine(function* main(): Coroutine<[string, number, boolean]> {
      return yield* gather(delayed(3, 'slow', log), delayed(1, 2, log), delayed(2, true, log));
    });
    assert.deepEqual(await loop.runUntilComplete(main()), ['slow', 2, true]);
    assert.deepEqual(log, ['2@1', 'true@2', 'slow@3']);
    assert.equal(loop.time(), 3, 'the children ran concurrently');
    loop.close();
  });

  test('results stay in argument order when completions run partly in order, partly out of it', async () => {
    const loop = virtualLoop();
    const futures = Array.from({ length: 8 }, () => loop.createFuture<number>());
    // Positions 0-1 complete in order, then 5, 3, 2 (which lets 3 be taken with it), 4,
    // then 7 before 6: every path of the in-order recording and the final collection.
    const order = [0, 1, 5, 3, 2, 4, 7, 6];
    const main = coroutine(function* main(): Coroutine<number[]> {
      const g = gather(...futures, futures[2]!);
      for (const i of order) {
        futures[i]!.setResult(i * 10);
        yield* sleep(0);
      }
      return yield* g;
    });
    assert.deepEqual(await loop.runUntilComplete(main()), [0, 10, 20, 30, 40, 50, 60, 70, 20]);
    loop.close();
  });

  test('returnExceptions: a failure in the middle of in-order completions keeps its place', async () => {
    const loop = virtualLoop();
    const futures = Array.from({ length: 4 }, () => loop.createFuture<number>());
    const err = new Error('third');
    const g = gather(...futures, { returnExceptions: true });
    futures[0]!.setResult(0);
    futures[1]!.setResult(1);
    futures[2]!.setException(err);
    futures[3]!.setResult(3);
    assert.deepEqual(await loop.runUntilComplete(g), [0, 1, err, 3]);
    loop.close();
  });

  test('accepts coroutines, tasks and futures together', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<string>();
    loop.callLater(2, () => fut.setResult('future'));
    const main = coroutine(function* main(): Coroutine<unknown[]> {
      const task = loop.createTask(delayed(1, 'task'));
      return yield* gather(delayed(1, 'coro'), task, fut);
    });
    assert.deepEqual(await loop.runUntilComplete(main()), ['coro', 'task', 'future']);
    loop.close();
  });

  test('the same awaitable passed twice runs once and fills both places', async () => {
    const loop = virtualLoop();
    let runs = 0;
    const once = coroutine(function* once(): Coroutine<number> {
      runs++;
      yield* sleep(1);
      return runs;
    });
    const main = coroutine(function* main(): Coroutine<number[]> {
      const c = once();
      return yield* gather(c, c);
    });
    assert.deepEqual(await loop.runUntilComplete(main()), [1, 1]);
    assert.equal(runs, 1);
    loop.close();
  });

  test('a pending future or task passed twice is awaited once and fills both places', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<string>();
    const main = coroutine(function* main(): Coroutine<unknown[]> {
      const t = loop.createTask(delayed(2, 't'));
      const g = gather(fut, t, fut, t);
      loop.callLater(1, () => fut.setResult('f'));
      return yield* g;
    });
    assert.deepEqual(await loop.runUntilComplete(main()), ['f', 't', 'f', 't']);
    loop.close();
  });

  test('a done future passed twice counts once', async () => {
    const loop = virtualLoop();
    const done = loop.createFuture<number>();
    done.setResult(7);
    const later = loop.createFuture<number>();
    const g = gather(done, done, later);
    await loop.runOnce();
    assert.equal(g.done(), false, 'the gather waits for `later`, not for a second `done`');
    later.setResult(8);
    await loop.runOnce();
    await loop.runOnce();
    assert.deepEqual(g.result(), [7, 7, 8]);
    loop.close();
  });

  test('a bad argument throws TypeError; tasks the gather had started run on, their failures retrieved', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const reports: ExceptionContext[] = [];
    loop.setExceptionHandler((_l, c) => reports.push(c));
    const watch = coroutine(function* watch(): Coroutine<void> {
      yield* sleep(5);
      log.push('ran to the end');
    });
    const main = coroutine(function* main(): Coroutine<number> {
      const fut = loop.createFuture<number>();
      const before = new Set(loop.allTasks());
      assert.throws(() => gather(fut, watch(), failAfter(1, new Error('late')), 42 as never), TypeError);
      const started = loop.allTasks().filter((t) => !before.has(t));
      assert.equal(started.length, 2);
      yield* sleep(10);
      assert.equal(
        started[0]!.done() && !started[0]!.cancelled(),
        true,
        'as in asyncio, the started task ran to its end',
      );
      fut.setResult(1);
      yield* sleep(0);
      return fut.result();
    });
    assert.equal(await loop.runUntilComplete(main()), 1);
    assert.deepEqual(log, ['ran to the end']);
    loop.close();
    assert.deepEqual(reports, [], 'the failure of a child of the abandoned gather counts as retrieved');
  });

  test('an empty gather is done at once with []', async () => {
    const loop = virtualLoop();
    const main = coroutine(function* main(): Coroutine<unknown[]> {
      const g = gather();
      assert.equal(g.done(), true);
      return yield* g;
    });
    assert.deepEqual(await loop.runUntilComplete(main()), []);
    loop.close();
  });

  test('without returnExceptions the first failure fails the gather at once; the other children run on', async () => {
    const loop = virtualLoop();
    const err = new Error('first failure');
    const log: string[] = [];
    let slow: Task<string> | null = null;
    const main = coroutine(function* main(): Coroutine<string> {
      slow = loop.createTask(delayed(5, 'slow', log));
      try {
        yield* gather(failAfter(1, err), slow, failAfter(2, new Error('second')));
        return 'no';
      } catch (e) {
        assert.equal(e, err);
        return `caught at ${loop.time()}`;
      }
    });
    assert.equal(await loop.runUntilComplete(main()), 'caught at 1');
    assert.equal(slow!.done(), false, 'the other children are not cancelled');
    assert.equal(await loop.runUntilComplete(slow!), 'slow');
    assert.deepEqual(log, ['slow@5']);
    // The second child's failure was marked as retrieved by the gather: nothing is reported.
    const reports: ExceptionContext[] = [];
    loop.setExceptionHandler((_l, c) => reports.push(c));
    loop.close();
    assert.deepEqual(reports, []);
  });

  test('returnExceptions: failures and cancellations take their place in the results', async () => {
    const loop = virtualLoop();
    const err = new TypeError('bad');
    const main = coroutine(function* main(): Coroutine<unknown[]> {
      const victim = loop.createTask(delayed(10, 'never'));
      const fut = loop.createFuture<string>();
      loop.callLater(1, () => victim.cancel());
      loop.callLater(1, () => fut.cancel('cut'));
      return yield* gather(delayed(2, 'ok'), failAfter(1, err), victim, fut, { returnExceptions: true });
    });
    const results = await loop.runUntilComplete(main());
    assert.equal(results.length, 4);
    assert.equal(results[0], 'ok');
    assert.equal(results[1], err);
    assert.ok(results[2] instanceof CancelledError);
    assert.ok(results[3] instanceof CancelledError);
    // As in asyncio, a CancelledError is made for the place, with the future's cancel message.
    assert.equal((results[3] as CancelledError).message, 'cut');
    loop.close();
  });

  test('without returnExceptions a cancelled child fails the gather with CancelledError', async () => {
    const loop = virtualLoop();
    const main = coroutine(function* main(): Coroutine<string> {
      const victim = loop.createTask(delayed(10, 'never'));
      loop.callLater(1, () => victim.cancel());
      try {
        yield* gather(delayed(2, 'ok'), victim);
        return 'no';
      } catch (e) {
        return e instanceof CancelledError ? `CancelledError at ${loop.time()}` : String(e);
      }
    });
    assert.equal(await loop.runUntilComplete(main()), 'CancelledError at 1');
    loop.close();
  });

  test('cancelling the gather cancels every child not done; awaiting it throws CancelledError', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const child = coroutine(function* child(name: string, delay: number): Coroutine<string> {
      try {
        yield* sleep(delay);
        log.push(`${name} finished`);
        return name;
      } finally {
        log.push(`${name} finally`);
      }
    });
    let g: GatheringFuture<string[]> | null = null;
    const main = coroutine(function* main(): Coroutine<string> {
      g = gather(child('a', 1), child('b', 5), child('c', 6));
      loop.callLater(2, () => log.push(`cancel() -> ${g!.cancel('stop')}`));
      try {
        yield* g;
        return 'no';
      } catch (e) {
        return e instanceof CancelledError ? `cancelled at ${loop.time()}` : String(e);
      }
    });
    assert.equal(await loop.runUntilComplete(main()), 'cancelled at 2');
    assert.deepEqual(log, ['a finished', 'a finally', 'cancel() -> true', 'b finally', 'c finally']);
    assert.ok(g!.children().every((c) => c.done()));
    assert.equal(g!.children()[0]!.cancelled(), false);
    assert.equal(g!.children()[1]!.cancelled(), true);
    assert.equal(g!.cancel(), false, 'a done gather cannot be cancelled');
    loop.close();
  });

  test('cancelling the task that awaits a gather cancels the children', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const child = coroutine(function* child(name: string): Coroutine<void> {
      try {
        yield* sleep(10);
      } finally {
        log.push(`${name} finally`);
      }
    });
    const main = coroutine(function* main(): Coroutine<void> {
      yield* gather(child('x'), child('y'));
    });
    const task = loop.createTask(main());
    loop.callLater(1, () => task.cancel());
    await assert.rejects(loop.runUntilComplete(task), CancelledError);
    assert.deepEqual(log, ['x finally', 'y finally']);
    assert.equal(task.cancelled(), true);
    loop.close();
  });

  test('cancelling a gather whose children swallow the cancellation still ends it with CancelledError', async () => {
    const loop = virtualLoop();
    const stubborn = coroutine(function* stubborn(): Coroutine<string> {
      try {
        yield* sleep(10);
      } catch {
        // ignore
      }
      return 'kept going';
    });
    const main = coroutine(function* main(): Coroutine<string> {
      const g = gather(stubborn(), { returnExceptions: true });
      loop.callLater(1, () => g.cancel());
      try {
        yield* g;
        return 'no';
      } catch (e) {
        return e instanceof CancelledError ? 'CancelledError' : String(e);
      }
    });
    assert.equal(await loop.runUntilComplete(main()), 'CancelledError');
    loop.close();
  });

  test('a gather of futures already done is done one tick later', async () => {
    const loop = virtualLoop();
    const a = loop.createFuture<number>();
    const b = loop.createFuture<number>();
    a.setResult(1);
    b.setResult(2);
    const g = gather(a, b);
    assert.equal(g.done(), false);
    await loop.runOnce();
    assert.equal(g.done(), true);
    assert.deepEqual(g.result(), [1, 2]);
    loop.close();
  });
});

// CPython 3.11, Lib/test/test_asyncio/test_tasks.py (FutureGatherTests), rewritten for this runtime.
test('test_constructor_heterogenous_futures: gather of futures of two loops is a ValueError', () => {
  const oneLoop = virtualLoop();
  const otherLoop = virtualLoop();
  const fut1 = oneLoop.createFuture<number>();
  const fut2 = otherLoop.createFuture<number>();
  assert.throws(() => gather(fut1, fut2), ValueError);
  oneLoop.close();
  otherLoop.close();
});
