// Tests of runtime/task.ts: asyncio's Task step/wakeup rules. The first step is scheduled,
// not run in the constructor; cancel() throws CancelledError in at the suspension point so
// try/finally runs; a coroutine that swallows it keeps its task alive; cancelling() and
// uncancel(); misuse (yield without *, a plain value, awaiting itself, a non-generator) is
// reported clearly; a bare `yield` gives up the loop for exactly one tick.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  Task,
  CancelledError,
  RuntimeError,
  coroutine,
  sleep,
  currentTask,
  Future,
  type Coroutine,
  type ExceptionContext,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

describe('stepping', () => {
  test('the first step is scheduled with the loop, never run by createTask', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const work = coroutine(function* work(): Coroutine<number> {
      log.push('step 1');
      yield;
      log.push('step 2');
      return 3;
    });
    const task = loop.createTask(work());
    log.push('created');
    assert.equal(task.done(), false);
    await loop.runOnce();
    assert.deepEqual(log, ['created', 'step 1']);
    await loop.runOnce();
    assert.deepEqual(log, ['created', 'step 1', 'step 2']);
    assert.equal(task.done(), true);
    assert.equal(task.result(), 3);
    assert.equal(task.steps(), 2);
    loop.close();
  });

  test('a bare yield gives up the loop for exactly one tick: two tasks interleave', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const worker = coroutine(function* worker(name: string): Coroutine<void> {
      for (let i = 0; i < 3; i++) {
        log.push(`${name}${i}`);
        yield;
      }
    });
    loop.createTask(worker('a'));
    loop.createTask(worker('b'));
    const ticks: number[] = [];
    for (let i = 0; i < 3; i++) {
      await loop.runOnce();
      ticks.push(log.length);
    }
    assert.deepEqual(log, ['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
    assert.deepEqual(ticks, [2, 4, 6]);
    loop.close();
  });

  test('a task wakes one tick after the future it awaits is done (the done callback schedules the step)', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const log: string[] = [];
    const waiter = coroutine(function* waiter(): Coroutine<void> {
      log.push(`got ${yield* fut}`);
    });
    const task = loop.createTask(waiter());
    await loop.runOnce();
    assert.equal(task.awaiting(), fut);
    fut.setResult(1);
    assert.deepEqual(log, []);
    await loop.runOnce();
    assert.deepEqual(log, ['got 1']);
    assert.equal(task.awaiting(), null);
    loop.close();
  });

  test('a task failing with an exception stores it; result() throws it', async () => {
    const loop = virtualLoop();
    const err = new Error('task failed');
    const failing = coroutine(function* failing(): Coroutine<void> {
      yield;
      throw err;
    });
    const task = loop.createTask(failing());
    await assert.rejects(loop.runUntilComplete(task), (e) => e === err);
    assert.equal(task.exception(), err);
    assert.equal(task.cancelled(), false);
    loop.close();
  });

  test('names, ids, getCoro, toString', () => {
    const loop = virtualLoop();
    const gen = sleep(1);
    const a = loop.createTask(gen, { name: 'alpha' });
    const b = loop.createTask(sleep(1));
    assert.equal(a.name, 'alpha');
    assert.equal(a.getName(), 'alpha');
    assert.match(b.name, /^Task-\d+$/);
    // As asyncio's, the default name counts only the tasks created without a name.
    const c = loop.createTask(sleep(1));
    assert.equal(Number(c.name.slice(5)), Number(b.name.slice(5)) + 1);
    assert.ok(b.id > a.id);
    assert.equal(a.getCoro(), gen);
    a.setName('beta');
    assert.match(a.toString(), /^<Task pending name="beta">$/);
    b.name = 'gamma';
    assert.equal(b.getName(), 'gamma');
    assert.match(b.toString(), /name="gamma"/);
    a.cancel();
    b.cancel();
    c.cancel();
    loop.setExceptionHandler(() => undefined);
    loop.close();
  });

  test('setResult/setException on a Task are refused with RuntimeError', () => {
    const loop = virtualLoop();
    const task = loop.createTask(sleep(1));
    assert.throws(() => task.setResult(undefined), RuntimeError);
    assert.throws(() => task.setException(new Error('x')), RuntimeError);
    task.cancel();
    loop.setExceptionHandler(() => undefined);
    loop.close();
  });

  test('a task awaits another task with yield* and gets its result', async () => {
    const loop = virtualLoop();
    const child = coroutine(function* child(): Coroutine<string> {
      yield* sleep(1);
      return 'child result';
    });
    const parent = coroutine(function* parent(): Coroutine<string> {
      const t = loop.createTask(child());
      return `parent got ${yield* t}`;
    });
    assert.equal(await loop.runUntilComplete(parent()), 'parent got child result');
    loop.close();
  });

  test('yield* of a plain coroutine runs it inline in the same task', async () => {
    const loop = virtualLoop();
    const names: Array<string | undefined> = [];
    const inner = coroutine(function* inner(): Coroutine<number> {
      names.push(currentTask()?.name);
      yield* sleep(1);
      return 2;
    });
    const outer = coroutine(function* outer(): Coroutine<number> {
      names.push(currentTask()?.name);
      return (yield* inner()) * 10;
    });
    assert.equal(await loop.runUntilComplete(loop.createTask(outer(), { name: 'T' })), 20);
    assert.deepEqual(names, ['T', 'T']);
    loop.close();
  });
});

