// The merge of the snapshot deltas the inspector panel coalesces (extension/snapshot-coalescing.ts): the
// first pending is taken as it is, a full one replaces what was pending; deltas merge as if applied one
// after the other: a task's latest row wins in its first place, tasks removed are gone and every removed
// id is kept in order, the merge is full only when the first was, the other fields are the latest's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Snapshot, TaskSummary } from '../../protocol/host-protocol';
import { coalescedSnapshot } from '../../extension/snapshot-coalescing';
import { makeTask } from '../webview/fixtures-tasks';

const COUNTS = { scheduled: 0, running: 0, suspended: 1, done: 0, cancelled: 0, failed: 0 };

function snapshot(version: number, full: boolean, tasks: TaskSummary[], removed: number[] = []): Snapshot {
  return { version, full, tick: version * 10, paused: false, tasks, removed, counts: COUNTS, progress: null };
}

/** The rows of a snapshot as [id, steps]. */
const rows = (s: Snapshot): Array<[number, number]> => s.tasks.map((t) => [t.id, t.steps]);

describe('coalescing snapshot deltas', () => {
  it('the first is pending as it is; a full one replaces what was pending', () => {
    const first = snapshot(1, false, [makeTask(2)], [9]);
    assert.equal(coalescedSnapshot(null, first), first);
    const full = snapshot(2, true, [makeTask(5)]);
    assert.equal(coalescedSnapshot(first, full), full);
  });

  it("deltas merge: a task's latest row in its first place, removed tasks gone, removed ids kept in order", () => {
    const a = snapshot(
      1,
      false,
      [makeTask(2, { steps: 1 }), makeTask(3, { steps: 1 }), makeTask(4, { steps: 1 })],
      [7],
    );
    const b = snapshot(2, false, [makeTask(5, { steps: 1 }), makeTask(2, { steps: 2 })], [3, 8]);
    const merged = coalescedSnapshot(a, b);
    assert.deepEqual(
      { version: merged.version, tick: merged.tick, full: merged.full, rows: rows(merged), removed: merged.removed },
      {
        version: 2,
        tick: 20,
        full: false,
        rows: [
          [2, 2],
          [4, 1],
          [5, 1],
        ],
        removed: [7, 3, 8],
      },
    );
    // The pending snapshot is not changed in place (it may have been handed on).
    assert.deepEqual(rows(a), [
      [2, 1],
      [3, 1],
      [4, 1],
    ]);
  });

  it('a full snapshot then deltas stays full, with the deltas applied', () => {
    const full = snapshot(1, true, [makeTask(2, { steps: 1 }), makeTask(3, { steps: 1 })]);
    const merged = coalescedSnapshot(coalescedSnapshot(full, snapshot(2, false, [makeTask(3, { steps: 4 })])), {
      ...snapshot(3, false, [], [2]),
      paused: true,
    });
    assert.deepEqual(
      { full: merged.full, paused: merged.paused, rows: rows(merged), removed: merged.removed },
      { full: true, paused: true, rows: [[3, 4]], removed: [2] },
    );
  });
});
