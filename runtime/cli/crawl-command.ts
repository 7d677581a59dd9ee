// `coroscope crawl`: runs one of the crawler's three stages from the command line. stdout gets
// the report (or, with --json, exactly one JSON object); stderr the live progress line, notices
// and errors. With --record FILE the run is recorded (runtime/record) for `coroscope replay`.
// Exit codes and interruption: docs/design/cli-and-demo-site.md.
//
// Invariants: interrupted (SIGINT 130, SIGTERM 143) or cut by --deadline (124), the report of
// what was done is still printed, a pending --dump-tasks-after dump is taken, and a --record file
// is still written naming the cancel's origin, so its replay ends as this crawl did.

import type { LaunchOptions } from '../../protocol/host-protocol';
import type { Clock } from '../clock';
import { CancelledError } from '../errors';
import { EventLoop, type LoopLogger } from '../loop';
import { setCoroutineTracking } from '../coroutine';
import { exceptionKind, formatReport, type FetchStatistic } from '../crawler/report';
import { parseRoot } from '../crawler/roots';
import { crawlWithCallbacks } from '../crawler/callback-fetcher';
import { crawlWithGenerators } from '../crawler/generator-fetcher';
import type { Crawler } from '../crawler/crawler';
import {
  DEFAULT_DEMO_LATENCY,
  demoSiteOptions,
  describeDemoSite,
  startDemoSite,
  type DemoSite,
} from '../demo-site/index';
import { formatPsTree } from '../inspect/dumps';
import { TaskRecorder } from '../inspect/task-recorder';
import { summarizeTasks } from '../inspect/task-summaries';
import { cancelOriginLabel } from '../../protocol/cancel-origin-label';
import { RunRecorder } from '../record/run-recorder';
import { RecordingError } from '../record/recording-errors';
import { unwritableRecordingPath, writeRecordingFile, type RecordingSize } from '../record/recording-file';
import { packTableNotes } from '../record/await-details';
import { programSources } from '../record/source-hashes';
import { cancelOnSignal, recordedProgram, startMain, type RecordedProgram } from '../host/main-thread/launch-programs';
import { UrlFailures, urlFailureNow } from '../host/main-thread/url-failures';
import type { CrawlCommand } from './args';
import { crawlJson, progressLine } from './crawl-output';
import { InspectEndpoint } from './inspect-endpoint';

/** How the crawl's loop is built and watched: recorded (RunRecorder) or replayed (RunReplay). */
export interface CrawlLoopSetup {
  readonly clock: Clock;
  /** Called with the loop, after any inspector is attached. */
  attach(loop: EventLoop): void;
  /**
   * A replay: the signal that interrupted the recorded crawl (its cancel is fed back by the
   * replay, cancelOnSignal), or null; the replay's own process takes no signal as the crawl's.
   */
  readonly replayedSignal?: NodeJS.Signals | null;
  /** Where the loop's warnings go (default: stderr); a replay holds them until it is verified. */
  readonly logger?: LoopLogger;
  /** Told of each URL the crawler finishes, in its tick (a recording keeps the failed ones). */
  readonly onStatistic?: (stat: FetchStatistic, crawler: Crawler, loop: EventLoop) => void;
}

export interface CrawlOutcome {
  stats: FetchStatistic[];
  seconds: number;
  /** URLs found and not fetched, with why. */
  excluded: ReadonlyMap<string, string>;
  report: string;
  /** Set when the crawl was interrupted: the URLs being fetched then, and those still queued. */
  interrupted: { inFlight: readonly string[]; queued: readonly string[] } | null;
  /** Why it was interrupted: the signal the CLI got, or its deadline (null when it was not). */
  interruptedBy: NodeJS.Signals | 'deadline' | null;
  /** What the report says besides the URLs (robots.txt that kept a root out). */
  notices: readonly string[];
}

