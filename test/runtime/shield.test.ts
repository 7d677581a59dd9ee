// Tests of runtime/shield.ts: cancelling the task awaiting a shield cancels only the outer
// future; the inner awaitable runs on; the inner's outcome otherwise passes through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  CancelledError,
  coroutine,
  shield,
  sleep,
  type Coroutine,
  type ExceptionContext,
  type Task,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

test('passes the result through', async () => {
  const loop = virtualLoop();
  const work = coroutine(function* work(): Coroutine<number> {
    yield* sleep(1);
    return 11;
  });
  const main = coroutine(function* main(): Coroutine<number> {
    return yield* shield(work());
  });
  assert.equal(await loop.runUntilComplete(main()), 11);
  loop.close();
});

test('cancelling the awaiting task does not cancel the inner, which runs to completion', async () => {
  const loop = virtualLoop();
  const log: string[] = [];
  let inner: Task<string> | null = null;
  const work = coroutine(function* work(): Coroutine<string> {
    yield* sleep(5);
    log.push(`inner finished@${loop.time()}`);
    return 'precious';
  });
  const main = coroutine(function* main(): Coroutine<void> {
    inner = loop.createTask(work());
    try {
      yield* shield(inner);
    } catch (e) {
      log.push(`caller got ${(e as Error).name}@${loop.time()}`);
      throw e;
    }
  });
  const task = loop.createTask(main());
  loop.callLater(1, () => task.cancel());
  await assert.rejects(loop.runUntilComplete(task), CancelledError);
  assert.equal(inner!.done(), false);
  assert.equal(await loop.runUntilComplete(inner!), 'precious');
  assert.deepEqual(log, ['caller got CancelledError@1', 'inner finished@5']);
  loop.close();
});

test('an inner that fails after the outer was cancelled is reported at close, as asyncio logs it', async () => {
  const loop = virtualLoop();
  const reports: ExceptionContext[] = [];
  loop.setExceptionHandler((_l, c) => reports.push(c));
  const failing = coroutine(function* failing(): Coroutine<void> {
    yield* sleep(2);
    throw new Error('nobody listens');
  });
  const inner = loop.createTask(failing());
  const main = coroutine(function* main(): Coroutine<void> {
    yield* shield(inner);
  });
  const task = loop.createTask(main());
  loop.callLater(1, () => task.cancel());
  await assert.rejects(loop.runUntilComplete(task), CancelledError);
  await loop.runUntilComplete(sleep(5));
  assert.equal(inner.done(), true);
  loop.close();
  // Nobody can receive that failure any more: it is reported rather than lost silently.
  assert.equal(reports.length, 1);
  assert.equal(reports[0]!.message, 'Task exception was never retrieved');
  assert.equal(reports[0]!.future, inner);
});

test('an inner exception or cancellation reaches the outer', async () => {
  const loop = virtualLoop();
  const err = new Error('inner error');
  const a = loop.createFuture<number>();
  const b = loop.createFuture<number>();
  const main = coroutine(function* main(): Coroutine<string[]> {
    const out: string[] = [];
    const sa = shield(a);
    const sb = shield(b);
    loop.callLater(1, () => a.setException(err));
    loop.callLater(1, () => b.cancel());
    try {
      yield* sa;
    } catch (e) {
      out.push(e === err ? 'error' : 'other');
    }
    try {
      yield* sb;
    } catch (e) {
      out.push(e instanceof CancelledError ? 'cancelled' : 'other');
    }
    return out;
  });
  assert.deepEqual(await loop.runUntilComplete(main()), ['error', 'cancelled']);
  loop.close();
});

test('shield of a done future is that future', () => {
  const loop = virtualLoop();
  const fut = loop.createFuture<number>();
  fut.setResult(1);
  assert.equal(shield(fut), fut);
  loop.close();
});
