// TaskGroup: asyncio 3.11's TaskGroup. `run(body)` is the `async with TaskGroup() as tg:` block:
// the body runs in the parent task, starts children with tg.createTask(), and the block ends
// only when every child has finished.
//
// Invariants (asyncio 3.11's, state for state):
// - The first child failure (not CancelledError), or the body's, aborts the group: the others
//   and the parent (once, taken back at exit) are cancelled.
// - The errors collected are thrown as one ExceptionGroup('unhandled errors in a TaskGroup'); the
//   parent's own CancelledError only when there are none.
// - A group runs once; createTask() before, after or while shutting down is a RuntimeError.

import { coroutine } from './coroutine';
import { CancelledError, RuntimeError } from './errors';
import { ExceptionGroup } from './exception-group';
import { Future } from './future';
import type { EventLoop } from './loop';
import { getRunningLoop } from './running-loop';
import type { Coroutine, Task } from './task';
import type { CancelRequest } from './cancel-request';

/**
 * What the block waits on while children run: done when the last one is. For inspection it
 * stands for the children (the await graph links the parent task to them).
 */
class ChildrenDone extends Future<boolean> {
  constructor(
    loop: EventLoop,
    private readonly _group: TaskGroup,
  ) {
    super(loop);
    this._origin = { kind: 'taskGroup', detail: `${_group._tasks.size} tasks` };
  }

  protected override _innerFutures(): readonly Future<unknown>[] {
    return [...this._group._tasks];
  }
}

export class TaskGroup {
  private _entered = false;
  /** @internal */ _exiting = false;
  /** @internal */ _aborting = false;
  /** @internal */ _loop: EventLoop | null = null;
  /** @internal */ _parentTask: Task<unknown> | null = null;
  /** @internal */ _parentCancelRequested = false;
  /** @internal The cancel of the parent it asked: the one it takes back at exit. */
  _parentCancel: CancelRequest | null = null;
  /** @internal */ _tasks = new Set<Task<unknown>>();
  /** @internal */ _errors: unknown[] = [];
  /** @internal Resolved when the last child is done, while the block waits for them. */
  _onCompletedFut: Future<boolean> | null = null;
  private readonly _onTaskDone = (task: Future<unknown>): void => this._childDone(task as Task<unknown>);

  /** Runs `body` in the current task as the group's block; evaluates to its result once every child is done. */
  run<T>(body: (group: TaskGroup) => Coroutine<T>): Coroutine<T> {
    return runTaskGroup(this, body) as Coroutine<T>;
  }

  /** Starts `coro` as a child task of this group (asyncio's TaskGroup.create_task). */
  createTask<T>(coro: Coroutine<T>, options: { name?: string } = {}): Task<T> {
    let refusal: string | null = null;
    if (!this._entered) refusal = 'has not been entered';
    else if (this._exiting && this._tasks.size === 0) refusal = 'is finished';
    else if (this._aborting) refusal = 'is shutting down';
    if (refusal !== null) {
      // Nobody will run it: close it, so it is not reported as never awaited.
      coro.return(undefined as T);
      throw new RuntimeError(`TaskGroup ${this.toString()} ${refusal}`);
    }
    const task = this._loop!.createTask(coro, options);
    task.addDoneCallback(this._onTaskDone);
    this._tasks.add(task as Task<unknown>);
    return task;
  }

  /** The children not finished yet (inspection). */
  tasks(): ReadonlySet<Task<unknown>> {
    return this._tasks;
  }

  toString(): string {
    const info: string[] = [];
    if (this._tasks.size > 0) info.push(`tasks=${this._tasks.size}`);
    if (this._errors.length > 0) info.push(`errors=${this._errors.length}`);
    if (this._aborting) info.push('cancelling');
    else if (this._entered) info.push('entered');
    return `<TaskGroup${info.map((s) => ` ${s}`).join('')}>`;
  }

  /** @internal asyncio's __aenter__. */
  _enter(): void {
    if (this._entered) throw new RuntimeError(`TaskGroup ${this.toString()} has already been entered`);
    this._loop = getRunningLoop();
    this._parentTask = this._loop.currentTask();
    if (this._parentTask === null)
      throw new RuntimeError(`TaskGroup ${this.toString()} cannot determine the parent task`);
    this._entered = true;
  }

  /** @internal Cancels every child not done; no more children from now on. */
  _abort(): void {
    this._aborting = true;
    for (const t of this._tasks) if (!t.done()) t.cancel();
  }

  private _childDone(task: Task<unknown>): void {
    this._tasks.delete(task);
    if (this._onCompletedFut !== null && this._tasks.size === 0 && !this._onCompletedFut.done())
      this._onCompletedFut.setResult(true);
    if (task.cancelled()) return;
    const exc = task.exception();
    if (exc === undefined) return;
    this._errors.push(exc);
    const parent = this._parentTask!;
    if (parent.done()) {
      this._loop!.callExceptionHandler({
        message: `Task ${task.toString()} has errored out but its parent task ${parent.toString()} is already completed`,
        exception: exc,
        task,
      });
      return;
    }
    if (!this._aborting && !this._parentCancelRequested) {
      // Stop the body where it waits; the request is taken back when the block exits.
      this._abort();
      this._parentCancelRequested = true;
      if (parent.cancel()) this._parentCancel = parent._lastCancelRequest();
    }
  }
}

/** asyncio's __aexit__: waits for the children, then throws what the block must end with (or returns). */
const exitTaskGroup = coroutine(function* exitTaskGroup(tg: TaskGroup, failed: boolean, exc: unknown): Coroutine<void> {
  tg._exiting = true;
  let propagateCancellation: CancelledError | null = failed && exc instanceof CancelledError ? exc : null;
  // Our own cancel of the parent must be taken back; if it was the only one, the
  // CancelledError it caused is not the block's to throw.
  if (tg._parentCancelRequested && tg._parentTask!._withdrawCancel(tg._parentCancel) === 0)
    propagateCancellation = null;
  if (failed && !tg._aborting) tg._abort();
  while (tg._tasks.size > 0) {
    tg._onCompletedFut ??= new ChildrenDone(tg._loop!, tg);
    try {
      yield* tg._onCompletedFut;
    } catch (e) {
      if (!(e instanceof CancelledError)) throw e;
      // The parent was cancelled from outside while the children were still running.
      if (!tg._aborting) {
        propagateCancellation = e;
        tg._abort();
      }
    }
    tg._onCompletedFut = null;
  }
  if (propagateCancellation !== null && tg._errors.length === 0) throw propagateCancellation;
  if (failed && !(exc instanceof CancelledError)) tg._errors.push(exc);
  if (tg._errors.length > 0) {
    const errors = tg._errors;
    tg._errors = [];
    throw new ExceptionGroup('unhandled errors in a TaskGroup', errors);
  }
});

const runTaskGroup = coroutine(function* taskGroup(
  tg: TaskGroup,
  body: (group: TaskGroup) => Coroutine<unknown>,
): Coroutine<unknown> {
  tg._enter();
  let result: unknown;
  let failed = false;
  let error: unknown;
  try {
    result = yield* body(tg);
  } catch (e) {
    failed = true;
    error = e;
  }
  yield* exitTaskGroup(tg, failed, error);
  if (failed) throw error;
  return result;
});