export async function runCrawlCommand(cmd: CrawlCommand): Promise<number> {
  let site: DemoSite | null = null;
  let roots = cmd.roots;
  try {
    roots = roots.map((r) => parseRoot(r));
  } catch (e) {
    process.stderr.write(`coroscope crawl: ${(e as Error).message}\n`);
    return 2;
  }
  // A --record file that cannot be written is refused before the crawl, not after it.
  const unwritable = cmd.record === null ? null : unwritableRecordingPath(cmd.record);
  if (unwritable !== null) {
    process.stderr.write(`coroscope crawl: --record ${cmd.record}: ${unwritable}\n`);
    return 2;
  }
  if (cmd.demo) {
    site = await startDemoSite(demoSiteOptions(cmd.instant ? 'instant' : DEFAULT_DEMO_LATENCY, cmd.pages));
    roots = [site.url];
    if (!cmd.json)
      process.stderr.write(
        `Crawling the embedded demo site at ${site.url}: ${describeDemoSite(site, cmd.instant ? 'instant' : DEFAULT_DEMO_LATENCY)}\n`,
      );
  }
  // --inspect: `coroscope ps/pstree PID` read the crawl's tasks on this process's inspect socket.
  let endpoint: InspectEndpoint | null = null;
  if (cmd.inspect && cmd.stage === 'coroutines') {
    try {
      endpoint = await InspectEndpoint.open();
    } catch (e) {
      // The crawl (and its --dump-tasks-after dump) goes on; only ps/pstree cannot reach it.
      process.stderr.write(
        `coroscope crawl: --inspect: coroscope ps/pstree will not answer: ${e instanceof Error ? e.message : String(e)}\n`,
      );
    }
  }
  try {
    const program = crawlProgram(cmd, roots, site);
    if (cmd.record !== null) {
      const recorded = await recordCrawl(cmd, cmd.record, program, endpoint);
      const code = printCrawlOutcome(cmd, roots, recorded.outcome);
      // The report is printed all the same: a recording that could not be written loses only itself.
      if (recorded.writeError === null) return code;
      process.stderr.write(`coroscope crawl: ${recorded.writeError}\n`);
      return code === 0 ? 1 : code;
    }
    const outcome =
      cmd.stage === 'coroutines'
        ? await crawlWithCoroutines(cmd, program, null, endpoint)
        : await crawlWithStage(cmd, roots);
    return printCrawlOutcome(cmd, roots, outcome);
  } finally {
    endpoint?.close();
    await site?.close();
  }
}

/**
 * The program a crawl command runs, as a launch names it (launch-programs.ts): the CLI's crawl and the host's
 * are one.
 */
export function crawlProgram(cmd: CrawlCommand, roots: readonly string[], site: DemoSite | null): RecordedProgram {
  const options: LaunchOptions = {
    maxTasks: cmd.maxTasks,
    maxRedirect: cmd.maxRedirect,
    maxTries: cmd.maxTries,
    exclude: cmd.exclude,
    strict: cmd.strict,
    robots: cmd.robots,
    timeout: cmd.timeout,
    inspect: cmd.inspect,
  };
  if (cmd.maxPages > 0) options.maxPages = cmd.maxPages;
  if (cmd.maxDepth !== null) options.maxDepth = cmd.maxDepth;
  if (cmd.deadline !== null) options.deadline = cmd.deadline;
  if (cmd.dumpTasksAfterMs !== null) options.dumpTasksAfter = cmd.dumpTasksAfterMs / 1000;
  if (cmd.record !== null) options.record = true;
  const target: RecordedProgram['target'] =
    site !== null
      ? { kind: 'demo', pages: cmd.pages, latency: cmd.instant ? 'instant' : DEFAULT_DEMO_LATENCY }
      : { kind: 'crawl', urls: [...roots] };
  return { target, options, siteUrl: site?.url ?? null, frames: cmd.inspect };
}

