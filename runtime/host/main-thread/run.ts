// Runs on a runtime host's main thread: a live host's run, and a line replay host's (scanTicks,
// replayLineTick, growInPlace).
//
// A Run: one launch in the runtime host. It owns the loop, everything the inspector attaches
// to it (task recorder, loop controller, lints, finished-task history, snapshots), and what
// the target needs (a crawler, the embedded demo site, a sample, a user's program). The
// host (host.ts) routes requests to the current run.
//
// Lifecycle: created → started (the main coroutine's task or the sample is running, or held
// before its first tick with stopOnEntry) → finished (the main task ended, or stop(): every
// task cancelled) → the loop is closed; the run still answers snapshots (its history) and
// traces until the next launch replaces it, so its demo site stays up until then (release()),
// for the callback stage to fetch the page that failed in this run.
//
// Invariants:
// - Everything attached to the loop is detached and every timer of the run cleared when it
//   finishes, so a finished run keeps nothing running in the host.
// - `finished` is emitted exactly once per run, after the report (`output`) of a crawl.
// - Task events (taskCreated/taskFinished) are only sent with inspection on, at most
//   TASK_EVENTS_PER_SECOND of each per second (the rest are coalesced into snapshots).
// - A crawl sends `progress` every PROGRESS_MS while it changes; each page finished is listed
//   in exactly one progress event's `recent` (an event goes out early when 100 are waiting).

import type {
  CancelRequester,
  CrawledPage,
  CrawlProgress,
  HostEvents,
  LaunchOptions,
  LaunchTarget,
  Lint,
  Snapshot,
  SourcePosition,
  TaskDetail,
  Timeline,
  TaskSummary,
  Traceback,
  ViewedMoment,
  ScanTicksParams,
  ScanTicksResult,
  RecordingMark,
} from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import { CancelledError } from '../../errors';
import { EventLoop, type LoopLogger, type LoopObserver } from '../../loop';
import { exceptionOf } from '../../inspection';
import { Task } from '../../task';
import type { Crawler } from '../../crawler/crawler';
import { DEFAULT_DEMO_LATENCY, demoSiteOptions, startDemoSite, type DemoSite } from '../../demo-site/index';
import type { FetchStatistic } from '../../crawler/report';
import { TaskRecorder, cancelTaskAs } from '../../inspect/task-recorder';
import { generatorReader } from '../../inspect/generator-reader';
import { LoopController, type PauseInfo } from '../../inspect/loop-control';
import { LintCollector } from '../../inspect/lints';
import { DeadlockWatch } from './deadlock-stop';
import { entryFrameOf } from '../../inspect/entry-frame';
import { TaskHistory } from '../../inspect/history';
import { ObserverFanout } from '../../observer-fanout';
import { ExceptionTracer, tracebackFromError, wakingTasks } from '../../inspect/traces';
import { buildAwaitGraph } from '../../inspect/await-graph';
import type { CoroutineHooksHub } from '../../inspect/coroutine-hooks';
import { SnapshotTracker } from './snapshots';
import { RunRecorder, type RecordedStreams } from '../../record/run-recorder';
import { AwaitIndex, summarizeTasks } from '../../inspect/task-summaries';
import { VariableStore } from './variables';
import { liveTaskDetail } from './task-detail';
import { CreationSites } from './creation-sites';
import { CrawlProgressCounter } from './crawl-progress';
import { PastMoment } from './past-moment';
import { RunRewind, type Leaders, type ReplayableProgram } from './run-rewind';
import { FIRST_STRETCH, HitScan } from '../shared/hit-scan';
import { RunTimeline } from '../../record/run-timeline';
import type { OutsideCancels } from '../../record/asked-cancels';
import { RecordedTasks } from '../../record/recorded-tasks';
import { RunLogFeed } from '../../record/run-log-feed';
import type { TableNotes } from '../../record/await-details';
import { RecordedMoment } from './recorded-moment';
import { wholeRecording, type RecordingSoFar } from '../../record/run-log';
import { GrowingRecording, type StreamCounts, type StreamMark } from '../../record/recording-growth';
import { RecordingError } from '../../record/recording-errors';
import type { AskedCancel } from '../../record/asked-cancels';
import type { ReadGrowth } from './recordings';
import type { OpenedRecording } from './recordings';
import { UrlFailures, urlFailureNow } from './url-failures';
import { findHostSample, SAMPLE_SITE } from './samples';
import { outsideCanceller, startMain, startReplayed, type CrawlSignal } from './launch-programs';

export const TASK_EVENTS_PER_SECOND = 200;
const EXCEPTION_EVENTS_PER_SECOND = 50;
const PROGRESS_MS = 250;
/** Pages listed in one progress event's `recent`. */
const RECENT_PAGES = 100;
const HISTORY = 1000;
/** How long stop() waits for cancelled tasks to finish before closing the loop anyway. */
const STOP_GRACE_MS = 2000;
/**
 * An opened recording's replays kept near its end (RunRewind's leaders): two (a line replay
 * host's step back, and a backward search from the end, each use up two), a search's first
 * stretch short of the end; a copy of a live run followed by a line replay host (a process of
 * its own) keeps them up at half the wall time.
 */
const OPENED_LEADERS: Leaders = { count: 2, lag: FIRST_STRETCH, share: 0.5 };

type Emit = <E extends keyof HostEvents & string>(event: E, body: HostEvents[E]) => void;

export interface RunServices {
  emit: Emit;
  hub: CoroutineHooksHub;
  tracer: ExceptionTracer;
  log(text: string): void;
}

/** Counts events per one-second window; says whether one more may go out. */
class RateLimit {
  private windowStart = 0;
  private count = 0;
  dropped = 0;
  constructor(private readonly perSecond: number) {}
  allow(): boolean {
    const now = performance.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.count = 0;
    }
    if (this.count >= this.perSecond) {
      this.dropped++;
      return false;
    }
    this.count++;
    return true;
  }
}

/** What an opened recording gives its run: the recording and what was saved beside it. */
type SavedRecording = Pick<OpenedRecording, 'program' | 'streams' | 'lints' | 'notes' | 'urlFailures'>;

