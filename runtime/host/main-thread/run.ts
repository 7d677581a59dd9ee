// Runs on a runtime host's main thread: a live host's run, and a line replay host's. A Run: one
// launch in the host. It owns the loop, what the inspector attaches to it and what the target
// needs; this file is the live run and its present, composed of run-tasks, crawl-events,
// run-recording, run-past and replay-host-services (one role each). Lifecycle: created →
// started → finished (main task ended, or stop()) → loop closed; it still answers snapshots and
// traces until the next launch replaces it (its demo site stays up till release()).
//
// Invariants:
// - Everything attached to the loop is detached and every timer cleared when it finishes.
// - `finished` is emitted exactly once per run, after a crawl's report (`output`).
// - A crawl sends `progress` every PROGRESS_MS while it changes (crawl-events.ts).

import type {
  CancelRequester,
  HostEvents,
  LaunchOptions,
  LaunchTarget,
  Lint,
  Snapshot,
  TaskDetail,
} from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import { CancelledError } from '../../errors';
import { EventLoop, type LoopLogger, type LoopObserver } from '../../loop';
import { exceptionOf } from '../../inspection';
import type { Task } from '../../task';
import type { Crawler } from '../../crawler/crawler';
import { DEFAULT_DEMO_LATENCY, demoSiteOptions, startDemoSite, type DemoSite } from '../../demo-site/index';
import { TaskRecorder, cancelTaskAs } from '../../inspect/task-recorder';
import { generatorReader } from '../../inspect/generator-reader';
import { LoopController, type PauseInfo } from '../../inspect/loop-control';
import { LintCollector } from '../../inspect/lints';
import { DeadlockWatch } from './deadlock-stop';
import { entryFrameOf } from '../../inspect/entry-frame';
import { ObserverFanout } from '../../observer-fanout';
import { buildAwaitGraph } from '../../inspect/await-graph';
import { SnapshotTracker } from './snapshots';
import { RunRecorder } from '../../record/run-recorder';
import { summarizeTasks } from '../../inspect/task-summaries';
import { VariableStore } from './variables';
import { liveTaskDetail } from './task-detail';
import type { PastMoment } from './past-moment';
import { findHostSample, SAMPLE_SITE } from './samples';
import { startMain, unrecordedWhy } from './launch-programs';
import { CrawlEvents } from './crawl-events';
import { ReplayHostServices } from './replay-host-services';
import { RunPast } from './run-past';
import { RunRecording, type SavedRecording } from './run-recording';
import type { RunServices } from './run-services';
import { RunTasks } from './run-tasks';

export type { RunServices } from './run-services';

const PROGRESS_MS = 250;
/** How long stop() waits for cancelled tasks to finish before closing the loop anyway. */
const STOP_GRACE_MS = 2000;

export class Run {
  readonly id: number;
  readonly loop: EventLoop;
  readonly inspect: boolean;
  readonly target: LaunchTarget;
  readonly recorder: TaskRecorder | null;
  readonly options: LaunchOptions;
  readonly controller: LoopController;
  readonly lints: LintCollector;
  readonly snapshots = new SnapshotTracker();
  readonly variables = new VariableStore(generatorReader());
  /** The task table: live tasks, the history of finished ones, the task events (run-tasks.ts). */
  readonly tasks: RunTasks;
  /** The run's recording as it grows, or the recording it was opened from (run-recording.ts). */
  readonly recording: RunRecording;
  /** Seeks into the recorded past and the moment the views show (run-past.ts). */
  readonly past: RunPast;
  /** What only a line replay host's run serves: traced ticks, breakpoint scans, growth (replay-host-services.ts). */
  readonly replayHost: ReplayHostServices;
  private readonly crawlEvents: CrawlEvents;
  crawler: Crawler | null = null;
  site: DemoSite | null = null;
  siteUrl: string | undefined;
  /**
   * What a sample measured outside the loop and ran by (kept with the recording, given to its replays:
   * launch-programs' SampleInputs).
   */
  sampleInputs: Record<string, number> = {};
  /** An opened `coroscope run` recording's program arguments (RecordedProgram.cliArgv): replayed as run. */
  cliArgv: readonly string[] | undefined = undefined;
  /** Whether start() held the run before its first tick (see the launch result's heldAtEntry). */
  heldAtEntry = false;
  mainTask: Task<unknown> | null = null;
  finished = false;
  /** Stop when the crawler records a URL as failed (setExceptionBreaks' `urlFailed`). */
  breakOnUrlFailed = false;
  /** The Deadlock break (setExceptionBreaks' `deadlock`): deadlock-stop.ts. */
  private readonly deadlocks: DeadlockWatch;
  private readonly services: RunServices;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly removeHooks: () => void;
  private completion: Promise<void> | null = null;
  /** Starts a sample with a loop of its own held at entry (continue or a step lets it go). */
  releaseEntry: () => void = () => undefined;
  private stopping = false;

