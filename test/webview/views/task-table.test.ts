// The task table (webview/views/task-table.ts): a row per task of the snapshot (only the rows in
// view are in the document), the search and the state filter, and selection by click and keyboard.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { closeDom } from '../dom-env';
import { fullSnapshot } from '../fixtures-tasks';
import { openPanel, panelInit, type OpenPanel } from '../panel-harness';

afterEach(() => closeDom());

function shownRows(panel: OpenPanel): string[][] {
  return panel
    .all('.task-table .vrows .task-row')
    .filter((r) => !r.hidden)
    .map((r) => [...r.querySelectorAll('.cell')].slice(0, 4).map((c) => c.textContent ?? ''));
}

function key(panel: OpenPanel, k: string): void {
  const body = panel.one('.task-table .vbody');
  body.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
}

describe('the task table', () => {
  it("shows a row per task: id, name, state and what it awaits (an await's detail as text)", async () => {
    const panel = await openPanel(panelInit({ snapshot: fullSnapshot(4) }));
    assert.deepEqual(shownRows(panel), [
      ['#1', 'crawl', 'Suspended', 'socket.read <Queue size=1>'],
      ['#2', 'worker-1', 'Suspended', 'queue.get <Queue size=2>'],
      ['#3', 'worker-2', 'Scheduled', ''],
      ['#4', 'worker-3', 'Done', ''],
    ]);
    assert.equal(panel.one('.count-label').textContent, '4 tasks');
    assert.equal(panel.one('.tab[data-view="tasks"] .tab-count').textContent, '4');
  });

  it('keeps only the rows in view in the document for a large run', async () => {
    const panel = await openPanel(panelInit({ snapshot: fullSnapshot(5000) }));
    const body = panel.one('.task-table .vbody');
    assert.equal(body.getAttribute('aria-rowcount'), '5000');
    const inDocument = shownRows(panel).length;
    assert.ok(inDocument > 0 && inDocument < 60, `${inDocument} rows in the document`);
  });

  it('filters by the search typed, and says how many of how many it shows', async () => {
    const panel = await openPanel(panelInit({ snapshot: fullSnapshot(12) }));
    const search = panel.one<HTMLInputElement>('.task-table input.search');
    search.value = 'worker-10';
    search.dispatchEvent(new Event('input', { bubbles: true }));
    await panel.settle();
    assert.deepEqual(
      shownRows(panel).map((r) => r[1]),
      ['worker-10'],
    );
    assert.equal(panel.one('.count-label').textContent, '1 of 12 tasks');
    search.value = 'nothing-like-this';
    search.dispatchEvent(new Event('input', { bubbles: true }));
    await panel.settle();
    assert.equal(shownRows(panel).length, 0);
    assert.equal(panel.one('.task-table .empty-note').textContent, 'No task matches the filter.');
  });

  it('says there are no tasks yet before the first snapshot', async () => {
    const panel = await openPanel(panelInit());
    assert.equal(panel.one('.task-table .empty-note').textContent, 'No tasks yet. Run a crawl or a sample.');
  });

  it('selects a task by a click on its row, and the next ones with the arrow keys, Home and End', async () => {
    const panel = await openPanel(panelInit({ snapshot: fullSnapshot(6) }));
    panel
      .all('.task-table .vrows .task-row')[1]!
      .querySelector('.cell')!
      .dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await panel.settle();
    assert.equal(panel.app.ui().selectedTask, 2);
    assert.equal(panel.one('.task-row.selected').dataset.id, '2');
    assert.equal(panel.one('.task-row.selected').getAttribute('aria-selected'), 'true');
    key(panel, 'ArrowDown');
    assert.equal(panel.app.ui().selectedTask, 3);
    key(panel, 'End');
    assert.equal(panel.app.ui().selectedTask, 6);
    key(panel, 'Home');
    assert.equal(panel.app.ui().selectedTask, 1);
    key(panel, 'ArrowUp');
    assert.equal(panel.app.ui().selectedTask, 1, 'the first row stays selected');
  });

  it('sorts by a column header clicked, and says the order in aria-sort', async () => {
    const panel = await openPanel(panelInit({ snapshot: fullSnapshot(4) }));
    const idHeader = panel.one('.task-header [data-sort="id"]');
    idHeader.click();
    await panel.settle();
    const first = idHeader.getAttribute('aria-sort');
    idHeader.click();
    await panel.settle();
    const second = idHeader.getAttribute('aria-sort');
    assert.deepEqual([first, second].sort(), ['ascending', 'descending']);
    const ids = shownRows(panel).map((r) => Number(r[0].slice(1)));
    assert.deepEqual(ids, second === 'descending' ? [4, 3, 2, 1] : [1, 2, 3, 4]);
  });
});
