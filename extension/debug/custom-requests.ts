// The custom DAP requests and events the `coroscope` adapter adds for the extension's own views
// (`coroscope/tasks`, `coroscope/tasksChanged`, `coroscope/traces`, `coroscope/setLineStepMode`):
// their names, their bodies, and the narrowing of a body received through customRequest.
//
// Invariant: a body received stays `unknown` until narrowed here (VS Code types it as `any`).

import type { AwaitInfo, LineStepMode, TaskState, TaskSummary } from '../../protocol/host-protocol';

export const TASKS_REQUEST = 'coroscope/tasks';
export const TASKS_CHANGED_EVENT = 'coroscope/tasksChanged';
/**
 * Event `coroscope/deadlock` {summary, details}: the run stopped on a deadlock (the extension shows a
 * notification).
 */
export const DEADLOCK_EVENT = 'coroscope/deadlock';
export const TRACES_REQUEST = 'coroscope/traces';
export const LINE_STEP_MODE_REQUEST = 'coroscope/setLineStepMode';
/**
 * Request `coroscope/followTask` {threadId: number | null}: "Follow This Task": Continue, Reverse Continue and
 * Step Over move that task alone (as with `singleThread`) until followed no more (null).
 */
export const FOLLOW_TASK_REQUEST = 'coroscope/followTask';

/** The task a `coroscope/followTask` body names (null: none), or undefined when it names nothing valid. */
export function narrowFollowTask(v: unknown): number | null | undefined {
  const id = isRecord(v) ? v.threadId : undefined;
  if (id === null) return null;
  return typeof id === 'number' && Number.isInteger(id) && id > 0 ? id : undefined;
}

/** The mode of a `coroscope/setLineStepMode` request, or null when its body names none. */
export function narrowLineStepMode(v: unknown): LineStepMode | null {
  const mode = isRecord(v) ? v.mode : undefined;
  return mode === 'stayWithTask' || mode === 'followLoop' ? mode : null;
}

/** The part of a TaskSummary the views use. */
export type TaskRow = Pick<
  TaskSummary,
  'id' | 'name' | 'state' | 'steps' | 'awaiting' | 'awaitedBy' | 'createdBy' | 'frames' | 'location' | 'outcome'
>;

export interface TasksBody {
  tasks: TaskRow[];
  tick: number;
  paused: boolean;
  /** False once the run has finished (the tasks are the last ones seen). */
  running: boolean;
}

const STATES: ReadonlySet<string> = new Set<TaskState>([
  'scheduled',
  'running',
  'suspended',
  'done',
  'cancelled',
  'failed',
]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function narrowAwait(v: unknown): AwaitInfo | null {
  if (!isRecord(v) || typeof v.kind !== 'string') return null;
  const a: AwaitInfo = { kind: v.kind, detail: typeof v.detail === 'string' ? v.detail : '' };
  if (typeof v.taskId === 'number') a.taskId = v.taskId;
  if (typeof v.resourceId === 'string') a.resourceId = v.resourceId;
  return a;
}

function narrowRow(v: unknown): TaskRow | null {
  if (
    !isRecord(v) ||
    typeof v.id !== 'number' ||
    typeof v.name !== 'string' ||
    typeof v.state !== 'string' ||
    !STATES.has(v.state)
  )
    return null;
  const row: TaskRow = {
    id: v.id,
    name: v.name,
    state: v.state as TaskState,
    steps: typeof v.steps === 'number' ? v.steps : 0,
    awaiting: narrowAwait(v.awaiting),
    awaitedBy: Array.isArray(v.awaitedBy) ? v.awaitedBy.filter((x): x is number => typeof x === 'number') : [],
    createdBy: typeof v.createdBy === 'number' ? v.createdBy : null,
    frames: Array.isArray(v.frames) ? v.frames.filter((x): x is string => typeof x === 'string') : [],
  };
  const loc = v.location;
  if (isRecord(loc) && typeof loc.file === 'string' && typeof loc.line === 'number')
    row.location = { file: loc.file, line: loc.line, column: typeof loc.column === 'number' ? loc.column : 1 };
  if (typeof v.outcome === 'string') row.outcome = v.outcome;
  return row;
}

/** Narrows the body of a `coroscope/tasks` answer; malformed rows are dropped. */
export function narrowTasksBody(v: unknown): TasksBody | null {
  if (!isRecord(v) || !Array.isArray(v.tasks)) return null;
  const tasks: TaskRow[] = [];
  for (const raw of v.tasks as unknown[]) {
    const row = narrowRow(raw);
    if (row !== null) tasks.push(row);
  }
  return {
    tasks,
    tick: typeof v.tick === 'number' ? v.tick : 0,
    paused: v.paused === true,
    running: v.running !== false,
  };
}
