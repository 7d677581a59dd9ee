import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INITIAL_UI, restoreUi, uiReducer } from '../../../webview/state/ui-state';

describe('panel UI state (reducer and restore)', () => {
  it('switches views and selects tasks; a new task forgets the frame', () => {
    let s = uiReducer(INITIAL_UI, { type: 'view', view: 'graph' });
    assert.equal(s.view, 'graph');
    s = uiReducer(s, { type: 'selectTask', id: 7 });
    s = uiReducer(s, { type: 'selectFrame', index: 2 });
    assert.equal(s.selectedFrame, 2);
    s = uiReducer(s, { type: 'selectTask', id: 8 });
    assert.deepEqual([s.selectedTask, s.selectedFrame], [8, null]);
  });

  it('returns the same object when nothing changes (no needless render or save)', () => {
    assert.equal(uiReducer(INITIAL_UI, { type: 'view', view: 'tasks' }), INITIAL_UI);
    assert.equal(uiReducer(INITIAL_UI, { type: 'selectTask', id: null }), INITIAL_UI);
  });

  it('filter and search reset the scroll position; sort toggles', () => {
    let s = uiReducer(INITIAL_UI, { type: 'scroll', top: 5000 });
    s = uiReducer(s, { type: 'search', search: 'queue' });
    assert.deepEqual([s.query.search, s.scrollTop], ['queue', 0]);
    s = uiReducer(s, { type: 'scroll', top: 300 });
    s = uiReducer(s, { type: 'filter', filter: 'failed' });
    assert.deepEqual([s.query.filter, s.scrollTop], ['failed', 0]);
    s = uiReducer(s, { type: 'sort', key: 'id' });
    assert.equal(s.query.dir, 'desc');
  });

  it('a new run keeps how the user looks and forgets what they looked at', () => {
    let s = uiReducer(INITIAL_UI, { type: 'view', view: 'exceptions' });
    s = uiReducer(s, { type: 'search', search: 'x' });
    s = uiReducer(s, { type: 'selectTask', id: 3 });
    s = uiReducer(s, { type: 'reset' });
    assert.deepEqual([s.view, s.query.search, s.selectedTask], ['exceptions', 'x', null]);
  });

  it("a state kept from another run (a panel hidden or reloaded meanwhile) shows nothing of it; the same run's is kept", () => {
    let s = uiReducer(INITIAL_UI, { type: 'run', runId: 4 });
    s = uiReducer(uiReducer(uiReducer(s, { type: 'view', view: 'exceptions' }), { type: 'selectTask', id: 13 }), {
      type: 'selectException',
      index: 2,
    });
    // Hidden (the webview is destroyed), shown again: the state comes back through setState/getState.
    const kept = restoreUi(JSON.parse(JSON.stringify(s)));
    assert.equal(uiReducer(kept, { type: 'run', runId: 4 }), kept, 'the same run: the selection stays');
    assert.equal(kept.selectedTask, 13);
    const next = uiReducer(kept, { type: 'run', runId: 5 });
    assert.deepEqual(
      [next.runId, next.view, next.selectedTask, next.selectedFrame, next.selectedException],
      [5, 'exceptions', null, null, null],
    );
    // A state an older panel kept (no run id) is of no known run.
    const older = restoreUi({ version: 1, view: 'tasks', selectedTask: 13 });
    assert.equal(uiReducer(older, { type: 'run', runId: 1 }).selectedTask, null);
  });

  it('the table width stays within bounds', () => {
    assert.equal(uiReducer(INITIAL_UI, { type: 'tableWidth', percent: 5 }).tableWidth, 25);
    assert.equal(uiReducer(INITIAL_UI, { type: 'tableWidth', percent: 99 }).tableWidth, 80);
  });

  it('restores a saved state, and anything damaged falls back field by field', () => {
    const saved = uiReducer(uiReducer(INITIAL_UI, { type: 'view', view: 'lints' }), { type: 'search', search: 'abc' });
    assert.deepEqual(restoreUi(JSON.parse(JSON.stringify(saved))), saved);
    assert.deepEqual(restoreUi(undefined), INITIAL_UI);
    assert.deepEqual(restoreUi('nonsense'), INITIAL_UI);
    const odd = restoreUi({
      view: 'nope',
      selectedTask: -3,
      query: { sort: 'evil', dir: 'sideways', filter: 42, search: 7 },
      scrollTop: 'x',
      tableWidth: 1000,
    });
    assert.deepEqual(odd, { ...INITIAL_UI, tableWidth: 80 });
  });
});
