// Runs on a runtime host's main thread (live or line replay), and in the CLI's process. The
// programs a launch names (LaunchTarget, LaunchOptions), started on a loop: one registry for the
// host's runs, their replays (RunRewind) and the CLI's crawl and replay, so a recording made by
// one is started again exactly by the other. It also writes and reads how a recording names its
// program (recordedProgram, readRecordedProgram).
//
// Invariants:
// - The same target and options give the same program (options, main task name, timers).
// - A crawl's deadline and the CLI's dump are timers on the program's own loop, replayed alike;
//   a CLI crawl a signal interrupted is cancelled again the same way by every replay.
// - A recording whose program cannot be started here gets a RecordingError saying why.

import type { LaunchOptions, LaunchTarget } from '../../../protocol/host-protocol';
import { HOST_PARAMS_PARSERS } from '../../../protocol/host-requests';
import { EventLoop } from '../../loop';
import type { Task } from '../../task';
import { Crawler, type CrawlerOptions } from '../../crawler/crawler';
import { parseRoot } from '../../crawler/roots';
import type { FetchStatistic } from '../../crawler/report';
import { cancelTaskAs, type AskedCancel } from '../../inspect/task-recorder';
import { RecordingError } from '../../record/recording-errors';
import { loadProgram } from './program-loader';
import { withoutFileEffects } from '../../outside-effects';
import { findHostSample } from './samples';
import { findSample } from '../../samples/index';
import { startUserProgram } from './user-program';
import type { StartedReplay } from './replay-session';

/** The message a task cancelled by its crawl's deadline gets. */
export const DEADLINE_MESSAGE = 'crawl deadline';

/** The crawler's options of a launch. */
export function crawlerOptions(options: LaunchOptions): CrawlerOptions {
  const out: CrawlerOptions = {
    maxTasks: options.maxTasks,
    maxRedirect: options.maxRedirect,
    maxTries: options.maxTries,
    exclude: options.exclude ?? null,
    strict: options.strict,
    robots: options.robots,
  };
  if (options.maxPages !== undefined) out.maxPages = options.maxPages;
  if (options.maxDepth !== undefined) out.maxDepth = options.maxDepth;
  // Only the total is set (the session's own connect and read timeouts stay), as the CLI's --timeout always did.
  if (options.timeout !== undefined) out.session = { timeout: { total: options.timeout } };
  return out;
}

/** The signals the CLI ends a crawl on (a recording of a crawl one interrupted names it). */
export type CrawlSignal = 'SIGINT' | 'SIGTERM';

/**
 * The CLI's cancel of its crawl on a signal: made by the CLI, and again by every replay of its recording (the
 * CLI's and the host's).
 */
export function cancelOnSignal(task: Task<unknown>, signal: NodeJS.Signals): void {
  cancelTaskAs(task, 'cli', `interrupted (${signal})`);
}

/**
 * How a replay makes again its recording's cancels asked from outside the loop (RunReplay's
 * cancelFromOutside): each as its asked cancel says (`asked()`: the recording's list so far,
 * asked-cancels.ts: the tool and its message), else as the CLI's signal did, else by no one.
 */
export function outsideCanceller(
  asked: () => ReadonlyArray<AskedCancel | null> | null | undefined,
  signal: NodeJS.Signals | null,
): (task: Task<unknown>, noTask: number) => void {
  return (task, noTask) => {
    const a = asked()?.[noTask];
    if (a !== undefined && a !== null) cancelTaskAs(task, a.by, a.message);
    else if (signal !== null) cancelOnSignal(task, signal);
    else task.cancel();
  };
}

/** A program started on a loop: its main task and, for a crawl, its crawler. */
export interface StartedMain {
  readonly task: Task<unknown>;
  readonly crawler: Crawler | null;
}

export interface MainHooks {
  /** Each URL the crawler finishes (the host's progress events). */
  readonly onStatistic?: (stat: FetchStatistic) => void;
  /** The task dump's time has come (options.dumpTasksAfter): the CLI prints it. */
  readonly onDumpTime?: () => void;
}

/** A timer of the run that goes with its main task (cancelled, in a tick, when the task ends). */
function armWithTask(loop: EventLoop, task: Task<unknown>, seconds: number | undefined, fire: () => void): void {
  if (seconds === undefined) return;
  const timer = loop.callLater(seconds, fire);
  task.addDoneCallback(() => timer.cancel());
}

