// withTimeout(): run a coroutine in the current task with a deadline, as Python 3.11's
// `async with asyncio.timeout(delay)`. When the deadline passes the task is cancelled at
// its suspension point; the CancelledError that comes out is turned into TimeoutError.
// Unlike waitFor it starts no new task, so the coroutine's frames stay in the caller's
// chain (what the inspector shows) and nothing runs behind the caller's back.

import { coroutine } from './coroutine';
import { CancelledError, RuntimeError, TimeoutError } from './errors';
import { getRunningLoop } from './running-loop';
import type { Coroutine } from './task';

/** Awaits `coro` in the current task; throws TimeoutError if it takes more than `delay` seconds (null: no limit). */
export const withTimeout = coroutine(function* withTimeout<T>(delay: number | null, coro: Coroutine<T>, message?: string): Coroutine<T> {
  if (delay === null || delay === Infinity) return yield* coro;
  const loop = getRunningLoop();
  const task = loop.currentTask();
  if (task === null) throw new RuntimeError('withTimeout() must be used inside a task');
  // Cancellations requested before: a CancelledError beyond ours belongs to them.
  const cancellingBefore = task.cancelling();
  let expired = false;
  const onTimeout = (): void => {
    expired = true;
    task.cancel();
  };
  // A deadline already passed cancels at the next tick (asyncio's call_soon), not a timer.
  const handle = delay <= 0 ? loop.callSoon(onTimeout) : loop.callLater(delay, onTimeout);
  try {
    const result = yield* coro;
    // The coroutine swallowed our cancellation: take the request back all the same.
    if (expired) task.uncancel();
    return result;
  } catch (e) {
    // Once expired, our request is always taken back; the error becomes TimeoutError only
    // if it is the CancelledError we caused and no other cancellation is pending.
    if (expired && task.uncancel() <= cancellingBefore && e instanceof CancelledError) {
      throw new TimeoutError(message ?? `timed out after ${delay}s`, { cause: e });
    }
    throw e;
  } finally {
    handle.cancel();
  }
});
