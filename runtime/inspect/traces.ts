// Exception traces: the coroutine traceback of a failure (every generator frame of the `yield*`
// chain, with TypeScript positions) and, for the same failure in the callback stage, the
// "ripped" trace a plain stack gives, as protocol Tracebacks (data and Python-style text) and
// side by side (TracePair, `formatTracePair` for the CLI). Where the frames come from and the
// frame kinds (coroutine, loop, native, callback) are in docs/design/traces.md.
//
// Invariants: building a trace runs no program code (it reads `stack`, V8's text); captures are
// kept in a WeakMap keyed by the error, so they live exactly as long as the error;
// Error.stackTraceLimit must be at least STACK_LIMIT (inspection sets it) or a chain is cut short.

import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { TraceFrame, Traceback, TracePair } from '../../protocol/host-protocol';
import { CancelledError } from '../errors';
import { setAwaitThrowHook, type Future } from '../future';
import { exceptionOf, inspect } from '../inspection';
import { EventLoop } from '../loop';
import { Crawler } from '../crawler/crawler';
import { crawlWithCallbacks } from '../crawler/callback-fetcher';
import { SITE_PATHS, startDemoSite } from '../demo-site/index';
import { Task } from '../task';
import { sourcePositions, type SourcePositionMapper } from './source-positions';

/** Error.stackTraceLimit while inspecting: deep enough for long `yield*` chains and the loop below them. */
export const STACK_LIMIT = 100;

/** One line of a V8 stack, parsed. */
export interface StackLine {
  /** As V8 names it: `_Crawler.fetch`, `decodeBody`, `new Foo`, `async bar`, `<anonymous>`. */
  readonly name: string;
  readonly file: string | null;
  /** 1-based, as printed. */
  readonly line: number | null;
  readonly column: number | null;
  /** `at fetch.next (<anonymous>)`: the engine resuming a generator (marks the line above as a generator frame). */
  readonly resume: boolean;
  readonly async: boolean;
}

const FRAME_LINE = /^\s*at (?:(.*?) \((.*)\)|(.*))$/;
const LOCATION = /^(.*?):(\d+):(\d+)$/;
const RESUME_NAME = /\.(next|throw|return)$/;

/** Parses V8's stack text: the header (`Name: message`) and the frames, innermost first. */
export function parseStack(stack: string): { header: string; lines: StackLine[] } {
  const all = stack.split('\n');
  let firstFrame = all.findIndex((l) => /^\s+at /.test(l));
  if (firstFrame < 0) firstFrame = all.length;
  const header = all.slice(0, firstFrame).join('\n');
  const lines: StackLine[] = [];
  for (const raw of all.slice(firstFrame)) {
    const m = FRAME_LINE.exec(raw);
    if (m === null) continue;
    let name = m[1] ?? '';
    const where = (m[2] ?? m[3] ?? '').trim();
    let isAsync = false;
    if (name.startsWith('async ')) {
      isAsync = true;
      name = name.slice(6);
    }
    if (m[3] !== undefined && m[3].startsWith('async ')) isAsync = true;
    const loc = LOCATION.exec(where.replace(/^async /, ''));
    const file = loc !== null ? loc[1]! : where === '' || where === '<anonymous>' || where === 'native' ? null : where;
    const resume = file === null && RESUME_NAME.test(name);
    lines.push({
      name: name === '' ? '<anonymous>' : name,
      file,
      line: loc !== null ? Number(loc[2]) : null,
      column: loc !== null ? Number(loc[3]) : null,
      resume,
      async: isAsync,
    });
  }
  return { header, lines };
}

const MACHINERY_FILES =
  /[\\/]runtime[\\/](loop|task|future|ready-queue|handle|running-loop|selector|run|timer-heap|coroutine)\.[cm]?[tj]s$/;
/** The inspector's own sources (this directory; from a bundle in dist/, ../runtime/inspect). */
const INSPECTOR_DIRS = [__dirname, join(__dirname, '..', 'runtime', 'inspect')]
  .filter((d) => /[\\/]runtime[\\/]inspect$/.test(d))
  .map((d) => d + sep);
function isInspectorFile(file: string): boolean {
  return INSPECTOR_DIRS.some((d) => file.startsWith(d));
}
/** The methods of coroutine()'s tracking wrapper (coroutine.ts's TrackedFrame; a bundle may number it). */
const TRACKING_WRAPPER = /^TrackedFrame\d*\./;
/** Functions of the crawler's teaching stages that are their event loops. */
const LOOP_FUNCTIONS = new Set([
  'runCallbackLoop',
  'runSelectorLoop',
  'SimpleTask.step',
  'SimpleTask.run',
  'SimpleTask.throwInto',
]);

