// The await graph of a loop, and deadlock detection, read through the runtime's inspection
// interface (runtime/inspection.ts): nothing here knows any primitive by name.
// Nodes: live tasks, the futures they are suspended on, the resources those futures belong to;
// edges: awaits, waitsOn, holds. The five deadlock rules are in docs/design/lints-and-deadlocks.md.
//
// Invariants: only what is certain is reported (a queue.get while a producer still runs, a
// sleep, a socket: never). Done tasks appear only when something live awaits or holds
// something. Ids are stable for the life of the objects (WeakMap-numbered), so a client can
// diff two graphs.

import type { AwaitGraph, GraphEdge, GraphNode, SourcePosition } from '../../protocol/host-protocol';
import type { Future } from '../future';
import { inspect, inspectResource, type Inspectable } from '../inspection';
import type { EventLoop } from '../loop';
import { Task } from '../task';
import { futureNodeId, resourceIdOf, resourceKind } from './resource-ids';
import { heldSinceOf, resourceLabel, resourceNamingOf, shortSite } from './resource-names';
import { awaitedTasks, describeTarget, describeTask, resourceOf, taskState } from './task-summaries';

/** The live tasks holding a resource, when exactly one does (null: none, several, or one outside any task). */
function soleHolder(res: Inspectable): Task<unknown> | null {
  const holders = inspectResource(res)?.holders() ?? [];
  return holders.length === 1 ? holders[0]! : null;
}

// --- the graph ------------------------------------------------------------------------------

interface Builder {
  nodes: Map<string, GraphNode>;
  edges: GraphEdge[];
  edgeKeys: Set<string>;
}

function addNode(b: Builder, node: GraphNode): void {
  if (!b.nodes.has(node.id)) b.nodes.set(node.id, node);
}

function addEdge(b: Builder, from: string, to: string, kind: GraphEdge['kind'], at?: GraphEdge['at']): void {
  const key = `${from}>${to}>${kind}`;
  if (b.edgeKeys.has(key)) return;
  b.edgeKeys.add(key);
  b.edges.push(at === undefined ? { from, to, kind } : { from, to, kind, at });
}

function taskNode(t: Task<unknown>): GraphNode {
  return { id: `task:${t.id}`, kind: 'task', label: `#${t.id} ${t.name}`, state: taskState(t) };
}

/** Adds a future (and what it stands for) to the graph; returns its node id. */
function addFuture(b: Builder, fut: Future<unknown>, depth: number): string {
  if (fut instanceof Task) {
    addNode(b, taskNode(fut));
    return `task:${fut.id}`;
  }
  const id = futureNodeId(fut);
  if (b.nodes.has(id)) return id;
  const view = fut[inspect]();
  const label =
    view.kind === 'future' && view.detail === null ? 'future' : `${view.kind}${view.detail ? ` ${view.detail}` : ''}`;
  addNode(b, { id, kind: 'future', label });
  if (depth > 16) return id;
  for (const child of view.inner())
    if (!child.done() || child instanceof Task) addEdge(b, id, addFuture(b, child, depth + 1), 'awaits');
  if (view.resource !== null) addEdge(b, id, addResource(b, view.resource), 'waitsOn');
  return id;
}

/** A resource as the program names it (resource-names.ts), else its own description. */
function resourceText(res: Inspectable): string {
  return resourceLabel(res) ?? describeTarget(res) ?? resourceKind(res);
}

/** Holders named in a resource's text (a Semaphore may have many). */
const HOLDERS_SHOWN = 3;

/**
 * A resource waited for, with its holders and where each took it: `auditLog (Lock, buggy.ts:9), held by
 * Task #3 "audit" since buggy.ts:26` (a Semaphore's: `…, held by Task #4 "a" since x.ts:7 and Task #5 "b" since
 * x.ts:7`).
 */
export function heldResourceText(res: Inspectable): string {
  const holders = (inspectResource(res)?.holders() ?? []).filter((h): h is Task<unknown> => h !== null);
  if (holders.length === 0) return resourceText(res);
  const named = holders.slice(0, HOLDERS_SHOWN).map((h) => {
    const since = heldSinceOf(res, h);
    return `${describeTask(h)}${since !== null ? ` since ${shortSite(since)}` : ''}`;
  });
  const more = holders.length > HOLDERS_SHOWN ? ` and ${holders.length - HOLDERS_SHOWN} more` : '';
  return `${resourceText(res)}, held by ${named.join(' and ')}${more}`;
}

