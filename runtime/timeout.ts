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
  let expired = false;
  const handle = loop.callLater(Math.max(0, delay), () => {
    expired = true;
    task.cancel();
  });
  try {
    return yield* coro;
  } catch (e) {
    if (expired && e instanceof CancelledError && task.uncancel() === 0) {
      throw new TimeoutError(message ?? `timed out after ${delay}s`, { cause: e });
    }
    throw e;
  } finally {
    handle.cancel();
  }
});
