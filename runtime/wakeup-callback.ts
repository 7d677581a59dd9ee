// How a Task suspends on a Future whose class overrides addDoneCallback, as asyncio's Task
// does for every future (`fut.add_done_callback(self.__wakeup)`): the override must see
// the registration. Plain Futures and Tasks take the internal waiter path instead
// (Future._addWaiter: no closure per suspension), which is the runtime's hot path.
//
// Invariants: a task has at most one such registration at a time (it awaits one future);
// only the registration still current may wake it, so a callback left behind by a
// cancellation that unhooked it (an override of removeDoneCallback may not remove it)
// never steps the task twice. Each closure is known as its task's (wakeupClosureTasks), so
// the future's inspection lists the task among those waiting on it.

import { Future, wakeupClosureTasks, type DoneCallback } from './future';
import type { Task } from './task';

const futureAddDoneCallback = Future.prototype.addDoneCallback;
const currentWakeups = new WeakMap<Task<unknown>, DoneCallback<unknown>>();

/** True if `fut`'s class replaced Future's addDoneCallback. */
export function overridesAddDoneCallback(fut: Future<unknown>): boolean {
  return fut.addDoneCallback !== futureAddDoneCallback;
}

/** Registers `task` to be woken by `fut` through fut.addDoneCallback (the override). */
export function addWakeupCallback(fut: Future<unknown>, task: Task<unknown>): void {
  const wake = (done: Future<unknown>): void => {
    if (currentWakeups.get(task) !== wake) return;
    currentWakeups.delete(task);
    task.wakeUp(done);
  };
  currentWakeups.set(task, wake);
  wakeupClosureTasks.set(wake, task);
  fut.addDoneCallback(wake);
}

/** Unhooks `task` from `fut`, whichever way it registered. */
export function removeWakeup(fut: Future<unknown>, task: Task<unknown>): void {
  const wake = currentWakeups.get(task);
  if (wake === undefined) {
    fut._removeWaiter(task);
    return;
  }
  currentWakeups.delete(task);
  fut.removeDoneCallback(wake);
}