/** Adds a resource node; returns its id. */
function addResource(b: Builder, res: Inspectable): string {
  const rid = resourceIdOf(res);
  if (b.nodes.has(rid)) return rid;
  const naming = resourceNamingOf(res);
  const node: GraphNode = { id: rid, kind: 'resource', label: resourceText(res) };
  if (naming.name !== null) node.name = naming.name;
  if (naming.createdAt !== null) node.createdAt = naming.createdAt;
  addNode(b, node);
  return rid;
}

/** Tarjan's strongly connected components over task ids. */
function cyclesOf(edges: Map<number, number[]>): number[][] {
  let index = 0;
  const idx = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const out: number[][] = [];
  const strong = (v: number): void => {
    // Iterative to survive long chains.
    const work: Array<{ v: number; i: number }> = [{ v, i: 0 }];
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const succ = edges.get(top.v) ?? [];
      if (top.i < succ.length) {
        const w = succ[top.i++]!;
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index);
          index++;
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.v, Math.min(low.get(top.v)!, idx.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.v;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.v)!));
      }
      if (low.get(top.v) === idx.get(top.v)) {
        const comp: number[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
          if (w === top.v) break;
        }
        const selfLoop = comp.length === 1 && (edges.get(comp[0]!) ?? []).includes(comp[0]!);
        if (comp.length > 1 || selfLoop) out.push(comp.reverse());
      }
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) strong(v);
  return out;
}

/** What a suspended task waits for, a held resource with its holder and acquire line (the Deadlock stop's details). */
export function describeWaitOf(t: Task<unknown>): string {
  const w = t.awaiting();
  if (w === null || w instanceof Task) return describeWait(t);
  const view = w[inspect]();
  if (view.resource === null) return describeWait(t);
  return `${describeTask(t)} waits on ${view.kind} ${heldResourceText(view.resource)}`;
}

function describeWait(t: Task<unknown>): string {
  const w = t.awaiting();
  if (w === null) return `${describeTask(t)} (not waiting)`;
  if (w instanceof Task) return `${describeTask(t)} awaits ${describeTask(w)}`;
  const view = w[inspect]();
  const kind = view.kind === 'future' ? 'a future' : view.kind;
  return `${describeTask(t)} waits on ${kind}${view.resource !== null ? ` ${resourceText(view.resource)}` : ''}`;
}

/**
 * A future with no origin (made by loop.createFuture() and not by a primitive): kind 'future', no resource,
 * nothing inside.
 */
function isBareFuture(fut: Future<unknown>): boolean {
  if (fut instanceof Task) return false;
  const view = fut[inspect]();
  return view.kind === 'future' && view.resource === null && view.inner().length === 0;
}

/** True when nothing inside the loop can run or arrive: no ready callback, no pending timer, no watched socket. */
export function loopIsQuiescent(loop: EventLoop): boolean {
  if (loop.readyCount() > 0 || loop.currentTask() !== null) return false;
  const view = loop[inspect]();
  return view.pendingTimers() === 0 && !view.watchesIo();
}

export interface AwaitGraphOptions {
  /**
   * Tasks that failed recently (newest last): rule 3 names them, as the producer a starved waiter waits for
   * may be one of them.
   */
  failed?: readonly Task<unknown>[];
}

/**
 * Where to look first for a deadlock: the line where a holder took a resource of it, else where one of them
 * was made.
 */
function deadlockPosition(resources: readonly Inspectable[]): SourcePosition | undefined {
  for (const r of resources) {
    const at = heldSinceOf(r);
    if (at !== null) return at;
  }
  for (const r of resources) {
    const at = resourceNamingOf(r).createdAt;
    if (at !== null) return at;
  }
  return undefined;
}

/** ` since buggy.ts:26`, or '' (not known). */
function sinceText(at: SourcePosition | null): string {
  return at === null ? '' : ` since ${shortSite(at)}`;
}

/** A resource in a one-line summary: the program's name for it, else its class. */
function shortName(res: Inspectable): string {
  const n = resourceNamingOf(res);
  return n.name ?? n.className;
}

/** Task names for a one-line summary (the first four). */
function taskNames(tasks: readonly Task<unknown>[]): string {
  return `${tasks
    .slice(0, 4)
    .map((t) => t.name)
    .join(', ')}${tasks.length > 4 ? `, … ${tasks.length - 4} more` : ''}`;
}