/** The exit code of a crawl interrupted by a signal (128 + its number) or cut by its deadline (124, as timeout(1)). */
function interruptedCode(by: CrawlOutcome['interruptedBy']): number {
  return by === 'SIGTERM' ? 143 : by === 'deadline' ? 124 : 130;
}

/**
 * Prints the report (or the JSON object); the exit code: 0, 1 when no root could be reached, 130/143/124 when
 * interrupted or cut.
 */
export function printCrawlOutcome(cmd: CrawlCommand, roots: readonly string[], outcome: CrawlOutcome): number {
  if (cmd.json) {
    process.stdout.write(
      JSON.stringify(
        crawlJson(outcome.stats, outcome.seconds, outcome.excluded, cmd.stage, outcome.interrupted, outcome.notices),
      ) + '\n',
    );
  } else {
    process.stdout.write(outcome.report);
    const rate = outcome.seconds > 0 ? outcome.stats.length / outcome.seconds : 0;
    process.stdout.write(`Rate: ${rate.toFixed(1)} urls/sec (stage ${cmd.stage})\n`);
  }
  if (outcome.interrupted !== null) return interruptedCode(outcome.interruptedBy);
  const rootStats = outcome.stats.filter((s) => roots.includes(s.url));
  if (rootStats.some((s) => s.exception === null)) return 0;
  // No root was crawled: say for each why not.
  for (const s of rootStats) process.stderr.write(`coroscope crawl: ${rootFailure(s)}\n`);
  for (const notice of outcome.notices) process.stderr.write(`coroscope crawl: ${notice}\n`);
  for (const root of roots) {
    const why = outcome.excluded.get(root);
    if (why !== undefined && why !== 'robots')
      process.stderr.write(`coroscope crawl: the root ${root} was not fetched (${why})\n`);
  }
  return 1;
}

/** Failures that mean no answer came from the server (as opposed to a wrong answer). */
const UNREACHABLE_KINDS = /Connection|Timeout|OSError|gaierror|Refused|Reset/;

/** Why a root failed: "cannot reach" only when the server never answered. */
function rootFailure(s: FetchStatistic): string {
  const kind = exceptionKind(s.exception ?? '');
  if (s.status === null && UNREACHABLE_KINDS.test(kind) && !/too large|longer than/i.test(s.exception ?? ''))
    return `cannot reach ${s.url}: ${s.exception}`;
  return `the root ${s.url} answered${s.status === null ? '' : ` (HTTP ${s.status})`} but could not be crawled: ${s.exception}`;
}

/**
 * The crawl, recorded to `file` (a .corotrace naming its program as a launch, with the hashes
 * of the sources); `writeError`: why the file could not be written (the disk filled, the
 * folder went away during the crawl), null when it was.
 */