describe('memory', () => {
  test('a task adds to its future only the fields every task uses', () => {
    // Each field is 8 bytes on every task (4 with pointer compression): what only some tasks
    // need (the frames of a tracked one, the state of a cancel in flight) is kept elsewhere.
    const loop = virtualLoop();
    const work = coroutine(function* work(): Coroutine<void> {});
    const task = loop.createTask(work());
    const futureFields = new Set(Object.keys(loop.createFuture()));
    const own = Object.keys(task).filter((k) => !futureFields.has(k));
    assert.deepEqual(own.sort(), [
      '_cancelRequests',
      '_coro',
      '_mustCancel',
      '_name',
      '_nextLive',
      '_prevLive',
      '_steps',
      '_waiter',
      'id',
    ]);
    task.cancel();
    loop.close();
  });

  test('a cancelled task keeps the CancelledError it let out as its exception, in no field of its own', async () => {
    const loop = virtualLoop();
    let raised: unknown = null;
    const work = coroutine(function* work(): Coroutine<void> {
      try {
        yield* sleep(10);
      } catch (e) {
        raised = e;
        throw e;
      }
    });
    const task = loop.createTask(work());
    await loop.runOnce();
    task.cancel('stop');
    await assert.rejects(loop.runUntilComplete(task), (e: unknown) => e === raised);
    assert.ok(raised instanceof CancelledError);
    assert.equal(task.cancelled(), true);
    assert.ok(
      !Object.keys(task).includes('_cancelledExc'),
      'no field on every future for what only cancelled ones hold',
    );
    loop.close();
  });

  test('cancelling() counts the pending requests without a counter of its own', async () => {
    const loop = virtualLoop();
    const work = coroutine(function* work(): Coroutine<string> {
      try {
        yield* sleep(10);
      } catch {
        // swallowed, twice cancelled
      }
      const me = currentTask()!;
      const counts = [me.cancelling()];
      counts.push(me.uncancel(), me.uncancel(), me.uncancel());
      return counts.join(',');
    });
    const task = loop.createTask(work());
    await loop.runOnce();
    task.cancel('one');
    task.cancel('two');
    assert.equal(task.cancelling(), 2);
    assert.equal(task.cancelRequests().length, 2);
    assert.equal(await loop.runUntilComplete(task), '2,1,0,0');
    assert.equal(task.cancelling(), 0);
    loop.close();
  });
});