/** A past tick viewed while its replay is under way (Run.viewPast). */
interface PastView {
  readonly tick: number;
  /** The moment as the log tells it, meanwhile. */
  readonly recorded: RecordedMoment;
  /** The replay to it: its PastMoment once landed; rejected when it failed or the views moved on. */
  landing: Promise<PastMoment>;
  /** Why the replay failed (the views say so), null while under way. */
  error: Error | null;
}

export class Run {
  readonly id: number;
  readonly loop: EventLoop;
  readonly inspect: boolean;
  readonly target: LaunchTarget;
  readonly recorder: TaskRecorder | null;
  /** Records the run when launched with options.record (runtime/record). */
  private readonly runRecorder: RunRecorder | null;
  /** The run's recording, once it has finished (saveRecording writes it), or the recording opened. */
  recording: RecordedStreams | null = null;
  /** The recording file this run was opened from (openRecording): a run that never ran here. */
  openedFrom: string | null = null;
  /** The replay's loop running a tick for the line replay (replayLineTick): the line debugger may stop in it. */
  tracedLoop: EventLoop | null = null;
  /** A breakpoint search's stretch under way (scanTicks): its hits. */
  hitScan: HitScan | null = null;
  /** Whether the recording holds frame chains (its replays must record alike); the run's own inspect unless opened. */
  private framesRecorded: boolean;
  /** What the views show when not the present: a past tick, replayed (seekTick), once its replay has landed. */
  viewed: PastMoment | null = null;
  /** The past tick viewed while its replay is under way: known from the log meanwhile (RecordedMoment). */
  private pastView: PastView | null = null;
  /**
   * The id of the seek that made the moment viewed now (protocol/moment-ids.ts); undefined: no seek with an
   * id made it.
   */
  private shownMoment: string | undefined = undefined;
  /** The recording's task table by tick, read from its log (recorded-tasks.ts), fed as it grows. */
  private recordedTasks: RecordedTasks | null = null;
  private rewind: RunRewind | null = null;
  private timelineState: RunTimeline | null = null;
  /** The one decode of the run's log feeding its timeline and its task table by tick (run-log-feed.ts). */
  private logFeed: RunLogFeed | null = null;
  private seeks: Promise<unknown> = Promise.resolve();
  private readonly createdSites = new Map<number, SourcePosition | null>();
  /** An opened recording's lints, as saved with it. */
  private openedLints: Lint[] = [];
  /** An opened recording's table notes (await details, awaited tasks, outcomes), as saved with it. */
  private openedNotes: TableNotes | null = null;
  /**
   * An opened copy of a live run grown in place (growInPlace): its streams, and its notes' lists, which grow
   * with them.
   */
  private grown: GrowingRecording | null = null;
  private grownNotes: {
    details: string[];
    awaitTasks: Array<readonly number[]>;
    outcomes: string[];
    cancels: Array<AskedCancel | null>;
  } | null = null;
  /**
   * The signal that interrupted an opened CLI recording's crawl: its replays make that cancel as the CLI did,
   * and its timeline names it.
   */
  openedSignal: CrawlSignal | null = null;
  /**
   * An opened copy of a run still going (a line replay host following it): its replays keep up at a share of
   * the time, as a live run's do.
   */
  private following = false;
  readonly options: LaunchOptions;
  readonly controller: LoopController;
  readonly lints: LintCollector;
  readonly history = new TaskHistory<TaskSummary>(HISTORY);
  readonly snapshots = new SnapshotTracker();
  readonly variables = new VariableStore(generatorReader());
  crawler: Crawler | null = null;
  site: DemoSite | null = null;
  siteUrl: string | undefined;
  /**
   * What a sample measured outside the loop and ran by (kept with the recording, given to its replays:
   * launch-programs' SampleInputs).
   */
  sampleInputs: Record<string, number> = {};
  /** Whether start() held the run before its first tick (see the launch result's heldAtEntry). */
  heldAtEntry = false;
  mainTask: Task<unknown> | null = null;
  finished = false;
  /** Stop when the crawler records a URL as failed (setExceptionBreaks' `urlFailed`). */
  breakOnUrlFailed = false;
  /** The Deadlock break (setExceptionBreaks' `deadlock`): deadlock-stop.ts. */
  private readonly deadlocks: DeadlockWatch;
  /** The URLs the crawl recorded as failed, kept with a recorded run's recording (or as saved with an opened one). */
  urlFailures = new UrlFailures();
  private readonly services: RunServices;
  private readonly live = new Map<number, Task<unknown>>();
  /** Tracebacks of failed tasks, for as long as the history keeps them. */
  private readonly failures = new Map<number, Traceback>();
  private readonly creationSites = new CreationSites();
  private readonly createdEvents = new RateLimit(TASK_EVENTS_PER_SECOND);
  private readonly finishedEvents = new RateLimit(TASK_EVENTS_PER_SECOND);
  private readonly exceptionEvents = new RateLimit(EXCEPTION_EVENTS_PER_SECOND);
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly removeHooks: () => void;
  private completion: Promise<void> | null = null;
  /** Starts a sample with a loop of its own held at entry (continue or a step lets it go). */
  releaseEntry: () => void = () => undefined;
  private stopping = false;
  private lastProgressKey = '';
  private progressCounter: CrawlProgressCounter | null = null;
  private recent: CrawledPage[] = [];
  private startedAt = performance.now();
  private awaitIndexCache: { key: string; index: AwaitIndex } | null = null;

