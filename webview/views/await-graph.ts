// The await graph as a picture: tasks, futures and resources as boxes in columns (who awaits
// on the left, what is awaited on the right), edges as arrows (awaits, waits on, holds),
// deadlocks drawn in the error colour and listed with their reason above the picture. A
// click on a task box shows the task. Fetched when the view opens and again (at most every
// REFRESH_MS) while it is visible and the tasks change.

import type { AwaitGraph } from '../../protocol/host-protocol';
import { isAwaitGraph } from '../../protocol/webview-protocol';
import { errorText, type AppContext } from '../app-context';
import { h, icon, iconButton, replace, svg, svgText } from '../dom';
import { baseName } from '../state/format';
import { layoutGraph, NODE_H, NODE_W } from '../state/graph-layout';

const REFRESH_MS = 1000;
const KIND_ICONS: Record<string, string> = { task: '⚙', future: '◇', resource: '▣' };

export class AwaitGraphView {
  readonly element: HTMLElement;
  private graph: AwaitGraph | null = null;
  private error: string | null = null;
  private loading = false;
  private last = 0;
  private timer: number | null = null;
  private readonly canvas: HTMLDivElement;
  private readonly info: HTMLDivElement;

  constructor(private readonly app: AppContext) {
    this.canvas = h('div', { class: 'graph-canvas' });
    this.info = h('div', { class: 'graph-info' });
    this.element = h(
      'section',
      { class: 'graph-view', attrs: { 'aria-label': 'Await graph' } },
      h(
        'div',
        { class: 'view-toolbar' },
        h('span', { class: 'view-title' }, 'Await graph'),
        h(
          'span',
          { class: 'legend' },
          legendItem('task', 'Task'),
          legendItem('future', 'Future'),
          legendItem('resource', 'Resource'),
          legendItem('deadlock', 'Deadlock'),
        ),
        h('span', { class: 'spacer' }),
        iconButton('refresh', 'Refresh the graph', () => void this.fetch()),
      ),
      this.info,
      this.canvas,
    );
  }

  reset(): void {
    this.graph = null;
    this.error = null;
  }

  /** The view became visible or the tasks changed while it is. */
  refreshSoon(): void {
    if (this.timer !== null) return;
    const wait = Math.max(0, REFRESH_MS - (performance.now() - this.last));
    this.timer = window.setTimeout(() => {
      this.timer = null;
      void this.fetch();
    }, wait);
  }

  private async fetch(): Promise<void> {
    if (this.loading) return;
    this.loading = true;
    this.last = performance.now();
    try {
      const g: unknown = await this.app.client.request('graph', {});
      if (!isAwaitGraph(g)) throw new Error('malformed graph');
      this.graph = g;
      this.error = null;
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.loading = false;
      this.app.invalidate();
    }
  }