describe('cancellation', () => {
  test('cancel() throws CancelledError at the suspension point; finally runs; the task ends cancelled', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const worker = coroutine(function* worker(): Coroutine<void> {
      try {
        log.push('sleeping');
        yield* sleep(10);
        log.push('not reached');
      } catch (e) {
        log.push(`caught ${(e as Error).name} "${(e as Error).message}" at ${loop.time()}`);
        throw e;
      } finally {
        log.push('finally');
      }
    });
    const task = loop.createTask(worker());
    loop.callLater(1, () => log.push(`cancel() -> ${task.cancel('enough')}`));
    await assert.rejects(loop.runUntilComplete(task), (e) => e instanceof CancelledError && e.message === 'enough');
    assert.deepEqual(log, ['sleeping', 'cancel() -> true', 'caught CancelledError "enough" at 1', 'finally']);
    assert.equal(task.cancelled(), true);
    assert.equal(task.done(), true);
    assert.equal(task.cancel(), false, 'cancel() of a done task returns false');
    assert.throws(() => task.result(), CancelledError);
    loop.close();
  });

  test('a coroutine that catches CancelledError and returns keeps its task not cancelled', async () => {
    const loop = virtualLoop();
    const stubborn = coroutine(function* stubborn(): Coroutine<string> {
      try {
        yield* sleep(10);
        return 'slept';
      } catch (e) {
        if (!(e instanceof CancelledError)) throw e;
        return 'cancellation swallowed';
      }
    });
    const task = loop.createTask(stubborn());
    loop.callLater(1, () => task.cancel());
    assert.equal(await loop.runUntilComplete(task), 'cancellation swallowed');
    assert.equal(task.cancelled(), false);
    assert.equal(task.cancelling(), 1, 'the request count stays until uncancel()');
    loop.close();
  });

  test('a coroutine that swallows CancelledError can go on awaiting', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const stubborn = coroutine(function* stubborn(): Coroutine<void> {
      try {
        yield* sleep(10);
      } catch {
        log.push(`swallowed at ${loop.time()}`);
      }
      yield* sleep(1);
      log.push(`done at ${loop.time()}`);
    });
    const task = loop.createTask(stubborn());
    loop.callLater(2, () => task.cancel());
    await loop.runUntilComplete(task);
    assert.deepEqual(log, ['swallowed at 2', 'done at 3']);
    loop.close();
  });

  test('cancel before the first step: the coroutine body never runs', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const never = coroutine(function* never(): Coroutine<void> {
      try {
        log.push('body');
        yield;
      } finally {
        log.push('finally');
      }
    });
    const task = loop.createTask(never());
    assert.equal(task.cancel('early'), true);
    await assert.rejects(loop.runUntilComplete(task), (e) => e instanceof CancelledError && e.message === 'early');
    assert.deepEqual(log, []);
    assert.equal(task.cancelled(), true);
    loop.close();
  });

  test('cancel while the task is scheduled (after a bare yield) is delivered at its next step', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const yielder = coroutine(function* yielder(): Coroutine<void> {
      try {
        yield;
        log.push('not reached');
      } catch (e) {
        log.push(`caught ${(e as Error).name}`);
        throw e;
      }
    });
    const task = loop.createTask(yielder());
    await loop.runOnce();
    assert.equal(task.awaiting(), null);
    task.cancel();
    await assert.rejects(loop.runUntilComplete(task), CancelledError);
    assert.deepEqual(log, ['caught CancelledError']);
    loop.close();
  });

  test('cancel after the awaited future completed but before the task woke still cancels it', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const log: string[] = [];
    const waiter = coroutine(function* waiter(): Coroutine<void> {
      try {
        log.push(`got ${yield* fut}`);
      } catch (e) {
        log.push(`caught ${(e as Error).name}`);
        throw e;
      }
    });
    const task = loop.createTask(waiter());
    await loop.runOnce();
    fut.setResult(1);
    assert.equal(task.cancel(), true);
    await assert.rejects(loop.runUntilComplete(task), CancelledError);
    assert.deepEqual(log, ['caught CancelledError']);
    loop.close();
  });

  test('a task that cancels itself and returns ends cancelled (asyncio: must_cancel)', async () => {
    const loop = virtualLoop();
    const selfCancel = coroutine(function* selfCancel(): Coroutine<number> {
      yield;
      currentTask()!.cancel();
      return 5;
    });
    const task = loop.createTask(selfCancel());
    await assert.rejects(loop.runUntilComplete(task), CancelledError);
    assert.equal(task.cancelled(), true);
    loop.close();
  });

  test('a task that cancels itself then awaits gets CancelledError at that await', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const selfCancel = coroutine(function* selfCancel(): Coroutine<void> {
      currentTask()!.cancel('self');
      try {
        yield* sleep(5);
      } catch (e) {
        log.push(`caught ${(e as Error).message} at ${loop.time()}`);
      }
    });
    await loop.runUntilComplete(selfCancel());
    assert.deepEqual(log, ['caught self at 0']);
    loop.close();
  });

  test('cancelling() counts requests and uncancel() takes them back', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const worker = coroutine(function* worker(): Coroutine<string> {
      try {
        yield* sleep(10);
      } catch (e) {
        const me = currentTask()!;
        log.push(`cancelling=${me.cancelling()}`);
        log.push(`uncancel->${me.uncancel()}`);
        log.push(`uncancel->${me.uncancel()}`);
        log.push(`uncancel->${me.uncancel()}`);
      }
      return 'recovered';
    });
    const task = loop.createTask(worker());
    assert.equal(task.cancelling(), 0);
    loop.callLater(1, () => {
      task.cancel();
      task.cancel();
    });
    assert.equal(await loop.runUntilComplete(task), 'recovered');
    assert.deepEqual(log, ['cancelling=2', 'uncancel->1', 'uncancel->0', 'uncancel->0']);
    loop.close();
  });

  test('uncancel() before the delivery withdraws a pending cancellation of a scheduled task', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const yielder = coroutine(function* yielder(): Coroutine<string> {
      yield;
      log.push('resumed normally');
      return 'ok';
    });
    const task = loop.createTask(yielder());
    await loop.runOnce();
    task.cancel();
    task.uncancel();
    assert.equal(await loop.runUntilComplete(task), 'ok');
    assert.deepEqual(log, ['resumed normally']);
    loop.close();
  });

  test('cancelling a task awaiting a task cancels the inner one too', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const inner = coroutine(function* inner(): Coroutine<void> {
      try {
        yield* sleep(10);
      } finally {
        log.push('inner finally');
      }
    });
    let innerTask: Task<void> | null = null;
    const outer = coroutine(function* outer(): Coroutine<void> {
      innerTask = loop.createTask(inner());
      try {
        yield* innerTask;
      } finally {
        log.push('outer finally');
      }
    });
    const task = loop.createTask(outer());
    loop.callLater(1, () => task.cancel());
    await assert.rejects(loop.runUntilComplete(task), CancelledError);
    assert.deepEqual(log, ['inner finally', 'outer finally']);
    assert.equal(innerTask!.cancelled(), true);
    assert.equal(task.cancelled(), true);
    loop.close();
  });

  test('a task awaiting a task that gets cancelled receives CancelledError', async () => {
    const loop = virtualLoop();
    const inner = loop.createTask(sleep(10), { name: 'inner' });
    const outer = coroutine(function* outer(): Coroutine<string> {
      try {
        yield* inner;
        return 'no';
      } catch (e) {
        return e instanceof CancelledError ? `inner cancelled: ${e.message}` : 'other';
      }
    });
    const task = loop.createTask(outer());
    loop.callLater(1, () => inner.cancel('bye'));
    assert.equal(await loop.runUntilComplete(task), 'inner cancelled: bye');
    assert.equal(task.cancelled(), false);
    loop.close();
  });

  test('cancelling the outer task while the inner swallows the cancellation: the outer goes on with the result', async () => {
    const loop = virtualLoop();
    const inner = coroutine(function* inner(): Coroutine<string> {
      try {
        yield* sleep(10);
      } catch {
        // swallowed
      }
      return 'inner value';
    });
    const outer = coroutine(function* outer(): Coroutine<string> {
      return yield* loop.createTask(inner());
    });
    const task = loop.createTask(outer());
    loop.callLater(1, () => task.cancel());
    assert.equal(await loop.runUntilComplete(task), 'inner value');
    assert.equal(task.cancelled(), false);
    loop.close();
  });

  test('cancel() of a task awaiting a plain future cancels that future', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const waiter = coroutine(function* waiter(): Coroutine<number> {
      return yield* fut;
    });
    const task = loop.createTask(waiter());
    await loop.runOnce();
    task.cancel('m');
    assert.equal(fut.cancelled(), true);
    await assert.rejects(loop.runUntilComplete(task), CancelledError);
    loop.close();
  });
});

