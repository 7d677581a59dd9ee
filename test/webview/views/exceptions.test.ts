// The Exceptions view (webview/views/exceptions.ts): the tasks that failed, each opening to its
// traceback; with no failure, a demonstration's trace pair on demand (coroutine vs callback).
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { TracePair, Traceback } from '../../../protocol/host-protocol';
import type { ExceptionEntry } from '../../../protocol/webview-protocol';
import { closeDom } from '../dom-env';
import { openPanel, panelInit, type OpenPanel } from '../panel-harness';

afterEach(() => closeDom());

function traceback(error: string): Traceback {
  return {
    title: 'Traceback',
    error,
    frames: [
      { name: 'work', position: { file: '/src/crawl.ts', line: 40, column: 5 }, kind: 'coroutine' },
      { name: 'runOnce', position: { file: '/rt/loop.ts', line: 90, column: 3 }, kind: 'loop' },
      {
        name: 'fetch',
        position: { file: '/src/crawl.ts', line: 71, column: 9 },
        kind: 'coroutine',
        missingInOther: true,
      },
    ],
    text: error,
  };
}

const FAILURES: ExceptionEntry[] = [
  { taskId: 4, traceback: traceback('TypeError: <i>x</i> is not a function') },
  { taskId: 6, traceback: traceback('Error: boom') },
];

const PAIR: TracePair = {
  url: 'http://demo/fail',
  coroutine: traceback('Error: 500'),
  callback: traceback('Error: 500'),
};

async function exceptionsPanel(exceptions: ExceptionEntry[], traces: () => unknown = () => PAIR): Promise<OpenPanel> {
  const panel = await openPanel(panelInit({ exceptions }), { traces });
  panel.one('.tab[data-view="exceptions"]').click();
  await panel.settle();
  return panel;
}

describe('the exceptions view', () => {
  it('lists the tasks that failed with their error as text, and counts them on its tab', async () => {
    const panel = await exceptionsPanel(FAILURES);
    assert.deepEqual(
      panel
        .all('.exception-list .exception-head')
        .map((h) => [h.querySelector('.task-link')?.textContent, h.querySelector('.exception-error')?.textContent]),
      [
        ['#4', 'TypeError: <i>x</i> is not a function'],
        ['#6', 'Error: boom'],
      ],
    );
    assert.equal(panel.all('.exception-list i').length, 0);
    assert.equal(panel.one('.tab[data-view="exceptions"] .tab-count').textContent, '2');
  });

  it("opens a failure's traceback on a click, its loop frames hidden until asked for; a frame opens its source", async () => {
    const panel = await exceptionsPanel(FAILURES);
    panel.all('.exception-head')[1]!.click();
    await panel.settle();
    assert.equal(panel.app.ui().selectedException, 1);
    const frames = () => panel.all('.exception-item.open .trace-frame .frame-name').map((f) => f.textContent);
    assert.deepEqual(frames(), ['work', 'fetch']);
    const machinery = panel.one<HTMLInputElement>('#show-machinery');
    machinery.checked = true;
    machinery.dispatchEvent(new Event('change'));
    assert.deepEqual(frames(), ['work', 'runOnce', 'fetch']);
    panel.all('.exception-item.open .trace-frame')[2]!.click();
    assert.deepEqual(
      panel.requests('openSource').map((r) => r.params),
      [{ position: { file: '/src/crawl.ts', line: 71, column: 9 } }],
    );
  });

  it('with no failure, asks for the trace pair only once the demonstration is asked for, and shows both traces', async () => {
    const panel = await exceptionsPanel([]);
    assert.equal(panel.requests('traces').length, 0);
    panel.one('.demo-button').click();
    await panel.settle();
    assert.equal(panel.requests('traces').length, 1);
    assert.deepEqual(
      panel.all('.trace-pair .trace-column').map((c) => c.dataset.trace),
      ['coroutine', 'callback'],
    );
    assert.equal(panel.one('.trace-intro code').textContent, 'http://demo/fail');
  });

  it("shows the extension's error when the trace pair cannot be had", async () => {
    const panel = await exceptionsPanel([], () => {
      throw new Error('no demo site');
    });
    panel.one('.demo-button').click();
    await panel.settle();
    assert.equal(panel.one('.trace-pair-host .inline-error').textContent?.trim(), 'Error: no demo site');
  });
});
