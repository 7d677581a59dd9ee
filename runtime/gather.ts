// gather(): run awaitables concurrently and collect their results in argument order, as
// asyncio.gather. The result is a Future, awaited with `yield*`.
// - Without returnExceptions the first failure (or a child's cancellation) fails the
//   gather at once; the other children keep running, as in asyncio.
// - With returnExceptions failures take their place in the results array.
// - Cancelling the gather cancels every child that is not done; the gather then ends
//   cancelled (as a CancelledError) once the children have finished.

import { CancelledError } from './errors';
import { Future } from './future';
import type { Awaitable, EventLoop } from './loop';
import { getRunningLoop } from './running-loop';
import { isCoroutine } from './task';

export interface GatherOptions {
  returnExceptions?: boolean;
}

/** The Future gather() returns; cancelling it cancels its children. */
export class GatheringFuture<T extends unknown[]> extends Future<T> {
  /** @internal */ _children: Future<unknown>[];
  /** @internal */ _cancelRequested = false;

  constructor(loop: EventLoop, children: Future<unknown>[]) {
    super(loop);
    this._children = children;
    this._origin = { kind: 'gather', target: this, detail: `${children.length} awaitables` };
  }

  override cancel(msg?: string): boolean {
    if (this.done()) return false;
    let ret = false;
    for (const child of this._children) if (child.cancel(msg)) ret = true;
    if (ret) {
      this._cancelRequested = true;
      this._cancelMessage = msg;
    }
    return ret;
  }

  /** The futures (tasks) being gathered. */
  children(): readonly Future<unknown>[] {
    return this._children;
  }
}

function isGatherOptions(v: unknown): v is GatherOptions {
  return typeof v === 'object' && v !== null && !(v instanceof Future) && !isCoroutine(v) && !Array.isArray(v);
}

type Results<T extends readonly unknown[]> = { -readonly [K in keyof T]: T[K] extends Awaitable<infer R> ? R : never };

/** Runs the awaitables concurrently; `yield* gather(a, b)` gives [resultA, resultB]. */
export function gather<T extends readonly Awaitable<unknown>[]>(...args: [...T] | [...T, GatherOptions]): GatheringFuture<Results<T>> {
  let options: GatherOptions = {};
  let aws = args as unknown[];
  if (aws.length > 0 && isGatherOptions(aws[aws.length - 1])) {
    options = aws[aws.length - 1] as GatherOptions;
    aws = aws.slice(0, -1);
  }
  const returnExceptions = options.returnExceptions ?? false;
  const first = aws.find((a): a is Future<unknown> => a instanceof Future);
  const loop = first !== undefined ? first.getLoop() : getRunningLoop();
  // The same awaitable passed twice is run once (asyncio's arg_to_fut).
  const seen = new Map<unknown, Future<unknown>>();
  const children = aws.map((aw) => {
    let fut = seen.get(aw);
    if (fut === undefined) {
      fut = loop.ensureFuture(aw as Awaitable<unknown>);
      seen.set(aw, fut);
    }
    return fut;
  });
  const outer = new GatheringFuture<Results<T>>(loop, children);
  if (children.length === 0) {
    outer.setResult([] as unknown as Results<T>);
    return outer;
  }
  const distinct = new Set(children).size;
  let finished = 0;
  const onChildDone = (child: Future<unknown>): void => {
    finished++;
    if (outer.done()) {
      // Mark the child's exception retrieved: the gather already ended.
      if (!child.cancelled()) child.exception();
      return;
    }
    if (!returnExceptions) {
      if (child.cancelled()) {
        outer.setException(child._makeCancelledError());
        return;
      }
      const exc = child.exception();
      if (exc !== undefined) {
        outer.setException(exc);
        return;
      }
    }
    if (finished === distinct) {
      const results = children.map((c) => {
        if (c.cancelled()) return new CancelledError(c._cancelMessage ?? '');
        const exc = c.exception();
        return exc !== undefined ? exc : c.result();
      });
      if (outer._cancelRequested) outer.setException(new CancelledError(outer._cancelMessage ?? ''));
      else outer.setResult(results as unknown as Results<T>);
    }
  };
  for (const child of new Set(children)) child.addDoneCallback(onChildDone);
  return outer;
}