async function recordCrawl(
  cmd: CrawlCommand,
  file: string,
  program: RecordedProgram,
  endpoint: InspectEndpoint | null,
): Promise<{ outcome: CrawlOutcome; writeError: string | null }> {
  // With what each suspension awaited, in the task table's words: the timeline of the recording opened in the
  // extension says them.
  const recorder = new RunRecorder({ frames: cmd.inspect, awaitDetails: true });
  // Where each URL failed, as the host's run keeps it: Reverse Continue with the URL-failed filter lands
  // there in VS Code.
  const failures = new UrlFailures();
  const onStatistic = (stat: FetchStatistic, crawler: Crawler, loop: EventLoop): void => {
    if (stat.exception !== null)
      failures.add(urlFailureNow({ ...stat, exception: stat.exception }, crawler, loop).mark);
  };
  const outcome = await crawlWithCoroutines(
    cmd,
    program,
    { clock: recorder.clock, attach: (loop) => recorder.attach(loop), onStatistic },
    endpoint,
  );
  const streams = recorder.finish();
  // The replay crawls the same roots (the demo site's URL of this run), without the site; `json`: how the CLI
  // printed it.
  let size: RecordingSize;
  try {
    size = writeRecordingFile(file, {
      meta: {
        program: {
          ...recordedProgram(
            outcome.interruptedBy === 'SIGINT' || outcome.interruptedBy === 'SIGTERM'
              ? { ...program, signal: outcome.interruptedBy }
              : program,
          ),
          json: cmd.json,
        },
        sources: programSources(),
        ticks: streams.ticks,
        steps: streams.steps,
        tasks: streams.tasks,
        sockets: streams.sockets,
        recordedAt: new Date().toISOString(),
        ...packTableNotes(recorder.tableNotes()!),
        ...(failures.all().length > 0 ? { urlFailures: failures.all() } : {}),
      },
      events: streams.events,
      gaps: streams.gaps,
      payload: streams.payload,
    });
  } catch (e) {
    if (e instanceof RecordingError) return { outcome, writeError: e.message };
    throw e;
  }
  process.stderr.write(
    `Recorded ${streams.ticks} ticks, ${streams.steps} task steps, ${streams.sockets} sockets to ${file} (${describeSize(size, streams.steps, streams.payload.length)})\n`,
  );
  return { outcome, writeError: null };
}

/**
 * A recording's size, per task step, told apart: the run's own record (what makes its
 * timeline, stacks and replay) and the bytes its sockets received (the pages, which any
 * recording that replays offline must hold), with how much they were compressed.
 */
function describeSize(size: RecordingSize, steps: number, received: number): string {
  const perStep = (n: number): string => (steps > 0 ? (n / steps).toFixed(1) : '0');
  const ratio = size.socketBytes > 0 ? (received / size.socketBytes).toFixed(1) : '1';
  return `${size.bytes} bytes, ${perStep(size.bytes)} per step: the run ${perStep(size.bytes - size.socketBytes)} per step, the ${received} bytes received ${perStep(size.socketBytes)} per step (compressed ${ratio}x)`;
}

/** Repaints one status line on stderr while a crawl runs (terminals only). */
function startProgress(
  cmd: CrawlCommand,
  read: () => { done: number; queued: number; inFlight: number; errors: number },
  t0: number,
): () => void {
  if (cmd.quiet || cmd.json || !process.stderr.isTTY) return () => undefined;
  const timer = setInterval(() => {
    process.stderr.write(`\r\x1b[K${progressLine(read(), (performance.now() - t0) / 1000)}`);
  }, 250);
  timer.unref();
  return () => {
    clearInterval(timer);
    process.stderr.write('\r\x1b[K');
  };
}

/**
 * The crawl `program` on the runtime's loop (started by launch-programs.ts, as the host starts it); `setup`
 * records or replays it.
 */
