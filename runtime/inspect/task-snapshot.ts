// Task snapshots: a cheap summary of every live task of a loop (no node:inspector), and, on
// demand, the frames of a task's `yield*` chain with TypeScript positions and locals.
//
// Summary (snapshotTasks): per task its id, name, state, steps, what it awaits (the awaited
// future's origin: kind, detail, a bounded description of its target, and the tasks behind
// it), which tasks await it, which task created it (with a TaskRecorder attached) and its
// coroutine's function names. One pass over the tasks plus one over their waiters: linear
// in the number of tasks, no protocol calls, no program code run.
//
// "Awaits" edges, from a task X suspended on future F:
// - F is a Task: X awaits F;
// - F is gather()'s GatheringFuture: X awaits every child task (nested gathers included);
// - F is waitFor's or shield's inner waiter: X awaits the task inside (the origin's target).
// "Awaited by" is the reverse, plus every Task registered as a waiter of the task's own
// future (`_callbacks()`).
//
// Frames (taskFrames): the chain is the task's `_frames` (root first, recorded by
// coroutine() with tracking on), preceded by the task's own coroutine when that is not a
// coroutine()-made one. With tracking off only the task's root generator is reachable.
// Each generator is read by GeneratorReader and mapped by SourcePositionMapper.

import { Future } from '../future';
import { GatheringFuture } from '../gather';
import { Handle } from '../handle';
import { Event } from '../event';
import { Lock } from '../lock';
import type { EventLoop } from '../loop';
import { Queue } from '../queue';
import { Semaphore } from '../semaphore';
import { Socket } from '../socket';
import { Task } from '../task';
import { generatorReader, type GeneratorLocation, type GeneratorReader, type GeneratorState, type LocalVariable } from './generator-reader';
import { sourcePositions, sourceVariableName, type SourcePositionMapper } from './source-positions';
import { TaskRecorder } from './task-recorder';
import { classNameOf, type HandleSink } from './value-preview';

export type TaskState = 'scheduled' | 'running' | 'suspended' | 'done' | 'cancelled' | 'failed';

/** What a task is suspended on. */
export interface AwaitInfo {
  /** The future's origin kind ('queue.get', 'socket.read', 'sleep', 'gather', …), 'task' for a task, 'future' if unknown. */
  readonly kind: string;
  /** The origin's detail (a delay, a socket, a pool key), or null. */
  readonly detail: string | null;
  /** A bounded description of what the future belongs to (`<Queue …>`, `<Socket …>`, `Task #3 "x"`), or null. */
  readonly target: string | null;
  /** The tasks behind this await (a task awaited, gather's children, waitFor's inner task). */
  readonly taskIds: number[];
}

export interface TaskSummary {
  readonly id: number;
  readonly name: string;
  readonly state: TaskState;
  readonly steps: number;
  readonly awaiting: AwaitInfo | null;
  /** Ids of the live tasks awaiting this one, directly or through gather/waitFor/shield. */
  readonly awaitedBy: number[];
  /** Id of the task that created it (needs a TaskRecorder), null if unknown or created outside a task. */
  readonly createdBy: number | null;
  /** Function names of the tracked `yield*` chain, root first (empty with tracking off or before the first step). */
  readonly coroutine: string[];
  /** True when the chain is tracked (coroutine() frames exist). */
  readonly tracked: boolean;
  /** Loop time at creation (TaskRecorder), null if unknown. */
  readonly createdAt: number | null;
  /** Seconds spent running steps (TaskRecorder), null if unknown. */
  readonly busySeconds: number | null;
  /** Loop seconds since it last resumed (TaskRecorder), null if unknown or never run. */
  readonly sinceResumedSeconds: number | null;
}

export interface TasksSnapshot {
  /** Loop time, seconds. */
  readonly time: number;
  readonly tick: number;
  readonly paused: boolean;
  readonly tasks: TaskSummary[];
}