describe('misuse is reported clearly', () => {
  test('`yield fut` without * fails with a RuntimeError that says to write yield*', async () => {
    const loop = virtualLoop();
    const fut: Future<number> = loop.createFuture<number>();
    const wrong = coroutine(function* wrong(): Coroutine<unknown> {
      try {
        yield fut;
        return 'no error';
      } catch (e) {
        return e;
      }
    });
    const error = await loop.runUntilComplete(wrong());
    assert.ok(error instanceof RuntimeError, String(error));
    // The hint is the point of the error: await with `yield*`, not `yield`.
    assert.match(error.message, /yield\*/);
    loop.close();
  });

  test('the error is thrown into the coroutine: uncaught, it fails the task', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const wrong = coroutine(function* wrong(): Coroutine<void> {
      yield fut;
    });
    await assert.rejects(loop.runUntilComplete(wrong()), (e) => e instanceof RuntimeError && /yield\*/.test(e.message));
    loop.close();
  });

  test('yielding a coroutine without * fails with a RuntimeError that says to write yield*', async () => {
    const loop = virtualLoop();
    const wrong = coroutine(function* wrong(): Coroutine<void> {
      yield sleep(1);
    });
    await assert.rejects(
      loop.runUntilComplete(wrong()),
      (e) => e instanceof RuntimeError && /yield\* coro/.test(e.message),
    );
    loop.close();
  });

  test('yielding a plain value fails with "bad yield"', async () => {
    const loop = virtualLoop();
    const wrong = coroutine(function* wrong(): Coroutine<void> {
      yield 42;
    });
    await assert.rejects(
      loop.runUntilComplete(wrong()),
      (e) => e instanceof RuntimeError && /bad yield: 42/.test(e.message),
    );
    loop.close();
  });

  test('a task awaiting itself fails with RuntimeError', async () => {
    const loop = virtualLoop();
    const selfish = coroutine(function* selfish(): Coroutine<void> {
      yield* currentTask()!;
    });
    await assert.rejects(
      loop.runUntilComplete(selfish()),
      (e) => e instanceof RuntimeError && /cannot await on itself/.test(e.message),
    );
    loop.close();
  });

  test('a future of another loop is refused', async () => {
    const loop = virtualLoop();
    const other = virtualLoop();
    const foreign = other.createFuture<number>();
    const wrong = coroutine(function* wrong(): Coroutine<void> {
      yield* foreign;
    });
    await assert.rejects(
      loop.runUntilComplete(wrong()),
      (e) => e instanceof RuntimeError && /different loop/.test(e.message),
    );
    loop.close();
    other.close();
  });

  test('createTask of something that is not a generator throws TypeError', () => {
    const loop = virtualLoop();
    const fn = coroutine(function* fn(): Coroutine<void> {
      yield;
    });
    assert.throws(() => loop.createTask(42 as unknown as Coroutine<void>), TypeError);
    assert.throws(
      () => loop.createTask(fn as unknown as Coroutine<void>),
      (e) => e instanceof TypeError && /createTask\(work\(\)\)/.test(e.message),
    );
    assert.throws(() => loop.createTask(Promise.resolve() as unknown as Coroutine<void>), TypeError);
    assert.equal(loop.allTasks().length, 0);
    loop.close();
  });
});

