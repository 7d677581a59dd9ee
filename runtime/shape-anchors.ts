// Shape anchors: one inert instance of each hot runtime class, kept alive for the life of
// the process so V8 never forgets their hidden classes.
//
// Why: V8 builds a class instance's hidden class (map) by transitions from the
// constructor's initial map, one per field, and holds those transitions weakly. When a
// full GC finds no instance of a class alive (a program runs a loop to completion, drops
// it, and later runs another, as run() does every time), the maps die with the instances;
// the next instances get new maps, and every optimized function specialized for the old
// ones deoptimizes and runs unoptimized until V8 re-learns the types. Measured on the
// resume round of bench/runtime.bench.ts (100k tasks, a full GC between rounds, 40 rounds):
// ~415 deoptimizations and ~360 ns per resume without anchors; ~20 (the warm-up's) and
// ~150-260 ns with them.
//
// Invariants: the anchors belong to a loop of their own that never runs, is never the
// running loop and is never closed, so they are never stepped, scheduled or reported; they
// hold nothing of any other loop; the anchor task has id 0 and uses up no task number, so a
// program's first task is #1 ("Task-1"), as in asyncio. Anchoring happens once, when the
// first EventLoop is built.

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
  anchors = [loop, future, task, gathering, handle, timer];
}

/** @internal The anchored instances (tests). */
export function shapeAnchors(): readonly unknown[] {
  return anchors ?? [];
}