  constructor(id: number, target: LaunchTarget, options: LaunchOptions, services: RunServices) {
    this.id = id;
    this.target = target;
    this.services = services;
    this.inspect = options.inspect ?? true;
    this.framesRecorded = this.inspect;
    const logger: LoopLogger = {
      warn: (m) => services.emit('output', { category: 'log', text: `${m}\n` }),
      error: (m) => services.emit('output', { category: 'stderr', text: `${m}\n` }),
    };
    this.options = options;
    this.runRecorder = options.record === true ? new RunRecorder({ frames: this.inspect, awaitDetails: true }) : null;
    this.loop = new EventLoop({
      logger,
      debug: this.inspect,
      ...(this.runRecorder !== null ? { clock: this.runRecorder.clock } : {}),
    });
    this.controller = new LoopController(this.loop, {
      events: {
        paused: (info: PauseInfo) => this.onPaused(info),
        continued: (tick) => services.emit('continued', { tick }),
      },
    });
    this.lints = new LintCollector(this.loop, { onLint: (lint: Lint) => services.emit('lint', { lint }) });
    this.deadlocks = new DeadlockWatch(
      this.loop,
      this.lints,
      (id) => this.live.get(id),
      () => this.finished || (this.mainTask !== null && this.mainTask.done()),
      (report) => this.services.emit('exception', report),
    );
    this.controller.setExceptionBreaks(options.breakOnTaskFailed ?? false, options.breakOnTaskCancelled ?? false);
    const feed: LoopObserver = {
      taskCreated: (task) => this.onTaskCreated(task),
      taskDone: (task) => this.onTaskDone(task),
    };
    this.loop.setObserver(
      new ObserverFanout([this.controller, this.lints, feed], (e, hook) =>
        services.log(`inspector observer ${hook} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
      ),
    );
    this.recorder = this.inspect ? TaskRecorder.attach(this.loop) : null;
    this.runRecorder?.attach(this.loop);
    // Straight to the parts (no closure in between): `created` runs for every coroutine call.
    const removeLints = services.hub.add({
      created: this.lints.created.bind(this.lints),
      started: this.lints.started.bind(this.lints),
    });
    const removeControl = services.hub.add({ finished: this.controller.finished.bind(this.controller) });
    this.removeHooks = () => {
      removeLints();
      removeControl();
    };
    this.timers.push(
      setInterval(() => {
        if (this.loop.isClosed()) return;
        this.lints.sweep();
        this.lints.checkWakeups();
        const stop = this.deadlocks.stopFor(this.lints.checkDeadlocks());
        if (stop !== null && !this.finished) this.controller.stopBetweenTicks(stop);
      }, 1000),
    );
  }

  /** Turns the Deadlock break on or off (setExceptionBreaks' `deadlock`). */
  setBreakOnDeadlock(on: boolean): void {
    this.deadlocks.on = on;
    this.controller.watchAtTickEnd = on ? () => this.deadlocks.atTickEnd() : null;
  }

  // --- launching ----------------------------------------------------------------------------

  /** Starts the target; resolves once it runs (or is held at entry). */
  async start(options: LaunchOptions): Promise<void> {
    const t = this.target;
    switch (t.kind) {
      case 'crawl':
      case 'demo': {
        if (t.kind === 'demo') {
          this.site = await startDemoSite(demoSiteOptions(t.latency ?? DEFAULT_DEMO_LATENCY, t.pages));
          this.siteUrl = this.site.url;
        }
        const main = startMain(this.loop, t, options, this.siteUrl ?? null, {
          onStatistic: (stat) => this.onStatistic(stat),
        });
        this.crawler = main.crawler;
        this.runMain(main.task, options);
        this.timers.push(setInterval(() => this.emitProgress(false), PROGRESS_MS));
        if (this.runRecorder !== null) this.followPast();
        return;
      }
      case 'program':
        this.runMain(startMain(this.loop, t, options, null).task, options);
        return;
      case 'sample': {
        const sample = findHostSample(t.id);
        this.site = await startDemoSite(SAMPLE_SITE);
        this.siteUrl = this.site.url;
        if (options.stopOnEntry === true) this.holdAtEntry();
        const site = this.site;
        // A sample with a loop of its own puts nothing on this loop, so holding this loop does
        // not hold it: it is held at entry by not starting it until continue or a step.
        const held =
          options.stopOnEntry === true && sample.ownLoop
            ? new Promise<void>((resolve) => (this.releaseEntry = resolve))
            : Promise.resolve();
        this.completion = held
          .then(() =>
            this.stopping
              ? null
              : sample.run({
                  siteUrl: site.url,
                  loop: this.loop,
                  log: (line: string) => this.services.emit('output', { category: 'stdout', text: `${line}\n` }),
                  measured: (name, measure) => (this.sampleInputs[name] = measure()),
                }),
          )
          .then(
            (outcome) =>
              outcome === null
                ? this.finish(true, `sample ${t.id}: stopped before it started`)
                : this.finish(
                    outcome.ok,
                    `sample ${t.id}: ${outcome.ok ? 'ok' : 'not ok'} (${outcome.lines.length} lines)`,
                  ),
            (e: unknown) => this.finish(false, `sample ${t.id} failed`, e),
          );
        return;
      }
    }
  }

  private runMain(task: Task<unknown>, options: LaunchOptions): void {
    this.mainTask = task;
    if (options.stopOnEntry === true) this.holdAtEntry();
    this.completion = this.loop.runUntilComplete(task).then(
      () => this.finish(true, this.summaryText()),
      (e: unknown) => this.finish(false, this.summaryText(), e),
    );
  }

  private holdAtEntry(): void {
    this.controller.pauseOnEntry();
    this.heldAtEntry = true;
  }

  private summaryText(): string {
    if (this.crawler !== null) {
      const p = this.crawler.progress();
      return `crawled ${p.done} urls (${p.errors} errors, ${p.excluded} excluded) in ${this.crawler.elapsed().toFixed(2)} s`;
    }
    const t = this.mainTask;
    if (t === null) return 'finished';
    return t.cancelled()
      ? `${t.name} was cancelled`
      : exceptionOf(t) !== undefined
        ? `${t.name} failed`
        : `${t.name} returned`;
  }

  private async finish(ok: boolean, summary: string, error?: unknown): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.controller.runEnded();
    if (this.crawler !== null) {
      this.emitProgress(true);
      try {
        this.services.emit('output', { category: 'stdout', text: `${this.crawler.report()}\n` });
      } catch (e) {
        this.services.log(`report failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    this.lints.loopClosing();
    this.closeLoop();
    if (this.runRecorder !== null) this.recording = this.runRecorder.finish();
    this.removeHooks();
    this.recorder?.detach();
    this.loop.setObserver(null);
    this.variables.clear();
    const body: HostEvents['finished'] = {
      runId: this.id,
      ok: ok && !this.stopping,
      summary: this.stopping ? `stopped: ${summary}` : summary,
    };
    if (this.stopping) body.stopped = true;
    if (error !== undefined && !(error instanceof CancelledError && this.stopping))
      body.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.services.emit('finished', body);
  }

  private closeLoop(): void {
    if (this.loop.isClosed()) return;
    if (this.loop.isRunning()) {
      // A sample left its loop running (or a stop timed out): stop it first, then close.
      this.loop.stop();
      return;
    }
    try {
      this.loop.close();
    } catch (e) {
      this.services.log(`closing the loop failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Closes what a finished run kept for its traces (its demo site): the run is being replaced. */
  async release(): Promise<void> {
    this.rewind?.close();
    this.rewind = null;
    this.viewed = null;
    this.pastView = null;
    this.shownMoment = undefined;
    const site = this.site;
    this.site = null;
    await site?.close().catch(() => undefined);
  }

  /** Undoes a launch that failed to start: detaches everything, closes what it opened, emits nothing. */
  async abort(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    this.rewind?.close();
    this.rewind = null;
    this.removeHooks();
    this.runRecorder?.detach();
    this.recorder?.detach();
    this.loop.setObserver(null);
    for (const t of this.loop.allTasks()) t.cancel('launch failed');
    if (!this.loop.isRunning() && !this.loop.isClosed()) {
      try {
        this.loop.close();
      } catch {
        // Nothing more to do for a loop that never ran.
      }
    }
    await this.site?.close().catch(() => undefined);
  }

  /** Ends the run: cancels every task, lets the loop run their cleanup, closes it. */
  async stop(by?: CancelRequester): Promise<void> {
    if (this.finished) return;
    this.stopping = true;
    for (const t of this.loop.allTasks()) {
      try {
        // Each task's cancelledBy says who stopped the run (unknown when the client did not say).
        if (by === undefined) t.cancel('stopped by the client');
        else cancelTaskAs(t, by, `run stopped by the ${by}`);
      } catch (e) {
        // Tasks awaiting each other make cancel() recurse without end (it cancels what the
        // task awaits): the grace period below ends such a run anyway.
        this.services.log(`cancelling ${t.toString()} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (!this.loop.isClosed()) this.controller.continue();
    this.releaseEntry();
    const done = this.completion ?? Promise.resolve();
    let timer: NodeJS.Timeout | null = null;
    const grace = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), STOP_GRACE_MS);
    });
    const r = await Promise.race([done.then(() => 'done' as const), grace]);
    if (timer !== null) clearTimeout(timer);
    if (r === 'timeout') {
      if (this.loop.isRunning()) this.loop.stop();
      await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 200))]);
      await this.finish(false, 'the run did not end within the grace period after cancelling its tasks');
    }
  }

  // --- events ---------------------------------------------------------------------------------

  private onPaused(info: PauseInfo): void {
    const body: HostEvents['paused'] = { reason: info.reason, tick: info.tick, description: info.description };
    if (info.taskId !== undefined) body.taskId = info.taskId;
    if (info.deadlock !== undefined) body.deadlock = info.deadlock;
    this.services.emit('paused', body);
    // A step that ended the main task: let the run finish instead of holding a done loop.
    if (this.mainTask !== null && this.mainTask.done() && !this.finished)
      setImmediate(() => this.controller.continue());
  }

  private onTaskCreated(task: Task<unknown>): void {
    this.live.set(task.id, task);
    if (!this.inspect) return;
    // Where it was created: a stack captured now, formatted only if a client asks.
    this.creationSites.capture(task);
    if (this.createdEvents.allow())
      this.services.emit('taskCreated', { task: summarizeTasks([task], { recorder: this.recorder })[0]! });
  }

  private onTaskDone(task: Task<unknown>): void {
    this.live.delete(task.id);
    const summary = summarizeTasks([task], { recorder: this.recorder })[0]!;
    for (const id of this.history.add(summary)) this.failures.delete(id);
    if (this.inspect && this.finishedEvents.allow()) this.services.emit('taskFinished', { task: summary });
    const error = exceptionOf(task);
    if (!task.cancelled() && error !== undefined && this.exceptionEvents.allow()) {
      const traceback = this.services.tracer.tracebackOf(task, error, wakingTasks(task));
      if (this.failures.size < HISTORY) this.failures.set(task.id, traceback);
      this.services.emit('exception', { taskId: task.id, traceback });
    }
  }

  /**
   * A URL finished: it goes into the next progress event's `recent` pages. With the URL-failed break on (an
   * extension of setExceptionBreaks the
   * debug adapter asks for), a URL the crawler records as failed stops the loop after this
   * tick like a failed task: the worker running now is the task, the error (caught by the
   * crawler, the task goes on) gives the traceback, sent first as an `exception` event.
   */
  private onStatistic(stat: FetchStatistic): void {
    // For the next progress event's `recent` list (oldest first); a full list goes out at once,
    // so every page finished is listed in exactly one event.
    const page: CrawledPage = { url: stat.url, status: stat.status };
    if (stat.title !== undefined) page.title = stat.title;
    if (stat.exception !== null) page.error = stat.exception;
    this.recent.push(page);
    if (this.recent.length >= RECENT_PAGES) this.emitProgress(true);
    const recorded = this.runRecorder !== null;
    const exception = stat.exception;
    if ((!this.breakOnUrlFailed && !recorded) || exception === null || this.crawler === null) return;
    const { mark, error, task, who } = urlFailureNow({ ...stat, exception }, this.crawler, this.loop);
    if (recorded) this.urlFailures.add(mark);
    if (!this.breakOnUrlFailed) return;
    const traceback = tracebackFromError(error, `Coroutine traceback of ${who}, fetching ${stat.url}`);
    if (this.exceptionEvents.allow()) this.services.emit('exception', { taskId: task?.id ?? 0, traceback });
    const info: Omit<PauseInfo, 'tick'> = { reason: 'exception', description: mark.description };
    if (task !== null) info.taskId = task.id;
    this.controller.stopAfterTick(info);
  }

  private progress(): CrawlProgress | null {
    const c = this.crawler;
    if (c === null) return null;
    this.progressCounter ??= new CrawlProgressCounter(c);
    return this.progressCounter.progress(this.crawlerSeconds());
  }

  private crawlerSeconds(): number {
    try {
      return this.crawler!.elapsed();
    } catch {
      return (performance.now() - this.startedAt) / 1000;
    }
  }

  private emitProgress(force: boolean): void {
    const p = this.progress();
    if (p === null) return;
    const key = `${p.done}|${p.queued}|${p.inFlight}|${p.errors}|${p.seen}`;
    if (!force && key === this.lastProgressKey && this.recent.length === 0) return;
    this.lastProgressKey = key;
    if (this.recent.length > 0) {
      p.recent = this.recent;
      this.recent = [];
    }
    this.services.emit('progress', p);
  }

  // --- the recorded past (timeline, seekTick) ---------------------------------------------------

  /**
   * A run made of a recording file (openRecording): finished, never run here, its past
   * replayable. It is inspected (frames and locals at every tick) whether or not the
   * recording holds frame chains (`framesRecorded`: what its replays record to compare).
   */
  static async opened(
    id: number,
    path: string,
    opened: SavedRecording,
    services: RunServices,
    following = false,
  ): Promise<Run> {
    const { program } = opened;
    const run = new Run(
      id,
      program.target,
      { ...program.options, inspect: true, record: false, stopOnEntry: false },
      services,
    );
    run.framesRecorded = program.frames;
    await run.abort();
    run.openedFrom = path;
    const siteUrl = program.siteUrl;
    run.openedLints = opened.lints;
    run.openedNotes = opened.notes;
    run.urlFailures = new UrlFailures(opened.urlFailures);
    run.openedSignal = program.signal ?? null;
    run.recording = opened.streams;
    run.following = following;
    if (siteUrl !== null) run.siteUrl = siteUrl;
    run.sampleInputs = { ...program.inputs };
    run.followPast();
    return run;
  }

  /**
   * A line replay host's run (an opened copy of a live run, line-replay-host.ts) given the same
   * live run's recording taken later (followed as it runs, at a line stop through its open
   * tick, or once it has finished): it reads the longer one from now on, and the replays parked
   * along it (its checkpoints) go on into it rather than starting again. `following`: the run
   * is still going (more will come). False, nothing changed, when `streams` is not this run's
   * recording grown (its streams a prefix of the new ones, the same program).
   */
  growOpened(opened: SavedRecording, following = false): boolean {
    const { program, streams } = opened;
    const now = this.recording;
    if (this.openedFrom === null || now === null || streams.events.length < now.events.length) return false;
    if (
      JSON.stringify(program.target) !== JSON.stringify(this.target) ||
      program.frames !== this.framesRecorded ||
      (program.siteUrl ?? undefined) !== this.siteUrl
    )
      return false;
    const prefix = (a: Uint8Array, b: Uint8Array): boolean =>
      a.length <= b.length &&
      Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, a.length));
    if (!prefix(now.events, streams.events) || !prefix(now.gaps, streams.gaps) || !prefix(now.payload, streams.payload))
      return false;
    this.recording = streams;
    this.openedLints = opened.lints;
    this.openedNotes = opened.notes;
    this.urlFailures = new UrlFailures(opened.urlFailures);
    this.grown = null;
    this.grownNotes = null;
    this.following = following;
    this.rewind?.regrow();
    this.recordedTasks = null;
    // The table is read again whole from a feed of its own; the timeline goes on with the one it has.
    this.logFeed = null;
    return true;
  }

  /**
   * A line replay host's run (an opened copy of a live run) grown in place by what the live
   * run's recording gained since the copy or the last growth (recording-growth.ts, asked by the
   * follower: growRecording): its streams, table notes and lints extended, its readers (the
   * replays parked along it, the timeline, the log's table) going on from where they were. The
   * recording must end where the growth starts (`from`), else it is refused (badState) and
   * nothing changes; a growth that is not a valid continuation is refused (badRecording).
   * `following`: the run is still going. Answers the ticks it has now.
   */
  growInPlace(growth: ReadGrowth, following: boolean): number {
    const now = this.recording;
    if (this.openedFrom === null || now === null || now.openTick === true)
      throw new ProtocolError(`growRecording: run ${this.id} is not an opened copy of a run between ticks`, 'badState');
    const notes = this.openedNotes;
    const at: RecordingMark = {
      ...(this.grown?.mark() ?? { events: now.events.length, gaps: now.gaps.length, payload: now.payload.length }),
      details: notes?.details?.length ?? 0,
      awaitTasks: notes?.awaitTasks?.length ?? 0,
      outcomes: notes?.outcomes?.length ?? 0,
      cancels: notes?.cancels?.length ?? 0,
      lints: this.openedLints.length,
    };
    if ((Object.keys(at) as Array<keyof RecordingMark>).some((k) => at[k] !== growth.from[k])) {
      throw new ProtocolError(
        `growRecording: run ${this.id}'s recording ends at ${JSON.stringify(at)}, the growth starts at ${JSON.stringify(growth.from)}`,
        'badState',
      );
    }
    const grown = (this.grown ??= new GrowingRecording(now, this.openedFrom));
    try {
      grown.append(growth.from, growth.bytes, growth.counts);
    } catch (e) {
      if (e instanceof RecordingError) throw new ProtocolError(`growRecording: ${e.message}`, 'badRecording');
      throw e;
    }
    // The notes' lists grow in place too (copied once, at the first growth): their readers hold them.
    const lists = (this.grownNotes ??= {
      details: [...(notes?.details ?? [])],
      awaitTasks: [...(notes?.awaitTasks ?? [])],
      outcomes: [...(notes?.outcomes ?? [])],
      cancels: [...(notes?.cancels ?? [])],
    });
    const added = growth.notes;
    if (added !== null) {
      for (const x of added.details ?? []) lists.details.push(x);
      for (const x of added.awaitTasks ?? []) lists.awaitTasks.push(x);
      for (const x of added.outcomes ?? []) lists.outcomes.push(x);
      for (const x of added.cancels ?? []) lists.cancels.push(x);
    }
    this.openedNotes = lists;
    for (const lint of growth.lints) this.openedLints.push(lint);
    // Its failed URLs stay those of the copy: a replay host is never asked the timeline (the live host
    // answers it, urlFailures too).
    this.recording = grown.streams();
    this.following = following;
    return this.recording.ticks;
  }

  /** The run is recorded (launched with options.record) or was opened from a recording. */
  get recorded(): boolean {
    return this.runRecorder !== null || this.recording !== null;
  }

  /**
   * The recording so far between ticks (a live run's views through its last complete tick, a finished or
   * opened run's streams), where it ends and its counts; null: not recorded.
   */
  recordingNow(): { readonly soFar: RecordingSoFar; readonly mark: StreamMark; readonly counts: StreamCounts } | null {
    const r = this.recording;
    if (r !== null)
      return {
        soFar: wholeRecording(r),
        mark: { events: r.events.length, gaps: r.gaps.length, payload: r.payload.length },
        counts: { ticks: r.ticks, steps: r.steps, tasks: r.tasks, sockets: r.sockets },
      };
    if (this.runRecorder === null) return null;
    return { soFar: this.runRecorder.soFar(), ...this.runRecorder.markSoFar() };
  }

  /** The recording through the start of the tick running now (a live run stopped on a line); null: not recorded. */
  streamsMidTick(): RecordedStreams | null {
    return this.runRecorder?.streamsWithOpenTick() ?? null;
  }

  /** Ticks recorded so far (a ProtocolError for a run not recorded); a mid-tick recording's open tick is not one. */
  recordedTicks(method: string): number {
    if (this.recording !== null)
      return this.recording.openTick === true ? this.recording.ticks - 1 : this.recording.ticks;
    if (this.runRecorder !== null) return this.runRecorder.ticks;
    throw new ProtocolError(
      `${method}: run ${this.id} was not recorded: launch it with options.record (the extension's coroscope.record setting)`,
      'notRecorded',
    );
  }

  /** The run's timeline, or what is new after `sinceTick`; `taskId`: only that task's lane and marks. */
  timeline(sinceTick: number, taskId?: number): Timeline {
    this.recordedTicks('timeline');
    const t = (this.timelineState ??= new RunTimeline(
      this.openedFrom ?? `run ${this.id}`,
      this.outsideCancels(),
      this.logFeedNow(),
    ));
    const details = this.awaitDetails();
    const asked = this.tableNotes()?.cancels ?? null;
    if (this.recording !== null) t.update(this.recording.events, this.recording.events.length, details, asked);
    else {
      const soFar = this.runRecorder!.eventsSoFar();
      t.update(soFar.bytes, soFar.upTo, details, asked);
    }
    const timeline = t.timeline(this.id, sinceTick, !this.finished, taskId);
    const failed = this.urlFailures.between(timeline.sinceTick, timeline.ticks, taskId);
    if (failed.length > 0) timeline.urlFailures = failed;
    for (const lane of timeline.lanes) {
      const site = this.createdSiteOf(lane.taskId);
      if (site !== null) lane.createdSite = site;
    }
    return timeline;
  }

  /** Who asked the cancels made from outside the loop, when the recording says: an opened CLI recording's signal. */
  private outsideCancels(): OutsideCancels | null {
    const signal = this.openedSignal;
    return signal === null ? null : { origin: { kind: 'cli' }, label: `the CLI (${signal})` };
  }

  /**
   * What each suspension of the recording awaited in the task table's words (RunRecorder.awaitDetails, or as
   * saved with an opened recording), or null.
   */
  awaitDetails(): readonly string[] | null {
    return this.tableNotes()?.details ?? null;
  }

  /**
   * What the recording keeps beside its log for the task table (RunRecorder.tableNotes, or as saved with an
   * opened recording), or null.
   */
  tableNotes(): TableNotes | null {
    return this.runRecorder?.tableNotes() ?? this.openedNotes;
  }

  /**
   * The moment the views show: null for the present; a past tick, replayed or (replayed false) known from the
   * log meanwhile.
   */
  viewedMoment(): ViewedMoment {
    const ticks = this.recording !== null ? this.recordedTicks('seekTick') : (this.runRecorder?.ticks ?? 0);
    const past = this.pastView;
    let moment: ViewedMoment;
    if (past !== null) {
      moment = { runId: this.id, tick: past.tick, ticks, replayed: false };
      if (past.error !== null) moment.replayError = past.error.message;
    } else if (this.viewed === null) moment = { runId: this.id, tick: null, ticks };
    else moment = { runId: this.id, tick: this.viewed.tick, ticks, replayed: true };
    if (this.shownMoment !== undefined) moment.moment = this.shownMoment;
    return moment;
  }

  /**
   * Moves the viewed moment to right after `tick`, or back to the present (null; an opened
   * recording's present is its last tick). Seeks are served in order. A past tick is known at
   * once from the log (the answer and a `viewedTick` event say replayed: false) while its
   * replay goes on in the background; a second `viewedTick` says when it has landed
   * (replayed: true) or failed (replayError). `replayed`: answer only once it has landed (or
   * refuse with why it failed). `moment`: the asker's id of this seek, on the answer and on
   * every `viewedTick` the seek causes (its landing too); the answer with `replayed` is this
   * seek's own landing, whatever the views were moved to since.
   */
  seekTick(tick: number | null, replayed = false, moment?: string): Promise<ViewedMoment> {
    const job = this.seeks.then(() => this.seekNow(tick, moment));
    this.seeks = job.catch(() => undefined);
    if (!replayed) return job.then((done) => done.moment);
    return job.then(async ({ moment: answer, view }) => {
      if (view === null) return answer;
      await view.landing;
      const landed: ViewedMoment = { runId: this.id, tick: view.tick, ticks: answer.ticks, replayed: true };
      if (moment !== undefined) landed.moment = moment;
      return landed;
    });
  }

  /**
   * One seek, in its turn: the moment it shows, and the past view it started (null: none, the present or the
   * tick already viewed).
   */
  private async seekNow(
    asked: number | null,
    id: string | undefined,
  ): Promise<{ moment: ViewedMoment; view: PastView | null }> {
    const ticks = this.recordedTicks('seekTick');
    let tick = asked;
    if (tick === null && this.openedFrom !== null) tick = ticks;
    let view: PastView | null = null;
    if (tick === null) {
      this.viewed = null;
      this.pastView = null;
    } else {
      if (tick < 1 || tick > ticks)
        throw new ProtocolError(`seekTick: run ${this.id} has ticks 1..${ticks} recorded, not ${tick}`, 'badTick');
      if (this.viewed === null || this.viewed.tick !== tick || this.pastView !== null) view = this.viewPast(tick);
    }
    // Set before the landing can be told (a replay parked at the tick lands within this seek's turn).
    this.shownMoment = id;
    const moment = this.viewedMoment();
    this.services.emit('viewedTick', moment);
    return { moment, view };
  }

  /**
   * Views past tick `tick`: from the log at once, the replay to it started (the one to a tick viewed before
   * dropped or retargeted: RunRewind.seek).
   */
  private viewPast(tick: number): PastView {
    const recorded = new RecordedMoment(this.id, tick, this.recordedTasksNow(), () => this.lintsThen());
    this.viewed = null;
    const view: PastView = { tick, recorded, landing: Promise.resolve(null as unknown as PastMoment), error: null };
    this.pastView = view;
    view.landing = this.rewindOf().seek(tick, () => this.pastView === view);
    view.landing.then(
      (moment) => {
        if (this.pastView !== view) return;
        this.pastView = null;
        this.viewed = moment;
        this.services.emit('viewedTick', this.viewedMoment());
      },
      (e: unknown) => {
        if (this.pastView !== view) return;
        view.error = e instanceof Error ? e : new Error(String(e));
        this.services.emit('viewedTick', this.viewedMoment());
      },
    );
    return view;
  }

  /**
   * The recording's task table by tick, read up to its last complete tick (only what is new since the last
   * reading).
   */
  /** The run's one log decode, made when its first reader is. */
  private logFeedNow(): RunLogFeed {
    return (this.logFeed ??= new RunLogFeed(this.openedFrom ?? `run ${this.id}`));
  }

  private recordedTasksNow(): RecordedTasks {
    const t = (this.recordedTasks ??= new RecordedTasks(
      this.openedFrom ?? `run ${this.id}`,
      this.outsideCancels(),
      this.logFeedNow(),
    ));
    const notes = this.tableNotes();
    // (A mid-tick recording's open tick is read as started, nothing in it: never asked for.)
    if (this.recording !== null) t.update(this.recording.events, this.recording.events.length, notes);
    else {
      const soFar = this.runRecorder!.eventsSoFar();
      t.update(soFar.bytes, soFar.upTo, notes);
    }
    return t;
  }

  /** The lints the run reported, each with its tick (the present's, or those saved with an opened recording). */
  private lintsThen(): Lint[] {
    return this.openedFrom !== null ? this.openedLints : this.lints.lints();
  }

  /**
   * The moment the views show, for what needs no replayed program (the task table, a task's
   * detail without locals, lints): the replayed past tick, or the log's while its replay is
   * under way; null for the present.
   */
  momentNow(): PastMoment | RecordedMoment | null {
    return this.viewed ?? this.pastView?.recorded ?? null;
  }

  /**
   * `answer` of the moment the views show, for what needs the replayed program (locals,
   * variables, the await graph, evaluate): the present (the run itself) or the past tick viewed
   * once replayed, at once (a line stop serves its queries synchronously, on its stopped
   * thread), or once its replay has landed, waited for: a ProtocolError when it failed, or
   * when the views moved on before it landed (never an answer for another tick).
   */
  withReplayed<T>(method: string, answer: (moment: PastMoment | Run) => T): T | Promise<T> {
    const past = this.pastView;
    if (past === null) return answer(this.viewed ?? this);
    return past.landing.then(
      (moment) => answer(moment),
      (e: unknown) => {
        if (e instanceof ProtocolError && e.code === 'superseded')
          throw new ProtocolError(
            `${method}: the views moved on from tick ${past.tick} before its replay landed`,
            'superseded',
          );
        if (e instanceof ProtocolError) throw new ProtocolError(`${method}: ${e.message}`, e.code);
        throw e;
      },
    );
  }

  /**
   * The line replay (an opened recording, line-replay-host.ts: a mid-tick one's open tick, or
   * the tick of a breakpoint hit and those after it): runs tick `tick` of a replay once more,
   * with `tracedLoop` set to its loop meanwhile and its moment the viewed one (a past line
   * shown: the other tasks, the graph, the lints as they were on it); resolves once it has run.
   */
  async replayLineTick(tick: number): Promise<{ tick: number }> {
    const ticks = this.recording?.ticks ?? 0;
    if (this.openedFrom === null || this.recording === null || tick < 1 || tick > ticks)
      throw new ProtocolError(`replayLineTick: run ${this.id} is not an opened recording with tick ${tick}`, 'badTick');
    const rewind = this.rewindOf();
    const job = this.seeks.then(() =>
      rewind.traceTick(tick, (loop, moment) => {
        this.tracedLoop = loop;
        this.viewed = moment;
        this.pastView = null;
        // A moment no seek made (a traced tick): no seek's id names it.
        this.shownMoment = undefined;
      }),
    );
    this.seeks = job.catch(() => undefined);
    await job;
    return { tick };
  }

  /**
   * A breakpoint search's stretch in a line replay host (hit-scan.ts): replays ticks from+1 ..
   * to once more with `hitScan` counting the hits on its loop (`tracedLoop`, so the line
   * debugger may stop in it); resolves once it has run, with the hits.
   */
  async scanTicks(params: ScanTicksParams): Promise<ScanTicksResult> {
    const ticks = this.recording?.ticks ?? 0;
    if (this.openedFrom === null || params.from >= params.to || params.to > ticks)
      throw new ProtocolError(
        `scanTicks: run ${this.id} is not an opened recording with ticks ${params.from + 1}..${params.to}`,
        'badTick',
      );
    const scan = new HitScan(params);
    const rewind = this.rewindOf();
    const job = this.seeks.then(() =>
      rewind.traceTick(
        params.to,
        (loop, moment, momentAt) => {
          // The suspension breakpoints' check runs on the stretch's loop only.
          if (scan.observer !== null) {
            if (loop !== null) loop.addObserver(scan.observer);
            else scan.loop?.removeObserver(scan.observer);
          }
          this.tracedLoop = loop;
          scan.loop = loop;
          this.hitScan = loop === null ? null : scan;
          // A scan that stops at a hit of tick `to` (or the line shown again): the moment's queries answer
          // for it there (the other tasks as they were on it).
          if (params.stop?.kind === 'nth' || params.stop?.kind === 'marker') {
            this.viewed = moment;
            this.pastView = null;
            this.shownMoment = undefined;
          } else if (params.stop?.kind === 'first') {
            // A forward search's first hit: its tick is known once the scan stops there, and its moment is
            // the viewed one from then (until the stretch has run).
            if (loop === null && scan.stopped) this.viewed = null;
            scan.onStop =
              loop === null || momentAt === undefined
                ? null
                : (tick) => {
                    this.viewed = momentAt(tick);
                    this.pastView = null;
                    this.shownMoment = undefined;
                  };
          }
        },
        params.from,
        scan.observer === null
          ? undefined
          : (loop) => scan.warmUpFrom(loop, (taskId) => this.recordedTasksNow().lastStepBy(taskId, params.from)),
      ),
    );
    this.seeks = job.catch(() => undefined);
    await job;
    return scan.result();
  }

  /** The run's past, replayed on demand (created on first use). */
  private rewindOf(): RunRewind {
    this.rewind ??= new RunRewind(
      {
        runId: this.id,
        what: this.openedFrom ?? `run ${this.id}`,
        frames: this.framesRecorded,
        debug: this.inspect,
        recording: () => (this.recording !== null ? wholeRecording(this.recording) : this.runRecorder!.soFar()),
        ticks: () => this.recordedTicks('seekTick'),
        live: () =>
          this.recording === null && this.runRecorder !== null && !this.finished
            ? { busy: this.loop.readyCount() > 0 }
            : this.following
              ? { busy: false }
              : null,
        program: this.replayableProgram(),
        lints: () => this.lintsThen(),
      },
      undefined,
      this.openedFrom !== null ? OPENED_LEADERS : null,
    );
    return this.rewind;
  }

  /**
   * Checkpoints of the past are built as the run goes (in its idle time), so the first seeks
   * once it ends are short: for a recorded crawl (a program's or a sample's past is replayed
   * on the first seek), and for an opened recording.
   */
  private followPast(): void {
    if (this.target.kind === 'crawl' || this.target.kind === 'demo') this.rewindOf().follow();
  }

  /** The run's program, to be started again on a replay's loop exactly as start() started it (launch-programs.ts). */
  private replayableProgram(): ReplayableProgram {
    const t = this.target;
    const options = this.options;
    const siteUrl = this.siteUrl ?? null;
    return {
      start: (loop) => startReplayed(loop, t, options, siteUrl, this.sampleInputs),
      cancelFromOutside: outsideCanceller(() => this.tableNotes()?.cancels, this.openedSignal),
    };
  }

  /** Where a task of this run was created, while it is live (cached by id). */
  private createdSiteOf(taskId: number): SourcePosition | null {
    const known = this.createdSites.get(taskId);
    if (known !== undefined) return known;
    const task = this.live.get(taskId);
    if (task === undefined) return null;
    const site = this.creationSites.siteOf(task);
    this.createdSites.set(taskId, site);
    return site;
  }

  // --- queries -----------------------------------------------------------------------------------

  /** A live task or one in the history (a ProtocolError otherwise). */
  liveTask(taskId: number, method: string): Task<unknown> {
    const t = this.live.get(taskId);
    if (t === undefined) {
      if (this.history.has(taskId))
        throw new ProtocolError(
          `${method}: task #${taskId} has finished (${this.history.get(taskId)!.state})`,
          'taskFinished',
        );
      throw new ProtocolError(`${method}: no task #${taskId} in run ${this.id}`, 'unknownTask');
    }
    return t;
  }

  liveTasks(): Task<unknown>[] {
    return this.loop.isClosed() ? [] : this.loop.allTasks();
  }

  snapshot(since: number | undefined): Snapshot {
    const live = summarizeTasks(this.liveTasks(), { recorder: this.recorder });
    // The history only holds finished tasks, never a live one (ids are never reused).
    if (this.history.size > 0) for (const s of this.history.list()) live.push(s);
    return this.snapshots.snapshot(since, live, {
      tick: this.loop.tickCount(),
      paused: this.loop.isPaused(),
      progress: this.progress(),
    });
  }

  taskDetail(taskId: number, locals: boolean): TaskDetail {
    const live = this.live.get(taskId);
    if (live === undefined) {
      const past = this.history.get(taskId);
      if (past === undefined)
        throw new ProtocolError(`taskDetail: no task #${taskId} in run ${this.id}`, 'unknownTask');
      return { task: past, frames: [], awaitChain: [], createdAt: null, traceback: this.failures.get(taskId) ?? null };
    }
    // A task whose first step has not run (a launch held at entry) begins in its coroutine function's first statement.
    const unstarted = live.steps() === 0 ? this.lints.unstartedFunctionOf(live) : null;
    const entry = unstarted !== null ? entryFrameOf(unstarted) : null;
    return liveTaskDetail(live, {
      recorder: this.recorder,
      index: this.awaitIndex(),
      variables: this.variables,
      locals,
      createdAt: this.creationSites.siteOf(live),
      entry,
    });
  }

  /** Who awaits whom, rebuilt only when the loop has run since (or tasks came or went). */
  private awaitIndex(): AwaitIndex {
    const key = `${this.loop.tickCount()}|${this.live.size}`;
    if (this.awaitIndexCache === null || this.awaitIndexCache.key !== key)
      this.awaitIndexCache = { key, index: new AwaitIndex(this.liveTasks()) };
    return this.awaitIndexCache.index;
  }

  /**
   * Where task #taskId (alive now) was created: a fact of the run, the same at every moment,
   * for a past moment's detail that has none of its own.
   */
  creationSiteById(taskId: number): TaskDetail['createdAt'] {
    const live = this.live.get(taskId);
    return live === undefined ? null : this.creationSites.siteOf(live);
  }

  graph(): ReturnType<typeof buildAwaitGraph> {
    return buildAwaitGraph(this.loop);
  }
}
