// The await graph of a loop, and deadlock detection.
//
// Nodes: every live task (`task:<id>`), every future a task is suspended on that is not a
// task itself (`future:<n>`: a queue getter, a sleep, gather's future, a socket wait, ...),
// and the resources those futures belong to (`resource:<kind>:<n>`: the Queue, Lock, Event,
// Semaphore, socket, connection pool, stream, timer named by the future's `_origin.target`).
// Edges: task → what it awaits ('awaits': a future or a task); future → the futures and tasks
// it stands for ('awaits': gather's children, waitFor's and shield's inner awaitable);
// future → its resource ('waitsOn'); task → a Lock it holds ('holds', with LockOwnership).
// Done tasks appear only when something live awaits them. Ids are stable for the life of the
// objects (WeakMap-numbered), so a client can diff two graphs.
//
// Deadlocks: only what is certain is reported.
// 1. A cycle of tasks awaiting tasks (directly, or through gather / waitFor / shield): none
//    of them can finish before the others, so none ever does.
// 2. A task awaiting only deadlocked tasks (a single task, or a gather/waitFor/shield whose
//    tasks are all deadlocked) is deadlocked with them (it joins their report).
// 3. Nothing left that can run: the ready queue is empty, no timer is pending, no socket is
//    registered or connecting, and every live task is suspended on a future the loop's own
//    code must complete (a queue, lock, event, semaphore, queue.join, a task, gather): then
//    every live task waits forever (a queue.get with no producer left, an Event nobody can
//    set, a Lock nobody will release). A future of unknown origin (a bare createFuture())
//    may be completed by code outside the loop (a Node callback, a worker thread), so its
//    presence makes this rule say nothing.
// 4. A Lock held by a task that has finished, with tasks waiting for it: with LockOwnership
//    installed the holder of every Lock is known; a finished task will never release it, so
//    (under the lock discipline that only the holder releases) its waiters wait forever.
// Anything else (a queue.get while some producer still runs, a sleep, a socket) is not
// reported: some live task, timer or socket might still complete it.

import type { AwaitGraph, GraphEdge, GraphNode } from '../../protocol/host-protocol';
import { Event } from '../event';
import { Future } from '../future';
import { GatheringFuture } from '../gather';
import { Handle } from '../handle';
import { Lock } from '../lock';
import type { EventLoop } from '../loop';
import { Queue } from '../queue';
import { Semaphore } from '../semaphore';
import { Socket } from '../socket';
import { StreamReader } from '../streams';
import { ConnectionPool } from '../http/connection-pool';
import { Task } from '../task';
import { describeTarget, describeTask, taskState } from './task-snapshot';

// --- stable ids ---------------------------------------------------------------------------

const futureIds = new WeakMap<object, number>();
const resourceIds = new WeakMap<object, string>();
let nextFutureId = 1;
let nextResourceId = 1;

/** The kind of resource an origin target is (queue, lock, event, ...). */
export function resourceKind(target: object): string {
  if (target instanceof Queue) return 'queue';
  if (target instanceof Lock) return 'lock';
  if (target instanceof Event) return 'event';
  if (target instanceof Semaphore) return 'semaphore';
  if (target instanceof Socket) return 'socket';
  if (target instanceof StreamReader) return 'stream';
  if (target instanceof ConnectionPool) return 'http.pool';
  if (target instanceof Handle) return 'timer';
  return 'object';
}

/** A stable id for a resource object (`resource:queue:3`). */
export function resourceIdOf(target: object): string {
  let id = resourceIds.get(target);
  if (id === undefined) {
    id = `resource:${resourceKind(target)}:${nextResourceId++}`;
    resourceIds.set(target, id);
  }
  return id;
}

/** A stable id for a future (`future:7`), or `task:<id>` for a task. */
export function futureNodeId(fut: Future<unknown>): string {
  if (fut instanceof Task) return `task:${fut.id}`;
  let n = futureIds.get(fut);
  if (n === undefined) {
    n = nextFutureId++;
    futureIds.set(fut, n);
  }
  return `future:${n}`;
}

/** The resource behind a future (its origin's target), if it is a resource and not the future itself or another future. */
export function resourceOf(fut: Future<unknown>): object | null {
  const target = fut._origin?.target;
  if (typeof target !== 'object' || target === null || target === fut || target instanceof Future) return null;
  return target;
}

/** Await kinds that only wrap another awaitable (the origin's target). */
const WRAPPER_KINDS = new Set(['waitFor', 'waitFor.cancel', 'shield']);

