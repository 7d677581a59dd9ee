// The await graph (webview/views/await-graph.ts): asked of the extension when shown, a node per
// task, future and resource, an edge per wait, deadlocks marked; a task's node shows the task.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { AwaitGraph } from '../../../protocol/host-protocol';
import { closeDom } from '../dom-env';
import { fullSnapshot } from '../fixtures-tasks';
import { openPanel, panelInit, runStatus, type OpenPanel } from '../panel-harness';

afterEach(() => closeDom());

const DEADLOCK: AwaitGraph = {
  nodes: [
    { id: 'task:2', kind: 'task', label: 'transfer', state: 'suspended' },
    { id: 'task:3', kind: 'task', label: 'audit', state: 'suspended' },
    { id: 'res:1', kind: 'resource', label: 'Lock <ledger>' },
    { id: 'res:2', kind: 'resource', label: 'Lock auditLog' },
  ],
  edges: [
    { from: 'task:2', to: 'res:2', kind: 'waitsOn' },
    { from: 'res:1', to: 'task:2', kind: 'holds' },
    { from: 'task:3', to: 'res:1', kind: 'waitsOn' },
    { from: 'res:2', to: 'task:3', kind: 'holds' },
  ],
  deadlocks: [{ nodes: ['task:2', 'task:3', 'res:1', 'res:2'], reason: 'transfer and audit wait on each other' }],
};

async function graphPanel(graph: () => unknown): Promise<OpenPanel> {
  const panel = await openPanel(panelInit({ status: runStatus({ phase: 'paused' }), snapshot: fullSnapshot(4) }), {
    graph,
  });
  panel.one('.tab[data-view="graph"]').click();
  await panel.settle();
  return panel;
}

function nodes(panel: OpenPanel): Array<{ cls: string; title: string }> {
  return panel.all<SVGGElement>('.graph-svg g.nodes > g').map((g) => ({
    cls: g.getAttribute('class') ?? '',
    title: g.querySelector('title')?.textContent ?? '',
  }));
}

describe('the await graph', () => {
  it('asks for the graph when shown and draws its nodes, edges and deadlock', async () => {
    const panel = await graphPanel(() => DEADLOCK);
    // Asked once on show; a busy machine's settle may outlast the view's 1 s refresh, which asks again.
    assert.ok(panel.requests('graph').length >= 1);
    assert.deepEqual(
      nodes(panel)
        .map((n) => n.title)
        .sort(),
      ['resource: Lock <ledger>', 'resource: Lock auditLog', 'task: audit (suspended)', 'task: transfer (suspended)'],
    );
    assert.ok(nodes(panel).every((n) => n.cls.split(' ').includes('deadlock')));
    assert.equal(panel.all('.graph-svg g.edges path').length, 4);
    assert.equal(
      panel.one('.graph-info .deadlock-note').textContent,
      ' Deadlock: transfer and audit wait on each other (4 nodes)',
    );
    assert.equal(panel.all('.graph-svg ledger').length, 0, 'a label never becomes markup');
  });

  it('says nothing awaits anything for an empty graph', async () => {
    const panel = await graphPanel(() => ({ nodes: [], edges: [], deadlocks: [] }));
    assert.equal(panel.one('.graph-canvas .placeholder-text').textContent, 'Nothing awaits anything right now.');
  });

  it('shows the error of a malformed answer', async () => {
    const panel = await graphPanel(() => ({ nodes: 'no' }));
    assert.equal(panel.one('.graph-info .inline-error').textContent, ' malformed graph');
    assert.equal(panel.all('.graph-svg').length, 0);
  });

  it("a click or Enter on a task's node shows that task in the tasks view", async () => {
    const panel = await graphPanel(() => DEADLOCK);
    const audit = panel
      .all<SVGGElement>('.graph-svg g.nodes > g')
      .find((g) => g.querySelector('title')?.textContent === 'task: audit (suspended)')!;
    audit.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    assert.equal(panel.app.ui().view, 'tasks');
    assert.equal(panel.app.ui().selectedTask, 3);
    panel.one('.tab[data-view="graph"]').click();
    await panel.settle();
    const transfer = panel
      .all<SVGGElement>('.graph-svg g.nodes > g')
      .find((g) => g.querySelector('title')?.textContent === 'task: transfer (suspended)')!;
    transfer.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    assert.equal(panel.app.ui().selectedTask, 2);
  });
});
