// How Coroscope's runtime shows up in DAP: pure functions from the host's data (TaskSummary,
// TaskDetail, Traceback) to threads, stack frames, variables and exception info.
// A thread is a task (its name says its state and what it awaits), plus the event loop's thread,
// always first. A task's stack is its `yield*` chain innermost first, a label frame for what it
// awaits above it and its creation chain ("created by <task>") below; a finished task or a
// callback-stage failure shows its traceback instead.
//
// Invariants: no I/O here, so every rule is unit-tested; frames are drafts with a FrameRef
// (what the frame stands for) and the session numbers them.

import { basename, isAbsolute } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type {
  AwaitInfo,
  DeadlockStop,
  FrameInfo,
  LineFrameInfo,
  SourcePosition,
  TaskDetail,
  TaskSummary,
  Traceback,
  TraceFrame,
} from '../../protocol/host-protocol';
import { cancelOriginLabel } from '../../protocol/cancel-origin-label';
import { loopTickText } from '../../protocol/run-moment';

/** The thread id of the event loop pseudo-thread (above any task id the host gives out). */
export const LOOP_THREAD_ID = 2_000_000_000;
/**
 * The thread id of the callback stage's pseudo-thread: at a stop on a crawl's failed URL,
 * the same failure in the chapter's callback-stage fetcher, with its ripped stack.
 */
export const CALLBACK_THREAD_ID = LOOP_THREAD_ID + 1;

const MAX_DETAIL = 60;

function cut(text: string, max = MAX_DETAIL): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}

// --- threads ---------------------------------------------------------------------------------

/** "worker-3 [suspended: socket.read]", "crawl [suspended: queue.join]", "robots [failed: TimeoutError: …]". */
export function threadName(t: TaskSummary): string {
  let state: string = t.state;
  if (t.state === 'suspended' && t.awaiting !== null) state = `suspended: ${t.awaiting.kind}`;
  else if ((t.state === 'failed' || t.state === 'cancelled') && t.outcome !== undefined && t.outcome !== 'cancelled')
    state = `${t.state}: ${cut(t.outcome.replace(/^cancelled \((.*)\)$/, '$1'), 50)}`;
  return `${t.name} [${state}]`;
}

export interface LoopState {
  /** The loop's tick count at the moment shown (protocol/run-moment.ts): the last tick begun. */
  tick: number;
  paused: boolean;
  /** Stopped on a line: within `tick`, not after it. */
  onLine?: boolean;
  /** False once the run has finished. */
  running: boolean;
}

export function loopThreadName(loop: LoopState): string {
  if (!loop.running) return 'event loop [finished]';
  return `event loop [${loopTickText(loop.tick, loop)}]`;
}

/** A stop on a line of a task (live, or replayed in the past): that task is the one running, on that line. */
export interface LineStopThread {
  taskId: number;
  line: number;
  /** The task's name, when the table lacks its row (else `task #N`). */
  name?: string | undefined;
}

/**
 * "worker-9 [running: line 228]": the state of the task a line stop is in. Its summary may be
 * another moment's (the table of the tick boundary before, where it was suspended): the task
 * that runs the line is running, whatever the table says.
 */
export function lineThreadName(name: string, line: number): string {
  return `${name} [running: line ${line}]`;
}

/**
 * The threads to list: the loop first, then every task that has not ended, by id, plus the
 * finished tasks named in `include` (the task a stop is about, e.g. one that just failed).
 * At a stop on a line (`lineStop`), its task is listed as running that line (even when the
 * table shown has no row for it: the stopped event names its thread, so it is listed).
 */
export function threadsOf(
  tasks: readonly TaskSummary[],
  loop: LoopState,
  include: ReadonlySet<number> = new Set(),
  lineStop: LineStopThread | null = null,
): DebugProtocol.Thread[] {
  const out: DebugProtocol.Thread[] = [{ id: LOOP_THREAD_ID, name: loopThreadName(loop) }];
  const sorted = [...tasks].sort((a, b) => a.id - b.id);
  let lineTaskListed = false;
  for (const t of sorted) {
    if (lineStop !== null && t.id === lineStop.taskId) {
      out.push({ id: t.id, name: lineThreadName(t.name, lineStop.line) });
      lineTaskListed = true;
      continue;
    }
    const ended = t.state === 'done' || t.state === 'cancelled' || t.state === 'failed';
    if (ended && !include.has(t.id)) continue;
    out.push({ id: t.id, name: threadName(t) });
  }
  if (lineStop !== null && !lineTaskListed) {
    const at = out.findIndex((th) => th.id !== LOOP_THREAD_ID && th.id > lineStop.taskId);
    out.splice(at < 0 ? out.length : at, 0, {
      id: lineStop.taskId,
      name: lineThreadName(lineStop.name ?? taskLabel(lineStop.taskId), lineStop.line),
    });
  }
  return out;
}

