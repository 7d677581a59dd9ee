// Fifo: an array-backed first-in first-out queue with O(1) push and shift (a head index
// instead of Array.prototype.shift, which is O(n)). Used for Queue items and waiter lists,
// with wakeFirstPending for the waiter lists.

export class Fifo<T> implements Iterable<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  /** Removes the first occurrence of `item`; O(n), for the rare cancelled waiter. */
  remove(item: T): boolean {
    for (let i = this.head; i < this.items.length; i++) {
      if (this.items[i] === item) {
        this.items.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i] as T;
  }
}

/**
 * Wakes the first waiter still pending, dropping the ones already done (a waiter cancelled
 * with its coroutine): the wake-up is never spent on a waiter that cannot use it.
 */
export function wakeFirstPending(waiters: {
  shift(): { done(): boolean; setResult(v: undefined): void } | undefined;
}): void {
  for (;;) {
    const w = waiters.shift();
    if (w === undefined) return;
    if (!w.done()) {
      w.setResult(undefined);
      return;
    }
  }
}
