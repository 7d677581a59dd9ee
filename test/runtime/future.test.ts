// Tests of runtime/future.ts: asyncio's Future rules. Done callbacks are never called
// synchronously but through the loop, in the order added; a future completes once;
// result()/exception() on a pending future throw InvalidStateError; cancel() semantics;
// removeDoneCallback; `yield* fut` evaluates to the result or throws the exception.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  Future,
  CancelledError,
  InvalidStateError,
  coroutine,
  isFuture,
  RuntimeError,
  type ExceptionContext,
  type Coroutine,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

describe('state', () => {
  test('a new future is pending: result() and exception() throw InvalidStateError', () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    assert.equal(fut.done(), false);
    assert.equal(fut.cancelled(), false);
    assert.equal(fut.stateName(), 'PENDING');
    assert.throws(() => fut.result(), InvalidStateError);
    assert.throws(() => fut.exception(), InvalidStateError);
    assert.equal(fut.getLoop(), loop);
    assert.equal(isFuture(fut), true);
    assert.equal(isFuture({}), false);
    loop.close();
  });

  test('setResult completes it once; a second completion throws InvalidStateError', () => {
    const loop = virtualLoop();
    const fut = new Future<string>(loop);
    fut.setResult('x');
    assert.equal(fut.done(), true);
    assert.equal(fut.result(), 'x');
    assert.equal(fut.exception(), undefined);
    assert.equal(fut.stateName(), 'FINISHED');
    assert.throws(() => fut.setResult('y'), InvalidStateError);
    assert.throws(() => fut.setException(new Error('e')), InvalidStateError);
    assert.equal(fut.cancel(), false, 'cancel() of a done future returns false');
    assert.equal(fut.result(), 'x');
    loop.close();
  });

  test('setException: result() throws that very exception, exception() returns it', () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const err = new RangeError('bad');
    fut.setException(err);
    assert.equal(fut.done(), true);
    assert.equal(fut.cancelled(), false);
    assert.equal(fut.exception(), err);
    assert.throws(
      () => fut.result(),
      (e) => e === err,
    );
    assert.throws(() => fut.setResult(1), InvalidStateError);
    loop.close();
  });

  test('setException(undefined) is refused with TypeError', () => {
    const loop = virtualLoop();
    const fut = loop.createFuture();
    assert.throws(() => fut.setException(undefined), TypeError);
    assert.equal(fut.done(), false);
    loop.close();
  });

  test('cancel(): done and cancelled; result() and exception() throw CancelledError with the message', () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    assert.equal(fut.cancel('stop it'), true);
    assert.equal(fut.done(), true);
    assert.equal(fut.cancelled(), true);
    assert.equal(fut.stateName(), 'CANCELLED');
    assert.throws(
      () => fut.result(),
      (e) => e instanceof CancelledError && e.message === 'stop it',
    );
    assert.throws(() => fut.exception(), CancelledError);
    assert.equal(fut.cancel(), false, 'cancelling twice returns false');
    assert.throws(() => fut.setResult(1), InvalidStateError);
    loop.close();
  });

  test('toString shows the state and the outcome', () => {
    const loop = virtualLoop();
    const a = loop.createFuture<number>();
    assert.equal(a.toString(), '<Future pending>');
    a.setResult(3);
    assert.equal(a.toString(), '<Future finished result=3>');
    const b = loop.createFuture<number>();
    b.setException(new Error('no'));
    assert.equal(b.toString(), '<Future finished exception=Error("no")>');
    b.exception();
    const c = loop.createFuture<number>();
    c.cancel();
    assert.equal(c.toString(), '<Future cancelled>');
    loop.close();
  });
});

