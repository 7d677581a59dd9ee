// Which loop is running right now, as asyncio.get_running_loop() tells. Set by the loop
// around each batch of ticks; coroutines such as sleep() and Queue.get() use it to reach the
// loop without having it passed in.

import { RuntimeError } from './errors';
import type { EventLoop } from './loop';

let running: EventLoop | null = null;

/** The loop running the current callback or coroutine step; throws outside of one. */
export function getRunningLoop(): EventLoop {
  if (running === null) throw new RuntimeError('no running event loop');
  return running;
}

/** The running loop, or null outside of a loop's tick. */
export function runningLoopOrNull(): EventLoop | null {
  return running;
}

/** @internal Set by the loop when it enters and leaves a batch of ticks. */
export function setRunningLoop(loop: EventLoop | null): EventLoop | null {
  const previous = running;
  running = loop;
  return previous;
}
