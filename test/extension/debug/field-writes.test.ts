// The pure pieces of finding a field's writer across tasks (extension/debug/field-writes.ts): a watched
// expression split into its object, field and root local, and the object a line assigns the field of
// (the writer logpoints are planted only on such lines; anything else is no write).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assignedObject, fieldOf } from '../../../extension/debug/field-writes';

describe('field writes', () => {
  it('splits a watched field into its object, field and root local', () => {
    assert.deepEqual(fieldOf('shared.status'), { object: 'shared', field: 'status', root: 'shared' });
    assert.deepEqual(fieldOf('this.state.done'), { object: 'this.state', field: 'done', root: 'this' });
    assert.equal(fieldOf('total'), null, 'a local is not a field');
    assert.equal(fieldOf('box["a b"]'), null, 'a key read by brackets is not followed');
  });

  it('names the object a line assigns the field of', () => {
    assert.equal(assignedObject("  target.status = 'written';", 'status'), 'target');
    assert.equal(assignedObject('this.crawler.done += 1;', 'done'), 'this.crawler');
    assert.equal(assignedObject('state.count++;', 'count'), 'state');
    assert.equal(assignedObject('--state.count;', 'count'), 'state');
    assert.equal(assignedObject('a.b.status ??= x', 'status'), 'a.b');
  });

  it('sees no write where the line only reads or compares the field', () => {
    assert.equal(assignedObject('if (target.status === "x") return;', 'status'), null);
    assert.equal(assignedObject('const s = target.status;', 'status'), null);
    assert.equal(assignedObject('target.statusCode = 3;', 'status'), null);
    assert.equal(assignedObject('x = target.status <= 3;', 'status'), null);
  });
});
