// Shape anchors: one inert instance of each hot runtime class, alive for the process's life, so
// V8 never forgets their hidden classes between runs (why and measurements:
// docs/design/runtime-core.md).
//
// Invariants: the anchors belong to a loop of their own that never runs, is never the running
// loop and is never closed; they hold nothing of any other loop; the anchor task has id 0 and
// uses up no task number (a program's first task is "Task-1"). Anchoring happens once, when the
// first EventLoop is built.

import { inertTrackedFrame } from './coroutine';
import type { EventLoop } from './loop';
import { Future } from './future';
import { GatheringFuture } from './gather';
import { Handle, TimerHandle } from './handle';
import { Task, uncountedTask } from './task';

let anchors: readonly unknown[] | null = null;

function* neverStepped(): Generator<unknown, void, unknown> {
  // The anchor task's loop never runs, so this body never starts.
}

function noop(): void {}

/**
 * Keeps one instance of each hot class alive, built on a loop from `makeInertLoop` (made
 * only for this and used for nothing else). Later calls do nothing.
 */
export function anchorShapes(makeInertLoop: () => EventLoop): void {
  if (anchors !== null) return;
  anchors = []; // set first: the inert loop's own construction comes back here
  const loop = makeInertLoop();
  const future = new Future<unknown>(loop);
  const task = uncountedTask(() => new Task(neverStepped(), loop, 'shape-anchor'));
  const gathering = new GatheringFuture<unknown[]>(loop, [future], false);
  const handle = new Handle(noop, []);
  const timer = new TimerHandle(0, 0, noop, [], null);
  // A tracked coroutine's frame (coroutine.ts): its class's fields are added in hidden classes that live only
  // while an instance does, so the tracked tasks of one run all gone, the next run's code would start over.
  const frame = inertTrackedFrame(neverStepped(), neverStepped);
  anchors = [loop, future, task, gathering, handle, timer, frame];
}

/** @internal The anchored instances (tests). */
export function shapeAnchors(): readonly unknown[] {
  return anchors ?? [];
}
