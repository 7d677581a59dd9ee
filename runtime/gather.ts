// gather(): run awaitables concurrently and collect their results in argument order, as
// asyncio.gather; the result is a Future, awaited with `yield*`.
//
// Invariants (asyncio's): without returnExceptions the first failure or child cancellation fails
// the gather at once, the others keep running; with it, failures take their place in the results.
// Cancelling the gather cancels every child not done, and it ends cancelled once they finish.
// It completes on the same tick as asyncio's; no closure per child (docs/design/runtime-core.md).

import { CancelledError } from './errors';
import { Future, type CompletionRecorder } from './future';
import type { Awaitable, EventLoop } from './loop';
import { getRunningLoop } from './running-loop';
import { isCoroutine } from './task';

export interface GatherOptions {
  returnExceptions?: boolean;
}

/** The Future gather() returns; cancelling it cancels its children. */
export class GatheringFuture<T extends unknown[]> extends Future<T> implements CompletionRecorder {
  /** @internal The child at each argument position (a future passed twice appears twice). */
  _children: Future<unknown>[];
  /** @internal */ _cancelRequested = false;
  /** @internal Children that have completed so far. */ _finished = 0;
  /** @internal */ readonly _returnExceptions: boolean;
  // Results of positions [0, _recorded), recorded as those children succeeded.
  private readonly _results: unknown[];
  private _recorded = 0;

  constructor(loop: EventLoop, children: Future<unknown>[], returnExceptions = false) {
    super(loop);
    this._children = children;
    this._results = new Array<unknown>(children.length);
    this._returnExceptions = returnExceptions;
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

  /** Inspection: a gather stands for its children. */
  protected override _innerFutures(): readonly Future<unknown>[] {
    return this._children;
  }

  /** @internal A child completed (called synchronously, once per position it holds). */
  _recordCompletion(child: Future<unknown>): void {
    this._finished++;
    if (this.done()) {
      markRetrieved(child);
      return;
    }
    if (!this._returnExceptions && !succeeded(child)) {
      this._loop._pushReady(failWithChild, this, child);
      return;
    }
    const children = this._children;
    let k = this._recorded;
    if (children[k] === child) {
      // The next position in order: record it and every later one that already succeeded.
      const results = this._results;
      while (k < children.length && succeeded(children[k]!)) {
        results[k] = children[k]!._result;
        k++;
      }
      this._recorded = k;
    }
    if (this._finished === children.length) this._loop._pushReady(finishGather, this, undefined);
  }

  /** @internal The results in argument order (failures in place, with returnExceptions). */
  _collectResults(): unknown[] {
    const children = this._children;
    const results = this._results;
    for (let i = this._recorded; i < children.length; i++) {
      const c = children[i]!;
      if (succeeded(c)) results[i] = c._result;
      else if (c.cancelled()) results[i] = new CancelledError(c._cancelMessage ?? '');
      else results[i] = c.exception();
    }
    return results;
  }
}

/** Done with a result: not cancelled, no exception. */
function succeeded(child: Future<unknown>): boolean {
  return child.done() && !child.cancelled() && child._exception === undefined;
}

/** The gather already ended: mark the child's exception retrieved, as asyncio does. */
function markRetrieved(child: Future<unknown>): void {
  if (!child.cancelled()) child.exception();
}

/**
 * Next tick after a child failed or was cancelled (without returnExceptions): the gather fails with it,
 * unless it already ended.
 */
function failWithChild(outerArg: unknown, childArg: unknown): void {
  const outer = outerArg as GatheringFuture<unknown[]>;
  const child = childArg as Future<unknown>;
  if (outer.done()) {
    markRetrieved(child);
    return;
  }
  if (child.cancelled()) outer.setException(child._makeCancelledError());
  else outer.setException(child.exception());
}

/** Next tick after the last child completed: the gather gets its results (or ends cancelled). */
function finishGather(outerArg: unknown): void {
  const outer = outerArg as GatheringFuture<unknown[]>;
  if (outer.done()) return;
  if (outer._cancelRequested) outer.setException(new CancelledError(outer._cancelMessage ?? ''));
  else outer.setResult(outer._collectResults());
}

function isGatherOptions(v: unknown): v is GatherOptions {
  return typeof v === 'object' && v !== null && !(v instanceof Future) && !isCoroutine(v) && !Array.isArray(v);
}

type Results<T extends readonly unknown[]> = { -readonly [K in keyof T]: T[K] extends Awaitable<infer R> ? R : never };

/** Runs the awaitables concurrently; `yield* gather(a, b)` gives [resultA, resultB]. */
export function gather<T extends readonly Awaitable<unknown>[]>(
  ...args: [...T] | [...T, GatherOptions]
): GatheringFuture<Results<T>> {
  let options: GatherOptions = {};
  let aws = args as unknown[];
  if (aws.length > 0 && isGatherOptions(aws[aws.length - 1])) {
    options = aws[aws.length - 1] as GatherOptions;
    aws = aws.slice(0, -1);
  }
  let loop: EventLoop | null = null;
  for (const aw of aws) {
    if (aw instanceof Future) {
      loop = aw.getLoop();
      break;
    }
  }
  loop ??= getRunningLoop();
  // `aws` is this call's own array (the rest parameter or its slice): it becomes the
  // children array in place, each awaitable replaced by its future.
  const children = aws as Future<unknown>[];
  const outer = new GatheringFuture<Results<T>>(loop, children, options.returnExceptions ?? false);
  if (children.length === 0) {
    outer.setResult([] as unknown as Results<T>);
    return outer;
  }
  // One pass over the arguments, so each child is touched once here. The same coroutine
  // passed twice is run once (asyncio's arg_to_fut); its task then fills both positions.
  let coroutineTasks: Map<unknown, Future<unknown>> | null = null;
  try {
    for (let i = 0; i < aws.length; i++) {
      const aw = aws[i];
      let child: Future<unknown>;
      if (aw instanceof Future) {
        child = loop.ensureFuture(aw);
      } else {
        coroutineTasks ??= new Map();
        child = coroutineTasks.get(aw) ?? loop.ensureFuture(aw as Awaitable<unknown>);
        coroutineTasks.set(aw, child);
      }
      if (child !== aw) children[i] = child;
      child._addRecorder(outer);
    }
  } catch (e) {
    // A bad argument: nobody will await this gather. End it quietly, so the children it had
    // taken on find it done when they complete and their exceptions count as retrieved; the
    // tasks it started run on, as asyncio's do.
    Future.prototype.cancel.call(outer);
    throw e;
  }
  return outer;
}