describe('done callbacks', () => {
  test('are never called synchronously: they run through the loop, in the order added, with the future', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const log: string[] = [];
    fut.addDoneCallback((f) => log.push(`first ${f.result()}`));
    fut.addDoneCallback((f) => log.push(`second ${f === fut}`));
    fut.addDoneCallback(() => log.push('third'));
    fut.setResult(7);
    assert.deepEqual(log, []);
    await loop.runOnce();
    assert.deepEqual(log, ['first 7', 'second true', 'third']);
    loop.close();
  });

  test('added to a done future, they are still scheduled, not called at once', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    fut.setResult(1);
    const log: string[] = [];
    fut.addDoneCallback(() => log.push('late'));
    assert.deepEqual(log, []);
    await loop.runOnce();
    assert.deepEqual(log, ['late']);
    loop.close();
  });

  test('run after callbacks that were already scheduled (FIFO through the ready queue)', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const log: string[] = [];
    fut.addDoneCallback(() => log.push('done callback'));
    loop.callSoon(() => log.push('earlier callSoon'));
    fut.setResult(1);
    loop.callSoon(() => log.push('later callSoon'));
    await loop.runOnce();
    assert.deepEqual(log, ['earlier callSoon', 'done callback', 'later callSoon']);
    loop.close();
  });

  test('run on cancellation and on exception too', async () => {
    const loop = virtualLoop();
    const a = loop.createFuture();
    const b = loop.createFuture();
    const log: string[] = [];
    a.addDoneCallback((f) => log.push(`a cancelled=${f.cancelled()}`));
    b.addDoneCallback((f) => log.push(`b exception=${(f.exception() as Error).message}`));
    a.cancel();
    b.setException(new Error('e'));
    await loop.runOnce();
    assert.deepEqual(log, ['a cancelled=true', 'b exception=e']);
    loop.close();
  });

  test('removeDoneCallback removes every registration of the function and returns the count', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const log: string[] = [];
    const cb = (): void => {
      log.push('removed one');
    };
    const other = (): void => {
      log.push('other');
    };
    fut.addDoneCallback(cb);
    fut.addDoneCallback(other);
    fut.addDoneCallback(cb);
    assert.equal(fut.removeDoneCallback(cb), 2);
    assert.equal(fut.removeDoneCallback(cb), 0);
    fut.setResult(1);
    await loop.runOnce();
    assert.deepEqual(log, ['other']);
    loop.close();
  });

  test('a callback that throws goes to the exception handler; the others still run', async () => {
    const loop = virtualLoop();
    const errors: unknown[] = [];
    loop.setExceptionHandler((_l, c) => errors.push(c.exception));
    const fut = loop.createFuture<number>();
    const log: string[] = [];
    const boom = new Error('cb failed');
    fut.addDoneCallback(() => {
      throw boom;
    });
    fut.addDoneCallback(() => log.push('second'));
    fut.setResult(1);
    await loop.runOnce();
    assert.deepEqual(log, ['second']);
    assert.deepEqual(errors, [boom]);
    loop.close();
  });
});