export async function crawlWithCoroutines(
  cmd: CrawlCommand,
  program: RecordedProgram,
  setup: CrawlLoopSetup | null = null,
  endpoint: InspectEndpoint | null = null,
): Promise<CrawlOutcome> {
  if (cmd.inspect) setCoroutineTracking(true);
  const loop = new EventLoop(
    setup === null ? {} : { clock: setup.clock, ...(setup.logger !== undefined ? { logger: setup.logger } : {}) },
  );
  // Always attached (with or without --inspect: a WeakMap lookup and two clock reads per
  // step): it knows which task created which, so the dump nests workers under the crawl, and
  // who asked for each cancellation, so a cancel the CLI makes (Ctrl-C) reads as the CLI's.
  const recorder = TaskRecorder.attach(loop);
  setup?.attach(loop);
  endpoint?.watch(loop);
  const t0 = performance.now();
  let dumped = false;
  const dumpTasks = (title: string): void => {
    dumped = true;
    const out = cmd.json ? process.stderr : process.stdout;
    out.write(`*** Tasks ${title} ***\n${formatPsTree(loop)}\n`);
  };
  // The dump's timer is the program's (options.dumpTasksAfter, armed by startMain: a replay
  // arms it too); only a crawl asked to dump prints (a replay's command asks for none).
  const dump = cmd.dumpTasksAfterMs;
  const onStatistic = setup?.onStatistic;
  const { task, crawler: started } = startMain(loop, program.target, program.options, program.siteUrl, {
    onDumpTime: () => {
      if (dump !== null && !dumped) dumpTasks(`after ${dump} ms`);
    },
    ...(onStatistic !== undefined ? { onStatistic: (stat: FetchStatistic) => onStatistic(stat, crawler, loop) } : {}),
  });
  const crawler = started!;
  const stopProgress = startProgress(cmd, () => crawler.progress(), t0);
  const replaying = setup?.replayedSignal !== undefined;
  let signal: NodeJS.Signals | null = setup?.replayedSignal ?? null;
  const onSignal = (sig: NodeJS.Signals): void => {
    signal ??= sig;
    cancelOnSignal(task, sig);
    // A dump asked for and not taken yet is taken now: the crawl ends before its time would
    // come, and this one shows the tasks as the interruption found them, and who cancelled.
    // (Its timer is left to the crawl's end, which cancels it in a tick, as a replay does.)
    if (dump !== null && !dumped) {
      dumpTasks(`at the interruption, after ${Math.round(performance.now() - t0)} ms`);
    }
  };
  if (!replaying) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  let interrupted = false;
  let interruptedBy: CrawlOutcome['interruptedBy'] = null;
  try {
    await loop.runUntilComplete(task);
  } catch (e) {
    if (!(e instanceof CancelledError)) throw e;
    interrupted = true;
    const origin = summarizeTasks([task], { recorder })[0]?.cancelledBy ?? { kind: 'unknown' };
    interruptedBy = origin.kind === 'deadline' ? 'deadline' : signal;
    const how =
      origin.kind === 'deadline'
        ? `cut at its deadline (${program.options.deadline} s): cancelled by the crawl deadline`
        : `interrupted: the crawl was cancelled by ${cancelOriginLabel(origin, (id) => `task #${id}`)}`;
    process.stderr.write(`coroscope crawl: ${how}; report of what was done:\n`);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    stopProgress();
    loop.close();
    setCoroutineTracking(false);
  }
  return {
    stats: crawler.done,
    seconds: crawler.elapsed(),
    excluded: crawler.excluded,
    report: crawler.report(),
    interrupted: interrupted ? (crawler.interrupted ?? { inFlight: [], queued: [] }) : null,
    interruptedBy,
    notices: crawler.notices(),
  };
}

/** The teaching stages: the options they honour (the rest are refused by parseArgs). */
async function crawlWithStage(cmd: CrawlCommand, roots: string[]): Promise<CrawlOutcome> {
  const options = {
    maxRedirect: cmd.maxRedirect,
    strict: cmd.strict,
    exclude: cmd.exclude === null ? undefined : new RegExp(cmd.exclude),
    maxPages: cmd.maxPages || undefined,
    maxDepth: cmd.maxDepth,
    robots: cmd.robots,
    timeout: cmd.timeout,
  };
  const result =
    cmd.stage === 'callbacks' ? await crawlWithCallbacks(roots, options) : await crawlWithGenerators(roots, options);
  // A root kept out by robots.txt is said, as stage 3 says it.
  const notices = roots
    .filter((r) => result.exclusions.get(r) === 'robots')
    .map(
      (r) =>
        `robots.txt of ${new URL(r).origin} disallows the root ${r} (or answered 5xx): it was not fetched (--no-robots crawls it anyway)`,
    );
  const report = formatReport(result.stats, { seconds: result.seconds, todo: 0, busy: 0, maxTasks: 1, notices });
  return {
    stats: result.stats,
    seconds: result.seconds,
    excluded: result.exclusions,
    report,
    interrupted: null,
    interruptedBy: null,
    notices,
  };
}
