// SuspensionBreakpoints: the line breakpoints a task can stop at only where it suspends (a line
// with `yield`), checked against one loop's task steps: by the live LoopController
// (loop-control.ts) and by a search of the recorded past (hit-scan.ts), so a search finds the
// hits the live run stops at. When a step hits is in docs/design/suspension-breakpoints.md.
//
// Invariants: whether a step hits depends on that step alone and on whether the task's step
// before stopped where it resumes, never on when the check began to look. A false `condition`
// is no hit, a throwing one is a hit (said so). Nothing is read while no breakpoint is set; only
// frames of functions in files with breakpoints are read, and in a step only those that may have
// moved or were never read; a file armed anew forgets its lines; the check never resumes or
// throws into a task.

import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import type { Breakpoint, BreakpointStatus } from '../../protocol/host-protocol';
import type { CoroutineFrame } from '../coroutine';
import { isCoroutineTrackingOn } from '../coroutine';
import { inspect } from '../inspection';
import type { Task } from '../task';
import { FunctionLocations, functionLocations } from './function-locations';
import { HitCount, hitConditionOf } from './hit-count';
import { errorText, evaluateOverLocals, IN_DEAD_ZONE } from './local-expressions';
import { generatorReader, type GeneratorReader, type LocalVariable } from './generator-reader';
import { sourcePositions, type SourcePositionMapper } from './source-positions';
import { valueOfPreview } from './value-preview';

export interface BreakpointEntry {
  readonly file: string;
  readonly line: number;
  readonly condition: string | null;
  /** Its hits since set, against its hit condition (hit-count.ts). */
  readonly hits: HitCount;
}

/**
 * Evaluates a breakpoint condition over a frame's locals (primitives only). Returns whether it
 * holds, or the error text when it threw.
 */
export function evaluateCondition(
  condition: string,
  locals: readonly LocalVariable[],
): { value: boolean; error: string | null } {
  const bindings = locals.map((l): readonly [string, unknown] => {
    if (l.value.type === 'uninitialized') return [l.name, IN_DEAD_ZONE];
    const v = valueOfPreview(l.value);
    return [l.name, v.cut ? undefined : v.value];
  });
  const r = evaluateOverLocals(condition, bindings, { strict: true });
  return r.ok ? { value: Boolean(r.value), error: null } : { value: true, error: errorText(r.error) };
}

/**
 * Checks breakpoints against the file's text: a verified breakpoint is on a line with `yield`
 * (where a task can stop), with a parseable condition and hit condition.
 */
/**
 * True for a source line where a task can suspend (it has `yield`): its breakpoints stop at suspensions;
 * others are line breakpoints.
 */
export function isSuspensionLine(text: string): boolean {
  return /\byield\b/.test(text);
}

export function checkBreakpoints(
  file: string,
  breakpoints: readonly Breakpoint[],
): { statuses: BreakpointStatus[]; entries: BreakpointEntry[] } {
  const path = resolvePath(file);
  let lines: string[] | null = null;
  let readError: string | null = null;
  try {
    lines = readFileSync(path, 'utf8').split('\n');
  } catch (e) {
    readError = e instanceof Error ? e.message : String(e);
  }
  const tracking = isCoroutineTrackingOn();
  const entries: BreakpointEntry[] = [];
  const statuses = breakpoints.map((bp): BreakpointStatus => {
    const status = (verified: boolean, message?: string): BreakpointStatus =>
      message === undefined
        ? { file: path, line: bp.line, verified }
        : { file: path, line: bp.line, verified, message };
    if (!Number.isInteger(bp.line) || bp.line < 1)
      return status(false, `line must be a positive integer, got ${String(bp.line)}`);
    if (lines === null) return status(false, `cannot read ${path}: ${readError}`);
    if (bp.line > lines.length) return status(false, `${path} has only ${lines.length} lines`);
    if (!isSuspensionLine(lines[bp.line - 1]!))
      return status(false, 'a task can only stop where it suspends: put the breakpoint on a line with yield*');
    const hitCondition = hitConditionOf(bp.hitCondition);
    if ('refused' in hitCondition) return status(false, hitCondition.refused);
    let condition: string | null = null;
    if (bp.condition !== undefined && bp.condition.trim() !== '') {
      try {
        new Function(`return (${bp.condition});`);
      } catch (e) {
        return status(false, `condition does not parse: ${e instanceof Error ? e.message : String(e)}`);
      }
      condition = bp.condition;
    }
    entries.push({ file: path, line: bp.line, condition, hits: new HitCount(hitCondition.test) });
    return tracking
      ? status(true)
      : status(
          true,
          'inspection is off: frames are not tracked, so this breakpoint cannot hit until a run with inspection on',
        );
  });
  return { statuses, entries };
}

