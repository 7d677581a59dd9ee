// waitFor(): await something with a deadline, as asyncio.wait_for. On timeout the inner
// awaitable is cancelled and waitFor waits for it to finish cancelling before throwing
// TimeoutError, so nothing is left running behind the caller's back. If the caller is
// cancelled meanwhile, the inner awaitable is cancelled too.

import { coroutine } from './coroutine';
import { CancelledError, TimeoutError } from './errors';
import { Future } from './future';
import type { Awaitable } from './loop';
import { getRunningLoop } from './running-loop';
import { isCoroutine, type Coroutine } from './task';

function releaseWaiter(waiter: Future<void>): void {
  if (!waiter.done()) waiter.setResult(undefined);
}

/** Cancels `fut` and waits until it is done (whatever it ends with). */
const cancelAndWait = coroutine(function* cancelAndWait(fut: Future<unknown>): Coroutine<void> {
  const loop = fut.getLoop();
  const waiter = loop.createFuture<void>();
  waiter._origin = { kind: 'waitFor.cancel', target: fut };
  const cb = (): void => releaseWaiter(waiter);
  fut.addDoneCallback(cb);
  try {
    fut.cancel();
    yield* waiter;
  } finally {
    fut.removeDoneCallback(cb);
  }
});

/**
 * The outcome of `fut` after cancelAndWait: the inner may have finished (or failed) instead
 * of being cancelled; if it was cancelled, TimeoutError chained to its CancelledError
 * (asyncio's `raise TimeoutError() from exc`).
 */
function resultOrTimeout<T>(fut: Future<T>, timeout: number): T {
  try {
    return fut.result();
  } catch (e) {
    if (e instanceof CancelledError) throw new TimeoutError(`waitFor() timed out after ${timeout}s`, { cause: e });
    throw e;
  }
}

/**
 * Awaits `aw`, throwing TimeoutError (after cancelling it) if it takes longer than `timeout` seconds. null
 * waits forever.
 */
export const waitFor = coroutine(function* waitFor<T>(aw: Awaitable<T>, timeout: number | null): Coroutine<T> {
  const loop = getRunningLoop();
  // No deadline: await it right here, a coroutine in the caller's own task (asyncio's `return await fut`).
  if (timeout === null || timeout === undefined) return yield* isCoroutine(aw) ? aw : loop.ensureFuture(aw);
  const fut = loop.ensureFuture(aw);
  if (timeout <= 0) {
    if (fut.done()) return fut.result();
    yield* cancelAndWait(fut as Future<unknown>);
    return resultOrTimeout(fut, timeout);
  }
  const waiter = loop.createFuture<void>();
  waiter._origin = { kind: 'waitFor', target: fut, detail: `${timeout}s` };
  const handle = loop.callLater(timeout, releaseWaiter, waiter);
  const cb = (): void => releaseWaiter(waiter);
  fut.addDoneCallback(cb);
  try {
    try {
      yield* waiter;
    } catch (e) {
      if (e instanceof CancelledError) {
        if (fut.done()) return fut.result();
        fut.removeDoneCallback(cb);
        yield* cancelAndWait(fut as Future<unknown>);
      }
      throw e;
    }
    if (fut.done()) return fut.result();
    fut.removeDoneCallback(cb);
    yield* cancelAndWait(fut as Future<unknown>);
    return resultOrTimeout(fut, timeout);
  } finally {
    handle.cancel();
  }
});