/** `Task #3 "producer" failed (Error: boom)` */
function describeFailure(t: Task<unknown>): string {
  const outcome = t[inspect]().outcome();
  const error = outcome.state === 'exception' ? outcome.error : undefined;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `${describeTask(t)} failed (${what.length > 120 ? `${what.slice(0, 119)}…` : what})`;
}

/** Builds the await graph of the loop's live tasks and finds the deadlocks among them. */
export function buildAwaitGraph(loop: EventLoop, options: AwaitGraphOptions = {}): AwaitGraph {
  const b: Builder = { nodes: new Map(), edges: [], edgeKeys: new Set() };
  const tasks = loop.allTasks();
  const waits = new Map<number, number[]>();
  const byId = new Map<number, Task<unknown>>();
  for (const t of tasks) {
    byId.set(t.id, t);
    addNode(b, taskNode(t));
  }
  const resources = new Set<Inspectable>();
  /** Tasks waiting through a resource with a sole holder (for rule 1's wording). */
  const viaResource = new Map<number, Inspectable>();
  /** Tasks waiting on a bare future made by another live task (rule 5), with that future's maker. */
  const viaFuture = new Map<number, Task<unknown>>();
  const quiet = loopIsQuiescent(loop);
  for (const t of tasks) {
    const w = t.awaiting();
    if (w === null || t.done()) continue;
    addEdge(b, `task:${t.id}`, addFuture(b, w, 0), 'awaits');
    const res = resourceOf(w);
    if (res !== null) resources.add(res);
    if (!w.done()) {
      const behind = awaitedTasks(w);
      const holder = res !== null ? soleHolder(res) : null;
      if (holder !== null && !behind.includes(holder)) {
        behind.push(holder);
        viaResource.set(t.id, res!);
      }
      if (quiet && behind.length === 0 && isBareFuture(w)) {
        const maker = w[inspect]().createdBy();
        if (maker !== null && maker !== t && !maker.done() && maker.getLoop() === loop) {
          behind.push(maker);
          viaFuture.set(t.id, maker);
        }
      }
      for (const x of behind) if (!byId.has(x.id)) byId.set(x.id, x);
      waits.set(
        t.id,
        behind.filter((x) => !x.done()).map((x) => x.id),
      );
    }
  }
  // Holders of the resources waited on.
  const holdersOf = new Map<Inspectable, Array<Task<unknown> | null>>();
  for (const res of resources) {
    const holders = inspectResource(res)?.holders() ?? [];
    holdersOf.set(res, holders);
    for (const holder of holders) {
      if (holder === null) continue;
      addNode(b, taskNode(holder));
      const since = heldSinceOf(res, holder);
      addEdge(b, `task:${holder.id}`, addResource(b, res), 'holds', since ?? undefined);
    }
  }

  const deadlocks: AwaitGraph['deadlocks'] = [];
  const dead = new Set<number>();
  // Rule 1: cycles.
  for (const cycle of cyclesOf(waits)) {
    for (const id of cycle) dead.add(id);
    const held = cycle.map((id) => viaResource.get(id)).filter((r): r is Inspectable => r !== undefined);
    const made = cycle.filter((id) => viaFuture.has(id));
    const steps = cycle.map((id) => {
      const res = viaResource.get(id);
      const maker = viaFuture.get(id);
      const task = describeTask(byId.get(id)!);
      if (res !== undefined) return `${task} (waiting for ${heldResourceText(res)})`;
      return maker === undefined ? task : `${task} (awaiting a future only #${maker.id} would complete)`;
    });
    const what =
      made.length === 0
        ? held.length === 0
          ? 'cycle of tasks awaiting each other'
          : held.length === cycle.length
            ? 'lock-order cycle: each task holds what the next one waits for'
            : 'cycle of tasks awaiting each other and the resources they hold'
        : made.length === cycle.length
          ? 'future cycle: each task awaits a future only the next one would complete'
          : 'mixed cycle of tasks awaiting each other, the resources they hold and the futures they made';
    const position = deadlockPosition(held);
    const names = cycle.map((id) => byId.get(id)!.name);
    const kind =
      made.length > 0
        ? made.length === cycle.length
          ? 'future cycle'
          : 'mixed cycle'
        : held.length === 0
          ? 'await cycle'
          : held.length === cycle.length
            ? 'lock-order cycle'
            : 'mixed cycle';
    const summary = `${kind}: ${[...names, names[0]].join(' → ')}${held.length > 0 ? ` over ${held.map(shortName).join(', ')}` : ''}`;
    deadlocks.push({
      summary,
      ...(position !== undefined ? { position } : {}),
      nodes: [
        ...cycle.map((id) => `task:${id}`),
        ...held.map((r) => resourceIdOf(r)),
        ...made.map((id) => futureNodeId(byId.get(id)!.awaiting()!)),
      ],
      reason:
        cycle.length === 1
          ? held.length === 1
            ? `${describeTask(byId.get(cycle[0]!)!)} waits for ${resourceText(held[0]!)}, which it holds itself${heldSinceOf(held[0]!) !== null ? ` since ${shortSite(heldSinceOf(held[0]!)!)}` : ''}`
            : `${steps[0]} awaits itself (through gather/waitFor/shield)`
          : `${what}: ${[...steps, describeTask(byId.get(cycle[0]!)!)].join(' → ')}`,
    });
  }
  // Rule 4: resources held by finished tasks.
  for (const [res, holders] of holdersOf) {
    const finished = holders.filter((h): h is Task<unknown> => h !== null && h.done());
    if (finished.length === 0 || finished.length < holders.length) continue;
    const holder = finished[0]!;
    const waiters = tasks.filter((t) => {
      const w = t.awaiting();
      return w !== null && !w.done() && resourceOf(w) === res;
    });
    if (waiters.length === 0) continue;
    for (const t of waiters) dead.add(t.id);
    const position = deadlockPosition([res]);
    deadlocks.push({
      summary: `${shortName(res)} held by ${holder.name}, which ended without releasing it; ${taskNames(waiters)} wait forever`,
      ...(position !== undefined ? { position } : {}),
      nodes: [resourceIdOf(res), ...finished.map((h) => `task:${h.id}`), ...waiters.map((t) => `task:${t.id}`)],
      reason: `${resourceText(res)} is held by ${describeTask(holder)}${sinceText(heldSinceOf(res, holder))}, which ${taskState(holder) === 'done' ? 'returned' : taskState(holder) === 'failed' ? 'failed' : 'was cancelled'} without releasing it; ${waiters.map((t) => `#${t.id}`).join(', ')} wait for it forever`,
    });
  }
  // Rule 2: tasks awaiting only deadlocked tasks join them.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [id, behind] of waits) {
      if (dead.has(id) || behind.length === 0 || !behind.every((x) => dead.has(x))) continue;
      dead.add(id);
      changed = true;
      const report = deadlocks.find((d) => behind.some((x) => d.nodes.includes(`task:${x}`)));
      if (report !== undefined) {
        report.nodes.push(`task:${id}`);
        report.reason += `; ${describeTask(byId.get(id)!)} awaits ${behind.map((x) => `#${x}`).join(', ')}, so it waits forever too`;
      }
    }
  }
  // Rule 3: nothing can run.
  const live = tasks.filter((t) => !t.done());
  if (live.length > 0 && loopIsQuiescent(loop)) {
    const internal = live.every((t) => {
      const w = t.awaiting();
      return w !== null && !w.done() && w[inspect]().wokenBy() === 'loop';
    });
    const rest = live.filter((t) => !dead.has(t.id));
    if (internal && rest.length > 0) {
      const waitedOn = rest.map((t) => resourceOf(t.awaiting()!)).filter((r): r is Inspectable => r !== null);
      const position = deadlockPosition(waitedOn);
      const failed = (options.failed ?? []).slice(-3);
      const died =
        failed.length === 0
          ? ''
          : `; no live task is left to wake them, and ${failed.map(describeFailure).join(', ')} earlier`;
      deadlocks.push({
        summary: `nothing can run: ${taskNames(rest)} wait forever${failed.length > 0 ? ` (${failed.map((t) => t.name).join(', ')} failed)` : ''}`,
        ...(position !== undefined ? { position } : {}),
        nodes: rest.map((t) => `task:${t.id}`),
        reason: `nothing can run: no task is ready, no timer is pending and no socket is watched, so every live task waits forever: ${rest.slice(0, 8).map(describeWait).join('; ')}${rest.length > 8 ? `; … ${rest.length - 8} more` : ''}${died}`,
      });
    }
  }
  return { nodes: [...b.nodes.values()], edges: b.edges, deadlocks };
}
