// Unit tests of extension/debug/coroutine-groups.ts: the Coroutines view's grouping by state
// and by what suspended tasks await; and of custom-requests.ts's narrowing of its data.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupTasks } from '../../../extension/debug/coroutine-groups';
import { narrowTasksBody, type TaskRow } from '../../../extension/debug/custom-requests';

function row(id: number, state: TaskRow['state'], awaiting: TaskRow['awaiting'] = null): TaskRow {
  return { id, name: `t${id}`, state, steps: 0, awaiting, awaitedBy: [], createdBy: null, frames: [] };
}

describe('grouping tasks for the Coroutines view', () => {
  it('orders states and groups suspended tasks by the resource, task or kind they await', () => {
    const rows: TaskRow[] = [row(1, 'suspended', { kind: 'queue.join', detail: '<Queue>', resourceId: 'q1' })];
    for (let i = 2; i <= 101; i++)
      rows.push(row(i, 'suspended', { kind: 'queue.get', detail: '<Queue>', resourceId: 'q1' }));
    rows.push(row(102, 'suspended', { kind: 'socket.read', detail: 'fd=3', resourceId: 'sock3' }));
    rows.push(
      row(103, 'suspended', { kind: 'sleep', detail: 'due 1.5' }),
      row(104, 'suspended', { kind: 'sleep', detail: 'due 2.0' }),
    );
    rows.push(row(105, 'suspended', { kind: 'task', detail: '', taskId: 102 }));
    rows.push(row(106, 'done'), row(107, 'running'), row(108, 'failed'), row(109, 'scheduled'));
    const groups = groupTasks(rows.reverse());
    assert.deepEqual(
      groups.map((g) => `${g.state}:${g.tasks.length}`),
      ['running:1', 'scheduled:1', 'suspended:105', 'failed:1', 'done:1'],
    );
    const suspended = groups[2]!;
    assert.deepEqual(
      suspended.awaits.map((a) => `${a.label}:${a.tasks.length}`),
      ['queue.get <Queue>:100', 'sleep:2', 'queue.join <Queue>:1', 'socket.read fd=3:1', 'task → task #102:1'],
    );
    assert.deepEqual(
      suspended.awaits[0]!.tasks.slice(0, 3).map((t) => t.id),
      [2, 3, 4],
    );
    assert.deepEqual(groups[0]!.awaits, []);
  });

  it('narrows a coroscope/tasks answer, dropping malformed rows', () => {
    const body = narrowTasksBody({
      tasks: [
        {
          id: 1,
          name: 'crawl',
          state: 'suspended',
          steps: 2,
          awaiting: { kind: 'queue.join', detail: '' },
          awaitedBy: [],
          createdBy: null,
          frames: ['crawl'],
          location: { file: '/x.ts', line: 3, column: 1 },
        },
        { id: 'x', name: 'bad' },
        { id: 2, name: 'w', state: 'weird' },
      ],
      tick: 4,
      paused: true,
      running: true,
    });
    assert.ok(body);
    assert.deepEqual(
      body.tasks.map((t) => t.id),
      [1],
    );
    assert.deepEqual(body.tasks[0]!.location, { file: '/x.ts', line: 3, column: 1 });
    assert.equal(body.paused, true);
    assert.equal(narrowTasksBody(null), null);
    assert.equal(narrowTasksBody({ tasks: 3 }), null);
  });
});
