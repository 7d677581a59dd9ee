// Runs on a runtime host's main thread (a live host's run; an opened recording's never fills it).
//
// RunTasks: a live run's task table as its loop tells it: live tasks by id, the finished ones
// (history, with failed ones' tracebacks), creation sites, and the task events sent to clients.
//
// Invariants: a task is in `live` from creation to end, then in the history only (ids never
// reused); task events go only with inspection on, rate-limited (TASK_EVENTS_PER_SECOND,
// EXCEPTION_EVENTS_PER_SECOND, the rest coalesced into snapshots); a failed task's traceback
// is kept as long as the history keeps the task.

import type { SourcePosition, TaskDetail, TaskSummary, Traceback } from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { EventLoop } from '../../loop';
import { exceptionOf } from '../../inspection';
import type { Task } from '../../task';
import type { TaskRecorder } from '../../inspect/task-recorder';
import { TaskHistory } from '../../inspect/history';
import { wakingTasks } from '../../inspect/traces';
import { AwaitIndex, summarizeTasks } from '../../inspect/task-summaries';
import { CreationSites } from './creation-sites';
import type { RunServices } from './run-services';
import { realNow } from '../../outside-values';

const TASK_EVENTS_PER_SECOND = 200;
const EXCEPTION_EVENTS_PER_SECOND = 50;
const HISTORY = 1000;

/** Counts events per one-second window; says whether one more may go out. */
class RateLimit {
  private windowStart = 0;
  private count = 0;
  dropped = 0;
  constructor(private readonly perSecond: number) {}
  allow(): boolean {
    const now = realNow();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.count = 0;
    }
    if (this.count >= this.perSecond) {
      this.dropped++;
      return false;
    }
    this.count++;
    return true;
  }
}

/** What the table needs of its run. */
export interface TaskTableOwner {
  readonly id: number;
  readonly loop: EventLoop;
  readonly inspect: boolean;
  readonly recorder: TaskRecorder | null;
}

export class RunTasks {
  readonly history = new TaskHistory<TaskSummary>(HISTORY);
  /** The `exception` events' limit (a crawl's URL failures go out under it too). */
  readonly exceptionEvents = new RateLimit(EXCEPTION_EVENTS_PER_SECOND);
  private readonly live = new Map<number, Task<unknown>>();
  /** Tracebacks of failed tasks, for as long as the history keeps them. */
  private readonly failures = new Map<number, Traceback>();
  readonly creationSites = new CreationSites();
  private readonly createdSites = new Map<number, SourcePosition | null>();
  private readonly createdEvents = new RateLimit(TASK_EVENTS_PER_SECOND);
  private readonly finishedEvents = new RateLimit(TASK_EVENTS_PER_SECOND);
  private awaitIndexCache: { key: string; index: AwaitIndex } | null = null;

  constructor(
    private readonly run: TaskTableOwner,
    private readonly services: Pick<RunServices, 'emit' | 'tracer'>,
  ) {}

  onTaskCreated(task: Task<unknown>): void {
    this.live.set(task.id, task);
    if (!this.run.inspect) return;
    // Where it was created: a stack captured now, formatted only if a client asks.
    this.creationSites.capture(task);
    if (this.createdEvents.allow())
      this.services.emit('taskCreated', { task: summarizeTasks([task], { recorder: this.run.recorder })[0]! });
  }

  onTaskDone(task: Task<unknown>): void {
    this.live.delete(task.id);
    const summary = summarizeTasks([task], { recorder: this.run.recorder })[0]!;
    for (const id of this.history.add(summary)) this.failures.delete(id);
    if (this.run.inspect && this.finishedEvents.allow()) this.services.emit('taskFinished', { task: summary });
    const error = exceptionOf(task);
    if (!task.cancelled() && error !== undefined && this.exceptionEvents.allow()) {
      const traceback = this.services.tracer.tracebackOf(task, error, wakingTasks(task));
      if (this.failures.size < HISTORY) this.failures.set(task.id, traceback);
      this.services.emit('exception', { taskId: task.id, traceback });
    }
  }

  /** A task alive now, or undefined. */
  liveById(taskId: number): Task<unknown> | undefined {
    return this.live.get(taskId);
  }

  /** A live task or one in the history (a ProtocolError otherwise). */
  liveTask(taskId: number, method: string): Task<unknown> {
    const t = this.live.get(taskId);
    if (t === undefined) {
      if (this.history.has(taskId))
        throw new ProtocolError(
          `${method}: task #${taskId} has finished (${this.history.get(taskId)!.state})`,
          'taskFinished',
        );
      throw new ProtocolError(`${method}: no task #${taskId} in run ${this.run.id}`, 'unknownTask');
    }
    return t;
  }

  /** The detail of a finished task (the history's summary, its traceback when it failed), or undefined. */
  finishedDetail(taskId: number): TaskDetail | undefined {
    const past = this.history.get(taskId);
    if (past === undefined) return undefined;
    return { task: past, frames: [], awaitChain: [], createdAt: null, traceback: this.failures.get(taskId) ?? null };
  }

  /** Who awaits whom, rebuilt only when the loop has run since (or tasks came or went). */
  awaitIndex(liveTasks: () => Task<unknown>[]): AwaitIndex {
    const key = `${this.run.loop.tickCount()}|${this.live.size}`;
    if (this.awaitIndexCache === null || this.awaitIndexCache.key !== key)
      this.awaitIndexCache = { key, index: new AwaitIndex(liveTasks()) };
    return this.awaitIndexCache.index;
  }

  /** Where a task of this run was created, while it is live (cached by id). */
  createdSiteOf(taskId: number): SourcePosition | null {
    const known = this.createdSites.get(taskId);
    if (known !== undefined) return known;
    const task = this.live.get(taskId);
    if (task === undefined) return null;
    const site = this.creationSites.siteOf(task);
    this.createdSites.set(taskId, site);
    return site;
  }

  /**
   * Where task #taskId (alive now) was created: a fact of the run, the same at every moment,
   * for a past moment's detail that has none of its own.
   */
  creationSiteById(taskId: number): TaskDetail['createdAt'] {
    const live = this.live.get(taskId);
    return live === undefined ? null : this.creationSites.siteOf(live);
  }
}
