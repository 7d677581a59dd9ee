// Task summaries: the one summarizer of the runtime's tasks in the protocol's shape (TaskState,
// TaskSummary, AwaitInfo), the one model of a task every view shares; also how the inspector
// names tasks and resources, and the AwaitIndex of who awaits whom ("awaits" follows what a
// future stands for: gather's children, waitFor's inner task). Read through runtime/inspection.ts.
//
// Invariants: no node:inspector here (a 10k-task snapshot has a 50 ms budget: no intermediate
// summary, a resource named by its id); reading an outcome never marks an exception retrieved.

import type { AwaitInfo, CancelCause, CancelOrigin, TaskState, TaskSummary } from '../../protocol/host-protocol';
import { describeValue, Future } from '../future';
import { inspect, inspectResource, type Inspectable } from '../inspection';
import { Task } from '../task';
import { resourceIdOf } from './resource-ids';
import { TaskRecorder } from './task-recorder';
import { classNameOf } from './value-preview';

/** Longest target description, in characters. */
const TARGET_TEXT = 120;

function clipText(s: string): string {
  return s.length > TARGET_TEXT ? `${s.slice(0, TARGET_TEXT - 1)}…` : s;
}

/** The state of a task as the inspector names it. */
export function taskState(task: Task<unknown>): TaskState {
  if (task.done()) {
    if (task.cancelled()) return 'cancelled';
    // The inspection's outcome, not exception(): that would mark the exception retrieved.
    return task[inspect]().outcome().state === 'exception' ? 'failed' : 'done';
  }
  if (task.getLoop().currentTask() === task) return 'running';
  return task.awaiting() !== null ? 'suspended' : 'scheduled';
}

/** `Task #3 "worker-2"`. */
export function describeTask(task: Task<unknown>): string {
  return `Task #${task.id} ${JSON.stringify(task.name)}`;
}

/** A bounded description of what a future belongs to; only the runtime's own toString is called. */
export function describeTarget(target: unknown): string | null {
  if (target === undefined || target === null) return null;
  if (target instanceof Task) return describeTask(target);
  if (target instanceof Future) return clipText(target.toString());
  const resource = inspectResource(target);
  if (resource !== null) return clipText(resource.description());
  if (typeof target === 'object' || typeof target === 'function') return `<${classNameOf(target)}>`;
  return clipText(String(target));
}

/** The resource a future belongs to (its inspection's), or null. */
export function resourceOf(fut: Future<unknown>): Inspectable | null {
  return fut[inspect]().resource;
}

/**
 * The tasks a future stands for: itself if a task, else the tasks among the futures it
 * stands for in turn (gather's children, nested gathers, waitFor's and shield's inner
 * task); in order, each once. Linear in the number of children (a gather of 10k tasks is
 * common and summaries ask this for every waiting task).
 */
export function awaitedTasks(fut: Future<unknown>): Task<unknown>[] {
  if (fut instanceof Task) return [fut];
  const inner = fut[inspect]().inner();
  if (inner.length === 0) return [];
  const out: Task<unknown>[] = [];
  const seen = new Set<Task<unknown>>();
  const visit = (f: Future<unknown>, depth: number): void => {
    if (f instanceof Task) {
      if (!seen.has(f)) {
        seen.add(f);
        out.push(f);
      }
      return;
    }
    if (depth > 8) return;
    for (const child of f[inspect]().inner()) visit(child, depth + 1);
  };
  for (const child of inner) visit(child, 1);
  return out;
}

const awaitedIds = new WeakMap<Future<unknown>, readonly number[]>();

/**
 * The ids of awaitedTasks(fut), computed once per future (what it stands for does not change while a task
 * waits on it).
 */
export function awaitedTaskIds(fut: Future<unknown>): readonly number[] {
  // Most futures stand for no task (a socket read, a sleep): nothing to keep for them.
  if (!(fut instanceof Task) && fut[inspect]().inner().length === 0) return NO_TASKS;
  let ids = awaitedIds.get(fut);
  if (ids === undefined) {
    const tasks = awaitedTasks(fut);
    ids = tasks.length === 0 ? NO_TASKS : tasks.map((t) => t.id);
    awaitedIds.set(fut, ids);
  }
  return ids;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/**
 * How a finished task ended, in words a table cell can show where a live task's await goes:
 * `returned` (a coroutine that returns nothing, as the crawler's workers do), `returned 42`,
 * `Name: message`, `cancelled (why)`.
 */
export function outcomeOf(task: Task<unknown>): string | undefined {
  const outcome = task[inspect]().outcome();
  switch (outcome.state) {
    case 'pending':
      return undefined;
    case 'cancelled': {
      // A task cancelled while it waited ends by its waiter's CancelledError, its own future cancelled with no
      // message (as asyncio's): the why is its cancel request's.
      const why = outcome.message || task.cancelInEffect()?.message;
      return why ? `cancelled (${why})` : 'cancelled';
    }
    case 'exception': {
      const e = outcome.error;
      return e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 200) : `exception ${describeValue(e)}`;
    }
    case 'result':
      return outcome.value === undefined ? 'returned' : `returned ${describeValue(outcome.value)}`;
  }
}

