import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_QUERY,
  matchesFilter,
  selectRows,
  TaskTableModel,
  toggleSort,
  type TaskQuery,
} from '../../../webview/state/task-query';
import { fullSnapshot, makeTask } from '../fixtures-tasks';

describe('task table query (sort, filter, search)', () => {
  const tasks = fullSnapshot(40).tasks;

  it('sorts by any column, ties by id, in both directions', () => {
    const bySteps = selectRows(tasks, { ...DEFAULT_QUERY, sort: 'steps', dir: 'desc' });
    for (let i = 1; i < bySteps.length; i++) {
      const a = bySteps[i - 1]!;
      const b = bySteps[i]!;
      assert.ok(a.steps > b.steps || (a.steps === b.steps && a.id < b.id));
    }
    const byName = selectRows(tasks, { ...DEFAULT_QUERY, sort: 'name' });
    assert.equal(byName[0]!.name, 'crawl');
    const byState = selectRows(tasks, { ...DEFAULT_QUERY, sort: 'state' });
    assert.equal(byState[0]!.state, 'running');
  });

  it('filters by state groups', () => {
    const live = selectRows(tasks, { ...DEFAULT_QUERY, filter: 'live' });
    assert.ok(live.length > 0 && live.every((t) => ['scheduled', 'running', 'suspended'].includes(t.state)));
    const finished = selectRows(tasks, { ...DEFAULT_QUERY, filter: 'finished' });
    assert.equal(live.length + finished.length, tasks.length);
    assert.ok(selectRows(tasks, { ...DEFAULT_QUERY, filter: 'failed' }).every((t) => t.state === 'failed'));
    assert.equal(matchesFilter(makeTask(3), 'all'), true);
  });

  it('searches id, name, await and frames; every term must match, case-insensitively', () => {
    assert.deepEqual(
      selectRows(tasks, { ...DEFAULT_QUERY, search: '#7' }).map((t) => t.id),
      [7],
    );
    const sockets = selectRows(tasks, { ...DEFAULT_QUERY, search: 'SOCKET.read' });
    assert.ok(sockets.length > 0 && sockets.every((t) => t.awaiting?.kind === 'socket.read'));
    const both = selectRows(tasks, { ...DEFAULT_QUERY, search: 'readuntil socket' });
    assert.ok(both.every((t) => t.frames.includes('readuntil') && t.awaiting?.kind === 'socket.read'));
    assert.deepEqual(selectRows(tasks, { ...DEFAULT_QUERY, search: 'no such thing' }), []);
  });

  it('toggleSort flips the same column and starts numeric columns descending', () => {
    let q: TaskQuery = DEFAULT_QUERY;
    q = toggleSort(q, 'id');
    assert.equal(q.dir, 'desc');
    q = toggleSort(q, 'busy');
    assert.deepEqual([q.sort, q.dir], ['busy', 'desc']);
    q = toggleSort(q, 'name');
    assert.deepEqual([q.sort, q.dir], ['name', 'asc']);
  });

  it('the model applies full snapshots and deltas, and caches rows until something changes', () => {
    const m = new TaskTableModel();
    m.apply(fullSnapshot(10, 1));
    const rows = m.rows();
    assert.equal(rows.length, 10);
    assert.equal(m.rows(), rows, 'same array while nothing changed');
    m.apply({
      version: 2,
      full: false,
      tick: 11,
      paused: false,
      tasks: [makeTask(3, { name: 'renamed' }), makeTask(11)],
      removed: [4],
      counts: fullSnapshot(0).counts,
      progress: null,
    });
    const next = m.rows();
    assert.notEqual(next, rows);
    assert.equal(next.length, 10);
    assert.equal(m.get(3)!.name, 'renamed');
    assert.equal(m.rowOf(4), -1);
    assert.equal(m.rowOf(11), 9);
    m.setQuery({ ...DEFAULT_QUERY, sort: 'id', dir: 'desc' });
    assert.equal(m.rows()[0]!.id, 11);
  });

  it('selects 10,000 tasks (filter + sort + search) in n log n comparisons, not n squared', () => {
    // Counted, not timed (a wall-clock bound fails on a loaded machine): each read of the sort key
    // is one side of a comparison, and a sort of n rows makes about n log n of them.
    const snapshot = fullSnapshot(10_000);
    let reads = 0;
    for (const task of snapshot.tasks) {
      const busyMs = task.busyMs;
      Object.defineProperty(task, 'busyMs', { enumerable: true, get: () => (reads++, busyMs) });
    }
    const m = new TaskTableModel();
    m.apply(snapshot);
    m.setQuery({ sort: 'busy', dir: 'desc', filter: 'live', search: 'worker' });
    const n = m.rows().length;
    assert.ok(n > 1000, `${n} rows`);
    assert.ok(reads >= n - 1, `every row was compared (${reads} reads of busyMs for ${n} rows)`);
    assert.ok(reads <= 4 * n * Math.log2(n), `${reads} reads of busyMs for ${n} rows`);
  });
});