export interface SnapshotOptions {
  /** Adds createdBy and the timings. Default: the loop's attached recorder (TaskRecorder.of); null for none. */
  readonly recorder?: TaskRecorder | null;
}

/** Longest target description, in characters. */
const TARGET_TEXT = 120;

function clipText(s: string): string {
  return s.length > TARGET_TEXT ? `${s.slice(0, TARGET_TEXT - 1)}…` : s;
}

/** The state of a task as the inspector names it. */
export function taskState(task: Task<unknown>): TaskState {
  if (task.done()) {
    if (task.cancelled()) return 'cancelled';
    // Read the field, not exception(): that would mark the exception retrieved.
    return task._exception !== undefined ? 'failed' : 'done';
  }
  if (task.getLoop().currentTask() === task) return 'running';
  return task._waiter !== null ? 'suspended' : 'scheduled';
}

/** `Task #3 "worker-2"`. */
export function describeTask(task: Task<unknown>): string {
  return `Task #${task.id} ${JSON.stringify(task.name)}`;
}

/** A bounded description of what a future belongs to; only the runtime's own toString is called. */
export function describeTarget(target: unknown): string | null {
  if (target === undefined || target === null) return null;
  if (target instanceof Task) return describeTask(target);
  if (
    target instanceof Future ||
    target instanceof Queue ||
    target instanceof Event ||
    target instanceof Lock ||
    target instanceof Semaphore ||
    target instanceof Socket ||
    target instanceof Handle
  ) {
    return clipText(target.toString());
  }
  if (typeof target === 'object' || typeof target === 'function') return `<${classNameOf(target)}>`;
  return clipText(String(target));
}

const WRAPPER_KINDS = new Set(['waitFor', 'waitFor.cancel', 'shield']);

/** The tasks a future stands for: itself if a task, gather's children, waitFor/shield's inner task. */
export function tasksBehind(fut: Future<unknown>, depth = 0): Task<unknown>[] {
  if (fut instanceof Task) return [fut];
  if (depth > 8) return [];
  if (fut instanceof GatheringFuture) {
    const out: Task<unknown>[] = [];
    for (const child of fut._children) for (const t of tasksBehind(child, depth + 1)) if (!out.includes(t)) out.push(t);
    return out;
  }
  const origin = fut._origin;
  if (origin !== null && WRAPPER_KINDS.has(origin.kind) && origin.target instanceof Future) return tasksBehind(origin.target, depth + 1);
  return [];
}

/** What a future awaited by a task is, as AwaitInfo. */
export function describeAwait(fut: Future<unknown>): AwaitInfo {
  const taskIds = tasksBehind(fut).map((t) => t.id);
  if (fut instanceof Task) return { kind: 'task', detail: null, target: describeTask(fut), taskIds };
  const origin = fut._origin;
  if (origin === null) return { kind: 'future', detail: null, target: clipText(fut.toString()), taskIds };
  // gather's target is the gathering future itself: describe it by its children instead.
  const target = origin.target === fut ? null : describeTarget(origin.target);
  return { kind: origin.kind, detail: origin.detail ?? null, target, taskIds };
}

/** A summary of every live task of the loop (or of the given tasks), in creation order. */
export function snapshotTasks(loop: EventLoop, options: SnapshotOptions = {}): TasksSnapshot {
  return { time: loop.time(), tick: loop.tickCount(), paused: loop.isPaused(), tasks: summarizeTasks(loop.allTasks(), options) };
}