/** The function's name without its receiver's class: `_Crawler.fetch` → `fetch`; `new Foo` stays. */
function shortName(name: string): string {
  if (name.startsWith('new ')) return name;
  const bracket = name.indexOf(' [as ');
  const base = bracket >= 0 ? name.slice(0, bracket) : name;
  const dot = base.lastIndexOf('.');
  return dot >= 0 ? base.slice(dot + 1) : base;
}

function receiverName(name: string): string {
  const base = name.replace(/ \[as .*\]$/, '');
  const dot = base.lastIndexOf('.');
  return dot >= 0 ? `${base.slice(0, dot).replace(/^_/, '')}.${base.slice(dot + 1)}` : base;
}

/** A frame of a trace, before it becomes a TraceFrame. */
interface Classified {
  name: string;
  qualified: string;
  file: string | null;
  line: number | null;
  column: number | null;
  kind: TraceFrame['kind'];
  async: boolean;
}

/** Turns parsed stack lines (innermost first) into classified frames (innermost first), with mapped positions. */
function classify(lines: readonly StackLine[], positions: SourcePositionMapper): Classified[] {
  const out: Classified[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.resume) continue;
    let file = l.file;
    let line = l.line;
    let column = l.column;
    if (file !== null && line !== null && column !== null && /\.[cm]?js$/.test(file) && !file.startsWith('node:')) {
      const p = positions.map(file, line - 1, column - 1);
      if (p.mapped) {
        file = p.file;
        line = p.line;
        column = p.column;
      }
    }
    const next = lines[i + 1];
    const isGenerator = next !== undefined && next.resume;
    const qualified = receiverName(l.name);
    let kind: TraceFrame['kind'];
    if (file === null || file.startsWith('node:') || file.startsWith('internal/')) kind = 'native';
    else if (MACHINERY_FILES.test(file) || LOOP_FUNCTIONS.has(qualified)) kind = 'loop';
    else kind = isGenerator ? 'coroutine' : 'callback';
    // coroutine()'s tracking wrapper sits between every two frames of a tracked chain, and the
    // inspector's own hook frames sit where it captured: neither is the program's.
    if (TRACKING_WRAPPER.test(qualified)) continue;
    if (file !== null && isInspectorFile(file)) continue;
    // Program frames by their function's name (as Python prints co_name); machinery with its class.
    out.push({
      name: kind === 'loop' || kind === 'native' ? qualified : shortName(l.name),
      qualified,
      file,
      line,
      column,
      kind,
      async: l.async,
    });
  }
  return out;
}

/** Drops what lies outside the program: async callers beyond the outermost loop frame. */
function trimOuter(frames: Classified[]): Classified[] {
  let lastLoop = -1;
  for (let i = 0; i < frames.length; i++) if (frames[i]!.kind === 'loop') lastLoop = i;
  if (lastLoop < 0) return frames;
  return frames.filter((f, i) => i <= lastLoop || (f.kind === 'native' && !f.async));
}

function toTraceFrame(c: Classified): TraceFrame {
  return {
    name: c.name,
    position: c.file !== null && c.line !== null ? { file: c.file, line: c.line, column: c.column ?? 1 } : null,
    kind: c.kind,
  };
}

/** An exception group's sub-exceptions (a BaseExceptionGroup's, or any AggregateError's); null for others. */
function subExceptionsOf(error: unknown): readonly unknown[] | null {
  if (!(error instanceof AggregateError)) return null;
  const subs: unknown = (error as { exceptions?: unknown }).exceptions ?? error.errors;
  return Array.isArray(subs) && subs.length > 0 ? subs : null;
}

/** `Name: message` of a thrown value (an exception group's with its count, as Python prints it). */
export function errorText(error: unknown): string {
  const subs = subExceptionsOf(error);
  if (error instanceof Error && subs !== null)
    return `${error.name}: ${error.message} (${subs.length} sub-exception${subs.length === 1 ? '' : 's'})`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `${typeof error === 'string' ? 'Error' : 'Exception'}: ${String(error)}`;
}

function stackOf(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const s: unknown = error.stack;
  return typeof s === 'string' ? s : null;
}

// --- text -------------------------------------------------------------------------------------