// --- stack frames ---------------------------------------------------------------------------

/** What a stack frame stands for (the session keeps these behind the frame ids it gives out). */
export type FrameRef =
  /** A frame of the task's `yield*` chain (`frameIndex`: the host's index, 0 = root). */
  | { kind: 'coroutine'; taskId: number; frameIndex: number }
  /** The label saying what the task awaits. */
  | { kind: 'await'; taskId: number }
  /** The label "created by …", and the creator's frame at the creation site. */
  | { kind: 'creation'; taskId: number; creatorId: number | null }
  /** A frame of a traceback (a finished task's, or a callback-stage failure's). */
  | { kind: 'trace'; taskId: number | null; index: number }
  /** The event loop thread's own label. */
  | { kind: 'loop' }
  /**
   * A real frame of the host's main thread stopped on a line (`frameIndex`: 0 = innermost); `taskId` null
   * outside any task.
   */
  | { kind: 'line'; taskId: number | null; frameIndex: number };

export type StackFrameDraft = Omit<DebugProtocol.StackFrame, 'id'>;
export interface FrameDraft {
  ref: FrameRef;
  frame: StackFrameDraft;
}

/** One level of a task's creation: who created it (null: outside any task) and where. */
export interface CreationLink {
  /** The task created (the child). */
  childId: number;
  creatorId: number | null;
  creatorName: string | null;
  /** Where the child was created (the host's TaskDetail.createdAt). */
  createdAt: SourcePosition | null;
  /** The creator's current frames (to name the function that created the child), root first. */
  creatorFrames: readonly FrameInfo[];
}

export interface StackOptions {
  /** The creation chain, nearest creator first (see CreationLink). */
  creation?: readonly CreationLink[];
  /** For a task without frames (finished): the traceback to show. */
  traceback?: Traceback | null;
  /**
   * An error the task raised and caught during the step the stop is about (a crawler's
   * failed URL): its traceback goes on top, so the client shows where it was raised; the
   * task's chain as it is now follows, under a label.
   */
  raised?: Traceback | null;
  /**
   * Where the stop is (a breakpoint's file and line): frames inside the innermost frame at
   * that line get a deemphasized source, so the editor shows the breakpoint's line rather
   * than the runtime code the task is suspended in beneath it.
   */
  focus?: { file: string; line: number } | null;
}

export function sourceOf(
  position: SourcePosition,
  hint?: DebugProtocol.Source['presentationHint'],
): DebugProtocol.Source {
  const s: DebugProtocol.Source = { name: basename(position.file), path: position.file };
  if (hint !== undefined) s.presentationHint = hint;
  return s;
}

/** "socket.read 127.0.0.1:8080", "task #1 \"crawl\"", "queue.get <Queue maxsize=0 …>". */
export function describeAwait(a: AwaitInfo, nameOf?: (taskId: number) => string | undefined): string {
  const parts = [a.kind];
  if (a.detail !== '') parts.push(cut(a.detail));
  if (a.taskId !== undefined && a.kind !== 'task') parts.push(`→ ${taskLabel(a.taskId, nameOf)}`);
  else if (a.taskId !== undefined && a.detail === '') parts.push(taskLabel(a.taskId, nameOf));
  return parts.join(' ');
}

export function taskLabel(taskId: number, nameOf?: (taskId: number) => string | undefined): string {
  const name = nameOf?.(taskId);
  return name === undefined ? `task #${taskId}` : `${name} #${taskId}`;
}

function label(name: string, ref: FrameRef): FrameDraft {
  return { ref, frame: { name, line: 0, column: 0, presentationHint: 'label' } };
}

function positioned(
  name: string,
  position: SourcePosition | null,
  ref: FrameRef,
  hint?: DebugProtocol.StackFrame['presentationHint'],
  sourceHint?: DebugProtocol.Source['presentationHint'],
): FrameDraft {
  const frame: StackFrameDraft =
    position === null
      ? { name, line: 0, column: 0 }
      : { name, source: sourceOf(position, sourceHint), line: position.line, column: position.column };
  if (hint !== undefined) frame.presentationHint = hint;
  return { ref, frame };
}

/**
 * The stack of a stop on a line: the main thread's real frames, innermost first, as V8 has
 * them (a task's `yield*` chain is real frames while it runs). Frames without a TypeScript
 * position keep their generated one, deemphasized.
 */
export function lineStackDrafts(frames: readonly LineFrameInfo[], taskId: number | null): FrameDraft[] {
  return frames.map((f) => {
    const ref: FrameRef = { kind: 'line', taskId, frameIndex: f.index };
    return f.position !== null
      ? positioned(f.name, f.position, ref)
      : positioned(f.name, f.generated, ref, 'subtle', 'deemphasize');
  });
}

