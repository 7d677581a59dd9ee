// Layout of the await graph as a picture: nodes in columns (layers) by the longest path
// that reaches them along the edges (a task that awaits sits left of what it awaits, and a
// resource right of the futures waiting on it), ordered within a column by the mean row of
// their predecessors so that edges cross less. Pure: positions only, the SVG is drawn by
// views/await-graph.ts.
//
// Invariants: cycles (deadlocks) do not loop: a node's layer is fixed when first reached
// by the depth-first walk; every node gets a position; output is deterministic.

import type { AwaitGraph, GraphNode, SourcePosition } from '../../protocol/host-protocol';

export interface PlacedNode {
  node: GraphNode;
  x: number;
  y: number;
  layer: number;
  inDeadlock: boolean;
}

export interface GraphLayout {
  nodes: PlacedNode[];
  /** `at`: a 'holds' edge's line where the holder took the resource. */
  edges: Array<{ from: PlacedNode; to: PlacedNode; kind: string; inDeadlock: boolean; at?: SourcePosition }>;
  width: number;
  height: number;
  truncated: number;
}

export const NODE_W = 190;
export const NODE_H = 26;
const COL_GAP = 70;
const ROW_GAP = 10;
const PAD = 16;

export function layoutGraph(g: AwaitGraph, maxNodes = 800): GraphLayout {
  const deadlocked = new Set<string>();
  for (const d of g.deadlocks) for (const n of d.nodes) deadlocked.add(n);
  // Keep deadlocked nodes and their neighbours first when the graph is cut.
  const ordered = [...g.nodes].sort((a, b) => Number(deadlocked.has(b.id)) - Number(deadlocked.has(a.id)));
  const kept = ordered.slice(0, maxNodes);
  const byId = new Map<string, GraphNode>(kept.map((n) => [n.id, n]));
  const out = new Map<string, string[]>();
  const incoming = new Map<string, string[]>();
  const edges = g.edges.filter((e) => byId.has(e.from) && byId.has(e.to) && e.from !== e.to);
  for (const e of edges) {
    (out.get(e.from) ?? out.set(e.from, []).get(e.from)!).push(e.to);
    (incoming.get(e.to) ?? incoming.set(e.to, []).get(e.to)!).push(e.from);
  }
  // Longest-path layering from the sources (nodes nothing points to), cycle-safe.
  const layer = new Map<string, number>();
  const onStack = new Set<string>();
  const visit = (id: string, depth: number): void => {
    const known = layer.get(id);
    if (known !== undefined && known >= depth) return;
    if (onStack.has(id)) return;
    layer.set(id, depth);
    onStack.add(id);
    for (const next of out.get(id) ?? []) visit(next, depth + 1);
    onStack.delete(id);
  };
  const sources = kept.filter((n) => (incoming.get(n.id) ?? []).length === 0);
  for (const s of sources) visit(s.id, 0);
  for (const n of kept) if (!layer.has(n.id)) visit(n.id, 0);
  // Columns, ordered by the mean row of predecessors.
  const columns: GraphNode[][] = [];
  for (const n of kept) {
    const l = layer.get(n.id) ?? 0;
    (columns[l] ??= []).push(n);
  }
  const row = new Map<string, number>();
  columns.forEach((col, ci) => {
    if (ci > 0) {
      const key = (n: GraphNode): number => {
        const preds = (incoming.get(n.id) ?? []).map((p) => row.get(p)).filter((r): r is number => r !== undefined);
        return preds.length === 0 ? Number.MAX_SAFE_INTEGER : preds.reduce((a, b) => a + b, 0) / preds.length;
      };
      col.sort((a, b) => key(a) - key(b) || (a.id < b.id ? -1 : 1));
    }
    col.forEach((n, i) => row.set(n.id, i));
  });
  const placed = new Map<string, PlacedNode>();
  let height = 0;
  columns.forEach((col, ci) => {
    col.forEach((n, i) => {
      const p: PlacedNode = {
        node: n,
        layer: ci,
        x: PAD + ci * (NODE_W + COL_GAP),
        y: PAD + i * (NODE_H + ROW_GAP),
        inDeadlock: deadlocked.has(n.id),
      };
      placed.set(n.id, p);
      height = Math.max(height, p.y + NODE_H + PAD);
    });
  });
  return {
    nodes: [...placed.values()],
    edges: edges.map((e) => ({
      from: placed.get(e.from)!,
      to: placed.get(e.to)!,
      kind: e.kind,
      inDeadlock: deadlocked.has(e.from) && deadlocked.has(e.to),
      ...(e.at !== undefined ? { at: e.at } : {}),
    })),
    width: PAD * 2 + Math.max(1, columns.length) * NODE_W + Math.max(0, columns.length - 1) * COL_GAP,
    height: Math.max(height, PAD * 2 + NODE_H),
    truncated: g.nodes.length - kept.length,
  };
}
