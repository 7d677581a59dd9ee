// Where a primitive (Lock, Queue, Event, Semaphore, Condition, Barrier) was created, and where
// a Lock was last taken: the stack captured then, formatted only if an inspector asks
// (runtime/inspect/resource-names.ts names a resource by the variable or attribute it was
// created into, read from the program's source line at that site).
//
// Invariants: nothing is captured while coroutine tracking is off (no inspector watches):
// one boolean test per construction or acquire. A capture keeps nothing alive (WeakMap keyed
// by the primitive; the stack is a string V8 formats lazily).

import { isCoroutineTrackingOn } from './coroutine';

/** A stack captured by Error.captureStackTrace (its `stack` formatted on first read). */
export interface CapturedStack {
  readonly stack?: string;
}

const created = new WeakMap<object, CapturedStack>();

/** Frames kept: the primitive's own constructors (a subclass's too) and the program's line above them. */
const FRAMES = 12;

/** The stack now, without the frames of `below` and above it, at most `frames` deep; null while tracking is off. */
export function captureSite(below: (...args: never[]) => unknown, frames = FRAMES): CapturedStack | null {
  if (!isCoroutineTrackingOn()) return null;
  const site: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = frames;
  Error.captureStackTrace(site, below);
  Error.stackTraceLimit = limit;
  return site;
}

/** Called by a primitive's constructor: remembers where the program made it (while tracking is on). */
export function noteCreationSite(resource: object): void {
  const site = captureSite(noteCreationSite);
  if (site !== null && !created.has(resource)) created.set(resource, site);
}

/** The stack captured when `resource` was made, or null (made while tracking was off). */
export function creationStackOf(resource: object): CapturedStack | null {
  return created.get(resource) ?? null;
}