const sourceLines = new Map<string, string[] | null>();

function sourceLine(file: string, line: number): string | null {
  let lines = sourceLines.get(file);
  if (lines === undefined) {
    try {
      lines = readFileSync(file, 'utf8').split('\n');
    } catch {
      lines = null;
    }
    sourceLines.set(file, lines);
  }
  const text = lines?.[line - 1];
  return text === undefined ? null : text.trim();
}

function displayPath(file: string): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}

/**
 * Python-style text: `Traceback (most recent call last):`, one `File "x.ts", line N, in f`
 * per frame with its source line, runs of loop and native frames folded into one line, the
 * error last. Frames marked missingInOther get a `*` in the margin.
 */
export function formatTraceback(tb: Pick<Traceback, 'frames' | 'error'>, notes: readonly string[] = []): string {
  const out = ['Traceback (most recent call last):'];
  const frames = tb.frames;
  for (let i = 0; i < frames.length; ) {
    const f = frames[i]!;
    if (f.kind === 'loop' || f.kind === 'native') {
      let j = i;
      const names: string[] = [];
      while (j < frames.length && (frames[j]!.kind === 'loop' || frames[j]!.kind === 'native'))
        names.push(frames[j++]!.name);
      const kinds = new Set(frames.slice(i, j).map((x) => x.kind));
      out.push(`  [${[...kinds].join(' and ')}: ${names.join(' → ')}]`);
      i = j;
      continue;
    }
    const mark = f.missingInOther === true ? '*' : ' ';
    if (f.position !== null) {
      out.push(
        `${mark} File "${displayPath(f.position.file)}", line ${f.position.line}, in ${f.name}${f.kind === 'coroutine' ? '  (coroutine)' : ''}`,
      );
      const text = sourceLine(f.position.file, f.position.line);
      if (text !== null && text !== '') out.push(`      ${text}`);
    } else {
      out.push(`${mark} File "<unknown>", in ${f.name}`);
    }
    i++;
  }
  out.push(tb.error);
  for (const n of notes) out.push(n);
  return out.join('\n');
}

/**
 * An exception group's sub-exceptions below its traceback, each with its own (where it was raised), numbered
 * and boxed as Python prints them; a group inside a group is boxed within. '' for an error that is no group.
 */
function subExceptionsText(error: unknown, positions: SourcePositionMapper, seen = new Set<unknown>()): string {
  const subs = subExceptionsOf(error);
  if (subs === null || seen.has(error)) return '';
  seen.add(error);
  const out: string[] = [];
  subs.forEach((sub, i) => {
    const label = ` ${i + 1} `;
    out.push(`${i === 0 ? '+-+' : '  +'}${'-'.repeat(16)}${label}${'-'.repeat(16)}`);
    const tb = tracebackFromError(sub, '', positions);
    const inner = subExceptionsText(sub, positions, seen);
    for (const line of [tb.text, ...(inner === '' ? [] : [inner])].join('\n').split('\n')) out.push(`  | ${line}`);
  });
  out.push(`  +${'-'.repeat(36)}`);
  return out.join('\n');
}

/** A traceback's text with its error's sub-exceptions below it, when it is an exception group. */
function withSubExceptions(text: string, error: unknown, positions: SourcePositionMapper): string {
  const subs = subExceptionsText(error, positions);
  return subs === '' ? text : `${text}\n${subs}`;
}

// --- tracebacks ---------------------------------------------------------------------------------

/** The traceback of an error from its own stack (where it was thrown). */
export function tracebackFromError(
  error: unknown,
  title: string,
  positions: SourcePositionMapper = sourcePositions(),
): Traceback {
  const stack = stackOf(error);
  const frames =
    stack === null
      ? []
      : trimOuter(classify(parseStack(stack).lines, positions))
          .reverse()
          .map(toTraceFrame);
  const tb = { title, error: errorText(error), frames, text: '' };
  tb.text = withSubExceptions(formatTraceback(tb), error, positions);
  return tb;
}

/** Where an exception surfaced in a task at `yield* fut`: that task and the stack there. */
interface AwaitCapture {
  readonly taskId: number | null;
  readonly stack: string;
}

/**
 * Follows exceptions through awaits: installs the await-throw hook and keeps, per error, the
 * stacks where it surfaced in each task. Cancellations are only captured when asked
 * (`captureCancellations`): a crawl's end cancels every worker.
 */