export interface SuspensionBreakpointsOptions {
  reader?: GeneratorReader;
  positions?: SourcePositionMapper;
  functions?: FunctionLocations;
}

/**
 * A breakpoint's condition held for `task` (`description` as the stop says it): true when the hit stops the
 * task there.
 */
export type SuspensionHit = (bp: BreakpointEntry, task: Task<unknown>, description: string) => boolean;

export class SuspensionBreakpoints {
  // Breakpoints by absolute file path.
  private readonly breakpoints = new Map<string, BreakpointEntry[]>();
  private breakpointCount = 0;
  /** The line (file:line) each generator of a file with breakpoints was last seen suspended at. */
  private lastLine = new WeakMap<object, string>();
  /** Where a task stopped at the end of its last step (taken at its next step's start). */
  private readonly stoppedAt = new WeakMap<Task<unknown>, string>();
  /** The task stepping now and its frames' generators at its step's start. */
  private stepping: { task: Task<unknown>; gens: object[] } | null = null;

  constructor(
    private readonly hit: SuspensionHit,
    private readonly options: SuspensionBreakpointsOptions = {},
  ) {}

  private get reader(): GeneratorReader {
    return this.options.reader ?? generatorReader();
  }
  private get positions(): SourcePositionMapper {
    return this.options.positions ?? sourcePositions();
  }
  private get functions(): FunctionLocations {
    return this.options.functions ?? functionLocations();
  }

  /** Whether any breakpoint is set (else a step costs nothing). */
  get active(): boolean {
    return this.breakpointCount > 0;
  }

  /** Replaces the breakpoints of `file`; says which are verified (lines where a task can stop). */
  set(file: string, breakpoints: readonly Breakpoint[]): BreakpointStatus[] {
    const path = resolvePath(file);
    const previous = this.breakpoints.get(path);
    if (previous !== undefined) this.breakpointCount -= previous.length;
    this.breakpoints.delete(path);
    const { statuses, entries } = checkBreakpoints(path, breakpoints);
    if (entries.length > 0) {
      // A file armed anew: its frames went unseen meanwhile, the lines kept of them may be stale.
      if (previous === undefined) this.lastLine = new WeakMap();
      this.breakpoints.set(path, entries);
      this.breakpointCount += entries.length;
    }
    return statuses;
  }

  /** A task's step starts: does it resume from a breakpoint's line? */
  stepStarted(task: Task<unknown>): void {
    if (this.breakpointCount === 0) return;
    const stopped = this.stoppedAt.get(task);
    this.stoppedAt.delete(task);
    const frames = task[inspect]().frames;
    if (frames === null || frames.length === 0) {
      this.stepping = null;
      return;
    }
    this.stepping = { task, gens: frames.map((f) => f.gen) };
    // The innermost frame (where it resumes from), and the frames never looked at (their line now is where
    // they last suspended).
    const wanted = frames.filter((f, i) => i === frames.length - 1 || !this.lastLine.has(f.gen));
    const lines = this.linesOf(wanted);
    for (const l of lines) if (l !== null) this.lastLine.set(l.frame.gen, `${l.file}:${l.line}`);
    const inner = frames[frames.length - 1]!;
    const l = lines[lines.length - 1];
    if (l === null || l === undefined || l.frame !== inner) return;
    const key = `${l.file}:${l.line}`;
    // It stopped here when it suspended: resuming is the user's own step onwards.
    if (stopped === key) return;
    const bp = this.breakpointAt(l.file, l.line);
    if (bp === undefined) return;
    const note = this.conditionNote(bp, inner);
    if (note !== null)
      this.hit(
        bp,
        task,
        `Task #${task.id} ${JSON.stringify(task.name)} resumed from ${key} in ${inner.fn.name || '<anonymous>'}${note}`,
      );
  }

