// Grouping of tasks for the "Coroutines" view: by state, then (for suspended tasks) by what
// they await, so that 100 workers idle in `queue.get` are one line "queue.get (98)" and the
// two in `socket.read` stand out. Pure: the view (coroutines-view.ts) only renders it.
//
// Rules:
// - State groups come in a fixed order (running, scheduled, suspended, failed, cancelled,
//   done); empty states are left out.
// - Suspended tasks are grouped by the resource they wait on and how (AwaitInfo.resourceId
//   and kind: the getters of one queue share a group, its join()er has its own), else by
//   the awaited task, else by the await kind; groups are ordered by size (largest first),
//   then label.
// - Tasks within a group are ordered by id.

import type { TaskState } from '../../protocol/host-protocol';
import type { TaskRow } from './custom-requests';

export const STATE_ORDER: readonly TaskState[] = ['running', 'scheduled', 'suspended', 'failed', 'cancelled', 'done'];

export interface AwaitGroup {
  key: string;
  label: string;
  tasks: TaskRow[];
}

export interface StateGroup {
  state: TaskState;
  /** For suspended tasks: their await groups. Empty for other states. */
  awaits: AwaitGroup[];
  /** Every task of the state, by id. */
  tasks: TaskRow[];
}

function awaitKey(t: TaskRow): { key: string; label: string } {
  const a = t.awaiting;
  if (a === null) return { key: 'nothing', label: 'nothing known' };
  if (a.resourceId !== undefined)
    return {
      key: `resource:${a.resourceId}:${a.kind}`,
      label: a.detail === '' ? a.kind : `${a.kind} ${shorten(a.detail)}`,
    };
  if (a.taskId !== undefined) return { key: `task:${a.taskId}`, label: `${a.kind} → task #${a.taskId}` };
  return { key: `kind:${a.kind}`, label: a.kind };
}

function shorten(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 50 ? `${t.slice(0, 49)}…` : t;
}

export function groupTasks(rows: readonly TaskRow[]): StateGroup[] {
  const byState = new Map<TaskState, TaskRow[]>();
  for (const r of rows) {
    let l = byState.get(r.state);
    if (l === undefined) byState.set(r.state, (l = []));
    l.push(r);
  }
  const out: StateGroup[] = [];
  for (const state of STATE_ORDER) {
    const tasks = (byState.get(state) ?? []).sort((a, b) => a.id - b.id);
    if (tasks.length === 0) continue;
    const awaits: AwaitGroup[] = [];
    if (state === 'suspended') {
      const groups = new Map<string, AwaitGroup>();
      for (const t of tasks) {
        const { key, label } = awaitKey(t);
        let g = groups.get(key);
        if (g === undefined) groups.set(key, (g = { key, label, tasks: [] }));
        g.tasks.push(t);
      }
      awaits.push(
        ...[...groups.values()].sort((a, b) => b.tasks.length - a.tasks.length || a.label.localeCompare(b.label)),
      );
    }
    out.push({ state, awaits, tasks });
  }
  return out;
}
