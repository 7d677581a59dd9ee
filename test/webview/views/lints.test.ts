// The Lints view (webview/views/lints.ts): one row per lint, newest first, only those found up to
// the tick shown in the past; its links open the source or the task.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Lint } from '../../../protocol/host-protocol';
import { closeDom } from '../dom-env';
import { fullSnapshot } from '../fixtures-tasks';
import { openPanel, panelInit, runStatus, type OpenPanel } from '../panel-harness';

afterEach(() => closeDom());

const LINTS: Lint[] = [
  {
    kind: 'slowCallback',
    message: 'a step took 120 ms',
    taskId: 3,
    tick: 4,
    position: { file: '/p/a.ts', line: 7, column: 2 },
  },
  { kind: 'neverAwaited', message: 'fetch(<img src=x onerror=alert(1)>) never awaited', tick: 9 },
];

async function lintsPanel(over = {}): Promise<OpenPanel> {
  const panel = await openPanel(panelInit({ lints: LINTS, snapshot: fullSnapshot(5), ...over }));
  panel.one('.tab[data-view="lints"]').click();
  await panel.settle();
  return panel;
}

function rows(panel: OpenPanel): string[][] {
  return panel
    .all('.lints-table tbody tr')
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''));
}

describe('the lints view', () => {
  it('lists the lints newest first, with kind, task, place and tick, and counts them on its tab', async () => {
    const panel = await lintsPanel();
    assert.deepEqual(rows(panel), [
      [' Never awaited', 'fetch(<img src=x onerror=alert(1)>) never awaited', '', '', '9'],
      [' Slow callback', 'a step took 120 ms', '#3', 'a.ts:7', '4'],
    ]);
    assert.equal(panel.one('.tab[data-view="lints"] .tab-count').textContent, '2');
    assert.equal(panel.root.querySelector('.lints-table img'), null, "a lint's text never becomes markup");
  });

  it('in the past shows only the lints found up to the tick shown', async () => {
    const panel = await lintsPanel({ status: runStatus({ phase: 'paused', tick: 12, viewedTick: 5 }) });
    assert.deepEqual(
      rows(panel).map((r) => r[4]),
      ['4'],
    );
  });

  it('says so when there is no lint', async () => {
    const panel = await lintsPanel({ lints: [] });
    assert.equal(panel.all('.lints-table').length, 0);
    assert.match(panel.one('.lints-host p').className, /muted/);
  });

  it('a position link asks the extension to open that source; a task link shows the task', async () => {
    const panel = await lintsPanel();
    panel.one('.lints-table .position-link').click();
    assert.deepEqual(
      panel.requests('openSource').map((r) => r.params),
      [{ position: { file: '/p/a.ts', line: 7, column: 2 } }],
    );
    panel.one('.lints-table .task-link').click();
    await panel.settle();
    assert.equal(panel.app.ui().view, 'tasks');
    assert.equal(panel.app.ui().selectedTask, 3);
  });

  it('the refresh button asks for every lint again and shows the answer', async () => {
    const panel = await openPanel(panelInit({ lints: LINTS }), {
      lints: () => ({ lints: [{ kind: 'deadlock', message: 'two locks', tick: 20 }] }),
    });
    panel.one('.tab[data-view="lints"]').click();
    await panel.settle();
    panel.one('.lints-view .view-toolbar button').click();
    await panel.settle();
    assert.equal(panel.requests('lints').length, 1);
    assert.deepEqual(rows(panel), [[' Deadlock', 'two locks', '', '', '20']]);
  });
});
