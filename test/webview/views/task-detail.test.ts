// The task detail (webview/views/task-detail.ts): the selected task's facts, its coroutine stack
// innermost first and the locals of the frame chosen, asked of the extension; and the actions it sends.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { TaskDetail } from '../../../protocol/host-protocol';
import { closeDom } from '../dom-env';
import { fullSnapshot, makeTask } from '../fixtures-tasks';
import { openPanel, panelInit, runStatus, type OpenPanel } from '../panel-harness';

afterEach(() => closeDom());

function detailOf(taskId: number): TaskDetail {
  return {
    task: makeTask(taskId),
    frames: [
      { index: 0, name: 'work', position: { file: '/src/crawl.ts', line: 40, column: 5 }, generated: null, locals: [] },
      {
        index: 1,
        name: 'fetch',
        position: { file: '/src/crawl.ts', line: 71, column: 9 },
        generated: null,
        locals: [
          { name: 'url', value: "'<b onmouseover=x>'", type: 'string', handle: 0 },
          { name: 'response', value: 'Response {…}', type: 'object', handle: 17 },
        ],
      },
    ],
    awaitChain: [],
    createdAt: null,
    traceback: null,
  };
}

async function detailPanel(phase: 'paused' | 'running' = 'paused'): Promise<OpenPanel> {
  return openPanel(panelInit({ status: runStatus({ phase }), snapshot: fullSnapshot(5) }), {
    taskDetail: (p) => detailOf((p as { taskId: number }).taskId),
    variables: () => ({ variables: [{ name: 'status', value: '200', type: 'number', handle: 0 }] }),
    control: () => ({}),
    cancelTask: () => ({}),
  });
}

async function select(panel: OpenPanel, taskId: number): Promise<void> {
  panel.app.dispatch({ type: 'selectTask', id: taskId });
  await panel.settle();
}

const detail = (panel: OpenPanel, selector: string): HTMLElement[] => panel.all(`.tasks-view ${selector}`);

describe('the task detail', () => {
  it('asks to select a task while none is', async () => {
    const panel = await detailPanel();
    assert.equal(panel.requests('taskDetail').length, 0);
    assert.equal(
      detail(panel, '.placeholder p')[0]?.textContent,
      'Select a task to see its coroutine stack, its locals and what it awaits.',
    );
  });

  it("asks for the selected task's detail and shows its stack innermost first, with the innermost frame's locals as text", async () => {
    const panel = await detailPanel();
    await select(panel, 2);
    assert.deepEqual(
      panel.requests('taskDetail').map((r) => r.params),
      [{ taskId: 2 }],
    );
    assert.equal(detail(panel, '.detail-title')[0]?.textContent, '#2 worker-1');
    assert.deepEqual(
      detail(panel, '.frame-list .frame').map((f) => [
        f.querySelector('.frame-name')?.textContent,
        f.querySelector('.frame-pos')?.textContent,
      ]),
      [
        ['fetch', 'crawl.ts:71'],
        ['work', 'crawl.ts:40'],
      ],
    );
    assert.deepEqual(
      detail(panel, '.locals-section .var-row').map((r) => [
        r.querySelector('.var-name')?.textContent,
        r.querySelector('.var-value')?.textContent,
      ]),
      [
        ['url', "'<b onmouseover=x>'"],
        ['response', 'Response {…}'],
      ],
    );
    assert.equal(detail(panel, '.locals-section b').length, 0, "a local's value never becomes markup");
  });

  it('a click on a frame opens its source; a click on a local with children asks for them', async () => {
    const panel = await detailPanel();
    await select(panel, 2);
    detail(panel, '.frame-list .frame[data-frame="0"]')[0]!.click();
    await panel.settle();
    assert.deepEqual(
      panel.requests('openSource').map((r) => r.params),
      [{ position: { file: '/src/crawl.ts', line: 40, column: 5 } }],
    );
    assert.equal(panel.app.ui().selectedFrame, 0);
    assert.equal(detail(panel, '.locals-section .section-note')[0]?.textContent, ' of work');
    detail(panel, '.frame-list .frame[data-frame="1"]')[0]!.click();
    await panel.settle();
    detail(panel, '.var-row.expandable')[0]!.click();
    await panel.settle();
    assert.deepEqual(
      panel.requests('variables').map((r) => r.params),
      [{ handle: 17 }],
    );
    assert.deepEqual(
      detail(panel, '.var-tree .var-tree .var-name').map((n) => n.textContent),
      ['status'],
    );
  });

  it('while paused, Step Task and Cancel send the control for this task', async () => {
    const panel = await detailPanel('paused');
    await select(panel, 2);
    detail(panel, '[data-action="step-task"]')[0]!.click();
    detail(panel, '[data-action="cancel-task"]')[0]!.click();
    assert.deepEqual(
      panel.requests('control').map((r) => r.params),
      [{ action: 'stepTask', taskId: 2 }],
    );
    assert.deepEqual(
      panel.requests('cancelTask').map((r) => r.params),
      [{ taskId: 2 }],
    );
  });

  it('offers no Step Task while the loop runs', async () => {
    const panel = await detailPanel('running');
    await select(panel, 2);
    assert.equal(detail(panel, '[data-action="step-task"]').length, 0);
    assert.equal(detail(panel, '[data-action="cancel-task"]').length, 1);
  });
});
