// Text dumps of a loop's tasks, modelled on Python 3.14's `python -m asyncio ps` and `pstree`:
// formatPsTable (a row per live task, its stack as names innermost first), formatPsTree (tasks
// under who awaits or created them, frames mapped to TypeScript), formatTaskTable (`coroscope ps
// PID`) and formatAwaitCycles (the deadlocks, task by task). See docs/design/inspection.md.
//
// Invariants: ps and the task table read no frames through node:inspector; groups of identical
// idle tasks collapse into one `× N` entry, a busy task is always shown in full; a cyclic graph
// is shown, never refused; who cancelled a task is named when a TaskRecorder knows.

import { isAbsolute, relative, basename } from 'node:path';
import type { AwaitInfo, CancelOrigin, TaskSummary } from '../../protocol/host-protocol';
import { inspect } from '../inspection';
import type { EventLoop } from '../loop';
import { Task } from '../task';
import type { GeneratorReader } from './generator-reader';
import type { SourcePositionMapper } from './source-positions';
import { framesOfTasks, type TaskFrame } from './task-snapshot';
import { awaitedTasks, cancelOriginOf, describeTarget, describeTask, summarizeTasks } from './task-summaries';
import { TaskRecorder } from './task-recorder';
import { buildAwaitGraph, heldResourceText } from './await-graph';
import { cancelOriginLabel } from '../../protocol/cancel-origin-label';

/** Await kinds of a task parked waiting for work: candidates for collapsing. */
export const IDLE_KINDS: ReadonlySet<string> = new Set([
  'queue.get',
  'queue.put',
  'queue.join',
  'event',
  'lock',
  'semaphore',
  'sleep',
]);

export interface DumpOptions {
  /**
   * Adds "created by" (tree parents for tasks nobody awaits). Default: the loop's attached recorder
   * (TaskRecorder.of).
   */
  readonly recorder?: TaskRecorder | null;
  /** How file names are printed: relative to `root` (default), base name only, or absolute. */
  readonly paths?: 'relative' | 'basename' | 'absolute';
  /** Directory paths are relative to (default process.cwd()). */
  readonly root?: string;
  /**
   * Which look-alike tasks collapse into one entry: 'idle' (default: awaiting one of
   * IDLE_KINDS), 'identical' (any), or 'none'.
   */
  readonly collapse?: 'idle' | 'identical' | 'none';
  /** Smallest group that collapses (default 3). */
  readonly collapseMin?: number;
  /** Only these tasks (default: every live task of the loop). */
  readonly tasks?: readonly Task<unknown>[];
  readonly reader?: GeneratorReader;
  readonly positions?: SourcePositionMapper;
  /**
   * The loop time the dump is taken at (default: the loop's time() now). A reader between
   * ticks of a recorded run passes its last tick's time: a clock reading there would be logged.
   */
  readonly now?: number;
}

/**
 * What a live task awaits, as text: the awaited task; or the await's kind, then what it
 * belongs to (the resource as the program names it, with its holders and where they took it,
 * as the panel and the deadlock stop say it; else its own description) or the tasks it stands for (gather's
 * children), then its detail. Read from the task itself: a summary names a resource by id.
 */
