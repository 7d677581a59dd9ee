// run(): asyncio.run. A new loop runs the coroutine to completion; then every task still
// pending is cancelled and given the chance to finish its cleanup, the loop gets asyncio's
// shutdown ticks, and it is closed. Refused at the call inside a running loop, as asyncio.run is.
// A tool running the program (run-driver.ts: `coroscope run`) may build and watch the loop.

import { RuntimeError } from './errors';
import { EventLoop, type EventLoopOptions } from './loop';
import { gather } from './gather';
import { runningLoopOrNull } from './running-loop';
import { runDriver } from './run-driver';
import { isCoroutine, type Coroutine } from './task';

/** Runs `coro` on a new loop. Inside a running loop it throws RuntimeError at the call, as asyncio.run raises it. */
export function run<T>(coro: Coroutine<T>, options: EventLoopOptions = {}): Promise<T> {
  if (runningLoopOrNull() !== null) {
    if (isCoroutine(coro)) coro.return(undefined as T);
    throw new RuntimeError('run() cannot be called from a running event loop');
  }
  const driver = runDriver();
  if (driver === null) return runOnLoop(new EventLoop(options), coro);
  const loop = driver.newLoop(options);
  // The driver hears the outcome first; the program's promise settles as without a driver
  // (a rejection it leaves unhandled is still unhandled).
  return runOnLoop(loop, coro).then(
    (value) => {
      driver.ended?.(loop, { ok: true, value });
      return value;
    },
    (error: unknown) => {
      driver.ended?.(loop, { ok: false, error });
      throw error;
    },
  );
}

/**
 * @internal run()'s body on a loop made for it: runs `coro` to completion, cancels what is left, gives the
 * shutdown ticks, closes the loop.
 */
export async function runOnLoop<T>(loop: EventLoop, coro: Coroutine<T>): Promise<T> {
  try {
    return await loop.runUntilComplete(coro);
  } finally {
    try {
      await cancelAllTasks(loop);
      // asyncio.run then shuts down async generators and the default executor, each a
      // coroutine run to completion: callbacks still queued when main ended run in those ticks.
      await loop.runUntilComplete(shutdownStep());
      await loop.runUntilComplete(shutdownStep());
    } finally {
      loop.close();
    }
  }
}

function* shutdownStep(): Coroutine<void> {
  // Nothing to shut down here (no async generators, no executor): the ticks are the point.
}

/** Cancels every pending task of the loop and runs it until they have all finished. */
export async function cancelAllTasks(loop: EventLoop): Promise<void> {
  const pending = loop.allTasks();
  if (pending.length === 0) return;
  for (const t of pending) t.cancel();
  await loop.runUntilComplete(gather(...pending, { returnExceptions: true }));
  for (const t of pending) {
    if (t.cancelled()) continue;
    const exc = t.exception();
    if (exc !== undefined)
      loop.callExceptionHandler({ message: 'unhandled exception during run() shutdown', exception: exc, task: t });
  }
}