test('cancelling one of two tasks that await each other ends instead of recursing forever', async () => {
  const { EventLoop, coroutine, CancelledError } = await import('../../runtime/index');
  const loop = new EventLoop();
  const tasks: Array<import('../../runtime/index').Task<unknown>> = [];
  const waitOn = coroutine(function* waitOn(i: number) {
    yield; // let both tasks exist
    return yield* tasks[1 - i]!;
  });
  tasks.push(loop.createTask(waitOn(0)), loop.createTask(waitOn(1)));
  await loop.runOnce();
  await loop.runOnce();
  assert.equal(tasks[0]!.cancel(), true);
  const outcome = await loop.runUntilComplete(gatherBoth(loop, tasks));
  assert.ok(outcome.every((r) => r instanceof CancelledError));
  loop.close();
});

function gatherBoth(
  loop: import('../../runtime/index').EventLoop,
  tasks: Array<import('../../runtime/index').Task<unknown>>,
) {
  return loop.createTask(
    (function* () {
      const out: unknown[] = [];
      for (const t of tasks) {
        try {
          out.push(yield* t);
        } catch (e) {
          out.push(e);
        }
      }
      return out;
    })(),
  );
}

describe('cancel() on a task whose awaited future is already done', () => {
  test('cancelled twice: the coroutine gets the first CancelledError, with its message', async () => {
    const loop = virtualLoop();
    const seen: string[] = [];
    const body = coroutine(function* body(): Coroutine<string> {
      try {
        yield* sleep(10);
      } catch (e) {
        seen.push((e as Error).message);
      }
      return 'end';
    });
    const task = loop.createTask(body());
    await loop.runOnce();
    task.cancel('m1');
    task.cancel('m2');
    assert.equal(await loop.runUntilComplete(task), 'end');
    assert.deepEqual(seen, ['m1']);
    loop.close();
  });

  test('the awaited future failed, then the task was cancelled: CancelledError, and the failure counts as read', async () => {
    const loop = virtualLoop();
    const reports: string[] = [];
    loop.setExceptionHandler((_l, c) => reports.push(c.message));
    const fut = loop.createFuture<number>();
    const body = coroutine(function* body(): Coroutine<number> {
      return yield* fut;
    });
    const task = loop.createTask(body());
    await loop.runOnce();
    loop.callSoon(() => {
      fut.setException(new Error('fe'));
      task.cancel('cm');
    });
    await assert.rejects(loop.runUntilComplete(task), (e) => e instanceof CancelledError && e.message === 'cm');
    assert.equal(task.cancelled(), true);
    loop.close();
    assert.deepEqual(reports, []);
  });
});