/**
 * What a task's awaited future is, as protocol AwaitInfo. `detail` is the origin's own
 * detail (a delay, a socket peer, a pool key) or the awaited task; the resource itself is
 * named by `resourceId` (the await graph labels it), so 10k tasks waiting on one queue do
 * not each carry its description.
 */
export function awaitInfoOf(fut: Future<unknown>): AwaitInfo {
  // What a future stands for does not change while a task waits on it: computed once.
  let info = awaitInfos.get(fut);
  if (info === undefined) {
    info = computeAwaitInfo(fut);
    awaitInfos.set(fut, info);
  }
  return info;
}

const awaitInfos = new WeakMap<Future<unknown>, AwaitInfo>();
/** The last names list of each task's chain, reused while the chain is the same frames. */
const chainNames = new WeakMap<Task<unknown>, { last: object | null; length: number; names: string[] }>();
const NO_FRAMES: string[] = [];
const NO_TASKS: number[] = [];

/** Function names of a task's tracked chain, root first (the same array while the chain is unchanged). */
function namesOf(t: Task<unknown>): string[] {
  const frames = t[inspect]().frames;
  if (frames === null || frames.length === 0) return NO_FRAMES;
  const last = frames[frames.length - 1]!;
  const cached = chainNames.get(t);
  if (cached !== undefined && cached.last === last && cached.length === frames.length) return cached.names;
  const names = frames.map((f) => f.fn.name);
  chainNames.set(t, { last, length: frames.length, names });
  return names;
}

function computeAwaitInfo(fut: Future<unknown>): AwaitInfo {
  if (fut instanceof Task) return { kind: 'task', detail: describeTask(fut), taskId: fut.id };
  const view = fut[inspect]();
  const info: AwaitInfo = { kind: view.kind, detail: view.detail ?? '' };
  const behind = awaitedTasks(fut);
  if (behind.length === 1) info.taskId = behind[0]!.id;
  if (info.detail === '' && behind.length === 1) info.detail = describeTask(behind[0]!);
  const res = resourceOf(fut);
  if (res !== null) info.resourceId = resourceIdOf(res);
  return info;
}

export interface SummaryOptions {
  /**
   * Adds createdBy, cancelledBy and the timings. Default: the loop's attached recorder (TaskRecorder.of);
   * null for none.
   */
  readonly recorder?: TaskRecorder | null;
  /**
   * The loop time sinceResumedMs counts to (seconds); default the loop's time() now. A past moment gives the
   * time its tick began.
   */
  readonly now?: number;
}

/**
 * Summaries of the given tasks, in one pass over them and one over their waiters
 * (awaitedBy counts only tasks of the list). No node:inspector, no program code: the cheap
 * summary 10k-task snapshots are made of. Timings from the TaskRecorder (rounded to 0.01 ms).
 */
