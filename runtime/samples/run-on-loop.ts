// Runs a sample's main coroutine on the inspector's loop when there is one, or on a loop of
// its own (asyncio.run) otherwise.
//
// With the inspector's loop: if that loop is not running yet (held paused for stepping),
// runUntilComplete drives it, and every step the inspector takes advances the sample; if it
// is already running, the coroutine becomes one more task on it. Either way the loop stays
// open: it belongs to the inspector, and the task carries `name`, the name the sample's text
// gives its coroutine (its function's name, as create_task(coro, name=...) gives one), so the
// panel and the Call Stack say "generatorTour", not "Task-1".

import type { EventLoop } from '../loop';
import { run } from '../run';
import type { Coroutine } from '../task';

export function runOnLoop<T>(loop: EventLoop | undefined, coro: Coroutine<T>, name: string): Promise<T> {
  if (loop === undefined) return run(coro);
  const task = loop.createTask(coro, { name });
  if (!loop.isRunning()) return loop.runUntilComplete(task);
  return new Promise<T>((resolve, reject) => {
    task.addDoneCallback(() => {
      try {
        resolve(task.result());
      } catch (error) {
        reject(error);
      }
    });
  });
}
