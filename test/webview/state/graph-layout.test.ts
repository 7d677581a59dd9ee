import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AwaitGraph } from '../../../protocol/host-protocol';
import { niceMax, rateChart } from '../../../webview/state/chart';
import { layoutGraph, NODE_W } from '../../../webview/state/graph-layout';

describe('await graph layout', () => {
  const g: AwaitGraph = {
    nodes: [
      { id: 'task:1', kind: 'task', label: '#1 crawl', state: 'suspended' },
      { id: 'task:2', kind: 'task', label: '#2 worker-1', state: 'suspended' },
      { id: 'future:1', kind: 'future', label: 'queue.join' },
      { id: 'future:2', kind: 'future', label: 'queue.get' },
      { id: 'resource:queue:1', kind: 'resource', label: '<Queue>' },
    ],
    edges: [
      { from: 'task:1', to: 'future:1', kind: 'awaits' },
      { from: 'task:2', to: 'future:2', kind: 'awaits' },
      { from: 'future:1', to: 'resource:queue:1', kind: 'waitsOn' },
      { from: 'future:2', to: 'resource:queue:1', kind: 'waitsOn' },
    ],
    deadlocks: [],
  };

  it('puts who awaits left of what is awaited', () => {
    const l = layoutGraph(g);
    const x = (id: string): number => l.nodes.find((n) => n.node.id === id)!.x;
    assert.ok(x('task:1') < x('future:1') && x('future:1') < x('resource:queue:1'));
    assert.equal(l.edges.length, 4);
    assert.ok(l.width >= 3 * NODE_W);
    // No two nodes overlap.
    const seen = new Set(l.nodes.map((n) => `${n.x},${n.y}`));
    assert.equal(seen.size, l.nodes.length);
  });

  it("keeps a holder's acquire line on its 'holds' edge (the graph's tooltip says it)", () => {
    const at = { file: '/w/buggy.ts', line: 26, column: 3 };
    const held: AwaitGraph = {
      nodes: [
        { id: 'task:3', kind: 'task', label: '#3 audit' },
        { id: 'resource:lock:1', kind: 'resource', label: 'auditLog (Lock, buggy.ts:9)' },
      ],
      edges: [{ from: 'task:3', to: 'resource:lock:1', kind: 'holds', at }],
      deadlocks: [],
    };
    assert.deepEqual(layoutGraph(held).edges[0]!.at, at);
  });

  it('lays out a deadlock cycle without looping and marks it', () => {
    const cyc: AwaitGraph = {
      nodes: [
        { id: 'task:1', kind: 'task', label: 'a' },
        { id: 'task:2', kind: 'task', label: 'b' },
      ],
      edges: [
        { from: 'task:1', to: 'task:2', kind: 'awaits' },
        { from: 'task:2', to: 'task:1', kind: 'awaits' },
      ],
      deadlocks: [{ nodes: ['task:1', 'task:2'], reason: 'each awaits the other' }],
    };
    const l = layoutGraph(cyc);
    assert.equal(l.nodes.length, 2);
    assert.ok(l.nodes.every((n) => n.inDeadlock));
    assert.ok(l.edges.every((e) => e.inDeadlock));
  });

  it('cuts a huge graph, keeping the deadlocked nodes', () => {
    const nodes: AwaitGraph['nodes'] = [];
    for (let i = 0; i < 2000; i++) nodes.push({ id: `task:${i}`, kind: 'task', label: `t${i}` });
    const l = layoutGraph({ nodes, edges: [], deadlocks: [{ nodes: ['task:1999'], reason: 'x' }] }, 100);
    assert.equal(l.nodes.length, 100);
    assert.equal(l.truncated, 1900);
    assert.ok(l.nodes.some((n) => n.node.id === 'task:1999'));
  });
});

describe('rate chart scales', () => {
  it('rounds the top of the axis to a nice number', () => {
    assert.equal(niceMax(0), 1);
    assert.equal(niceMax(7), 10);
    assert.equal(niceMax(130), 200);
    assert.equal(niceMax(240), 250);
    assert.equal(niceMax(2), 2);
  });

  it('draws a path from the points, inside the box', () => {
    const pts = [0, 1, 2, 3].map((t) => ({ t, done: t * 10, rate: 10, queued: 0, inFlight: 0 }));
    const c = rateChart(pts, 100, 50);
    assert.equal(c.yMax, 10);
    assert.match(c.path, /^M0\.0 0\.0 L33\.3 0\.0 L66\.7 0\.0 L100\.0 0\.0$/);
    assert.ok(c.area.endsWith('Z'));
    assert.deepEqual(rateChart([], 100, 50).path, '');
  });
});