export class ExceptionTracer {
  private readonly captures = new WeakMap<object, AwaitCapture[]>();
  private installed = false;
  private previousLimit = Error.stackTraceLimit;
  captureCancellations = false;
  /** Await-throw captures made so far (cost accounting). */
  captureCount = 0;

  constructor(private readonly positions: SourcePositionMapper = sourcePositions()) {}

  /** Installs the hook and raises Error.stackTraceLimit to STACK_LIMIT. */
  install(): void {
    if (this.installed) return;
    this.installed = true;
    this.previousLimit = Error.stackTraceLimit;
    if (Error.stackTraceLimit < STACK_LIMIT) Error.stackTraceLimit = STACK_LIMIT;
    setAwaitThrowHook((fut, err) => this.onAwaitThrow(fut, err));
  }

  uninstall(): void {
    if (!this.installed) return;
    this.installed = false;
    setAwaitThrowHook(null);
    Error.stackTraceLimit = this.previousLimit;
  }

  private onAwaitThrow(fut: Future<unknown> | null, err: unknown): void {
    if (typeof err !== 'object' || err === null) return;
    if (err instanceof CancelledError && !this.captureCancellations) return;
    const holder: { stack?: string } = {};
    Error.captureStackTrace(holder, this.onAwaitThrow);
    const task = fut?.getLoop().currentTask() ?? null;
    let list = this.captures.get(err);
    if (list === undefined) this.captures.set(err, (list = []));
    if (list.length < 32) list.push({ taskId: task?.id ?? null, stack: holder.stack ?? '' });
    this.captureCount++;
  }

