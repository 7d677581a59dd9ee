// `coroscope crawl`: runs one of the crawler's three stages from the command line.
// stdout gets the report (or, with --json, exactly one JSON object); stderr gets the live
// progress line (only on a terminal), notices and errors. Exit codes: 0 crawled, 1 no root
// could be crawled (unreachable, failed, or kept out by robots.txt: stderr says which and
// why), 2 bad arguments (see main.ts), 130 interrupted (the report of what was done is still
// printed, with every URL that was being fetched or still queued; Ctrl-C cancels the crawl as
// the CLI, a cancel origin the task recorder keeps and stderr and the dump name, and a
// --dump-tasks-after dump not taken yet is taken at that moment). With --record FILE the run is recorded (runtime/record) and
// written to FILE; `coroscope replay FILE` (replay-command.ts) re-runs it offline through the
// same crawlWithCoroutines.

import type { Clock } from '../clock';
import { CancelledError } from '../errors';
import { EventLoop } from '../loop';
import { setCoroutineTracking } from '../coroutine';
import { Crawler } from '../crawler/crawler';
import { exceptionKind, formatReport, type FetchStatistic } from '../crawler/report';
import { parseRoot } from '../crawler/roots';
import { crawlWithCallbacks } from '../crawler/callback-fetcher';
import { crawlWithGenerators } from '../crawler/generator-fetcher';
import { DEFAULT_DEMO_LATENCY, demoSiteOptions, describeDemoSite, startDemoSite, type DemoSite } from '../demo-site/index';
import { formatPsTree } from '../inspect/dumps';
import { TaskRecorder, cancelTaskAs } from '../inspect/task-recorder';
import { summarizeTasks } from '../inspect/task-summaries';
import { cancelOriginLabel } from '../../protocol/cancel-origin-label';
import { RunRecorder } from '../record/run-recorder';
import { writeRecordingFile } from '../record/recording-file';
import { packAwaitDetails } from '../record/await-details';
import { programSources } from '../record/source-hashes';
import type { CrawlCommand } from './args';
import { crawlJson, progressLine } from './crawl-output';

/** How the crawl's loop is built and watched: recorded (RunRecorder) or replayed (RunReplay). */
export interface CrawlLoopSetup {
  readonly clock: Clock;
  /** Called with the loop, after any inspector is attached. */
  attach(loop: EventLoop): void;
}

export interface CrawlOutcome {
  stats: FetchStatistic[];
  seconds: number;
  /** URLs found and not fetched, with why. */
  excluded: ReadonlyMap<string, string>;
  report: string;
  /** Set when the crawl was interrupted: the URLs being fetched then, and those still queued. */
  interrupted: { inFlight: readonly string[]; queued: readonly string[] } | null;
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
  if (cmd.demo) {
    site = await startDemoSite(demoSiteOptions(cmd.instant ? 'instant' : DEFAULT_DEMO_LATENCY, cmd.pages));
    roots = [site.url];
    if (!cmd.json) process.stderr.write(`Crawling the embedded demo site at ${site.url}: ${describeDemoSite(site, cmd.instant ? 'instant' : DEFAULT_DEMO_LATENCY)}\n`);
  }
  try {
    const outcome = cmd.record !== null ? await recordCrawl(cmd, cmd.record, roots) : cmd.stage === 'coroutines' ? await crawlWithCoroutines(cmd, roots) : await crawlWithStage(cmd, roots);
    return printCrawlOutcome(cmd, roots, outcome);
  } finally {
    await site?.close();
  }
}

/** Prints the report (or the JSON object); the exit code: 0, 1 when no root could be reached, 130 when interrupted. */
export function printCrawlOutcome(cmd: CrawlCommand, roots: readonly string[], outcome: CrawlOutcome): number {
  if (cmd.json) {
    process.stdout.write(JSON.stringify(crawlJson(outcome.stats, outcome.seconds, outcome.excluded, cmd.stage, outcome.interrupted, outcome.notices)) + '\n');
  } else {
    process.stdout.write(outcome.report);
    const rate = outcome.seconds > 0 ? outcome.stats.length / outcome.seconds : 0;
    process.stdout.write(`Rate: ${rate.toFixed(1)} urls/sec (stage ${cmd.stage})\n`);
  }
  if (outcome.interrupted !== null) return 130;
  const rootStats = outcome.stats.filter((s) => roots.includes(s.url));
  if (rootStats.some((s) => s.exception === null)) return 0;
  // No root was crawled: say for each why not.
  for (const s of rootStats) process.stderr.write(`coroscope crawl: ${rootFailure(s)}\n`);
  for (const notice of outcome.notices) process.stderr.write(`coroscope crawl: ${notice}\n`);
  for (const root of roots) {
    const why = outcome.excluded.get(root);
    if (why !== undefined && why !== 'robots') process.stderr.write(`coroscope crawl: the root ${root} was not fetched (${why})\n`);
  }
  return 1;
}

/** Failures that mean no answer came from the server (as opposed to a wrong answer). */
const UNREACHABLE_KINDS = /Connection|Timeout|OSError|gaierror|Refused|Reset/;

/** Why a root failed: "cannot reach" only when the server never answered. */
function rootFailure(s: FetchStatistic): string {
  const kind = exceptionKind(s.exception ?? '');
  if (s.status === null && UNREACHABLE_KINDS.test(kind) && !/too large|longer than/i.test(s.exception ?? '')) return `cannot reach ${s.url}: ${s.exception}`;
  return `the root ${s.url} answered${s.status === null ? '' : ` (HTTP ${s.status})`} but could not be crawled: ${s.exception}`;
}

