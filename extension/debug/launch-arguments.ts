// The launch arguments of a `coroscope` debug configuration (and the run an attach names),
// narrowed from launch.json and turned into the host's LaunchTarget and LaunchOptions.
//
// Invariants:
// - Every field is `unknown` until checked; exactly one of `crawl`, `sample`, `program` names the
//   target, anything else is an error naming the field, never a guess.
// - `program` is made absolute against `cwd`; the host is always launched held at entry (the
//   adapter lets it go after configurationDone), `stopOnEntry` only says whether to show that stop.
// - `stopAtEnd` (default on) holds only for a recorded run: an unrecorded one has no past to show.

import { isAbsolute, resolve } from 'node:path';
import { crawlOptionProblem, type CrawlOptionName } from '../../protocol/crawl-option-bounds';
import type { LaunchOptions, LaunchTarget, LineStepMode } from '../../protocol/host-protocol';

/** What a launch configuration of type `coroscope` may hold (package.json describes each). */
export interface CoroscopeLaunchArguments {
  /** A URL (or several) to crawl, or "demo" for the embedded demo site. */
  crawl?: string | string[];
  /** A tutorial sample id. */
  sample?: string;
  /** A TypeScript or JavaScript module exporting a main coroutine function. */
  program?: string;
  /** The export of `program` to run (default `main`). */
  exportName?: string;
  /** Pages of the demo site (crawl: "demo" only). */
  pages?: number;
  /** How the demo site answers: "realistic" (network-like latency, the default) or "instant". */
  demoLatency?: 'realistic' | 'instant';
  maxTasks?: number;
  maxRedirect?: number;
  maxTries?: number;
  exclude?: string;
  strict?: boolean;
  robots?: boolean;
  /** Track coroutine frames (default true): without it threads have no stacks. */
  inspect?: boolean;
  /** Stop before the first loop tick. */
  stopOnEntry?: boolean;
  /**
   * A recorded run that finishes stops at its end (Step Back into its past) instead of ending the session
   * (default true).
   */
  stopAtEnd?: boolean;
  /** Where a line step over a `yield*` that suspends lands: "stayWithTask" (the default) or "followLoop". */
  lineStepMode?: LineStepMode;
  /** Working directory of the runtime host (user modules are resolved against it). */
  cwd?: string;
}

export interface ParsedLaunch {
  target: LaunchTarget;
  /** Options for the host (always held at entry; see the header). */
  options: LaunchOptions;
  /** Whether the user asked to stop on entry. */
  stopOnEntry: boolean;
  /**
   * Whether the session stops at the run's end (a recorded run, unless `stopAtEnd: false`) rather than ending
   * with it.
   */
  stopAtEnd: boolean;
  /** Where line steps over a suspending `yield*` land (the host's setLineStepMode). */
  lineStepMode: LineStepMode;
  cwd: string | undefined;
  /** A one-line description for the debug console. */
  description: string;
}

type Fields = Readonly<Record<string, unknown>>;

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? JSON.stringify(v) : typeof v;
}

class LaunchArgumentError extends Error {}

