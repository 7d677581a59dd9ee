// TaskHistory: at most `capacity` finished tasks, oldest evicted first and announced; a task
// added again replaces its entry and counts as the newest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TaskHistory } from '../../../runtime/inspect/history';

const summary = (id: number, state = 'done') => ({ id, state });

test('keeps at most capacity entries, evicting the oldest first and returning their ids', () => {
  const h = new TaskHistory<{ id: number; state: string }>(3);
  assert.deepEqual(h.add(summary(1)), []);
  assert.deepEqual(h.add(summary(2)), []);
  assert.deepEqual(h.add(summary(3)), []);
  assert.deepEqual(h.add(summary(4)), [1]);
  assert.equal(h.size, 3);
  assert.deepEqual(
    h.list().map((s) => s.id),
    [2, 3, 4],
  );
  assert.equal(h.has(1), false);
  assert.equal(h.get(1), undefined);
});

test('adding a task again replaces its summary and makes it the newest', () => {
  const h = new TaskHistory<{ id: number; state: string }>(3);
  for (const id of [1, 2, 3]) h.add(summary(id));
  assert.deepEqual(h.add(summary(1, 'cancelled')), [], 'replaced, not a new entry');
  assert.equal(h.get(1)?.state, 'cancelled');
  assert.deepEqual(h.add(summary(4)), [2], 'task 1 was refreshed, so 2 is now the oldest');
  assert.deepEqual(
    h.list().map((s) => s.id),
    [3, 1, 4],
  );
  h.clear();
  assert.equal(h.size, 0);
});

test('capacity 0 keeps nothing; a capacity that is not an integer >= 0 is refused', () => {
  const h = new TaskHistory<{ id: number; state: string }>(0);
  assert.deepEqual(h.add(summary(9)), [9]);
  assert.equal(h.size, 0);
  assert.throws(() => new TaskHistory(-1), RangeError);
  assert.throws(() => new TaskHistory(1.5), RangeError);
});
