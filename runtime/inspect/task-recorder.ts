// TaskRecorder: what the inspector learns about tasks from the loop's observer hooks and cannot
// read afterwards: who created which task and when, how long each ran, when it last resumed, and
// which tool asked a cancel from outside any task (so who cancelled a task can be named).
//
// Invariants:
// - attach(loop) adds it as the loop's first observer; `of(loop)` is the attached one.
// - Records live in a WeakMap keyed by the task: nothing is kept alive by the recorder.
// - A replayed loop's task has no busy time (null). Per step: one WeakMap lookup and two
//   performance.now(); nothing when no recorder is attached.
// - Who cancelled is the asker of the cancel in effect (never one taken back); an outside cancel
//   is the innermost `cancelAs`'s, else nobody's. cancelAskedNow() says who asks during it.

import type { LoopObserver, EventLoop } from '../loop';
import type { Task } from '../task';
import type { CancelRequest } from '../cancel-request';
import type { CancelCause } from '../../protocol/host-protocol';
import { runningNow } from '../held-time';

export interface TaskRecord {
  /** The task that was running when this one was created (null: created from a callback or outside the loop). */
  readonly createdBy: Task<unknown> | null;
  /** Loop time at creation, seconds. */
  readonly createdAt: number;
  /**
   * Time spent running its steps, seconds (wall clock); null when not known: a task of a replayed loop
   * (its steps run in the replay, whose CPU time is not the recorded run's, and recordings do not keep it).
   */
  busySeconds: number | null;
  /** Loop time of the tick of its last resume, or null if it never ran. */
  lastResumedAt: number | null;
}

const attachedRecorders = new WeakMap<EventLoop, TaskRecorder>();

export class TaskRecorder implements LoopObserver {
  private readonly records = new WeakMap<Task<unknown>, TaskRecord>();
  private stepStart = 0;
  /** The record of the task being stepped (one WeakMap lookup per step). */
  private stepping: TaskRecord | undefined = undefined;
  /** Loop time sampled once per tick: a step's resume time is its tick's. */
  private tickTime = 0;
  private attached = true;
  /** The tool on whose behalf cancellations outside any task are being requested (cancelAs). */
  private requester: CancelCause | null = null;
  /** The tool that asked each cancel request made outside any task under cancelAs. */
  private readonly requesters = new WeakMap<CancelRequest, CancelCause>();

  private constructor(readonly loop: EventLoop) {}

  /** Starts recording the loop's tasks (those created from now on). */
  static attach(loop: EventLoop): TaskRecorder {
    const recorder = new TaskRecorder(loop);
    recorder.tickTime = loop.time();
    loop.addObserver(recorder, { first: true });
    attachedRecorders.set(loop, recorder);
    return recorder;
  }

  /** The recorder last attached to the loop and not detached, or null (dumps use it by default). */
  static of(loop: EventLoop): TaskRecorder | null {
    return attachedRecorders.get(loop) ?? null;
  }

  /** Stops recording (the loop's other observers stay). */
  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    this.loop.removeObserver(this);
    if (attachedRecorders.get(this.loop) === this) attachedRecorders.delete(this.loop);
  }

  recordOf(task: Task<unknown>): TaskRecord | undefined {
    return this.records.get(task);
  }

  taskCreated(task: Task<unknown>): void {
    this.records.set(task, {
      createdBy: this.loop.currentTask(),
      createdAt: this.loop.time(),
      busySeconds: this.loop.isReplayed() ? null : 0,
      lastResumedAt: null,
    });
  }

  taskStepStart(task: Task<unknown>): void {
    const r = this.records.get(task);
    this.stepping = r;
    if (r !== undefined) r.lastResumedAt = this.tickTime;
    this.stepStart = runningNow();
  }

  taskStepEnd(task: Task<unknown>): void {
    const r = this.stepping;
    if (r !== undefined && r.busySeconds !== null) r.busySeconds += (runningNow() - this.stepStart) / 1000;
    this.stepping = undefined;
  }

  taskCancelRequested(task: Task<unknown>, by: Task<unknown> | null, request: CancelRequest): void {
    if (by === null && this.requester !== null) this.requesters.set(request, this.requester);
  }

  /**
   * Who asked the cancel of `task` that took effect (Task.cancelInEffect(): a cancel taken
   * back by uncancel() is never it): a task, a tool (see cancelAs), null for a callback or a
   * timer; undefined when no cancel of it is in effect.
   */
  cancelledBy(task: Task<unknown>): Task<unknown> | CancelCause | null | undefined {
    const request = task.cancelInEffect();
    if (request === null) return undefined;
    return request.by ?? this.requesters.get(request) ?? null;
  }

  /** Runs `cancel`, attributing the cancellations it requests outside any task to `requester`. */
  cancelAs<T>(requester: CancelCause, cancel: () => T): T {
    const outer = this.requester;
    this.requester = requester;
    try {
      return cancel();
    } finally {
      this.requester = outer;
    }
  }

  tickStart(tick: number): void {
    this.tickTime = this.loop.time();
  }
}

/**
 * A cancel asked from outside any task by a tool or the crawl's deadline (cancelTaskAs): who asked, and the
 * message it gave.
 */
export interface AskedCancel {
  readonly by: CancelCause;
  readonly message: string;
}

let asking: AskedCancel | null = null;

/** The cancelTaskAs running now (the cancels requested meanwhile are its), or null. */
export function cancelAskedNow(): AskedCancel | null {
  return asking;
}

/** Cancels `task` on behalf of `requester` (recorded by the loop's recorder, if one is attached). */
export function cancelTaskAs(task: Task<unknown>, requester: CancelCause, message: string): boolean {
  const outer = asking;
  asking = { by: requester, message };
  try {
    const recorder = TaskRecorder.of(task.getLoop());
    return recorder === null ? task.cancel(message) : recorder.cancelAs(requester, () => task.cancel(message));
  } finally {
    asking = outer;
  }
}
