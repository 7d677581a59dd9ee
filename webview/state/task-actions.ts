// TaskActions: which actions the task detail offers for a task, from the run's phase, the moment shown
// and whether a debug session debugs the run: Step Task (the loop paused at the present), Cancel (a live
// task of the present), Follow This Task (a debug session debugs the run: its moves then follow the task,
// past or present, as the Call Stack's thread menu does).
//
// Invariants: pure (no DOM); the order is the order the buttons show.

import type { TaskState } from '../../protocol/host-protocol';
import type { RunPhase } from '../../protocol/run-phase';

export type TaskAction = 'stepTask' | 'cancel' | 'follow';

export interface TaskActionContext {
  readonly state: TaskState;
  readonly phase: RunPhase;
  readonly viewingPast: boolean;
  readonly debugged: boolean;
}

export function taskActions(c: TaskActionContext): TaskAction[] {
  const out: TaskAction[] = [];
  const paused = c.phase === 'paused' && !c.viewingPast;
  const live = c.state === 'suspended' || c.state === 'scheduled' || c.state === 'running';
  if (live && paused) out.push('stepTask');
  if (live && !c.viewingPast && (c.phase === 'running' || paused)) out.push('cancel');
  if (c.debugged) out.push('follow');
  return out;
}