/**
 * The tasks a future stands for: itself if a task, gather's children (nested gathers too),
 * waitFor's and shield's inner task; in order, each once. The same answer as
 * task-snapshot.ts's tasksBehind, linear in the number of children (a gather of 10k tasks
 * is common and summaries ask this for every waiting task).
 */
export function awaitedTasks(fut: Future<unknown>): Task<unknown>[] {
  if (fut instanceof Task) return [fut];
  const origin = fut._origin;
  if (!(fut instanceof GatheringFuture) && (origin === null || !WRAPPER_KINDS.has(origin.kind) || !(origin.target instanceof Future))) return [];
  const out: Task<unknown>[] = [];
  const seen = new Set<Task<unknown>>();
  const visit = (f: Future<unknown>, depth: number): void => {
    if (f instanceof Task) {
      if (!seen.has(f)) {
        seen.add(f);
        out.push(f);
      }
      return;
    }
    if (depth > 8) return;
    if (f instanceof GatheringFuture) {
      for (const child of f._children) visit(child, depth + 1);
      return;
    }
    const o = f._origin;
    if (o !== null && WRAPPER_KINDS.has(o.kind) && o.target instanceof Future) visit(o.target, depth + 1);
  };
  visit(fut, 0);
  return out;
}

// --- lock holders ----------------------------------------------------------------------------

/**
 * Knows which task holds each Lock: wraps Lock.prototype._take and release while installed
 * (inspection on), recording the running task when a lock is taken. Costs nothing for code
 * that uses no Lock; uninstall() restores the prototype.
 */
export class LockOwnership {
  private readonly holders = new WeakMap<Lock, Task<unknown> | null>();
  private originalTake: (() => void) | null = null;
  private originalRelease: (() => void) | null = null;
  private currentTask: () => Task<unknown> | null = () => null;

  install(currentTask: () => Task<unknown> | null): void {
    if (this.originalTake !== null) return;
    this.currentTask = currentTask;
    const holders = this.holders;
    const take = Lock.prototype._take;
    const release = Lock.prototype.release;
    this.originalTake = take;
    this.originalRelease = release;
    const self = this;
    Lock.prototype._take = function (this: Lock): void {
      take.call(this);
      holders.set(this, self.currentTask());
    };
    Lock.prototype.release = function (this: Lock): void {
      release.call(this);
      holders.delete(this);
    };
  }

  uninstall(): void {
    if (this.originalTake === null || this.originalRelease === null) return;
    Lock.prototype._take = this.originalTake;
    Lock.prototype.release = this.originalRelease;
    this.originalTake = this.originalRelease = null;
  }

  /** The task holding `lock` (null: taken outside any task), undefined if not known. */
  holderOf(lock: Lock): Task<unknown> | null | undefined {
    if (!lock.locked()) return undefined;
    return this.holders.get(lock);
  }
}

// --- the graph ------------------------------------------------------------------------------

/** Origins whose futures only the loop's own code completes (rule 3). */
const INTERNAL_KINDS = new Set(['queue.get', 'queue.put', 'queue.join', 'lock', 'event', 'semaphore', 'gather', 'shield', 'waitFor.cancel']);

export interface AwaitGraphOptions {
  readonly locks?: LockOwnership | null;
}

interface Builder {
  nodes: Map<string, GraphNode>;
  edges: GraphEdge[];
  edgeKeys: Set<string>;
}

function addNode(b: Builder, node: GraphNode): void {
  if (!b.nodes.has(node.id)) b.nodes.set(node.id, node);
}