/** The crawl, recorded to `file` (a .corotrace with the crawl's options and the hashes of the sources). */
async function recordCrawl(cmd: CrawlCommand, file: string, roots: string[]): Promise<CrawlOutcome> {
  // With what each suspension awaited, in the task table's words: the timeline of the recording opened in the extension says them.
  const recorder = new RunRecorder({ frames: cmd.inspect, awaitDetails: true });
  const outcome = await crawlWithCoroutines(cmd, roots, { clock: recorder.clock, attach: (loop) => recorder.attach(loop) });
  const streams = recorder.finish();
  // The replay crawls the same roots (the demo site's URL of this run), without the site.
  const program = { kind: 'crawl', frames: cmd.inspect, command: { ...cmd, roots, demo: false, record: null } };
  const bytes = writeRecordingFile(file, {
    meta: { program, sources: programSources(), ticks: streams.ticks, steps: streams.steps, tasks: streams.tasks, sockets: streams.sockets, recordedAt: new Date().toISOString(), awaitDetails: packAwaitDetails(recorder.awaitDetails ?? []) },
    events: streams.events,
    gaps: streams.gaps,
    payload: streams.payload,
  });
  const perStep = streams.steps > 0 ? (bytes / streams.steps).toFixed(1) : '0';
  process.stderr.write(`Recorded ${streams.ticks} ticks, ${streams.steps} task steps, ${streams.sockets} sockets to ${file} (${bytes} bytes, ${perStep} per step)\n`);
  return outcome;
}

/** Repaints one status line on stderr while a crawl runs (terminals only). */
function startProgress(cmd: CrawlCommand, read: () => { done: number; queued: number; inFlight: number; errors: number }, t0: number): () => void {
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

/** The crawl on the runtime's loop; `setup` records or replays it. */
export async function crawlWithCoroutines(cmd: CrawlCommand, roots: string[], setup: CrawlLoopSetup | null = null): Promise<CrawlOutcome> {
  if (cmd.inspect) setCoroutineTracking(true);
  const loop = new EventLoop(setup === null ? {} : { clock: setup.clock });
  const crawler = new Crawler(roots, {
    maxTasks: cmd.maxTasks,
    maxRedirect: cmd.maxRedirect,
    maxTries: cmd.maxTries,
    exclude: cmd.exclude,
    strict: cmd.strict,
    maxPages: cmd.maxPages,
    maxDepth: cmd.maxDepth,
    robots: cmd.robots,
    session: { timeout: { total: cmd.timeout } },
  });
  // Always attached (with or without --inspect: a WeakMap lookup and two clock reads per
  // step): it knows which task created which, so the dump nests workers under the crawl, and
  // who asked for each cancellation, so a cancel the CLI makes (Ctrl-C) reads as the CLI's.
  const recorder = TaskRecorder.attach(loop);
  setup?.attach(loop);
  const t0 = performance.now();
  const task = loop.createTask(crawler.crawl(), { name: 'crawl' });
  const stopProgress = startProgress(cmd, () => crawler.progress(), t0);
  let dumped = false;
  const dumpTasks = (title: string): void => {
    dumped = true;
    const out = cmd.json ? process.stderr : process.stdout;
    out.write(`*** Tasks ${title} ***\n${formatPsTree(loop)}\n`);
  };
  const dump = cmd.dumpTasksAfterMs === null ? null : loop.callLater(cmd.dumpTasksAfterMs / 1000, () => dumpTasks(`after ${cmd.dumpTasksAfterMs} ms`));
  const onSigint = (): void => {
    cancelTaskAs(task, 'cli', 'interrupted (SIGINT)');
    // A dump asked for and not taken yet is taken now: the crawl ends before its time would
    // come, and this one shows the tasks as the interruption found them, and who cancelled.
    if (dump !== null && !dumped) {
      dump.cancel();
      dumpTasks(`at the interruption, after ${Math.round(performance.now() - t0)} ms`);
    }
  };
  process.once('SIGINT', onSigint);
  let interrupted = false;
  try {
    await loop.runUntilComplete(task);
  } catch (e) {
    if (!(e instanceof CancelledError)) throw e;
    interrupted = true;
    const origin = summarizeTasks([task], { recorder })[0]?.cancelledBy ?? { kind: 'unknown' };
    process.stderr.write(`coroscope crawl: interrupted: the crawl was cancelled by ${cancelOriginLabel(origin, (id) => `task #${id}`)}; report of what was done:\n`);
  } finally {
    process.removeListener('SIGINT', onSigint);
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
  const result = cmd.stage === 'callbacks' ? await crawlWithCallbacks(roots, options) : await crawlWithGenerators(roots, options);
  // A root kept out by robots.txt is said, as stage 3 says it.
  const notices = roots.filter((r) => result.exclusions.get(r) === 'robots').map((r) => `robots.txt of ${new URL(r).origin} disallows the root ${r} (or answered 5xx): it was not fetched (--no-robots crawls it anyway)`);
  const report = formatReport(result.stats, { seconds: result.seconds, todo: 0, busy: 0, maxTasks: 1, notices });
  return { stats: result.stats, seconds: result.seconds, excluded: result.exclusions, report, interrupted: null, notices };
}
