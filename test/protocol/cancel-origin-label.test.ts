// Tests of protocol/cancel-origin-label.ts: each origin reads as itself; unknown never reads
// like a tool or a task, and a task is named by the view's own label.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cancelOriginLabel } from '../../protocol/cancel-origin-label';

test('cancelOriginLabel: the inspector, the debugger, the CLI, a task by its label, unknown', () => {
  const label = (id: number): string => `Task-${id} (#${id})`;
  assert.equal(cancelOriginLabel({ kind: 'inspector' }, label), 'the inspector');
  assert.equal(cancelOriginLabel({ kind: 'debugger' }, label), 'the debugger');
  assert.equal(cancelOriginLabel({ kind: 'cli' }, label), 'the CLI');
  assert.equal(cancelOriginLabel({ kind: 'task', taskId: 3 }, label), 'Task-3 (#3)');
  assert.match(cancelOriginLabel({ kind: 'unknown' }, label), /^unknown/);
});
