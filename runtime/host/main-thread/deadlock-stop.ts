// Runs on a runtime host's main thread. The Deadlock break (setExceptionBreaks' `deadlock`): the
// run stops (reason 'exception') when live tasks wait for what nothing can give them, at a quiet
// tick's end or when the periodic check finds a cycle; every deadlock is also reported as an
// `exception` event, stopped or not. The stop lists its first DEADLOCK_TASKS_LISTED tasks and
// counts the rest. Not once the main task has ended. See docs/design/inspection.md.
//
// Invariants: each deadlock stops the run (break on) or is reported (always) once; nothing is
// computed at a tick's end unless the break is on, the loop is quiet and some task is live.

import type { AwaitGraph, DeadlockStop, HostEvents, SourcePosition, Traceback } from '../../../protocol/host-protocol';
import type { EventLoop } from '../../loop';
import type { Task } from '../../task';
import { describeWaitOf, loopIsQuiescent } from '../../inspect/await-graph';
import type { LintCollector } from '../../inspect/lints';
import type { PauseInfo } from '../../inspect/loop-control';
import { shortSite } from '../../inspect/resource-names';
import { taskFrames } from '../../inspect/task-snapshot';

type Deadlock = AwaitGraph['deadlocks'][number];

/** The task ids a deadlock involves, in its order. */
function taskIdsOf(d: Deadlock): number[] {
  return d.nodes.filter((id) => id.startsWith('task:')).map((id) => Number(id.slice('task:'.length)));
}

/** Where a task is suspended: its innermost frame with a position (the program's, when it has one). */
function suspendedPosition(t: Task<unknown>): SourcePosition | null {
  try {
    const frames = taskFrames(t).filter((f) => f.file !== null && f.line !== null);
    const own = frames.filter((f) => !/[\\/]runtime[\\/][^\\/]+\.[cm]?[tj]s$/.test(f.file!));
    const inner = own[own.length - 1] ?? frames[frames.length - 1];
    return inner === undefined ? null : { file: inner.file!, line: inner.line!, column: inner.column ?? 1 };
  } catch {
    return null;
  }
}

/**
 * How many of a deadlock's tasks its stop and report name one by one. Reading where a task is suspended goes
 * through the inspector (about a fifth of a millisecond each): ten thousand tasks stuck on one Event would
 * cost seconds of the loop's time and a traceback nobody reads; the rest are counted.
 */
export const DEADLOCK_TASKS_LISTED = 20;

/** A deadlock's tasks as its stop and report show them: each named by its wait, the first ones with where. */
interface DeadlockTasks {
  readonly listed: readonly { task: Task<unknown>; wait: string; position: SourcePosition | null }[];
  /** Known tasks of the deadlock beyond the listed ones. */
  readonly more: number;
  /** Its first live task, or its first task. */
  readonly first: Task<unknown> | undefined;
}

function deadlockTasks(d: Deadlock, taskById: (id: number) => Task<unknown> | undefined): DeadlockTasks {
  const tasks = taskIdsOf(d)
    .map(taskById)
    .filter((t): t is Task<unknown> => t !== undefined);
  const listed = tasks.slice(0, DEADLOCK_TASKS_LISTED).map((task) => ({
    task,
    wait: describeWaitOf(task),
    position: task.done() ? null : suspendedPosition(task),
  }));
  return { listed, more: tasks.length - listed.length, first: tasks.find((t) => !t.done()) ?? tasks[0] };
}

/** The stop a deadlock makes, from its tasks as shown. */
function stopOf(d: Deadlock, tasks: DeadlockTasks): Omit<PauseInfo, 'tick'> {
  const summary = d.summary ?? d.reason.slice(0, 160);
  const details = [
    `Deadlock: ${d.reason}`,
    '',
    ...tasks.listed.map(
      ({ task, wait, position }) =>
        `  ${wait}${task.done() ? '' : `, suspended${position === null ? '' : ` at ${shortSite(position)}`}`}`,
    ),
    ...(tasks.more > 0 ? [`  … and ${tasks.more} more task${tasks.more === 1 ? '' : 's'} of this deadlock`] : []),
  ].join('\n');
  const deadlock: DeadlockStop = { summary, reason: d.reason, details };
  if (d.position !== undefined) deadlock.position = d.position;
  const info: Omit<PauseInfo, 'tick'> = { reason: 'exception', description: `Deadlock: ${summary}`, deadlock };
  if (tasks.first !== undefined && !tasks.first.done()) info.taskId = tasks.first.id;
  return info;
}

/** A deadlock as an `exception` event, from its tasks as shown and its stop. */
function reportOf(tasks: DeadlockTasks, stop: Omit<PauseInfo, 'tick'>, stopped: boolean): HostEvents['exception'] {
  const summary = stop.deadlock!.summary;
  const traceback: Traceback = {
    title: `Deadlock: ${summary}`,
    error: `Deadlock: ${summary}`,
    frames: tasks.listed.map(({ wait, position }) => ({ name: wait, position, kind: 'coroutine' })),
    text: stop.deadlock!.details,
  };
  return { taskId: tasks.first?.id ?? 0, traceback, deadlock: { summary, stopped } };
}

/** The stop a deadlock makes. */
export function deadlockStopOf(
  d: Deadlock,
  taskById: (id: number) => Task<unknown> | undefined,
): Omit<PauseInfo, 'tick'> {
  return stopOf(d, deadlockTasks(d, taskById));
}

/**
 * A deadlock as an `exception` event: the first live task's id, a traceback whose frames are its tasks (each
 * named by what it waits for, at the line where it waits) and whose text is the stop's details.
 */
export function deadlockReportOf(
  d: Deadlock,
  taskById: (id: number) => Task<unknown> | undefined,
  stopped: boolean,
): HostEvents['exception'] {
  const tasks = deadlockTasks(d, taskById);
  return reportOf(tasks, stopOf(d, tasks), stopped);
}

/** Watches a run's loop for deadlocks: makes the Deadlock stop (when on) and reports each one. */
export class DeadlockWatch {
  on = false;

  constructor(
    private readonly loop: EventLoop,
    private readonly lints: LintCollector,
    private readonly taskById: (id: number) => Task<unknown> | undefined,
    /** The run's main task has ended: the loop is stopping, and tasks it left waiting are not a hang. */
    private readonly ending: () => boolean = () => false,
    /** Says a deadlock found (the host's `exception` event), whether it stops the run or not. */
    private readonly report: (event: HostEvents['exception']) => void = () => undefined,
  ) {}

  /** At a tick's end (LoopController.watchAtTickEnd): a stop when the loop is quiet and a deadlock is new. */
  atTickEnd(): Omit<PauseInfo, 'tick'> | null {
    if (!this.on || this.loop.liveTaskCount() === 0 || this.ending() || !loopIsQuiescent(this.loop)) return null;
    return this.stopFor(this.lints.checkDeadlocks(true));
  }

  /**
   * New deadlocks (the periodic check's, between ticks; or at a tick's end): each reported; a stop when on,
   * or null.
   */
  stopFor(fresh: AwaitGraph['deadlocks']): Omit<PauseInfo, 'tick'> | null {
    if (fresh.length === 0 || this.ending()) return null;
    const stops = fresh.map((d, i) => {
      const tasks = deadlockTasks(d, this.taskById);
      const stop = stopOf(d, tasks);
      this.report(reportOf(tasks, stop, this.on && i === 0));
      return stop;
    });
    return this.on ? stops[0]! : null;
  }
}
