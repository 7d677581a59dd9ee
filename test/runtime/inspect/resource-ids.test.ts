// runtime/inspect/resource-ids.ts: graph node ids are stable for an object's life, distinct between
// objects, and say what they are: a task by its id, a resource by the kind its inspection gives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { futureNodeId, resourceIdOf, resourceKind } from '../../../runtime/inspect/resource-ids';
import { EventLoop, Lock, Queue, VirtualClock, sleep } from '../../../runtime/index';

test('a resource keeps its id, another gets its own; the kind is what its inspection says', () => {
  const q = new Queue<number>();
  const other = new Queue<number>();
  const lock = new Lock();
  const id = resourceIdOf(q);
  assert.ok(id.startsWith('resource:queue:'), id);
  assert.equal(resourceIdOf(q), id, 'the same object, the same id');
  assert.notEqual(resourceIdOf(other), id);
  assert.equal(resourceKind(lock), 'lock');
  assert.ok(resourceIdOf(lock).startsWith('resource:lock:'));
  assert.equal(resourceKind({}), 'object', 'an object with no inspection');
});

test('a task is task:<its id>; another future a number of its own, kept', () => {
  const loop = new EventLoop({ clock: new VirtualClock() });
  try {
    const task = loop.createTask(sleep(1), { name: 't' });
    assert.equal(futureNodeId(task), `task:${task.id}`);
    const a = loop.createFuture<number>();
    const b = loop.createFuture<number>();
    const idA = futureNodeId(a);
    assert.ok(idA.startsWith('future:'), idA);
    assert.equal(futureNodeId(a), idA);
    assert.notEqual(futureNodeId(b), idA);
    task.cancel();
  } finally {
    loop.setExceptionHandler(() => undefined);
    loop.close();
  }
});
