// Task snapshots: the summary of every live task of a loop (task-summaries.ts's one
// summarizer, in the protocol's shape; no node:inspector), and, on demand, the frames of a
// task's `yield*` chain with TypeScript positions and locals.
//
// Frames (taskFrames): the chain is the task's tracked frames (root first, recorded by
// coroutine() with tracking on), preceded by the task's own coroutine when that is not
// coroutine()'s tracking wrapper. With tracking off only the task's root generator is
// reachable. Each generator is read by GeneratorReader and mapped by SourcePositionMapper.

import type { TaskSummary } from '../../protocol/host-protocol';
import { inspect } from '../inspection';
import type { EventLoop } from '../loop';
import type { Task } from '../task';
import {
  generatorReader,
  type GeneratorLocation,
  type GeneratorReader,
  type GeneratorState,
  type LocalVariable,
} from './generator-reader';
import { sourcePositions, sourceVariableName, type SourcePositionMapper } from './source-positions';
import { summarizeTasks, type SummaryOptions } from './task-summaries';
import type { HandleSink } from './value-preview';

export interface TasksSnapshot {
  /** Loop time, seconds. */
  readonly time: number;
  readonly tick: number;
  readonly paused: boolean;
  readonly tasks: TaskSummary[];
}

/** A summary of every live task of the loop, in creation order. */
export function snapshotTasks(loop: EventLoop, options: SummaryOptions = {}): TasksSnapshot {
  return {
    time: loop.time(),
    tick: loop.tickCount(),
    paused: loop.isPaused(),
    tasks: summarizeTasks(loop.allTasks(), options),
  };
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
export function framesOfTasks(
  tasks: readonly Task<unknown>[],
  options: FramesOptions = {},
): Map<Task<unknown>, TaskFrame[]> {
  const reader = options.reader ?? generatorReader();
  const positions = options.positions ?? sourcePositions();
  const chains = chainsOf(tasks);
  const allGens: object[] = [];
  const allNames: Array<string | null> = [];
  for (const c of chains) {
    allGens.push(...c.gens);
    allNames.push(...c.names);
  }
  const read = reader.readGenerators(allGens, {
    locals: options.locals ?? false,
    handles: options.handles,
    functionNames: allNames,
  });
  const out = new Map<Task<unknown>, TaskFrame[]>();
  let k = 0;
  tasks.forEach((t, i) => {
    const c = chains[i]!;
    const frames: TaskFrame[] = [];
    for (let d = 0; d < c.gens.length; d++) {
      const g = read[k++]!;
      const loc = g.location;
      const pos =
        loc !== null && loc.url !== '' ? positions.map(loc.url, loc.line0, loc.column0, loc.sourceMapURL) : null;
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