function addEdge(b: Builder, from: string, to: string, kind: GraphEdge['kind']): void {
  const key = `${from}>${to}>${kind}`;
  if (b.edgeKeys.has(key)) return;
  b.edgeKeys.add(key);
  b.edges.push({ from, to, kind });
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
  const origin = fut._origin;
  const label = origin === null ? 'future' : `${origin.kind}${origin.detail ? ` ${origin.detail}` : ''}`;
  addNode(b, { id, kind: 'future', label });
  if (depth > 16) return id;
  if (fut instanceof GatheringFuture) {
    for (const child of fut._children) if (!child.done() || child instanceof Task) addEdge(b, id, addFuture(b, child, depth + 1), 'awaits');
  }
  const target = origin?.target;
  if (target instanceof Future && target !== fut) {
    addEdge(b, id, addFuture(b, target, depth + 1), 'awaits');
  }
  const res = resourceOf(fut);
  if (res !== null) {
    const rid = resourceIdOf(res);
    addNode(b, { id: rid, kind: 'resource', label: describeTarget(res) ?? resourceKind(res) });
    addEdge(b, id, rid, 'waitsOn');
  }
  return id;
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

function describeWait(t: Task<unknown>): string {
  const w = t._waiter;
  if (w === null) return `${describeTask(t)} (not waiting)`;
  if (w instanceof Task) return `${describeTask(t)} awaits ${describeTask(w)}`;
  const kind = w._origin?.kind ?? 'a future';
  const res = resourceOf(w);
  return `${describeTask(t)} waits on ${kind}${res !== null ? ` ${describeTarget(res)}` : ''}`;
}

/** True when nothing inside the loop can run or arrive: no ready callback, no pending timer, no watched socket. */
export function loopIsQuiescent(loop: EventLoop): boolean {
  if (loop.readyCount() > 0 || loop.currentTask() !== null) return false;
  for (const h of loop._timers.all()) if (!h.cancelled()) return false;
  const sel = loop._selector;
  return sel._registeredCount() === 0 && !sel._hasInFlight();
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
  const locks = new Set<Lock>();
  for (const t of tasks) {
    const w = t._waiter;
    if (w === null || t.done()) continue;
    addEdge(b, `task:${t.id}`, addFuture(b, w, 0), 'awaits');
    if (!w.done()) {
      const behind = awaitedTasks(w);
      for (const x of behind) if (!byId.has(x.id)) byId.set(x.id, x);
      waits.set(t.id, behind.filter((x) => !x.done()).map((x) => x.id));
    }
    const res = resourceOf(w);
    if (res instanceof Lock) locks.add(res);
  }
  // Holders of the locks waited on.
  const lockHolders = new Map<Lock, Task<unknown> | null | undefined>();
  if (options.locks) {
    for (const lock of locks) {
      const holder = options.locks.holderOf(lock);
      lockHolders.set(lock, holder);
      if (holder instanceof Task) {
        addNode(b, taskNode(holder));
        addEdge(b, `task:${holder.id}`, resourceIdOf(lock), 'holds');
      }
    }
  }

  const deadlocks: AwaitGraph['deadlocks'] = [];
  const dead = new Set<number>();
  // Rule 1: cycles.
  for (const cycle of cyclesOf(waits)) {
    for (const id of cycle) dead.add(id);
    const names = cycle.map((id) => describeTask(byId.get(id)!));
    deadlocks.push({
      nodes: cycle.map((id) => `task:${id}`),
      reason: cycle.length === 1 ? `${names[0]} awaits itself (through gather/waitFor/shield)` : `cycle of tasks awaiting each other: ${[...names, names[0]].join(' → ')}`,
    });
  }
  // Rule 4: locks held by finished tasks.
  for (const [lock, holder] of lockHolders) {
    if (!(holder instanceof Task) || !holder.done()) continue;
    const waiters = tasks.filter((t) => t._waiter !== null && !t._waiter.done() && resourceOf(t._waiter) === lock);
    if (waiters.length === 0) continue;
    for (const t of waiters) dead.add(t.id);
    deadlocks.push({
      nodes: [resourceIdOf(lock), `task:${holder.id}`, ...waiters.map((t) => `task:${t.id}`)],
      reason: `${describeTarget(lock)} is held by ${describeTask(holder)}, which ${taskState(holder) === 'done' ? 'returned' : taskState(holder) === 'failed' ? 'failed' : 'was cancelled'} without releasing it; ${waiters.map((t) => `#${t.id}`).join(', ')} wait for it forever`,
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
      const w = t._waiter;
      if (w === null || w.done()) return false;
      return w instanceof Task || (w._origin !== null && INTERNAL_KINDS.has(w._origin.kind));
    });
    const rest = live.filter((t) => !dead.has(t.id));
    if (internal && rest.length > 0) {
      deadlocks.push({
        nodes: rest.map((t) => `task:${t.id}`),
        reason: `nothing can run: no task is ready, no timer is pending and no socket is watched, so every live task waits forever: ${rest.slice(0, 8).map(describeWait).join('; ')}${rest.length > 8 ? `; … ${rest.length - 8} more` : ''}`,
      });
    }
  }
  return { nodes: [...b.nodes.values()], edges: b.edges, deadlocks };
}