/**
 * Starts a crawl, demo crawl or program target's main task on `loop` (samples run through
 * startReplayed or the host's own sample runner). `siteUrl`: the demo site's address the
 * crawl goes to (the live one, or the recorded one in a replay).
 */
export function startMain(
  loop: EventLoop,
  target: LaunchTarget,
  options: LaunchOptions,
  siteUrl: string | null,
  hooks: MainHooks = {},
): StartedMain {
  switch (target.kind) {
    case 'crawl':
    case 'demo': {
      if (target.kind === 'demo' && siteUrl === null)
        throw new RecordingError("a demo crawl needs its demo site's address");
      const roots = target.kind === 'demo' ? [siteUrl!] : target.urls;
      const crawler = new Crawler(roots, {
        ...crawlerOptions(options),
        ...(hooks.onStatistic !== undefined ? { onStatistic: hooks.onStatistic } : {}),
      });
      const task = loop.createTask(crawler.crawl(), { name: 'crawl' });
      armWithTask(loop, task, options.deadline, () => cancelTaskAs(task, 'deadline', DEADLINE_MESSAGE));
      armWithTask(loop, task, options.dumpTasksAfter, () => hooks.onDumpTime?.());
      return { task, crawler };
    }
    case 'program': {
      const program = loadProgram(target.path, target.exportName ?? 'main');
      return { task: loop.createTask(program.start(), { name: program.exportName }), crawler: null };
    }
    case 'sample':
      throw new Error(`sample ${target.id} has no main task: it runs through its own runner`);
  }
}

/**
 * The recorded program made again on a replay's loop, exactly as it was started; it runs at `run()` (its crawler
 * known before any tick replays).
 */
export function startReplayed(
  loop: EventLoop,
  target: LaunchTarget,
  options: LaunchOptions,
  siteUrl: string | null,
  inputs: SampleInputs = {},
  cliArgv?: readonly string[],
): StartedReplay {
  if (target.kind === 'program' && cliArgv !== undefined) {
    // As `coroscope run` ran it: its first run() on the replay's loop (later ones on loops of their own).
    return {
      crawler: null,
      run: () =>
        withoutFileEffects(() =>
          startUserProgram(target.path, target.exportName ?? 'main', cliArgv, {
            newLoop: (loopOptions, n) => (n === 1 ? loop : new EventLoop(loopOptions)),
          }),
        ).firstRun.then(({ outcome }) => {
          if (!outcome.ok) throw outcome.error;
          return outcome.value;
        }),
    };
  }
  if (target.kind === 'sample') {
    const sample = findHostSample(target.id);
    const why = unrecordedWhy(target);
    if (why !== null) throw new RecordingError(why);
    // What the run measured outside its loop, as it measured it (a recording from before they were kept:
    // measured again).
    const measured = (name: string, measure: () => number): number => inputs[name] ?? measure();
    return {
      crawler: null,
      run: () => sample.run({ siteUrl: siteUrl ?? '', loop, log: () => undefined, measured }),
    };
  }
  // A program's modules run their top level again: what it wrote to files there was written live.
  const main = withoutFileEffects(() => startMain(loop, target, options, siteUrl));
  return { crawler: main.crawler, run: () => loop.runUntilComplete(main.task) };
}

/** The numbers a sample's run measured outside its loop and ran by (SampleContext.measured), by name. */
export type SampleInputs = Readonly<Record<string, number>>;

/** How a recording names its program: what the host and the CLI need to start it again. */
export interface RecordedProgram {
  readonly target: LaunchTarget;
  readonly options: LaunchOptions;
  /** The demo site's address of the recorded run (its crawl's root), null without one. */
  readonly siteUrl: string | null;
  /** Recorded with frames (coroutine tracking on): a replay must track alike. */
  readonly frames: boolean;
  /**
   * The signal that interrupted the recorded CLI crawl: the cancel from outside the loop its replays make
   * again (cancelOnSignal).
   */
  readonly signal?: CrawlSignal;
  /** A sample's numbers measured outside its loop (SampleInputs): its replays run by the same. */
  readonly inputs?: SampleInputs;
  /**
   * A program recorded by `coroscope run`: its arguments. Its replays start it as that command did (its first
   * run(), main task and shutdown ticks included: startUserProgram), not as a launch does.
   */
  readonly cliArgv?: readonly string[];
}

