// Unit tests of extension/debug/task-table.ts: the adapter's copy of the host's tasks, kept
// with full and incremental snapshots.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Snapshot, TaskSummary } from '../../../protocol/host-protocol';
import { TaskTable } from '../../../extension/debug/task-table';

function task(id: number, state: TaskSummary['state'] = 'suspended'): TaskSummary {
  return { id, name: `t${id}`, state, steps: 1, busyMs: 0, sinceResumedMs: null, createdBy: null, awaiting: null, awaitedBy: [], frames: [] };
}

function snap(over: Partial<Snapshot>): Snapshot {
  return { version: 1, full: true, tick: 0, paused: false, tasks: [], removed: [], counts: { scheduled: 0, running: 0, suspended: 0, done: 0, cancelled: 0, failed: 0 }, progress: null, ...over };
}

describe('TaskTable', () => {
  it('asks for a full snapshot first, then deltas since the last version', () => {
    const t = new TaskTable();
    assert.equal(t.since, undefined);
    t.apply(snap({ version: 5, tasks: [task(1), task(2)], tick: 3, paused: true }));
    assert.equal(t.since, 5);
    assert.equal(t.tick, 3);
    assert.equal(t.paused, true);
    t.apply(snap({ version: 7, full: false, tasks: [task(2, 'done'), task(3)], removed: [1] }));
    assert.deepEqual(t.all().map((x) => [x.id, x.state]), [[2, 'done'], [3, 'suspended']]);
    assert.deepEqual(t.live().map((x) => x.id), [3]);
    t.apply(snap({ version: 9, full: true, tasks: [task(8)] }));
    assert.deepEqual(t.all().map((x) => x.id), [8]);
  });

  it('forgets everything on reset (a new run)', () => {
    const t = new TaskTable();
    t.apply(snap({ version: 5, tasks: [task(1)] }));
    t.upsert(task(4));
    assert.equal(t.size, 2);
    t.reset();
    assert.equal(t.size, 0);
    assert.equal(t.since, undefined);
  });
});
