// Unit tests of protocol/snapshot-mirror.ts: a client's copy of the host's tasks, kept with
// full and incremental snapshots (the panel, the extension and the debug adapter use it).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Snapshot, TaskSummary } from '../../protocol/host-protocol';
import { isFinished, SnapshotMirror } from '../../protocol/snapshot-mirror';
import { fullSnapshot, makeTask } from '../webview/fixtures-tasks';

function snap(over: Partial<Snapshot>): Snapshot {
  return {
    version: 1,
    full: true,
    tick: 0,
    paused: false,
    tasks: [],
    removed: [],
    counts: { scheduled: 0, running: 0, suspended: 0, done: 0, cancelled: 0, failed: 0 },
    progress: null,
    ...over,
  };
}

function task(id: number, state: TaskSummary['state'] = 'suspended'): TaskSummary {
  return makeTask(id, { state });
}

describe('SnapshotMirror', () => {
  it('applies full snapshots and deltas; deltas are idempotent', () => {
    const m = new SnapshotMirror();
    let c = m.apply(fullSnapshot(5, 1));
    assert.equal(c.full, true);
    assert.equal(m.tasks.size, 5);
    const delta = { ...fullSnapshot(0, 2), full: false, tasks: [makeTask(2, { steps: 99 })], removed: [5] };
    c = m.apply(delta);
    assert.deepEqual([c.upserted, c.removed], [[2], [5]]);
    c = m.apply(delta);
    assert.deepEqual(c.removed, [], 'removing twice reports nothing');
    assert.equal(m.tasks.get(2)!.steps, 99);
    assert.equal(m.version, 2);
    c = m.apply(fullSnapshot(2, 3));
    assert.deepEqual(c.removed.sort(), [3, 4]);
    assert.equal(m.toFullSnapshot().tasks.length, 2);
    assert.deepEqual(
      m.liveTasks().map((t) => t.id),
      [1, 2],
    );
  });

  it('asks for a full snapshot first, then deltas since the last version', () => {
    const m = new SnapshotMirror();
    assert.equal(m.since, undefined);
    m.apply(snap({ version: 5, tasks: [task(1), task(2)], tick: 3, paused: true }));
    assert.equal(m.since, 5);
    assert.equal(m.tick, 3);
    assert.equal(m.paused, true);
    m.apply(snap({ version: 7, full: false, tasks: [task(2, 'done'), task(3)], removed: [1] }));
    assert.deepEqual(
      m.allTasks().map((x) => [x.id, x.state]),
      [
        [2, 'done'],
        [3, 'suspended'],
      ],
    );
    assert.deepEqual(
      m.liveTasks().map((x) => x.id),
      [3],
    );
    m.apply(snap({ version: 9, full: true, tasks: [task(8)] }));
    assert.deepEqual(
      m.allTasks().map((x) => x.id),
      [8],
    );
  });

  it('keeps summaries that came with events, and forgets everything on clear (a new run)', () => {
    const m = new SnapshotMirror();
    m.apply(snap({ version: 5, tasks: [task(1)] }));
    m.upsert(task(4, 'failed'));
    assert.equal(m.tasks.size, 2);
    assert.equal(isFinished(m.tasks.get(4)!), true);
    assert.equal(isFinished(m.tasks.get(1)!), false);
    m.clear();
    assert.equal(m.tasks.size, 0);
    assert.equal(m.since, undefined);
  });
});