  /**
   * The traceback of a failed task: its chain down to where the exception surfaced (if it
   * came from an awaited future), then the frames of every task it passed through, then
   * where it was raised. `awaitedBy`: tasks that were waiting on this one.
   */
  tracebackOf(
    task: Task<unknown>,
    error: unknown = exceptionOf(task),
    awaitedBy: ReadonlyArray<Task<unknown>> = [],
  ): Traceback {
    const title = `Coroutine traceback of task #${task.id} ${JSON.stringify(task.name)}`;
    const own = stackOf(error);
    const raised = own === null ? [] : trimOuter(classify(parseStack(own).lines, this.positions));
    const captures = typeof error === 'object' && error !== null ? (this.captures.get(error) ?? []) : [];
    let frames: Classified[];
    const mine = captures.findIndex((c) => c.taskId === task.id);
    if (mine < 0) {
      frames = raised.slice().reverse();
    } else {
      // Outermost: this task's chain at the await (loop frames below it kept), then each
      // earlier capture (tasks the error passed through), then the raise site: program frames only.
      const outer = trimOuter(classify(parseStack(captures[mine]!.stack).lines, this.positions)).reverse();
      // Drop the future's own machinery at the await point (Future.next / Future.throw).
      while (outer.length > 0 && outer[outer.length - 1]!.kind === 'loop') outer.pop();
      frames = outer;
      for (let i = mine - 1; i >= 0; i--) {
        const mid = classify(parseStack(captures[i]!.stack).lines, this.positions).reverse();
        frames.push(...mid.filter((f) => f.kind === 'coroutine' || f.kind === 'callback'));
      }
      frames.push(
        ...raised
          .slice()
          .reverse()
          .filter((f) => f.kind === 'coroutine' || f.kind === 'callback'),
      );
    }
    const notes: string[] = [];
    if (awaitedBy.length > 0)
      notes.push(`Awaited by: ${awaitedBy.map((t) => `task #${t.id} ${JSON.stringify(t.name)}`).join(', ')}`);
    const tb: Traceback = { title, error: errorText(error), frames: frames.map(toTraceFrame), text: '' };
    tb.text = withSubExceptions(`${title}\n${formatTraceback(tb, notes)}`, error, this.positions);
    return tb;
  }
}

/** The tasks a done future's completion is about to wake (its waiters, now on the ready queue). */
export function wakingTasks(fut: Future<unknown>): Task<unknown>[] {
  const out: Task<unknown>[] = [];
  for (const s of fut.getLoop()[inspect]().scheduledSteps())
    if (s.wokenBy === fut && !out.includes(s.task)) out.push(s.task);
  return out;
}

// --- the pair -------------------------------------------------------------------------------------

function frameKey(f: TraceFrame): string {
  return `${f.name}@${f.position?.file ?? ''}`;
}

/** Marks, in each trace, the program frames (coroutine, callback) the other trace lacks, and renders the text again. */
export function markMissing(a: Traceback, b: Traceback): void {
  const keysA = new Set(a.frames.map(frameKey));
  const keysB = new Set(b.frames.map(frameKey));
  for (const [tb, other] of [
    [a, keysB],
    [b, keysA],
  ] as const) {
    for (const f of tb.frames) {
      if (f.kind === 'coroutine' || f.kind === 'callback') f.missingInOther = !other.has(frameKey(f));
    }
    tb.text = `${tb.title}\n${formatTraceback(tb)}`;
  }
}

function withStackLimit<T>(fn: () => Promise<T>): Promise<T> {
  const previous = Error.stackTraceLimit;
  if (previous < STACK_LIMIT) Error.stackTraceLimit = STACK_LIMIT;
  return fn().finally(() => {
    Error.stackTraceLimit = previous;
  });
}

/** The page of a demo site whose link extraction fails: `/broken/` unless a page URL is given. */
export function failingPageOf(url: string): string {
  const u = new URL(url);
  return u.pathname === '/' || u.pathname === '' ? new URL(SITE_PATHS.broken, u).href : u.href;
}

export interface TracePairOptions {
  /** The coroutine-stage error for the page if already known (a live crawl's `errors`): no second crawl then. */
  readonly coroutineError?: unknown;
  readonly positions?: SourcePositionMapper;
}

/**
 * Fetches the failing page (`/broken/` of a demo site, or the given page) with the
 * coroutine crawler and with the callback stage, and returns both tracebacks of its
 * failure, each frame the other lacks marked. Rejects if either stage does not fail there.
 */
export async function tracePair(siteOrPageUrl: string, options: TracePairOptions = {}): Promise<TracePair> {
  const url = failingPageOf(siteOrPageUrl);
  const positions = options.positions ?? sourcePositions();
  return withStackLimit(async () => {
    let coroutineError = options.coroutineError;
    if (coroutineError === undefined) {
      const loop = new EventLoop();
      const crawler = new Crawler([url], { maxTasks: 1, maxTries: 1, robots: false, maxPages: 1 });
      try {
        await loop.runUntilComplete(loop.createTask(crawler.crawl(), { name: 'crawl' }));
      } finally {
        loop.close();
      }
      const found = crawler.errors.find((e) => e.url === url);
      if (found === undefined)
        throw new Error(
          `the coroutine crawler did not fail on ${url} (${crawler.done.length} fetched, ${crawler.errors.length} errors)`,
        );
      coroutineError = found.error;
    }
    const result = await crawlWithCallbacks([url], { maxPages: 1 });
    const cb = result.errors.find((e) => e.url === url);
    if (cb === undefined) throw new Error(`the callback stage did not fail on ${url} (${result.stats.length} fetched)`);
    const coroutine = tracebackFromError(coroutineError, `Coroutine traceback of ${url}`, positions);
    const callback = tracebackFromError(cb.error, `Callback traceback of ${url}`, positions);
    markMissing(coroutine, callback);
    return { url, coroutine, callback };
  });
}

/** For `coroscope trace --demo`: starts the embedded demo site, makes the pair for its failing page, stops the site. */
export async function demoTracePair(options: Omit<TracePairOptions, 'coroutineError'> = {}): Promise<TracePair> {
  const site = await startDemoSite({});
  try {
    return await tracePair(site.url, options);
  } finally {
    await site.close();
  }
}

/** The pair as text for `coroscope trace --demo`: a `Coroutine traceback` section, then `Callback traceback`. */
export function formatTracePair(pair: TracePair): string {
  const section = (heading: string, tb: Traceback): string => {
    const body = formatTraceback(tb);
    return `${heading}\n${'='.repeat(heading.length)}\n${body}`;
  };
  const missingC = pair.coroutine.frames.filter((f) => f.missingInOther === true).map((f) => f.name);
  const missingB = pair.callback.frames.filter((f) => f.missingInOther === true).map((f) => f.name);
  return [
    `The same failure, fetching ${pair.url}, in two styles (* = a frame the other trace lacks)`,
    '',
    section('Coroutine traceback', pair.coroutine),
    '',
    section('Callback traceback', pair.callback),
    '',
    `Only the coroutine traceback names: ${missingC.length > 0 ? missingC.join(', ') : '(none)'}`,
    `Only the callback traceback names: ${missingB.length > 0 ? missingB.join(', ') : '(none)'}`,
    '',
  ].join('\n');
}