  render(): void {
    if (this.graph === null && this.error === null) {
      if (!this.loading) void this.fetch();
      replace(this.info, h('p', { class: 'muted' }, 'Loading the await graph…'));
      return;
    }
    if (this.graph === null) {
      replace(this.info, h('div', { class: 'inline-error' }, icon('warning'), ' ', this.error ?? ''));
      replace(this.canvas);
      return;
    }
    const g = this.graph;
    const layout = layoutGraph(g);
    const infoParts: Array<HTMLElement | string> = [];
    if (this.error !== null) infoParts.push(h('div', { class: 'inline-error' }, icon('warning'), ' ', this.error));
    for (const d of g.deadlocks)
      infoParts.push(
        h(
          'div',
          { class: 'deadlock-note' },
          icon('error'),
          h('strong', null, ' Deadlock: '),
          d.reason,
          ` (${d.nodes.length} nodes)`,
        ),
      );
    const taskCount = g.nodes.filter((n) => n.kind === 'task').length;
    infoParts.push(
      h(
        'span',
        { class: 'muted' },
        `${taskCount} tasks, ${g.nodes.length - taskCount} futures and resources, ${g.edges.length} edges${layout.truncated > 0 ? ` (${layout.truncated} nodes not drawn)` : ''}`,
      ),
    );
    replace(this.info, ...infoParts);
    if (g.nodes.length === 0) {
      replace(this.canvas, h('p', { class: 'muted placeholder-text' }, 'Nothing awaits anything right now.'));
      return;
    }
    const marker = svg(
      'marker',
      {
        id: 'arrow',
        viewBox: '0 0 10 10',
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: 'auto-start-reverse',
      },
      svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }),
    );
    const markerDead = svg(
      'marker',
      {
        id: 'arrow-dead',
        viewBox: '0 0 10 10',
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: 'auto-start-reverse',
      },
      svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head deadlock' }),
    );
    const root = svg(
      'svg',
      {
        class: 'graph-svg',
        width: layout.width,
        height: layout.height,
        viewBox: `0 0 ${layout.width} ${layout.height}`,
        role: 'img',
        'aria-label': `Await graph: ${g.nodes.length} nodes`,
      },
      svg('defs', {}, marker, markerDead),
    );
    const edgeLayer = svg('g', { class: 'edges' });
    for (const e of layout.edges) {
      const forward = e.to.x > e.from.x;
      const x1 = forward ? e.from.x + NODE_W : e.from.x;
      const y1 = e.from.y + NODE_H / 2;
      const x2 = forward ? e.to.x : e.to.x + NODE_W;
      const y2 = e.to.y + NODE_H / 2;
      const dx = Math.max(30, Math.abs(x2 - x1) / 2) * (forward ? 1 : -1);
      const d =
        e.from.x === e.to.x
          ? `M ${x1} ${y1} C ${x1 - 50} ${y1}, ${x2 - 50} ${y2}, ${x2} ${y2}`
          : `M ${x1} ${y1} C ${x1 + dx} ${y1}, ${x2 - dx} ${y2}, ${x2} ${y2}`;
      const path = svg('path', {
        d,
        class: `edge edge-${e.kind}${e.inDeadlock ? ' deadlock' : ''}`,
        'marker-end': e.inDeadlock ? 'url(#arrow-dead)' : 'url(#arrow)',
      });
      // A holder's edge says where it took the resource (as the deadlock's reason does).
      const since = e.at !== undefined ? ` since ${baseName(e.at.file)}:${e.at.line}` : '';
      path.appendChild(svgText(`${e.from.node.label} ${e.kind} ${e.to.node.label}${since}`, {}));
      edgeLayer.appendChild(path);
    }
    const nodeLayer = svg('g', { class: 'nodes' });
    for (const n of layout.nodes) {
      const cls = `node node-${n.node.kind}${n.node.state !== undefined ? ` state-${n.node.state}` : ''}${n.inDeadlock ? ' deadlock' : ''}`;
      const group = svg('g', {
        class: cls,
        transform: `translate(${n.x},${n.y})`,
        tabindex: n.node.kind === 'task' ? 0 : -1,
      });
      group.appendChild(
        svg('rect', {
          width: NODE_W,
          height: NODE_H,
          rx: n.node.kind === 'resource' ? 2 : n.node.kind === 'future' ? 13 : 4,
        }),
      );
      const label = `${KIND_ICONS[n.node.kind] ?? ''} ${n.node.label}`;
      group.appendChild(svgText(label.length > 30 ? `${label.slice(0, 29)}…` : label, { x: 8, y: NODE_H / 2 + 4 }));
      const title = svg('title');
      title.textContent = `${n.node.kind}: ${n.node.label}${n.node.state !== undefined ? ` (${n.node.state})` : ''}`;
      group.appendChild(title);
      const m = /^task:(\d+)$/.exec(n.node.id);
      if (m !== null) {
        const id = Number(m[1]);
        group.addEventListener('click', () => this.app.showTask(id));
        group.addEventListener('keydown', (e) => {
          if ((e as KeyboardEvent).key === 'Enter') this.app.showTask(id);
        });
      }
      nodeLayer.appendChild(group);
    }
    root.append(edgeLayer, nodeLayer);
    replace(this.canvas, root);
  }
}

function legendItem(kind: string, label: string): HTMLElement {
  return h('span', { class: `legend-item legend-${kind}` }, h('span', { class: 'legend-swatch' }), label);
}
