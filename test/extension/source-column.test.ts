// Tests of extension/source-column.ts: a source opened from the panel goes to another editor
// group when there is one (none resized), and beside the panel when the panel's group is the
// only one, the panel keeping most of the width.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PANEL_SHARE, placeSource } from '../../extension/source-column';

describe('placeSource', () => {
  it("never the panel's group: another group when there is one, nothing resized", () => {
    assert.deepEqual(placeSource(2, [1, 2]), { column: 1, layout: null });
    assert.deepEqual(placeSource(1, [1, 2]), { column: 2, layout: null });
    assert.deepEqual(placeSource(1, [1, 2, 3], 3), { column: 3, layout: null });
    assert.deepEqual(placeSource(2, [1, 2, 3], 2), { column: 1, layout: null });
  });

  it('the panel alone: a group beside it, the panel keeping most of the width', () => {
    const p = placeSource(1, [1]);
    assert.equal(p.column, 2);
    assert.ok(p.layout !== null && p.layout.groups[0]!.size === PANEL_SHARE && PANEL_SHARE > 0.5);
  });

  it('no panel shown: the first group', () => {
    assert.deepEqual(placeSource(undefined, [1, 2]), { column: 1, layout: null });
  });
});