/** The name of the creator's function that created the child: its innermost frame in the creation site's file. */
function creatorFunction(link: CreationLink): string {
  const at = link.createdAt;
  if (at !== null) {
    for (let i = link.creatorFrames.length - 1; i >= 0; i--) {
      const f = link.creatorFrames[i]!;
      if (f.position !== null && f.position.file === at.file) return f.name;
    }
  }
  const root = link.creatorFrames[0];
  if (root !== undefined) return root.name;
  return link.creatorName ?? '<top level>';
}

/** Frames of a traceback, innermost first; the loop's machinery and node internals subtle. */
export function tracebackDrafts(tb: Traceback, taskId: number | null): FrameDraft[] {
  const out: FrameDraft[] = [];
  for (let i = tb.frames.length - 1; i >= 0; i--) {
    const f: TraceFrame = tb.frames[i]!;
    const machinery = f.kind === 'loop' || f.kind === 'native';
    // node:internal/… and <anonymous> are not files a client can open.
    const position = f.position !== null && isAbsolute(f.position.file) ? f.position : null;
    out.push(
      positioned(
        f.name,
        position,
        { kind: 'trace', taskId, index: i },
        machinery ? 'subtle' : 'normal',
        machinery ? 'deemphasize' : undefined,
      ),
    );
  }
  return out;
}

/**
 * A task's stack, innermost first: [await label], its chain's frames, then its creation
 * chain. A task without frames shows its traceback (if any) or a label with its state.
 */
export function taskStackDrafts(
  detail: TaskDetail,
  options: StackOptions = {},
  nameOf?: (taskId: number) => string | undefined,
): FrameDraft[] {
  const t = detail.task;
  const out: FrameDraft[] = [];
  if (detail.frames.length === 0) {
    const tb = options.traceback ?? detail.traceback;
    if (tb !== null && tb !== undefined) {
      out.push(
        label(`${t.state === 'failed' ? 'failed' : 'raised'}: ${cut(tb.error, 80)}`, {
          kind: 'trace',
          taskId: t.id,
          index: -1,
        }),
      );
      out.push(...tracebackDrafts(tb, t.id));
    } else {
      const why =
        t.state === 'suspended' || t.state === 'scheduled' || t.state === 'running'
          ? 'no frames (inspection is off, or the task has not started)'
          : (t.outcome ?? t.state);
      out.push(label(`${t.state}: ${cut(why, 80)}`, { kind: 'await', taskId: t.id }));
    }
  } else {
    const raised = options.raised;
    if (raised !== null && raised !== undefined) {
      out.push(label(`raised: ${cut(raised.error, 80)}`, { kind: 'trace', taskId: t.id, index: -1 }));
      out.push(...tracebackDrafts(raised, t.id));
      out.push(label('caught; the task went on, and now:', { kind: 'await', taskId: t.id }));
    }
    if (t.awaiting !== null)
      out.push(label(`awaiting ${describeAwait(t.awaiting, nameOf)}`, { kind: 'await', taskId: t.id }));
    // Innermost first.
    const chain: FrameDraft[] = [];
    for (let i = detail.frames.length - 1; i >= 0; i--) {
      const f = detail.frames[i]!;
      chain.push(positioned(f.name, f.position, { kind: 'coroutine', taskId: t.id, frameIndex: f.index }));
    }
    const focus = options.focus;
    if (focus !== null && focus !== undefined) {
      const at = chain.findIndex((d) => d.frame.source?.path === focus.file && d.frame.line === focus.line);
      for (let k = 0; k < at; k++) {
        const src = chain[k]!.frame.source;
        if (src !== undefined) src.presentationHint = 'deemphasize';
      }
    }
    out.push(...chain);
  }
  for (const link of options.creation ?? []) {
    const who =
      link.creatorId === null
        ? 'outside any task'
        : taskLabel(link.creatorId, (id) => (id === link.creatorId ? (link.creatorName ?? undefined) : nameOf?.(id)));
    out.push(label(`created by ${who}`, { kind: 'creation', taskId: link.childId, creatorId: link.creatorId }));
    if (link.createdAt !== null)
      out.push(
        positioned(
          creatorFunction(link),
          link.createdAt,
          { kind: 'creation', taskId: link.childId, creatorId: link.creatorId },
          'subtle',
        ),
      );
  }
  return out;
}

export function callbackThreadName(url: string): string {
  return `callback stage: ${cut(url, 50)} [ripped stack]`;
}

/** The callback stage's stack for the same failure: as the ripped stack really is (no coroutine above the callback). */
export function callbackStackDrafts(tb: Traceback): FrameDraft[] {
  return [
    label(`callback stage: ${cut(tb.error, 80)}`, { kind: 'trace', taskId: null, index: -1 }),
    ...tracebackDrafts(tb, null),
  ];
}

