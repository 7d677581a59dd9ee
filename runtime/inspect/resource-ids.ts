// Stable ids of the await graph's nodes: `task:<id>` for a task, `future:<n>` for any other
// future, `resource:<kind>:<n>` for a resource (its kind as its inspection names it). Ids are
// numbered through WeakMaps, so they stay the same for the life of the objects (a client can
// diff two graphs, and summaries name a shared resource by the id the graph uses) and keep
// nothing alive.

import type { Future } from '../future';
import { inspectResource } from '../inspection';
import { Task } from '../task';

const futureIds = new WeakMap<object, number>();
const resourceIds = new WeakMap<object, string>();
let nextFutureId = 1;
let nextResourceId = 1;

/** The kind of resource an origin target is (queue, lock, event, ...), as it names itself. */
export function resourceKind(target: object): string {
  return inspectResource(target)?.kind ?? 'object';
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