describe('yield* fut', () => {
  test('suspends until the future is done and evaluates to its result', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<string>();
    const log: string[] = [];
    const waiter = coroutine(function* waiter(): Coroutine<string> {
      log.push('waiting');
      const v = yield* fut;
      log.push(`got ${v}`);
      return v;
    });
    loop.callLater(2, () => {
      log.push('set');
      fut.setResult('value');
    });
    assert.equal(await loop.runUntilComplete(waiter()), 'value');
    assert.deepEqual(log, ['waiting', 'set', 'got value']);
    assert.equal(loop.time(), 2);
    loop.close();
  });

  test('throws the exception at the suspension point, where try/catch sees it', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<string>();
    const err = new Error('failed');
    const waiter = coroutine(function* waiter(): Coroutine<string> {
      try {
        yield* fut;
        return 'no';
      } catch (e) {
        return e === err ? 'caught the same error' : 'other';
      }
    });
    loop.callLater(1, () => fut.setException(err));
    assert.equal(await loop.runUntilComplete(waiter()), 'caught the same error');
    loop.close();
  });

  test('throws CancelledError when the future is cancelled', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<string>();
    const waiter = coroutine(function* waiter(): Coroutine<string> {
      try {
        return yield* fut;
      } catch (e) {
        return e instanceof CancelledError ? `cancelled: ${e.message}` : 'other';
      }
    });
    loop.callLater(1, () => fut.cancel('why'));
    assert.equal(await loop.runUntilComplete(waiter()), 'cancelled: why');
    loop.close();
  });

  test('on a future already done it does not suspend at all', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    fut.setResult(5);
    const log: string[] = [];
    const a = coroutine(function* a(): Coroutine<void> {
      log.push('a start');
      log.push(`a got ${yield* fut}`);
    });
    const b = coroutine(function* b(): Coroutine<void> {
      log.push('b start');
      yield;
    });
    loop.createTask(a());
    loop.createTask(b());
    await loop.runOnce();
    assert.deepEqual(log, ['a start', 'a got 5', 'b start']);
    loop.close();
  });

  test('next() answers with shared results: a suspension or a resume allocates none', () => {
    const loop = virtualLoop();
    const a = loop.createFuture<number>();
    const b = loop.createFuture<number>();
    const suspendA = a.next();
    const suspendB = b.next();
    assert.equal(suspendA, suspendB, 'one result object for every suspension');
    assert.deepEqual({ ...suspendB }, { value: b, done: false });
    a.setResult(1);
    b.setResult(2);
    const outcomeA = a.next();
    assert.deepEqual({ ...outcomeA }, { value: 1, done: true });
    assert.equal(b.next(), outcomeA, 'one result object for every outcome');
    assert.equal(outcomeA.value, 2);
    loop.close();
  });

  test('the shared results keep no future or result past the tick that read it', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<object>();
    const payload = { big: 'result' };
    fut.setResult(payload);
    const probe = loop.createFuture<number>();
    probe.setResult(0);
    const outcome = probe.next(); // the shared outcome result
    const seen: unknown[] = [];
    const reader = coroutine(function* reader(): Coroutine<object> {
      const got = yield* fut;
      seen.push(outcome.value);
      return got;
    });
    const task = loop.createTask(reader());
    await loop.runOnce();
    assert.equal(task.result(), payload);
    assert.deepEqual(seen, [payload], 'the `yield*` read the result through the shared object');
    assert.equal(outcome.value, undefined, 'emptied when the tick ended');
    loop.close();
  });

  test('many coroutines can wait on one future; they resume in the order they waited', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const log: string[] = [];
    const waiter = coroutine(function* waiter(name: string): Coroutine<void> {
      const v = yield* fut;
      log.push(`${name} ${v}`);
    });
    const tasks = ['w1', 'w2', 'w3'].map((n) => loop.createTask(waiter(n)));
    loop.callLater(1, () => fut.setResult(9));
    for (const t of tasks) await loop.runUntilComplete(t);
    assert.deepEqual(log, ['w1 9', 'w2 9', 'w3 9']);
    loop.close();
  });
});

// CPython 3.11, Lib/test/test_asyncio/test_futures.py (BaseFutureTests), rewritten for this runtime.
describe('CPython test_futures', () => {
  test('test_tb_logger_not_called_after_cancel: cancel() of a failed future counts as retrieving it', () => {
    const loop = virtualLoop();
    const contexts: ExceptionContext[] = [];
    loop.setExceptionHandler((_l, c) => contexts.push(c));
    const fut = loop.createFuture<number>();
    fut.setException(new Error('boom'));
    assert.equal(fut.cancel(), false);
    loop.close();
    assert.deepEqual(contexts, []);
  });

  test('test_tb_logger_exception_unretrieved: without the cancel() it is reported', () => {
    const loop = virtualLoop();
    const contexts: ExceptionContext[] = [];
    loop.setExceptionHandler((_l, c) => contexts.push(c));
    const fut = loop.createFuture<number>();
    fut.setException(new Error('boom'));
    loop.close();
    assert.equal(contexts.length, 1);
    assert.equal(contexts[0]!.message, 'Future exception was never retrieved');
  });

  test("test_iter: resuming a pending future's yield* a second time without a task is a RuntimeError", () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const coro = coroutine(function* coro(): Coroutine<void> {
      yield* fut;
    });
    // Destructuring steps the generator twice: the second step finds the future still pending.
    assert.throws(
      () => {
        const [first, second] = coro();
        return [first, second];
      },
      (e) => e instanceof RuntimeError && e.message === "await wasn't used with future",
    );
    fut.cancel();
    loop.close();
  });

  test('test_yield_from_twice: a second yield* of a done future does not yield it', () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const fixture = function* fixture(): Generator<unknown, void, unknown> {
      yield 'A';
      const x = yield* fut;
      yield ['B', x];
      const y = yield* fut;
      yield ['C', y];
    };
    const g = fixture();
    assert.equal(g.next().value, 'A');
    assert.equal(g.next().value, fut);
    fut.setResult(42);
    assert.deepEqual(g.next().value, ['B', 42]);
    assert.deepEqual(g.next().value, ['C', 42]);
    loop.close();
  });
});
