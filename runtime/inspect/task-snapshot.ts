// Task snapshots: a cheap summary of every live task of a loop (no node:inspector), and, on
// demand, the frames of a task's `yield*` chain with TypeScript positions and locals.
//
// Summary (snapshotTasks): per task its id, name, state, steps, what it awaits (the awaited
// future's origin: kind, detail, a bounded description of its target, and the tasks behind
// it), which tasks await it, which task created it (with a TaskRecorder attached) and its
// coroutine's function names. One pass over the tasks plus one over their waiters: linear
// in the number of tasks, no protocol calls, no program code run.
//
// Everything is read through the runtime's inspection interface (runtime/inspection.ts).
// "Awaits" edges, from a task X suspended on future F:
// - F is a Task: X awaits F;
// - F stands for other futures (gather's children, nested gathers included; waitFor's or
//   shield's inner awaitable): X awaits every task among them.
// "Awaited by" is the reverse, plus every Task registered as a waiter of the task's own
// future.
//
// Frames (taskFrames): the chain is the task's tracked frames (root first, recorded by
// coroutine() with tracking on), preceded by the task's own coroutine when that is not
// coroutine()'s tracking wrapper. With tracking off only the task's root generator is
// reachable. Each generator is read by GeneratorReader and mapped by SourcePositionMapper.

import { Future } from '../future';
import { inspect, inspectResource } from '../inspection';
import type { EventLoop } from '../loop';
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
    // The inspection's outcome, not exception(): that would mark the exception retrieved.
    return task[inspect]().outcome().state === 'exception' ? 'failed' : 'done';
  }
  if (task.getLoop().currentTask() === task) return 'running';
  return task.awaiting() !== null ? 'suspended' : 'scheduled';
}

/** `Task #3 "worker-2"`. */
export function describeTask(task: Task<unknown>): string {
  return `Task #${task.id} ${JSON.stringify(task.name)}`;
}

/** A bounded description of what a future belongs to; only the runtime's own toString is called. */
export function describeTarget(target: unknown): string | null {
  if (target === undefined || target === null) return null;
  if (target instanceof Task) return describeTask(target);
  if (target instanceof Future) return clipText(target.toString());
  const resource = inspectResource(target);
  if (resource !== null) return clipText(resource.description());
  if (typeof target === 'object' || typeof target === 'function') return `<${classNameOf(target)}>`;
  return clipText(String(target));
}

/**
 * The tasks a future stands for: itself if a task, else the tasks among the futures it
 * stands for in turn (gather's children, nested gathers, waitFor's and shield's inner
 * task); in order, each once. Linear in the number of children (a gather of 10k tasks is
 * common and summaries ask this for every waiting task).
 */
export function awaitedTasks(fut: Future<unknown>): Task<unknown>[] {
  if (fut instanceof Task) return [fut];
  const inner = fut[inspect]().inner();
  if (inner.length === 0) return [];
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
    for (const child of f[inspect]().inner()) visit(child, depth + 1);
  };
  for (const child of inner) visit(child, 1);
  return out;
}

/** What a future awaited by a task is, as AwaitInfo. */
export function describeAwait(fut: Future<unknown>): AwaitInfo {
  const taskIds = awaitedTasks(fut).map((t) => t.id);
  if (fut instanceof Task) return { kind: 'task', detail: null, target: describeTask(fut), taskIds };
  const view = fut[inspect]();
  if (view.kind === 'future' && view.resource === null && view.inner().length === 0) return { kind: 'future', detail: null, target: clipText(fut.toString()), taskIds };
  // A future standing for others (gather) is described by them (taskIds), a waitFor by its inner future.
  const inner = view.inner();
  const target = view.resource !== null ? describeTarget(view.resource) : inner.length === 1 ? describeTarget(inner[0]) : null;
  return { kind: view.kind, detail: view.detail, target, taskIds };
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
    const w = t.awaiting();
    if (w !== null && !t.done()) {
      const info = describeAwait(w);
      awaiting.set(t, info);
      for (const behind of awaitedTasks(w)) addEdge(behind, t);
    }
    for (const cb of t[inspect]().waitingTasks()) if (cb !== t) addEdge(t, cb);
  }
  const now = tasks.length > 0 ? tasks[0]!.getLoop().time() : 0;
  const out: TaskSummary[] = new Array<TaskSummary>(tasks.length);
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    const frames = t[inspect]().frames;
    const names: string[] = [];
    if (frames !== null) for (const f of frames) names.push(f.fn.name);
    const rec = recorder?.recordOf(t);
    out[i] = {
      id: t.id,
      name: t.name,
      state: taskState(t),
      steps: t.steps(),
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

function chainsOf(tasks: readonly Task<unknown>[]): Chain[] {
  return tasks.map((t): Chain => {
    const gens: object[] = [];
    const names: Array<string | null> = [];
    const tracked: boolean[] = [];
    if (t.done()) return { gens, names, tracked };
    const view = t[inspect]();
    if (!view.coroutineIsWrapper) {
      gens.push(view.coroutine as object);
      names.push(null);
      tracked.push(false);
    }
    for (const f of view.frames ?? []) {
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
  const chains = chainsOf(tasks);
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