export function summarizeTasks(tasks: readonly Task<unknown>[], options: SummaryOptions = {}): TaskSummary[] {
  const recorder =
    options.recorder !== undefined ? options.recorder : tasks.length > 0 ? TaskRecorder.of(tasks[0]!.getLoop()) : null;
  const awaitedBy = new Map<Task<unknown>, number[]>();
  const addEdge = (awaited: Task<unknown>, by: number): void => {
    let list = awaitedBy.get(awaited);
    if (list === undefined) awaitedBy.set(awaited, (list = []));
    if (!list.includes(by)) list.push(by);
  };
  for (const t of tasks) {
    const w = t.awaiting();
    if (w !== null && !t.done()) {
      if (w instanceof Task) addEdge(w, t.id);
      else for (const x of awaitedTasks(w)) addEdge(x, t.id);
    }
    if (!t.done()) for (const cb of t[inspect]().waitingTasks()) if (cb !== t) addEdge(t, cb.id);
  }
  const now = options.now ?? (tasks.length > 0 ? tasks[0]!.getLoop().time() : 0);
  const out = new Array<TaskSummary>(tasks.length);
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    const rec = recorder?.recordOf(t);
    const w = t.awaiting();
    const s: TaskSummary = {
      id: t.id,
      name: t.name,
      state: taskState(t),
      steps: t.steps(),
      busyMs: rec === undefined || rec.busySeconds === null ? null : round2(rec.busySeconds * 1000),
      sinceResumedMs:
        rec === undefined || rec.lastResumedAt === null ? null : Math.round((now - rec.lastResumedAt) * 1000),
      createdBy: rec?.createdBy?.id ?? null,
      awaiting: w !== null && !t.done() ? awaitInfoOf(w) : null,
      awaitedBy: awaitedBy.get(t) ?? NO_TASKS,
      frames: namesOf(t),
    };
    if (t.done()) {
      const outcome = outcomeOf(t);
      if (outcome !== undefined) s.outcome = outcome;
    }
    // Who asked for its cancellation, as soon as it is asked (a live task still unwinding, or
    // held by a paused loop), and after (also when the coroutine caught it and returned).
    if (t.done() || t.cancelInEffect() !== null) {
      const origin = cancelOriginOf(t, recorder);
      if (origin !== undefined) s.cancelledBy = origin;
    }
    out[i] = s;
  }
  return out;
}

/**
 * Who asked for `task`'s cancel in effect (Task.cancelInEffect(): never one taken back by
 * uncancel()), live or done: the task that asked, or the tool the recorder noted,
 * unknown for a cancelled task it knows no requester of (a callback, a timer, a tool without
 * a recorder); undefined for a task not cancelled with no cancel in effect (never asked, or
 * every request taken back).
 */
export function cancelOriginOf(task: Task<unknown>, recorder: TaskRecorder | null): CancelOrigin | undefined {
  const request = task.cancelInEffect();
  // Without a recorder the runtime still names the task that asked (no tool is known).
  const by: Task<unknown> | CancelCause | null | undefined =
    recorder !== null ? recorder.cancelledBy(task) : request === null ? undefined : request.by;
  if (!task.cancelled() && by === undefined) return undefined;
  if (by === undefined || by === null) return { kind: 'unknown' };
  if (by instanceof Task) return { kind: 'task', taskId: by.id };
  return { kind: by };
}

/**
 * Who awaits whom among the live tasks (through tasks, gathers, waitFor, shield, and tasks
 * registered as waiters of a task), built in one pass over their waiters. Valid until the
 * loop runs again: the host keeps one per tick.
 */
export class AwaitIndex {
  private readonly up = new Map<Task<unknown>, Task<unknown>[]>();

  constructor(live: readonly Task<unknown>[]) {
    for (const t of live) {
      const w = t.awaiting();
      if (w === null || w.done() || t.done()) continue;
      for (const x of awaitedTasks(w)) {
        if (x === t) continue;
        let l = this.up.get(x);
        if (l === undefined) this.up.set(x, (l = []));
        l.push(t);
      }
    }
  }

  /**
   * Ids of the live tasks awaiting `task` directly (or through gather/waitFor/shield), and tasks registered
   * as its waiters.
   */
  awaitedBy(task: Task<unknown>): number[] {
    const out = (this.up.get(task) ?? []).map((t) => t.id);
    for (const cb of task[inspect]().waitingTasks()) if (cb !== task && !out.includes(cb.id)) out.push(cb.id);
    return out;
  }

  /** The tasks `task` awaits transitively, then the tasks that await it transitively. */
  chain(task: Task<unknown>): number[] {
    const out: number[] = [];
    const seen = new Set<Task<unknown>>([task]);
    for (let t: Task<unknown> | undefined = task, n = 0; t !== undefined && n < 64; n++) {
      const w: Future<unknown> | null = t.awaiting();
      if (w === null || w.done()) break;
      const behind: Task<unknown>[] = awaitedTasks(w).filter((x) => !seen.has(x));
      for (const x of behind) {
        seen.add(x);
        out.push(x.id);
      }
      t = behind.length === 1 ? behind[0] : undefined;
    }
    const queue = [task];
    while (queue.length > 0 && out.length < 256) {
      const t = queue.shift()!;
      for (const x of this.up.get(t) ?? []) {
        if (seen.has(x)) continue;
        seen.add(x);
        out.push(x.id);
        queue.push(x);
      }
    }
    return out;
  }
}
