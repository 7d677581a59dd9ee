// LifoQueue: asyncio.LifoQueue, a Queue that hands out the most recently put item first.
// Only the storage order differs from Queue: waiting, maxsize, taskDone() and join() are
// Queue's own.

import { Queue } from './queue';

export class LifoQueue<T = unknown> extends Queue<T> {
  private _stack: T[] = [];

  override qsize(): number {
    return this._stack.length;
  }

  protected override _putItem(item: T): void {
    this._stack.push(item);
  }

  protected override _getItem(): T {
    return this._stack.pop() as T;
  }
}