function optionalString(f: Fields, key: string): string | undefined {
  const v = f[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new LaunchArgumentError(`"${key}" must be a string, got ${describe(v)}`);
  return v;
}

/** An integer within the documented bounds of a crawl option (crawl-option-bounds.ts). */
function optionalBounded(f: Fields, key: string, bound: CrawlOptionName): number | undefined {
  const v = f[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new LaunchArgumentError(`"${key}" must be an integer, got ${describe(v)}`);
  const problem = crawlOptionProblem(bound, v, `"${key}"`);
  if (problem !== null) throw new LaunchArgumentError(problem);
  return v;
}

function optionalBoolean(f: Fields, key: string): boolean | undefined {
  const v = f[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new LaunchArgumentError(`"${key}" must be true or false, got ${describe(v)}`);
  return v;
}

function crawlRoots(f: Fields): string[] | undefined {
  const v = f.crawl;
  if (v === undefined || v === null) return undefined;
  const list = typeof v === 'string' ? [v] : Array.isArray(v) ? (v as unknown[]) : null;
  if (list === null)
    throw new LaunchArgumentError(`"crawl" must be a URL, a list of URLs or "demo", got ${describe(v)}`);
  const roots = list.map((x, i) => {
    if (typeof x !== 'string' || x.trim() === '')
      throw new LaunchArgumentError(`"crawl"[${i}] must be a non-empty string, got ${describe(x)}`);
    return x.trim();
  });
  if (roots.length === 0) throw new LaunchArgumentError('"crawl" must name at least one URL (or "demo")');
  return roots;
}

/**
 * Narrows launch arguments. Returns the parsed launch, or an error message for the user.
 * `defaultCwd` resolves a relative `program` when the configuration has no `cwd`.
 */
export function parseLaunchArguments(
  raw: unknown,
  defaultCwd: string = process.cwd(),
): ParsedLaunch | { error: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { error: 'the launch arguments must be an object' };
  const f = raw as Fields;
  try {
    const roots = crawlRoots(f);
    const sample = optionalString(f, 'sample');
    const program = optionalString(f, 'program');
    const given = [
      roots !== undefined ? 'crawl' : null,
      sample !== undefined ? 'sample' : null,
      program !== undefined ? 'program' : null,
    ].filter((x) => x !== null);
    if (given.length === 0)
      return {
        error:
          'say what to run: "crawl" (a URL or "demo"), "sample" (a tutorial sample id) or "program" (a module exporting a main coroutine)',
      };
    if (given.length > 1)
      return {
        error: `give only one of "crawl", "sample", "program" (this configuration has ${given.map((g) => `"${g}"`).join(' and ')})`,
      };
    const cwdField = optionalString(f, 'cwd');
    const cwd = cwdField === undefined || cwdField === '' ? undefined : resolve(defaultCwd, cwdField);

    let target: LaunchTarget;
    let description: string;
    if (roots !== undefined) {
      if (roots.length === 1 && roots[0]!.toLowerCase() === 'demo') {
        const pages = optionalBounded(f, 'pages', 'demoPages');
        const latency = optionalString(f, 'demoLatency');
        if (latency !== undefined && latency !== 'realistic' && latency !== 'instant')
          return { error: `"demoLatency" must be "realistic" or "instant", got ${describe(latency)}` };
        target = { kind: 'demo' };
        if (pages !== undefined) target.pages = pages;
        if (latency !== undefined) target.latency = latency;
        description = 'crawl of the embedded demo site';
      } else {
        if (roots.some((r) => r.toLowerCase() === 'demo'))
          return { error: '"demo" cannot be mixed with URLs in "crawl"' };
        target = { kind: 'crawl', urls: roots };
        description = `crawl of ${roots.join(', ')}`;
      }
    } else if (sample !== undefined) {
      if (sample.trim() === '') return { error: '"sample" must name a tutorial sample id' };
      target = { kind: 'sample', id: sample.trim() };
      description = `tutorial sample ${JSON.stringify(sample.trim())}`;
    } else {
      const p = program!.trim();
      if (p === '') return { error: '"program" must be the path of a module exporting a main coroutine' };
      const path = isAbsolute(p) ? p : resolve(cwd ?? defaultCwd, p);
      const exportName = optionalString(f, 'exportName');
      target =
        exportName === undefined || exportName === ''
          ? { kind: 'program', path }
          : { kind: 'program', path, exportName };
      description = `${exportName ?? 'main'}() of ${path}`;
    }

    const options: LaunchOptions = { stopOnEntry: true };
    const maxTasks = optionalBounded(f, 'maxTasks', 'maxTasks');
    const maxRedirect = optionalBounded(f, 'maxRedirect', 'maxRedirect');
    const maxTries = optionalBounded(f, 'maxTries', 'maxTries');
    if (maxTasks !== undefined) options.maxTasks = maxTasks;
    if (maxRedirect !== undefined) options.maxRedirect = maxRedirect;
    if (maxTries !== undefined) options.maxTries = maxTries;
    const exclude = optionalString(f, 'exclude');
    if (exclude !== undefined && exclude !== '') {
      try {
        new RegExp(exclude);
      } catch (e) {
        return { error: `"exclude" is not a regular expression: ${e instanceof Error ? e.message : String(e)}` };
      }
      options.exclude = exclude;
    }
    const strict = optionalBoolean(f, 'strict');
    const robots = optionalBoolean(f, 'robots');
    const inspect = optionalBoolean(f, 'inspect');
    if (strict !== undefined) options.strict = strict;
    if (robots !== undefined) options.robots = robots;
    if (inspect !== undefined) options.inspect = inspect;
    // Recorded unless told not to: Step Back and the timeline replay the recording.
    options.record = optionalBoolean(f, 'record') ?? true;
    const lineStepMode = optionalString(f, 'lineStepMode') ?? 'stayWithTask';
    if (lineStepMode !== 'stayWithTask' && lineStepMode !== 'followLoop')
      return { error: `"lineStepMode" must be "stayWithTask" or "followLoop", got ${describe(lineStepMode)}` };
    const stopAtEnd = options.record && (optionalBoolean(f, 'stopAtEnd') ?? true);
    return {
      target,
      options,
      stopOnEntry: optionalBoolean(f, 'stopOnEntry') ?? false,
      stopAtEnd,
      lineStepMode,
      cwd,
      description,
    };
  } catch (e) {
    if (e instanceof LaunchArgumentError) return { error: e.message };
    throw e;
  }
}

/**
 * What an `attach` request names: the run's key in the registry (a number, or its decimal text from a
 * pick-list command).
 */
export function attachRunKey(args: unknown): number | undefined | { error: string } {
  const raw = typeof args === 'object' && args !== null ? (args as Record<string, unknown>).run : undefined;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const key =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isInteger(key) || key <= 0)
    return {
      error: `"run" must be the number of a run (as "Coroscope: Pick a Run to Debug" gives), got ${JSON.stringify(raw)}`,
    };
  return key;
}
