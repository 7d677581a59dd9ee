// Tests of runtime/host/main-thread/snapshots.ts: versions grow with changes only; a delta since a
// version lists the tasks changed after it and the ids removed after it; timings alone are
// no change; an unknown or too old `since` gets a full snapshot; a new tracker (a new run)
// starts above every version given before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SnapshotTracker } from '../../../../runtime/host/main-thread/snapshots';
import type { TaskSummary } from '../../../../protocol/host-protocol';

function task(id: number, patch: Partial<TaskSummary> = {}): TaskSummary {
  return {
    id,
    name: `t${id}`,
    state: 'suspended',
    steps: 1,
    busyMs: 0,
    sinceResumedMs: 0,
    createdBy: null,
    awaiting: null,
    awaitedBy: [],
    frames: ['f'],
    ...patch,
  };
}
const info = { tick: 1, paused: false, progress: null };

test('deltas by version', () => {
  const tr = new SnapshotTracker();
  const s1 = tr.snapshot(undefined, [task(1), task(2), task(3)], info);
  assert.equal(s1.full, true);
  assert.equal(s1.tasks.length, 3);
  assert.deepEqual(s1.counts, { scheduled: 0, running: 0, suspended: 3, done: 0, cancelled: 0, failed: 0 });
  // Only timings moved: same version, empty delta.
  const s2 = tr.snapshot(s1.version, [task(1, { busyMs: 5, sinceResumedMs: 9 }), task(2), task(3)], info);
  assert.equal(s2.full, false);
  assert.equal(s2.version, s1.version);
  assert.deepEqual(s2.tasks, []);
  // Task 2 stepped, task 3 went away, task 4 came.
  const s3 = tr.snapshot(s1.version, [task(1), task(2, { steps: 2, frames: ['f', 'g'] }), task(4)], info);
  assert.equal(s3.version, s1.version + 1);
  assert.deepEqual(
    s3.tasks.map((t) => t.id),
    [2, 4],
  );
  assert.deepEqual(s3.removed, [3]);
  // A client that saw s3 gets nothing new; one still at s1 gets the same delta as s3.
  assert.deepEqual(
    tr.snapshot(s3.version, [task(1), task(2, { steps: 2, frames: ['f', 'g'] }), task(4)], info).tasks,
    [],
  );
  const again = tr.snapshot(s1.version, [task(1), task(2, { steps: 2, frames: ['f', 'g'] }), task(4)], info);
  assert.deepEqual(
    again.tasks.map((t) => t.id),
    [2, 4],
  );
  assert.deepEqual(again.removed, [3]);
  // A version from the future (another run's): full.
  assert.equal(tr.snapshot(s3.version + 100, [task(1)], info).full, true);
  // A new tracker starts above: an old `since` gets a full snapshot.
  const next = new SnapshotTracker();
  const n1 = next.snapshot(s3.version, [task(9)], info);
  assert.equal(n1.full, true);
  assert.ok(n1.version > s3.version);
});