/** The loop thread's stack: the failure outside any task when there is one, else a label. */
export function loopStackDrafts(loop: LoopState, callbackFailure: Traceback | null): FrameDraft[] {
  if (callbackFailure !== null)
    return [
      label(`raised in a callback: ${cut(callbackFailure.error, 80)}`, { kind: 'loop' }),
      ...tracebackDrafts(callbackFailure, null),
    ];
  return [
    label(loop.running ? `event loop: ${loopTickText(loop.tick, loop)}` : 'event loop: the run has finished', {
      kind: 'loop',
    }),
  ];
}

// --- variables ------------------------------------------------------------------------------

function ms(value: number | null): string {
  if (value === null) return 'never';
  return value < 1
    ? `${(value * 1000).toFixed(0)} µs`
    : value < 1000
      ? `${value.toFixed(1)} ms`
      : `${(value / 1000).toFixed(2)} s`;
}

function where(p: SourcePosition | null): string {
  return p === null ? 'unknown' : `${basename(p.file)}:${p.line}`;
}

/** The "Task" scope: what the Tasks window of Visual Studio shows, for one task. */
export function taskScopeVariables(
  t: TaskSummary,
  detail: TaskDetail | null,
  nameOf?: (taskId: number) => string | undefined,
): DebugProtocol.Variable[] {
  const v = (name: string, value: string): DebugProtocol.Variable => ({
    name,
    value,
    variablesReference: 0,
    presentationHint: { attributes: ['readOnly'] },
  });
  const out: DebugProtocol.Variable[] = [
    v('id', String(t.id)),
    v('name', JSON.stringify(t.name)),
    v('state', t.state),
    v('awaiting', t.awaiting === null ? 'nothing' : describeAwait(t.awaiting, nameOf)),
    v('awaited by', t.awaitedBy.length === 0 ? 'nobody' : t.awaitedBy.map((id) => taskLabel(id, nameOf)).join(', ')),
    v('steps', String(t.steps)),
    v('created by', t.createdBy === null ? 'outside any task' : taskLabel(t.createdBy, nameOf)),
  ];
  if (detail !== null) out.push(v('created at', where(detail.createdAt)));
  out.push(v('busy', t.busyMs === null ? 'not recorded' : ms(t.busyMs)), v('since resumed', ms(t.sinceResumedMs)));
  if (t.frames.length > 0) out.push(v('coroutine chain', t.frames.join(' → ')));
  if (detail !== null && detail.awaitChain.length > 0)
    out.push(v('await chain', detail.awaitChain.map((id) => taskLabel(id, nameOf)).join(', ')));
  if (t.outcome !== undefined) out.push(v('outcome', t.outcome));
  if (t.cancelledBy !== undefined)
    out.push(
      v(
        'cancelled by',
        cancelOriginLabel(t.cancelledBy, (id) => taskLabel(id, nameOf)),
      ),
    );
  return out;
}

// --- exceptions -----------------------------------------------------------------------------

/** "UnknownCharsetError: no decoder for x-unknown" → name and message. */
export function splitError(error: string): { name: string; message: string } {
  const m = /^([A-Za-z_$][\w$.]*)(?::\s?([\s\S]*))?$/.exec(error.trim());
  if (m === null) return { name: 'Error', message: error };
  return { name: m[1]!, message: m[2] ?? '' };
}

export function exceptionInfoOf(
  tb: Traceback,
  breakMode: DebugProtocol.ExceptionBreakMode,
): DebugProtocol.ExceptionInfoResponse['body'] {
  const { name, message } = splitError(tb.error);
  return {
    exceptionId: name,
    description: tb.title === '' ? tb.error : `${tb.error} (${tb.title})`,
    breakMode,
    details: { message, typeName: name, fullTypeName: name, stackTrace: tb.text },
  };
}

/** The exception filter of the Deadlock break (on by default): live tasks that nothing can wake. */
export const DEADLOCK_FILTER: DebugProtocol.ExceptionBreakpointsFilter = {
  filter: 'deadlock',
  label: 'Deadlock',
  description:
    'Stop when live tasks wait for what nothing can give them: a lock-order or await cycle, a lock held by a task that ended, a queue whose producer died (nothing of the loop can run).',
  default: true,
};

/** What exceptionInfo says at a Deadlock stop: the cycle in one line, the full reason, and one line per task. */
export function deadlockExceptionInfo(d: DeadlockStop): DebugProtocol.ExceptionInfoResponse['body'] {
  return {
    exceptionId: 'Deadlock',
    description: d.summary,
    breakMode: 'always',
    details: { message: d.reason, typeName: 'Deadlock', fullTypeName: 'Deadlock', stackTrace: d.details },
  };
}