/** The metadata's `program` for a run of `p` (its kind first: the file's readers list it). */
export function recordedProgram(p: RecordedProgram): { kind: string; [key: string]: unknown } {
  return {
    kind: p.target.kind,
    target: p.target,
    options: p.options,
    siteUrl: p.siteUrl,
    frames: p.frames,
    ...(p.signal !== undefined ? { signal: p.signal } : {}),
    ...(p.inputs !== undefined && Object.keys(p.inputs).length > 0 ? { inputs: p.inputs } : {}),
    ...(p.cliArgv !== undefined ? { cli: 'run', argv: p.cliArgv } : {}),
  };
}

/** The program a recording names, checked as a launch is (`file` is named in every error). */
export function readRecordedProgram(
  program: { readonly kind: string; readonly [key: string]: unknown },
  file: string,
): RecordedProgram {
  const frames = program.frames === true;
  if (program.target === undefined)
    throw new RecordingError(`${file} records a ${program.kind} run that names no launch: it cannot be started again`);
  let launch: { target: LaunchTarget; options: LaunchOptions };
  try {
    launch = HOST_PARAMS_PARSERS.launch({ target: program.target, options: program.options });
  } catch (e) {
    throw new RecordingError(
      `${file} is corrupt: the launch it records is not valid (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  const siteUrl = typeof program.siteUrl === 'string' ? program.siteUrl : null;
  if (launch.target.kind === 'demo' && siteUrl === null)
    throw new RecordingError(`${file} is corrupt: it records a demo crawl without the demo site's address`);
  // Roots a crawl could not start from are refused here, not by the Crawler at the replay's start.
  const roots = launch.target.kind === 'demo' ? [siteUrl!] : launch.target.kind === 'crawl' ? launch.target.urls : [];
  for (const root of roots) {
    try {
      parseRoot(root);
    } catch (e) {
      throw new RecordingError(
        `${file} is corrupt: a crawl cannot start from the root it records (${e instanceof Error ? e.message : String(e)})`,
      );
    }
  }
  const signal = program.signal === 'SIGINT' || program.signal === 'SIGTERM' ? program.signal : undefined;
  if (program.signal !== undefined && signal === undefined)
    throw new RecordingError(
      `${file} is corrupt: the signal it records (${JSON.stringify(program.signal)}) is not one the CLI ends a crawl on`,
    );
  let inputs: Record<string, number> | undefined;
  if (program.inputs !== undefined) {
    const given = program.inputs;
    if (
      typeof given !== 'object' ||
      given === null ||
      Array.isArray(given) ||
      !Object.values(given).every((v) => typeof v === 'number' && Number.isFinite(v))
    )
      throw new RecordingError(
        `${file} is corrupt: the numbers its sample measured (${JSON.stringify(given)}) are not numbers by name`,
      );
    inputs = { ...(given as Record<string, number>) };
  }
  let cliArgv: string[] | undefined;
  if (program.cli === 'run') {
    const argv: unknown = program.argv;
    if (launch.target.kind !== 'program' || !Array.isArray(argv) || !argv.every((a) => typeof a === 'string'))
      throw new RecordingError(`${file} is corrupt: a coroscope run recording names no program or no argument list`);
    cliArgv = [...(argv as string[])];
  }
  return {
    target: launch.target,
    options: { ...launch.options, inspect: frames },
    siteUrl,
    frames,
    ...(signal !== undefined ? { signal } : {}),
    ...(inputs !== undefined ? { inputs } : {}),
    ...(cliArgv !== undefined ? { cliArgv } : {}),
  };
}

/**
 * Why a run of `target` cannot be recorded (null: it can): a sample with a loop of its own puts no task on
 * the runtime's loop, whose ticks are all a recording holds, so it is not recorded even when asked.
 */
export function unrecordedWhy(target: LaunchTarget): string | null {
  if (target.kind !== 'sample' || findSample(target.id)?.ownLoop !== true) return null;
  return `sample ${target.id} runs a loop of its own, which is not recorded: its past cannot be replayed`;
}
