// run(): asyncio.run. A new loop runs the coroutine to completion; then every task still
// pending is cancelled and given the chance to finish its cleanup, and the loop is closed.

import { EventLoop, type EventLoopOptions } from './loop';
import { gather } from './gather';
import type { Coroutine } from './task';

export async function run<T>(coro: Coroutine<T>, options: EventLoopOptions = {}): Promise<T> {
  const loop = new EventLoop(options);
  try {
    return await loop.runUntilComplete(coro);
  } finally {
    try {
      await cancelAllTasks(loop);
    } finally {
      loop.close();
    }
  }
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
    if (exc !== undefined) loop.callExceptionHandler({ message: 'unhandled exception during run() shutdown', exception: exc, task: t });
  }
}