// CPython 3.11, Lib/test/test_asyncio/test_tasks.py (BaseTaskTests), rewritten for this runtime.
describe('CPython test_tasks: a Future subclass with its own addDoneCallback', () => {
  class RecordingFuture<T> extends Future<T> {
    callbacksAdded = 0;
    override addDoneCallback(fn: (fut: Future<T>) => void): void {
      this.callbacksAdded++;
      super.addDoneCallback(fn);
    }
  }

  test('test_step_result_future: the task registers through the overridden addDoneCallback', async () => {
    const loop = virtualLoop();
    const fut = new RecordingFuture<object>(loop);
    let result: object | undefined;
    const waitForFuture = coroutine(function* waitForFuture(): Coroutine<void> {
      result = yield* fut;
    });
    const t = loop.createTask(waitForFuture());
    await loop.runOnce();
    assert.equal(fut.callbacksAdded, 1);
    const res = {};
    fut.setResult(res);
    await loop.runOnce();
    assert.equal(result, res);
    assert.equal(t.done(), true);
    assert.equal(t.result(), undefined);
    loop.close();
  });

  test('test_step_result_future: cancelling the task while it waits there wakes it once, with CancelledError', async () => {
    const loop = virtualLoop();
    const fut = new RecordingFuture<number>(loop);
    let steps = 0;
    const waiter = coroutine(function* waiter(): Coroutine<string> {
      steps++;
      try {
        yield* fut;
      } catch (e) {
        steps++;
        assert.ok(e instanceof CancelledError);
        const again = new RecordingFuture<number>(loop);
        loop.callSoon(() => again.setResult(7));
        yield* again;
        steps++;
        return 'recovered';
      }
      return 'unreachable';
    });
    const t = loop.createTask(waiter());
    await loop.runOnce();
    t.cancel();
    assert.equal(await loop.runUntilComplete(t), 'recovered');
    assert.equal(steps, 3);
    loop.close();
  });
});

describe('CPython test_tasks: cancel() of a failed task', () => {
  test('test_tb_logger_not_called_after_cancel: cancel() of a failed task counts as retrieving its exception', async () => {
    const loop = virtualLoop();
    const contexts: ExceptionContext[] = [];
    loop.setExceptionHandler((_l, c) => contexts.push(c));
    const failing = coroutine(function* failing(): Coroutine<void> {
      throw new Error('boom');
    });
    const task = loop.createTask(failing());
    await loop.runUntilComplete(sleep(1));
    assert.equal(task.done(), true);
    assert.equal(task.cancel(), false);
    loop.close();
    assert.deepEqual(contexts, []);
  });
});
