// The pure pieces of "where was this set?" (extension/debug/value-changes.ts): expressions of
// Variables items, readings compared, a frame found by its depth from the root, data ids.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  childExpression,
  dataIdOf,
  frameIndexOf,
  mayAssign,
  parseDataId,
} from '../../../extension/debug/value-changes';
import { sameReading } from '../../../protocol/line-readings';

describe('value changes', () => {
  it("names a Variables item's value by an expression read in its frame", () => {
    assert.equal(childExpression('', 'total'), 'total');
    assert.equal(childExpression('box', 'count'), 'box.count');
    assert.equal(childExpression('list', '3'), 'list[3]');
    assert.equal(childExpression('headers', 'content-type'), 'headers["content-type"]');
    // Labels no expression reads back: not watchable.
    assert.equal(childExpression('m', '[[Entries]]'), '');
    assert.equal(childExpression('m', 'a → 1'), '');
  });

  it('a change is another value, another type, or the value becoming unreachable', () => {
    const one = { reachable: true, value: '1', type: 'number' } as const;
    assert.equal(sameReading(one, { reachable: true, value: '1', type: 'number' }), true);
    assert.equal(sameReading(one, { reachable: true, value: '2', type: 'number' }), false);
    assert.equal(sameReading(one, { reachable: true, value: '1', type: 'string' }), false);
    assert.equal(sameReading(one, { reachable: false, why: 'gone' }), false);
    assert.equal(sameReading({ reachable: false, why: 'a' }, { reachable: false, why: 'b' }), true);
  });

  it('finds the frame by its depth from the root and its function, or says it is gone', () => {
    const w = { expression: 'x', functionName: 'fetch', depth: 1 };
    assert.equal(frameIndexOf(w, ['get', 'fetch', 'work']), 1);
    assert.equal(frameIndexOf(w, ['parse', 'get', 'fetch', 'work']), 2);
    assert.equal(frameIndexOf(w, ['work']), null);
    assert.equal(frameIndexOf(w, ['other', 'work']), null);
  });

  it("round-trips a data breakpoint's id and refuses any other", () => {
    const w = { expression: 'box.count', functionName: 'counter', depth: 0 };
    assert.deepEqual(parseDataId(dataIdOf(w)), w);
    assert.equal(parseDataId('other:1'), null);
    assert.equal(parseDataId('coroscope-value:not json'), null);
    assert.equal(parseDataId('coroscope-value:["x","f",-1]'), null);
    assert.equal(parseDataId(null), null);
    assert.equal(parseDataId(42), null);
  });
});

describe('mayAssign', () => {
  it('a local: any line may assign it (only its frame writes it)', () => {
    assert.equal(mayAssign('yield* sleep(1);', 'total'), true);
  });
  it('a field: the lines that assign, increment or destructure into it, and no other', () => {
    for (const text of [
      'state.status = "busy";',
      'this.state.status += 1;',
      'box.count++;',
      '--box.count;',
      'state["status"] = x;',
      'state.status ??= "idle";',
      '({ a: state.status } = next);',
      '[state.status] = pair;',
      'state.status = yield* fetchStatus();',
    ])
      assert.equal(mayAssign(text, text.includes('count') ? 'box.count' : 'state.status'), true, text);
    for (const text of [
      'yield* sleep(0.01); // the reader waits',
      'if (state.status === "busy") return;',
      'seen.push(state.status);',
      'const statusText = state.statusText;',
      'yield* helper(state);',
    ])
      assert.equal(mayAssign(text, 'state.status'), false, text);
  });
  it('a line whose text is not known may assign it', () => {
    assert.equal(mayAssign(null, 'state.status'), true);
  });
});
