// sleep(): suspend the calling coroutine for some seconds, as asyncio.sleep.
// sleep(0) (or less) is a bare yield: the task gives up the loop for exactly one tick,
// with no timer and no future, which is the cheapest possible task switch.

import { coroutine } from './coroutine';
import type { Future } from './future';
import { getRunningLoop } from './running-loop';

function wakeSleeper(fut: Future<unknown>, value: unknown): void {
  if (!fut.done()) fut.setResult(value);
}

/** Suspends for `delay` seconds, then evaluates to `value`. */
export const sleep = coroutine(function* sleep<T = undefined>(delay: number, value?: T) {
  if (typeof delay !== 'number' || Number.isNaN(delay))
    throw new TypeError(`sleep() needs a delay in seconds, got ${String(delay)}`);
  if (delay <= 0) {
    yield;
    return value as T;
  }
  const loop = getRunningLoop();
  const fut = loop.createFuture<T>();
  const handle = loop.callLater(delay, wakeSleeper, fut as Future<unknown>, value);
  fut._origin = { kind: 'sleep', target: handle, detail: `${delay}s` };
  try {
    return yield* fut;
  } finally {
    handle.cancel();
  }
});