  /** A task's step ended: has one of its frames newly arrived at a breakpoint's line? */
  stepEnded(task: Task<unknown>): void {
    if (this.breakpointCount === 0) return;
    const start = this.stepping?.task === task ? this.stepping.gens : null;
    this.stepping = null;
    const frames = task[inspect]().frames;
    if (frames === null || frames.length === 0 || task.done()) return;
    // Frames 0 .. same-1 are the calls of the step's start still in the same `yield*` (their callee
    // too): unmoved. Frame `same`, the deepest call kept, went on if its callee is another call
    // now (it made a new one, on the same line or not); the frames after it are new.
    let same = 0;
    let calleeChanged = start === null;
    if (start !== null) {
      const common = Math.min(start.length, frames.length);
      let d = 0;
      while (d < common && start[d] === frames[d]!.gen) d++;
      same = Math.max(0, d - 1);
      calleeChanged = d === 0 || (start[d] ?? null) !== (frames[d]?.gen ?? null);
    }
    const moved = new Set<object>();
    const wanted = frames.filter((f, i) => i >= same || !this.lastLine.has(f.gen));
    const lines = this.linesOf(wanted);
    for (const l of lines) {
      if (l === null) continue;
      const key = `${l.file}:${l.line}`;
      const i = frames.indexOf(l.frame);
      if (i > same || (i === same && calleeChanged) || (i === same && this.lastLine.get(l.frame.gen) !== key))
        moved.add(l.frame);
      this.lastLine.set(l.frame.gen, key);
    }
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = lines[i];
      if (l === null || l === undefined || !moved.has(l.frame)) continue;
      const bp = this.breakpointAt(l.file, l.line);
      if (bp === undefined) continue;
      const note = this.conditionNote(bp, l.frame);
      if (note === null) continue;
      const key = `${l.file}:${l.line}`;
      if (
        !this.hit(
          bp,
          task,
          `Task #${task.id} ${JSON.stringify(task.name)} suspended at ${key} in ${l.frame.fn.name || '<anonymous>'}${note}`,
        )
      )
        continue;
      this.stoppedAt.set(task, key);
      return;
    }
  }

  /**
   * Whether `task` (suspended) waits in a frame on one of the breakpoints' lines, its innermost:
   * where it resumes from at its next step, which hits unless it stopped there when it suspended.
   */
  resumesFromBreakpoint(task: Task<unknown>): boolean {
    if (this.breakpointCount === 0 || task.done()) return false;
    const frames = task[inspect]().frames;
    if (frames === null || frames.length === 0) return false;
    const [l] = this.linesOf([frames[frames.length - 1]!]);
    return l !== null && l !== undefined && this.breakpointAt(l.file, l.line) !== undefined;
  }

  private fileHasBreakpoints(fn: object): string | null {
    const file = this.functions.fileOf(fn);
    return file !== null && this.breakpoints.has(file) ? file : null;
  }

  /** Reads the suspended line of the given frames (only those in files with breakpoints). */
  private linesOf(
    frames: readonly CoroutineFrame[],
  ): Array<{ frame: CoroutineFrame; file: string; line: number } | null> {
    const wanted: number[] = [];
    frames.forEach((f, i) => {
      if (this.fileHasBreakpoints(f.fn) !== null) wanted.push(i);
    });
    const out: Array<{ frame: CoroutineFrame; file: string; line: number } | null> = frames.map(() => null);
    if (wanted.length === 0) return out;
    const read = this.reader.readGenerators(wanted.map((i) => frames[i]!.gen));
    wanted.forEach((i, k) => {
      const loc = read[k]?.location ?? null;
      if (loc === null || loc.url === '' || read[k]!.state !== 'suspended') return;
      const pos = this.positions.map(loc.url, loc.line0, loc.column0, loc.sourceMapURL);
      out[i] = { frame: frames[i]!, file: resolvePath(pos.file), line: pos.line };
    });
    return out;
  }

  private breakpointAt(file: string, line: number): BreakpointEntry | undefined {
    return this.breakpoints.get(file)?.find((b) => b.line === line);
  }

  /**
   * The breakpoint's condition over the frame's locals: null when it does not hold, else what the description
   * adds ('' or that it threw).
   */
  private conditionNote(bp: BreakpointEntry, frame: CoroutineFrame): string | null {
    if (bp.condition === null) return '';
    const group = this.reader.newHandleGroup();
    try {
      const locals =
        this.reader.readGenerator(frame.gen, { locals: true, handles: { table: this.reader.handles, group } }).locals ??
        [];
      const r = evaluateCondition(bp.condition, locals);
      if (!r.value) return null;
      return r.error !== null ? ` (condition threw ${r.error})` : '';
    } finally {
      this.reader.releaseHandles(group);
    }
  }
}