  constructor(id: number, target: LaunchTarget, options: LaunchOptions, services: RunServices) {
    this.id = id;
    this.target = target;
    this.services = services;
    this.inspect = options.inspect ?? true;
    const logger: LoopLogger = {
      warn: (m) => services.emit('output', { category: 'log', text: `${m}\n` }),
      error: (m) => services.emit('output', { category: 'stderr', text: `${m}\n` }),
    };
    this.options = options;
    // Asked to record a program the recording cannot hold: it runs unrecorded, and every request of its past says why.
    const unrecorded = options.record === true ? unrecordedWhy(target) : null;
    const runRecorder =
      options.record === true && unrecorded === null
        ? new RunRecorder({ frames: this.inspect, awaitDetails: true })
        : null;
    this.recording = new RunRecording(this, runRecorder, this.inspect, unrecorded);
    this.loop = new EventLoop({
      logger,
      debug: this.inspect,
      ...(runRecorder !== null ? { clock: runRecorder.clock } : {}),
    });
    this.controller = new LoopController(this.loop, {
      events: {
        paused: (info: PauseInfo) => this.onPaused(info),
        continued: (tick) => services.emit('continued', { tick }),
      },
    });
    this.lints = new LintCollector(this.loop, { onLint: (lint: Lint) => services.emit('lint', { lint }) });
    this.tasks = new RunTasks(this, services);
    this.crawlEvents = new CrawlEvents(this, services.emit, this.tasks.exceptionEvents);
    this.past = new RunPast(this, services.emit);
    this.replayHost = new ReplayHostServices(id, this.recording, this.past);
    this.deadlocks = new DeadlockWatch(
      this.loop,
      this.lints,
      (id) => this.tasks.liveById(id),
      () => this.finished || (this.mainTask !== null && this.mainTask.done()),
      (report) => this.services.emit('exception', report),
    );
    this.controller.setExceptionBreaks(options.breakOnTaskFailed ?? false, options.breakOnTaskCancelled ?? false);
    const feed: LoopObserver = {
      taskCreated: (task) => this.tasks.onTaskCreated(task),
      taskDone: (task) => this.tasks.onTaskDone(task),
    };
    this.loop.setObserver(
      new ObserverFanout([this.controller, this.lints, feed], (e, hook) =>
        services.log(`inspector observer ${hook} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
      ),
    );
    this.recorder = this.inspect ? TaskRecorder.attach(this.loop) : null;
    runRecorder?.attach(this.loop);
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
    run.recording.framesRecorded = program.frames;
    await run.abort();
    run.recording.open(path, opened, following);
    const siteUrl = program.siteUrl;
    if (siteUrl !== null) run.siteUrl = siteUrl;
    run.sampleInputs = { ...program.inputs };
    run.cliArgv = program.cliArgv;
    run.followPast();
    return run;
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
          onStatistic: (stat) => this.crawlEvents.onStatistic(stat),
        });
        this.crawler = main.crawler;
        this.runMain(main.task, options);
        this.timers.push(setInterval(() => this.crawlEvents.emitProgress(false), PROGRESS_MS));
        if (this.recording.recorder !== null) this.followPast();
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
      this.crawlEvents.emitProgress(true);
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
    this.recording.finish();
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
    this.past.close();
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
    this.past.dropReplays();
    this.removeHooks();
    this.recording.recorder?.detach();
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
    if (info.url !== undefined) body.url = info.url;
    if (info.deadlock !== undefined) body.deadlock = info.deadlock;
    this.services.emit('paused', body);
    // A step that ended the main task: let the run finish instead of holding a done loop.
    if (this.mainTask !== null && this.mainTask.done() && !this.finished)
      setImmediate(() => this.controller.continue());
  }

  /**
   * Checkpoints of the past are built as the run goes (in its idle time), so the first seeks
   * once it ends are short: for a recorded crawl (a program's or a sample's past is replayed
   * on the first seek), and for an opened recording.
   */
  private followPast(): void {
    if (this.target.kind === 'crawl' || this.target.kind === 'demo') this.past.follow();
  }

  // --- queries: the present (a past moment answers the same: past-moment.ts) ----------------------

  /**
   * `answer` of the moment the views show, for what needs the replayed program: this run's present, or the
   * past tick viewed once replayed (RunPast.withReplayed).
   */
  withReplayed<T>(method: string, answer: (moment: PastMoment | Run) => T): T | Promise<T> {
    return this.past.withReplayed(method, this as Run, answer);
  }

  /** A live task or one in the history (a ProtocolError otherwise). */
  liveTask(taskId: number, method: string): Task<unknown> {
    return this.tasks.liveTask(taskId, method);
  }

  liveTasks(): Task<unknown>[] {
    return this.loop.isClosed() ? [] : this.loop.allTasks();
  }

  snapshot(since: number | undefined): Snapshot {
    const live = summarizeTasks(this.liveTasks(), { recorder: this.recorder });
    // The history only holds finished tasks, never a live one (ids are never reused).
    const history = this.tasks.history;
    if (history.size > 0) for (const s of history.list()) live.push(s);
    return this.snapshots.snapshot(since, live, {
      tick: this.loop.tickCount(),
      paused: this.loop.isPaused(),
      progress: this.crawlEvents.progress(),
    });
  }

  taskDetail(taskId: number, locals: boolean): TaskDetail {
    const live = this.tasks.liveById(taskId);
    if (live === undefined) {
      const past = this.tasks.finishedDetail(taskId);
      if (past === undefined)
        throw new ProtocolError(`taskDetail: no task #${taskId} in run ${this.id}`, 'unknownTask');
      return past;
    }
    // A task whose first step has not run (a launch held at entry) begins in its coroutine function's first statement.
    const unstarted = live.steps() === 0 ? this.lints.unstartedFunctionOf(live) : null;
    const entry = unstarted !== null ? entryFrameOf(unstarted) : null;
    return liveTaskDetail(live, {
      recorder: this.recorder,
      index: this.tasks.awaitIndex(() => this.liveTasks()),
      variables: this.variables,
      locals,
      createdAt: this.tasks.creationSites.siteOf(live),
      entry,
    });
  }

  /**
   * Where task #taskId (alive now) was created: a fact of the run, the same at every moment,
   * for a past moment's detail that has none of its own.
   */
  creationSiteById(taskId: number): TaskDetail['createdAt'] {
    return this.tasks.creationSiteById(taskId);
  }

  graph(): ReturnType<typeof buildAwaitGraph> {
    return buildAwaitGraph(this.loop);
  }
}