/** Summaries of the given tasks; awaited-by edges only count tasks of the same list. */
export function summarizeTasks(tasks: readonly Task<unknown>[], options: SnapshotOptions = {}): TaskSummary[] {
  const recorder = options.recorder !== undefined ? options.recorder : tasks.length > 0 ? TaskRecorder.of(tasks[0]!.getLoop()) : null;
  const awaitedBy = new Map<Task<unknown>, number[]>();
  const addEdge = (awaited: Task<unknown>, by: Task<unknown>): void => {
    let list = awaitedBy.get(awaited);
    if (list === undefined) awaitedBy.set(awaited, (list = []));
    if (!list.includes(by.id)) list.push(by.id);
  };
  const awaiting = new Map<Task<unknown>, AwaitInfo>();
  for (const t of tasks) {
    const w = t._waiter;
    if (w !== null && !t.done()) {
      const info = describeAwait(w);
      awaiting.set(t, info);
      for (const behind of tasksBehind(w)) addEdge(behind, t);
    }
    for (const cb of t._callbacks()) if (cb instanceof Task && cb !== t) addEdge(t, cb);
  }
  const now = tasks.length > 0 ? tasks[0]!.getLoop().time() : 0;
  const out: TaskSummary[] = new Array<TaskSummary>(tasks.length);
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    const frames = t._frames;
    const names: string[] = [];
    if (frames !== null) for (const f of frames) names.push(f.fn.name);
    const rec = recorder?.recordOf(t);
    out[i] = {
      id: t.id,
      name: t.name,
      state: taskState(t),
      steps: t._steps,
      awaiting: awaiting.get(t) ?? null,
      awaitedBy: awaitedBy.get(t) ?? [],
      createdBy: rec?.createdBy?.id ?? null,
      coroutine: names,
      tracked: frames !== null && frames.length > 0,
      createdAt: rec?.createdAt ?? null,
      busySeconds: rec?.busySeconds ?? null,
      sinceResumedSeconds: rec?.lastResumedAt != null ? now - rec.lastResumedAt : null,
    };
  }
  return out;
}

// --- frames ------------------------------------------------------------------------------

/** One frame of a task's chain, mapped to its source. */
export interface TaskFrame {
  /** 0 for the root. */
  readonly depth: number;
  readonly functionName: string;
  /** Source file (TypeScript when mapped), null when V8 gave no location. */
  readonly file: string | null;
  /** 1-based line and column in `file`. */
  readonly line: number | null;
  readonly column: number | null;
  /** True when the position went through a source map. */
  readonly mapped: boolean;
  /** The position in the generated JavaScript. */
  readonly generated: GeneratorLocation | null;
  readonly state: GeneratorState;
  /** The frame's locals (only when asked for). */
  readonly locals: LocalVariable[] | null;
  /** False for a root generator not made by coroutine(): the runtime does not track its frames. */
  readonly tracked: boolean;
}

export interface FramesOptions {
  /** Read locals too (about one more protocol call per frame). Default false. */
  readonly locals?: boolean;
  /** Where local previews register handles (see ReadGeneratorOptions.handles); none by default. */
  readonly handles?: HandleSink;
  readonly reader?: GeneratorReader;
  readonly positions?: SourcePositionMapper;
}

interface Chain {
  readonly gens: object[];
  readonly names: Array<string | null>;
  readonly tracked: boolean[];
}

/**
 * The prototype of the generators coroutine()'s tracking wraps every coroutine in (they
 * all come from one generator function in coroutine.ts, which the runtime does not
 * export). Learned from the first task whose root coroutine is seen to hold the inner
 * generator of the task's frame 0; after that, telling a wrapper from a generator of the
 * program's own is one prototype comparison.
 */
let wrapperPrototype: object | null = null;
/** Roots found not to be wrappers while the prototype was unknown. */
const plainRoots = new WeakSet<object>();
/** Roots examined per call while the wrapper prototype is still unknown. */
const LEARN_ATTEMPTS = 4;

function learnWrapperPrototype(tasks: readonly Task<unknown>[], reader: GeneratorReader): void {
  let attempts = 0;
  for (const t of tasks) {
    if (wrapperPrototype !== null || attempts >= LEARN_ATTEMPTS) return;
    const first = t._frames?.[0];
    if (t.done() || first === undefined || first.depth !== 0 || plainRoots.has(t._coro as object)) continue;
    attempts++;
    if (reader.frameHolds(t._coro as object, first.gen)) wrapperPrototype = Object.getPrototypeOf(t._coro) as object;
    else plainRoots.add(t._coro as object);
  }
}

