// asCompleted(): the awaitables' outcomes in the order they complete, as
// asyncio.as_completed. It returns an array of coroutines; awaiting the i-th one with
// `yield*` gives the i-th outcome to complete (its result, or throws its exception).
// With a timeout, the coroutines still waiting when it expires throw TimeoutError and the
// awaitables not done are left running, as in asyncio. A consumer cancelled while waiting
// loses no outcome: a wake-up meant for it goes to the next waiting consumer.

import { coroutine } from './coroutine';
import { wakeFirstPending } from './fifo';
import { TimeoutError } from './errors';
import { Future, describeValue } from './future';
import type { Awaitable } from './loop';
import { getRunningLoop } from './running-loop';
import { isCoroutine, type Coroutine } from './task';

export function asCompleted<T>(aws: Iterable<Awaitable<T>>, options: { timeout?: number } = {}): Coroutine<T>[] {
  // A single future or coroutine is not the iterable expected: iterating it would await
  // it (a future) or run its body outside any task (a coroutine). asyncio refuses both.
  if (aws instanceof Future || isCoroutine(aws)) {
    throw new TypeError(`asCompleted() expects an iterable of awaitables, not ${describeValue(aws)}`);
  }
  // The same awaitable passed twice counts once (asyncio's set(fs)).
  const input = [...new Set(aws)];
  const loop = getRunningLoop();
  const todo = new Set<Future<T>>(input.map((aw) => loop.ensureFuture(aw)));
  const done: Array<Future<T> | null> = [];
  const waiters: Array<Future<void>> = [];
  let timeoutHandle: { cancel(): void } | null = null;

  /** Wakes the first waiter still waiting (one whose consumer was cancelled is skipped). */
  const release = (): void => wakeFirstPending(waiters);
  const onCompletion = (f: Future<T>): void => {
    if (!todo.delete(f)) return;
    done.push(f);
    release();
    if (todo.size === 0 && timeoutHandle !== null) timeoutHandle.cancel();
  };
  const onTimeout = (): void => {
    for (const f of todo) f.removeDoneCallback(onCompletion);
    const left = todo.size;
    todo.clear();
    for (let i = 0; i < left; i++) {
      done.push(null);
      release();
    }
  };
  for (const f of todo) f.addDoneCallback(onCompletion);
  if (todo.size > 0 && options.timeout !== undefined) timeoutHandle = loop.callLater(options.timeout, onTimeout);

  const waitForOne = coroutine(function* asCompletedNext(): Coroutine<T> {
    while (done.length === 0) {
      const w = loop.createFuture<void>();
      w._origin = { kind: 'asCompleted', detail: `${todo.size} pending` };
      waiters.push(w);
      try {
        yield* w;
      } catch (e) {
        const i = waiters.indexOf(w);
        if (i >= 0) waiters.splice(i, 1);
        // Woken, then cancelled: hand the outcome to the next consumer.
        if (w.done() && !w.cancelled() && done.length > 0) release();
        throw e;
      }
    }
    const f = done.shift()!;
    if (f === null) throw new TimeoutError('asCompleted() timed out');
    return f.result();
  });
  return input.map(() => waitForOne());
}
