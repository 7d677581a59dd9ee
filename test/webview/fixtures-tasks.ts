// Synthetic task summaries for the webview's unit tests and the render benchmark.

import type { Snapshot, TaskState, TaskSummary } from '../../protocol/host-protocol';

const STATES: TaskState[] = [
  'suspended',
  'suspended',
  'suspended',
  'scheduled',
  'done',
  'failed',
  'cancelled',
  'running',
];

export function makeTask(id: number, over: Partial<TaskSummary> = {}): TaskSummary {
  const state = STATES[id % STATES.length]!;
  return {
    id,
    name: id === 1 ? 'crawl' : `worker-${id - 1}`,
    state,
    steps: (id * 7) % 50,
    busyMs: ((id * 13) % 1000) / 10,
    sinceResumedMs: state === 'suspended' ? 5 : null,
    createdBy: id === 1 ? null : 1,
    awaiting:
      state === 'suspended'
        ? {
            kind: id % 2 === 0 ? 'queue.get' : 'socket.read',
            detail: `<Queue size=${id % 9}>`,
            resourceId: 'resource:queue:1',
          }
        : null,
    awaitedBy: [],
    frames: ['work', 'fetch', id % 3 === 0 ? 'readuntil' : 'get'],
    ...over,
  };
}

export function fullSnapshot(count: number, version = 1): Snapshot {
  const tasks: TaskSummary[] = [];
  for (let i = 1; i <= count; i++) tasks.push(makeTask(i));
  const counts = { scheduled: 0, running: 0, suspended: 0, done: 0, cancelled: 0, failed: 0 };
  for (const t of tasks) counts[t.state]++;
  return { version, full: true, tick: 10, paused: false, tasks, removed: [], counts, progress: null };
}