function awaitText(task: Task<unknown>): string {
  const fut = task.done() ? null : task.awaiting();
  if (fut === null) return '-';
  if (fut instanceof Task) return describeTask(fut);
  const view = fut[inspect]();
  const parts = [view.kind];
  const inner = view.inner();
  const behind = inner.length > 1 ? awaitedTasks(fut) : [];
  if (behind.length > 0) parts.push(`of ${behind.map((t) => `#${t.id}`).join(', ')}`);
  else {
    const target =
      view.resource !== null
        ? heldResourceText(view.resource)
        : inner.length === 1
          ? describeTarget(inner[0])
          : view.kind === 'future'
            ? describeTarget(fut)
            : null;
    if (target !== null) parts.push(target);
  }
  if (view.detail !== null && !view.kind.startsWith('socket.')) parts.push(`(${view.detail})`);
  return parts.join(' ');
}

/** Await texts by task id. */
function awaitTexts(tasks: readonly Task<unknown>[]): Map<number, string> {
  return new Map(tasks.map((t) => [t.id, awaitText(t)]));
}

/** Who asked for each task's cancellation (live tasks too), by task id, as the recorder knows. */
function cancelOrigins(
  loop: EventLoop,
  tasks: readonly Task<unknown>[],
  options: DumpOptions,
): Map<number, CancelOrigin> {
  const recorder = options.recorder !== undefined ? options.recorder : TaskRecorder.of(loop);
  const out = new Map<number, CancelOrigin>();
  for (const t of tasks) {
    const origin = cancelOriginOf(t, recorder);
    if (origin !== undefined) out.set(t.id, origin);
  }
  return out;
}

/** Who asked for the task's cancellation, in words ('' when nobody did): "cancel requested by
 *  the CLI" while it runs on, "cancelled by …" once it ended so. Tasks are named from `byId`. */
function cancelText(
  s: TaskSummary,
  origins: ReadonlyMap<number, CancelOrigin>,
  byId: ReadonlyMap<number, TaskSummary>,
): string {
  const origin = origins.get(s.id);
  if (origin === undefined) return '';
  const who = cancelOriginLabel(origin, (id) => {
    const t = byId.get(id);
    return t === undefined ? `task #${id}` : `#${id} ${t.name}`;
  });
  return s.state === 'cancelled' ? `cancelled by ${who}` : `cancel requested by ${who}`;
}

function stackText(s: TaskSummary): string {
  if (s.frames.length === 0) return s.state === 'scheduled' ? '(not started)' : '(untracked)';
  return s.frames.slice().reverse().join(' < ');
}

function shouldCollapse(a: AwaitInfo | null, mode: 'idle' | 'identical' | 'none'): boolean {
  if (mode === 'none') return false;
  if (mode === 'identical') return true;
  return a !== null && IDLE_KINDS.has(a.kind);
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** Ids as a short list: `#5, #6, … #99 (90 tasks)`. */
function idList(tasks: readonly TaskSummary[], max = 4): string {
  const shown = tasks.slice(0, max).map((t) => `#${t.id} ${t.name}`);
  return tasks.length > max
    ? `${shown.join(', ')}, … #${tasks[tasks.length - 1]!.id} ${tasks[tasks.length - 1]!.name}`
    : shown.join(', ');
}

/** A table of the live tasks, as Python's `asyncio ps`. */
export function formatPsTable(loop: EventLoop, options: DumpOptions = {}): string {
  const tasks = options.tasks ?? loop.allTasks();
  const summaries = summarizeTasks(tasks, {
    recorder: options.recorder,
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  const origins = cancelOrigins(loop, tasks, options);
  const awaits = awaitTexts(tasks);
  const describeAwaitText = (s: TaskSummary): string => awaits.get(s.id) ?? '-';
  const byId = new Map(summaries.map((s) => [s.id, s]));
  const mode = options.collapse ?? 'idle';
  const min = options.collapseMin ?? 3;
  const stateCell = (s: TaskSummary): string => {
    const cancel = cancelText(s, origins, byId);
    return cancel === '' ? s.state : `${s.state} (${cancel})`;
  };
  const awaitedByText = (s: TaskSummary): string =>
    s.awaitedBy.length === 0 ? '-' : s.awaitedBy.map((id) => `#${id} ${byId.get(id)?.name ?? ''}`.trim()).join(', ');
  // Group look-alikes (same state, stack, await and awaiters), keeping first-seen order.
  const groups = new Map<string, TaskSummary[]>();
  for (const s of summaries) {
    const key = shouldCollapse(s.awaiting, mode)
      ? `${s.state}|${cancelText(s, origins, byId)}|${stackText(s)}|${describeAwaitText(s)}|${awaitedByText(s)}`
      : `#${s.id}`;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = []));
    g.push(s);
  }
  const rows: string[][] = [];
  for (const g of groups.values()) {
    const s = g[0]!;
    if (g.length >= min) {
      const lo = Math.min(...g.map((t) => t.steps));
      const hi = Math.max(...g.map((t) => t.steps));
      const last = g[g.length - 1]!;
      rows.push([
        `×${g.length}`,
        `#${s.id} ${s.name} … #${last.id} ${last.name}`,
        stateCell(s),
        lo === hi ? String(lo) : `${lo}-${hi}`,
        describeAwaitText(s),
        awaitedByText(s),
        stackText(s),
      ]);
    } else {
      for (const t of g)
        rows.push([
          String(t.id),
          t.name,
          stateCell(t),
          String(t.steps),
          describeAwaitText(t),
          awaitedByText(t),
          stackText(t),
        ]);
    }
  }
  rows.sort((a, b) => idOfRow(a) - idOfRow(b));
  const header = [
    'task id',
    'task name',
    'state',
    'steps',
    'awaiting',
    'awaited by',
    'coroutine stack (innermost first)',
  ];
  const widths = header.map((h, c) =>
    c === header.length - 1 ? 0 : Math.min(c === 4 ? 120 : 48, Math.max(h.length, ...rows.map((r) => r[c]!.length))),
  );
  const clipCell = (v: string, c: number): string =>
    c < header.length - 1 && v.length > widths[c]! ? `${v.slice(0, widths[c]! - 1)}…` : v;
  const line = (r: string[]): string =>
    r
      .map((v, c) => (c === r.length - 1 ? v : pad(clipCell(v, c), widths[c]!)))
      .join('  ')
      .trimEnd();
  const out = [line(header), line(header.map((h, c) => '-'.repeat(c === header.length - 1 ? h.length : widths[c]!)))];
  for (const r of rows) out.push(line(r));
  return out.join('\n') + '\n';
}

/**
 * Lays out rows under a header, columns padded to their widest cell (at most `maxWidth`, clipped with …), the
 * last one unpadded.
 */
function tableText(
  header: readonly string[],
  rows: readonly string[][],
  maxWidth: number | readonly number[] = 48,
): string {
  const widths = header.map((h, c) =>
    c === header.length - 1
      ? 0
      : Math.min(
          typeof maxWidth === 'number' ? maxWidth : (maxWidth[c] ?? 48),
          Math.max(h.length, ...rows.map((r) => r[c]!.length)),
        ),
  );
  const clipCell = (v: string, c: number): string =>
    c < header.length - 1 && v.length > widths[c]! ? `${v.slice(0, widths[c]! - 1)}…` : v;
  const line = (r: readonly string[]): string =>
    r
      .map((v, c) => (c === r.length - 1 ? v : pad(clipCell(v, c), widths[c]!)))
      .join('  ')
      .trimEnd();
  return (
    [
      line(header),
      line(header.map((h, c) => '-'.repeat(c === header.length - 1 ? h.length : widths[c]!))),
      ...rows.map(line),
    ].join('\n') + '\n'
  );
}

/** A file name as the dumps print it (relative to `root` when under it, or its base name, or as is). */
function shownPath(file: string, pathStyle: 'relative' | 'basename' | 'absolute', root: string): string {
  if (pathStyle === 'basename') return basename(file);
  if (pathStyle === 'relative' && isAbsolute(file)) {
    const rel = relative(root, file);
    if (!rel.startsWith('..') && !isAbsolute(rel)) return rel;
  }
  return file;
}

/**
 * `coroscope ps`'s table, as Python's `asyncio ps`: every live task (none collapsed) with its
 * state, what it awaits, who awaits it and its innermost frame (`file:line function`, read
 * with node:inspector and mapped to the source).
 */
export function formatTaskTable(loop: EventLoop, options: DumpOptions = {}): string {
  const tasks = options.tasks ?? loop.allTasks();
  const summaries = summarizeTasks(tasks, { recorder: options.recorder, now: options.now ?? loop.time() });
  const origins = cancelOrigins(loop, tasks, options);
  const awaits = awaitTexts(tasks);
  const frames = framesOfTasks(tasks, { reader: options.reader, positions: options.positions });
  const byId = new Map(summaries.map((s) => [s.id, s]));
  const root = options.root ?? process.cwd();
  const pathStyle = options.paths ?? 'relative';
  const innermost = (task: Task<unknown>, s: TaskSummary): string => {
    const list = frames.get(task) ?? [];
    const f = list[list.length - 1];
    if (f === undefined) return s.state === 'scheduled' ? '(not started)' : '(no frames)';
    const where = f.file === null ? '(no location)' : `${shownPath(f.file, pathStyle, root)}:${f.line}`;
    return `${where} ${f.functionName || '(anonymous)'}${f.tracked ? '' : ' (untracked)'}`;
  };
  const rows = summaries.map((s, i) => {
    const cancel = cancelText(s, origins, byId);
    const awaitedBy =
      s.awaitedBy.length === 0 ? '-' : s.awaitedBy.map((id) => `#${id} ${byId.get(id)?.name ?? ''}`.trim()).join(', ');
    return [
      String(s.id),
      s.name,
      cancel === '' ? s.state : `${s.state} (${cancel})`,
      awaits.get(s.id) ?? '-',
      awaitedBy,
      innermost(tasks[i]!, s),
    ];
  });
  // The awaiting column is wider: a resource there carries its name, creation site, holders and their lines.
  return tableText(
    ['task id', 'task name', 'state', 'awaiting', 'awaited by', 'innermost frame'],
    rows,
    [60, 60, 60, 120, 60],
  );
}

/** The await graph's deadlocks, one `cycle: …` (or `deadlock: …`) line each; '' when there is none. */
export function formatAwaitCycles(loop: EventLoop): string {
  const graph = buildAwaitGraph(loop);
  return graph.deadlocks
    .map((d) => `${/cycle|awaits itself|which it holds itself/.test(d.reason) ? 'cycle' : 'deadlock'}: ${d.reason}\n`)
    .join('');
}

/** Sort key of a table row: its task id, or the first id of a collapsed group. */
function idOfRow(r: string[]): number {
  const n = Number(r[0]);
  if (Number.isFinite(n)) return n;
  const m = /#(\d+)/.exec(r[1]!);
  return m === null ? 0 : Number(m[1]);
}

interface TreeNode {
  readonly summary: TaskSummary;
  readonly frames: TaskFrame[];
  readonly children: TreeNode[];
}

/** The tree of live tasks with their frames, as Python's `asyncio pstree`. */
export function formatPsTree(loop: EventLoop, options: DumpOptions = {}): string {
  const tasks = options.tasks ?? loop.allTasks();
  const now = options.now ?? loop.time();
  const summaries = summarizeTasks(tasks, { recorder: options.recorder, now });
  const origins = cancelOrigins(loop, tasks, options);
  const awaits = awaitTexts(tasks);
  const describeAwaitText = (s: TaskSummary): string => awaits.get(s.id) ?? '-';
  const frames = framesOfTasks(tasks, { reader: options.reader, positions: options.positions });
  const root = options.root ?? process.cwd();
  const pathStyle = options.paths ?? 'relative';
  const mode = options.collapse ?? 'idle';
  const min = options.collapseMin ?? 3;

  const nodes = new Map<number, TreeNode>();
  summaries.forEach((s, i) => nodes.set(s.id, { summary: s, frames: frames.get(tasks[i]!) ?? [], children: [] }));
  const parentOf = (s: TaskSummary): number | null => {
    for (const id of s.awaitedBy) if (nodes.has(id)) return id;
    return s.createdBy !== null && nodes.has(s.createdBy) ? s.createdBy : null;
  };
  const tops: TreeNode[] = [];
  for (const node of nodes.values()) {
    // Follow parents; a cycle (tasks awaiting each other) puts the task at the top.
    let p = parentOf(node.summary);
    const seen = new Set<number>([node.summary.id]);
    let cur = p;
    while (cur !== null && !seen.has(cur)) {
      seen.add(cur);
      cur = parentOf(nodes.get(cur)!.summary);
    }
    if (cur !== null) p = null;
    if (p === null) tops.push(node);
    else nodes.get(p)!.children.push(node);
  }

  const fileText = (f: TaskFrame): string => {
    if (f.file === null) return '(no location)';
    let file = f.file;
    if (pathStyle === 'basename') file = basename(file);
    else if (pathStyle === 'relative' && isAbsolute(file)) {
      const rel = relative(root, file);
      if (!rel.startsWith('..') && !isAbsolute(rel)) file = rel;
    }
    return f.mapped ? `${file}:${f.line}` : `${file}:${f.line}:${f.column} (no source map)`;
  };
  const frameLine = (f: TaskFrame): string =>
    `${f.functionName || '(anonymous)'} ${fileText(f)}${f.state === 'running' ? ' (running)' : ''}${f.tracked ? '' : ' (untracked)'}`;
  const framesKey = (n: TreeNode): string => n.frames.map(frameLine).join('\n');
  const byId = new Map(summaries.map((s) => [s.id, s]));
  const taskHead = (s: TaskSummary): string => {
    const cancel = cancelText(s, origins, byId);
    return `${s.state}, ${s.steps} step${s.steps === 1 ? '' : 's'}${cancel === '' ? '' : `, ${cancel}`}`;
  };

  const out: string[] = [];
  const live = summaries.length;
  out.push(
    `Tasks at loop time ${now.toFixed(3)} s, tick ${loop.tickCount()}${loop.isPaused() ? ' (paused)' : ''}: ${live} live task${live === 1 ? '' : 's'}`,
  );

  const emit = (node: TreeNode | TreeNode[], prefix: string, last: boolean): void => {
    const group = Array.isArray(node) ? node : [node];
    const first = group[0]!;
    const s = first.summary;
    const branch = last ? '└── ' : '├── ';
    const body = prefix + (last ? '    ' : '│   ');
    if (group.length > 1) {
      out.push(`${prefix}${branch}(T) × ${group.length} ${taskHead(s)}: ${idList(group.map((g) => g.summary))}`);
    } else {
      out.push(`${prefix}${branch}(T) #${s.id} ${s.name} [${taskHead(s)}]`);
    }
    const kids = groupChildren(first.children);
    const framePrefix = body + (kids.length > 0 ? '│   ' : '    ');
    if (first.frames.length === 0)
      out.push(`${framePrefix}${s.state === 'scheduled' ? '(not started yet)' : '(no frames)'}`);
    for (const f of first.frames) out.push(`${framePrefix}${frameLine(f)}`);
    if (s.frames.length === 0 && first.frames.length > 0 && s.state !== 'running')
      out.push(`${framePrefix}(coroutine tracking off: inner frames are not visible)`);
    if (s.awaiting !== null) out.push(`${framePrefix}awaits ${describeAwaitText(s)}`);
    kids.forEach((k, i) => emit(k, body, i === kids.length - 1));
  };

  const groupChildren = (children: TreeNode[]): Array<TreeNode | TreeNode[]> => {
    const sorted = children.slice().sort((a, b) => a.summary.id - b.summary.id);
    const groups = new Map<string, TreeNode[]>();
    const order: Array<TreeNode | string> = [];
    for (const n of sorted) {
      if (n.children.length === 0 && shouldCollapse(n.summary.awaiting, mode)) {
        const key = `${n.summary.state}|${cancelText(n.summary, origins, byId)}|${framesKey(n)}|${describeAwaitText(n.summary)}`;
        let g = groups.get(key);
        if (g === undefined) {
          groups.set(key, (g = []));
          order.push(key);
        }
        g.push(n);
      } else order.push(n);
    }
    const result: Array<TreeNode | TreeNode[]> = [];
    for (const item of order) {
      if (typeof item !== 'string') result.push(item);
      else {
        const g = groups.get(item)!;
        if (g.length >= min) result.push(g);
        else result.push(...g);
      }
    }
    return result;
  };

  const topItems = groupChildren(tops);
  topItems.forEach((t, i) => emit(t, '', i === topItems.length - 1));
  return out.join('\n') + '\n';
}