/** True if the task's own coroutine is coroutine()'s tracking wrapper (its inner generator is frame 0). */
function rootIsWrapper(task: Task<unknown>): boolean {
  if (wrapperPrototype !== null) return Object.getPrototypeOf(task._coro) === wrapperPrototype;
  if (plainRoots.has(task._coro as object)) return false;
  // Not learned yet: no task ever showed a wrapper root. With frames, assume the common
  // case (a coroutine() root); without, the root is all there is to show.
  return task._frames !== null && task._frames.length > 0;
}

function chainsOf(tasks: readonly Task<unknown>[], reader: GeneratorReader): Chain[] {
  if (wrapperPrototype === null) learnWrapperPrototype(tasks, reader);
  return tasks.map((t): Chain => {
    const gens: object[] = [];
    const names: Array<string | null> = [];
    const tracked: boolean[] = [];
    if (t.done()) return { gens, names, tracked };
    if (!rootIsWrapper(t)) {
      gens.push(t._coro as object);
      names.push(null);
      tracked.push(false);
    }
    for (const f of t._frames ?? []) {
      gens.push(f.gen);
      names.push(f.fn.name);
      tracked.push(true);
    }
    return { gens, names, tracked };
  });
}

/**
 * Locals under their source names (see sourceVariableName); when a renamed inner variable
 * meets the outer one it shadowed, the inner one (listed first) is kept.
 */
function withSourceNames(locals: LocalVariable[], file: string): LocalVariable[] {
  const out: LocalVariable[] = [];
  const seen = new Set<string>();
  for (const l of locals) {
    const name = sourceVariableName(l.name, file);
    if (seen.has(name)) continue;
    seen.add(name);
    out.push(name === l.name ? l : { ...l, name });
  }
  return out;
}

/** The frames of one task's chain, root first (innermost last). */
export function taskFrames(task: Task<unknown>, options: FramesOptions = {}): TaskFrame[] {
  return framesOfTasks([task], options).get(task) ?? [];
}

/** The frames of many tasks, read in one batch. Done tasks have no frames. */
export function framesOfTasks(tasks: readonly Task<unknown>[], options: FramesOptions = {}): Map<Task<unknown>, TaskFrame[]> {
  const reader = options.reader ?? generatorReader();
  const positions = options.positions ?? sourcePositions();
  const chains = chainsOf(tasks, reader);
  const allGens: object[] = [];
  const allNames: Array<string | null> = [];
  for (const c of chains) {
    allGens.push(...c.gens);
    allNames.push(...c.names);
  }
  const read = reader.readGenerators(allGens, { locals: options.locals ?? false, handles: options.handles, functionNames: allNames });
  const out = new Map<Task<unknown>, TaskFrame[]>();
  let k = 0;
  tasks.forEach((t, i) => {
    const c = chains[i]!;
    const frames: TaskFrame[] = [];
    for (let d = 0; d < c.gens.length; d++) {
      const g = read[k++]!;
      const loc = g.location;
      const pos = loc !== null && loc.url !== '' ? positions.map(loc.url, loc.line0, loc.column0, loc.sourceMapURL) : null;
      frames.push({
        depth: d,
        functionName: g.functionName,
        file: pos?.file ?? null,
        line: pos?.line ?? null,
        column: pos?.column ?? null,
        mapped: pos?.mapped ?? false,
        generated: loc,
        state: g.state,
        locals: g.locals !== null && pos?.mapped === true ? withSourceNames(g.locals, pos.file) : g.locals,
        tracked: c.tracked[d]!,
      });
    }
    out.set(t, frames);
  });
  return out;
}
