// Runs on a runtime host's main thread (a live host's, and a line replay host's).
// RuntimeHost: serves protocol/host-protocol.ts over an RpcEndpoint. It holds the current Run
// (a new launch stops the previous one first), the breakpoints and exception breaks (kept
// across runs), and the inspector's process-wide hooks (coroutine tracking, exception tracer).
//
// Invariants: every request's params are narrowed (protocol/host-requests.ts) before its handler
// runs, a bad one or one in the wrong state is a ProtocolError naming why; requests are answered
// in any state (a paused loop answers every query); the host never blocks its loop longer than
// one request's work; shutdown answers before the process exits.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PROTOCOL_HISTORY,
  PROTOCOL_VERSION,
  type Breakpoint,
  type CancelRequester,
  type HostEvents,
  type HostMethods,
  type LaunchOptions,
  type LaunchTarget,
  type TaskDetail,
  type TracePair,
} from '../../../protocol/host-protocol';
import { ProtocolError, type RpcEndpoint } from '../../../protocol/rpc';
import type { Task } from '../../task';
import { SITE_PATHS, startDemoSite, type DemoSite } from '../../demo-site/index';
import { CoroutineHooksHub } from '../../inspect/coroutine-hooks';
import { ExceptionTracer, failingPageOf, tracePair } from '../../inspect/traces';
import { LoopControlError } from '../../inspect/loop-control';
import { checkBreakpoints } from '../../inspect/suspension-breakpoints';
import { IN_DEAD_ZONE } from '../../inspect/local-expressions';
import { taskFrames } from '../../inspect/task-snapshot';
import { cancelTaskAs } from '../../inspect/task-recorder';
import { RecordedMoment } from './recorded-moment';
import { programSources } from '../../record/source-hashes';
import { Run, type RunServices } from './run';
import { openRecording, readRecordingGrowth, saveRecording, writeRecordingGrowth, writeReplayCopy } from './recordings';
import { compareApproaches, listSamples } from '../../samples/index';
import { programLoopStates } from '../../inspect/program-loop-states';
import { HOST_PARAMS_PARSERS, type HostMethodName, type HostParams } from '../../../protocol/host-requests';
import type { HostAndReplayHostMethods, ReplayHostMethods } from '../../../protocol/replay-host-protocol';
import {
  REPLAY_HOST_PARAMS_PARSERS,
  type ReplayHostMethodName,
  type ReplayHostParams,
} from '../../../protocol/replay-host-requests';

/**
 * A host serves the public host protocol and, beside it, the replay-host protocol's methods
 * (protocol/replay-host-protocol.ts).
 */
export type HostEndpoint = RpcEndpoint<
  Record<string, never>,
  HostAndReplayHostMethods,
  Record<string, never>,
  HostEvents
>;

function hostVersion(): string {
  for (const candidate of [join(__dirname, '..', '..', '..', 'package.json'), join(__dirname, '..', 'package.json')]) {
    try {
      const pkg: unknown = JSON.parse(readFileSync(candidate, 'utf8'));
      const v = (pkg as { version?: unknown }).version;
      if (typeof v === 'string') return v;
    } catch {
      // Try the next place.
    }
  }
  return '0.0.0';
}

/** Turns the controller's refusals into protocol errors. */
async function control<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof LoopControlError) throw new ProtocolError(e.message, 'badState');
    throw e;
  }
}

export class RuntimeHost {
  private run: Run | null = null;
  private nextRunId = 1;
  /** Replay hosts' scans under way (holdCheckpoints): the run builds no checkpoints meanwhile. */
  private checkpointHolds = 0;
  private readonly breakpoints = new Map<string, Breakpoint[]>();
  private exceptionBreaks: {
    taskFailed: boolean;
    taskCancelled: boolean;
    urlFailed: boolean;
    deadlock: boolean;
  } | null = null;
  private readonly hub = new CoroutineHooksHub();
  private readonly tracer = new ExceptionTracer();
  private readonly services: RunServices;
  private launching: Promise<unknown> = Promise.resolve();
  /** Called once shutdown has been answered (main.ts exits the process). */
  onShutdown: () => void = () => undefined;

  constructor(private readonly endpoint: HostEndpoint) {
    this.services = {
      emit: (event, body) => this.endpoint.emit(event, body),
      hub: this.hub,
      tracer: this.tracer,
      log: (text) => this.log(text),
    };
    this.hub.onError = (e) =>
      this.log(`coroutine tracking hook failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    this.serve();
  }

  /** A host log line (output, category 'log'). */
  log(text: string): void {
    this.endpoint.emit('output', { category: 'log', text: text.endsWith('\n') ? text : `${text}\n` });
  }

  currentRun(): Run | null {
    return this.run;
  }

  private requireRun(method: string): Run {
    if (this.run === null) throw new ProtocolError(`${method}: nothing is running: launch first`, 'noRun');
    return this.run;
  }

  private requireActiveRun(method: string): Run {
    const run = this.requireRun(method);
    if (run.finished) throw new ProtocolError(`${method}: run ${run.id} has finished: launch again`, 'runFinished');
    return run;
  }

  private requireTask(method: string, p: { taskId: number }, run: Run): Task<unknown> {
    return run.liveTask(p.taskId, method);
  }

  /** Serves `method`: its params pass through the method's parser of the table first. */
  private serveMethod<M extends HostMethodName>(
    method: M,
    handler: (params: HostParams<M>) => HostMethods[M]['result'] | Promise<HostMethods[M]['result']>,
  ): void {
    const parse = HOST_PARAMS_PARSERS[method];
    this.endpoint.handle(method, (raw) => handler(parse(raw)));
  }

  /**
   * Serves replay-host method `method` (a line replay host's, or its worker's for one): its params pass
   * through the replay-host table's parser first.
   */
  private serveReplayMethod<M extends ReplayHostMethodName>(
    method: M,
    handler: (params: ReplayHostParams<M>) => ReplayHostMethods[M]['result'] | Promise<ReplayHostMethods[M]['result']>,
  ): void {
    const parse = REPLAY_HOST_PARAMS_PARSERS[method];
    this.endpoint.handle(method, (raw) => handler(parse(raw)));
  }

  /** Inspection on for a run: tracking hooks, await-throw captures. */
  private setInspection(on: boolean): void {
    this.hub.enable(on);
    if (on) {
      this.tracer.install();
    } else {
      this.tracer.uninstall();
    }
  }

  /** Stops the current run (if any) and waits for it. */
  async stopRun(by?: CancelRequester): Promise<void> {
    const run = this.run;
    if (run !== null && !run.finished) await run.stop(by);
  }

  private serve(): void {
    const serve = this.serveMethod.bind(this);
    serve('hello', (p) => {
      if (p.protocolVersion !== PROTOCOL_VERSION) {
        // What changed since the client's version, so that an old client's author knows what to update.
        const changes = Object.entries(PROTOCOL_HISTORY)
          .filter(([v]) => Number(v) > p.protocolVersion && Number(v) <= PROTOCOL_VERSION)
          .map(([v, what]) => `version ${v}: ${what}`);
        throw new ProtocolError(
          `hello: this host speaks protocol version ${PROTOCOL_VERSION}, the client ${p.protocolVersion}${changes.length > 0 ? ` (${changes.join('; ')})` : ''}`,
          'versionMismatch',
        );
      }
      // A line replay host opens a recording next, and checks its sources against the program's then: hashed
      // now, while its client writes the copy it opens (line-replay-host.ts), not after.
      if (p.client === 'line replay') setImmediate(() => programSources());
      return { protocolVersion: PROTOCOL_VERSION, hostVersion: hostVersion(), pid: process.pid };
    });

    serve('samples', () => ({ samples: listSamples() }));
    serve('programLoops', () => ({ loops: programLoopStates() }));
    serve('saveRecording', (p) => saveRecording(this.requireRun('saveRecording'), p.path));
    serve('openRecording', (p) => {
      // Like a launch, it replaces the current run: serialised with launches.
      const job = this.launching.then(() =>
        this.openRecorded(p.path, p.midTick === true, p.unshown === true, p.live === true),
      );
      this.launching = job.catch(() => undefined);
      return job;
    });
    serve('timeline', (p) => this.requireRun('timeline').recording.timeline(p.sinceTick ?? 0, p.taskId));
    serve('seekTick', (p) => this.requireRun('seekTick').past.seekTick(p.tick, p.replayed ?? false, p.moment));
    // The replay-host protocol's methods this thread answers (its worker, or a live host's worker, asks them).
    const serveReplay = this.serveReplayMethod.bind(this);
    serveReplay('replayLineTick', (p) =>
      this.requireRun('replayLineTick').replayHost.replayLineTick(p.tick, p.gate ?? null),
    );
    serveReplay('scanTicks', (p) => this.requireRun('scanTicks').replayHost.scanTicks(p));
    serveReplay('warmTick', (p) => this.requireRun('warmTick').replayHost.warmTick(p.tick, p.keep));
    serveReplay('holdCheckpoints', (p) => {
      this.checkpointHolds = Math.max(0, this.checkpointHolds + (p.hold ? 1 : -1));
      this.run?.past.holdCheckpoints(this.checkpointHolds > 0);
      return {};
    });
    serveReplay('writeReplayCopy', (p) => writeReplayCopy(this.requireRun('writeReplayCopy'), p.path));
    serveReplay('writeRecordingGrowth', (p) =>
      writeRecordingGrowth(this.requireRun('writeRecordingGrowth'), p.path, p.from),
    );
    serveReplay('growRecording', (p) => {
      const growth = readRecordingGrowth(p.path);
      return { ticks: this.requireRun('growRecording').replayHost.growInPlace(growth, p.live) };
    });

    serve('compare', async (p) => {
      const rows = await compareApproaches({ pages: p.pages, latencyMs: p.latencyMs });
      return { rows: rows.map((r) => ({ ...r })) };
    });

    serve('launch', (p) => {
      // Launches are serialised: the second waits for the first to be up (and then stops it).
      const job = this.launching.then(() => this.launch(p.target, p.options));
      this.launching = job.catch(() => undefined);
      return job;
    });

    serve('pause', () => control(() => ({ tick: this.requireActiveRun('pause').controller.pause() })));
    serve('continue', () =>
      control(() => {
        const run = this.requireActiveRun('continue');
        run.releaseEntry();
        return { tick: run.controller.continue() };
      }),
    );
    serve('stepTick', () =>
      control(async () => {
        const run = this.requireActiveRun('stepTick');
        if (!run.controller.isPaused())
          throw new ProtocolError('stepTick: the loop is running: pause first', 'notPaused');
        run.releaseEntry();
        return { tick: await run.controller.stepTick() };
      }),
    );
    serve('stepTask', (p) =>
      control(async () => {
        const run = this.requireActiveRun('stepTask');
        const task = this.requireTask('stepTask', p, run);
        return { tick: await run.controller.stepTask(task) };
      }),
    );
    serve('stepOut', (p) =>
      control(async () => {
        const run = this.requireActiveRun('stepOut');
        const task = this.requireTask('stepOut', p, run);
        return { tick: await run.controller.stepOut(task, p.depth) };
      }),
    );

    serve('setBreakpoints', (p) => {
      const { file, breakpoints: bps } = p;
      this.breakpoints.set(file, bps);
      const run = this.run;
      if (run !== null && !run.finished) return { breakpoints: run.controller.setBreakpoints(file, bps) };
      // No run: verify against the file now; they apply to the next launch.
      return { breakpoints: checkBreakpoints(file, bps).statuses };
    });

    serve('setExceptionBreaks', (p) => {
      const { taskFailed, taskCancelled } = p;
      // `urlFailed`: stop where the crawler records a URL as failed.
      const urlFailed = p.urlFailed ?? false;
      // `deadlock`: stop when live tasks wait for what nothing can give them (deadlock-stop.ts).
      const deadlock = p.deadlock ?? false;
      this.exceptionBreaks = { taskFailed, taskCancelled, urlFailed, deadlock };
      this.run?.controller.setExceptionBreaks(taskFailed, taskCancelled);
      if (this.run !== null) {
        this.run.breakOnUrlFailed = urlFailed;
        this.run.setBreakOnDeadlock(deadlock);
      }
      this.tracer.captureCancellations = taskCancelled;
      return {};
    });

    // The inspection requests answer for the moment the views show: the present, or a past tick (seekTick).
    // A past tick whose replay is under way: the table and a stack by function names come from the log at
    // once; what needs the replayed program waits for it.
    serve('snapshot', (p) => {
      const run = this.requireRun('snapshot');
      return run.past.momentNow()?.snapshot() ?? run.snapshot(p.since);
    });

    serve('taskDetail', (p) => {
      const run = this.requireRun('taskDetail');
      const locals = (p.locals ?? true) && run.inspect;
      const now = run.past.momentNow();
      // A past moment knows no creation sites: the run's (the same at every moment), so each view of the task
      // says the same.
      const sited = (d: TaskDetail): TaskDetail =>
        d.createdAt !== null ? d : { ...d, createdAt: run.creationSiteById(d.task.id) };
      if (now instanceof RecordedMoment && (!locals || p.fromLogMeanwhile === true))
        return sited(now.taskDetail(p.taskId));
      return run.withReplayed('taskDetail', (m) => sited(m.taskDetail(p.taskId, locals)));
    });

    serve('variables', (p) =>
      this.requireRun('variables').withReplayed('variables', (m) => ({ variables: m.variables.children(p.handle) })),
    );

    serve('graph', () => this.requireRun('graph').withReplayed('graph', (m) => m.graph()));

    serve('traces', async (p) => this.traces(p.url));

    serve('lints', () => {
      const run = this.requireRun('lints');
      const past = run.past.momentNow();
      if (past !== null) return { lints: past.lints() };
      if (!run.loop.isClosed()) {
        run.lints.sweep();
        run.lints.checkWakeups();
        run.lints.checkDeadlocks(true);
      }
      return { lints: run.lints.lints() };
    });

    serve('evaluate', (p) =>
      this.requireRun('evaluate').withReplayed('evaluate', (run) => {
        const { expression, taskId, frameIndex } = p;
        if (taskId === undefined) {
          const live = run.liveTasks();
          const bindings: Array<readonly [string, unknown]> = [
            ['loop', run.loop],
            ['tasks', live],
            ['task', (id: number) => live.find((t) => t.id === id)],
            ['crawler', run.crawler],
          ];
          return run.variables.evaluate(expression, bindings, undefined, null);
        }
        const task = run.liveTask(taskId, 'evaluate');
        const sink = run.variables.newGroup();
        const frames = taskFrames(task, { locals: true, handles: sink });
        if (frames.length === 0)
          throw new ProtocolError(
            `evaluate: task #${taskId} has no frames to evaluate in (inspection off, or not started)`,
          );
        const index = frameIndex ?? frames.length - 1;
        const frame = frames[index];
        if (frame === undefined)
          throw new ProtocolError(`evaluate: task #${taskId} has frames 0..${frames.length - 1}, not ${index}`);
        const bindings: Array<readonly [string, unknown]> = [];
        let self: unknown = undefined;
        const cut: string[] = [];
        for (const l of frame.locals ?? []) {
          if (l.value.type === 'uninitialized') {
            bindings.push([l.name, IN_DEAD_ZONE]);
            continue;
          }
          const v = run.variables.valueOfLocal(l);
          if (v.cut) cut.push(l.name);
          if (l.name === 'this') self = v.value;
          else bindings.push([l.name, v.value]);
        }
        const note =
          cut.length > 0 && cut.some((n) => new RegExp(`\\b${n.replace(/\$/g, '\\$')}\\b`).test(expression))
            ? `${cut.join(', ')} passed as cut previews`
            : null;
        return run.variables.evaluate(expression, bindings, self, note);
      }),
    );

    serve('cancelTask', (p) => {
      const run = this.requireActiveRun('cancelTask');
      const task = this.requireTask('cancelTask', p, run);
      try {
        return { cancelled: cancelTaskAs(task, p.by, p.message ?? `cancelled by the ${p.by}`) };
      } catch (err) {
        throw new ProtocolError(
          `cancelTask: cancelling task #${task.id} failed: ${err instanceof Error ? err.message : String(err)}`,
          'cancelFailed',
        );
      }
    });

    serve('stop', async (p) => {
      await this.stopRun(p.by);
      return {};
    });

    serve('shutdown', async () => {
      await this.stopRun().catch(() => undefined);
      await this.run?.release();
      setImmediate(() => this.onShutdown());
      return {};
    });
  }

  /** openRecording: the recording becomes the current run (finished, seekable), shown at its last tick. */
  private async openRecorded(
    path: string,
    midTick: boolean,
    unshown = false,
    live = false,
  ): Promise<HostMethods['openRecording']['result']> {
    const opened = openRecording(path, midTick);
    // A line replay host given the same live run's recording again (followed, at a stop, at its end): its run
    // grows, its checkpoints kept.
    const current = this.run;
    if ((midTick || unshown) && current !== null && current.replayHost.growOpened(opened, live))
      return { ...opened.info, runId: current.id };
    await this.stopRun();
    await this.run?.release();
    // An opened recording is always inspected, and its replays (checkpoints start at once) record frames as
    // it did: tracking goes on first.
    this.setInspection(true);
    const run = await Run.opened(this.nextRunId++, path, opened, this.services, live);
    this.run = run;
    // A mid-tick recording (a line replay's) is walked line by line, a replay host's copy searched: neither is
    // shown at a tick.
    if (opened.info.ticks > 0 && !midTick && !unshown) await run.past.seekTick(null);
    return { ...opened.info, runId: run.id };
  }

  private async launch(target: LaunchTarget, options: LaunchOptions): Promise<HostMethods['launch']['result']> {
    await this.stopRun();
    await this.run?.release();
    const inspect = options.inspect ?? true;
    this.setInspection(inspect);
    const run = new Run(this.nextRunId++, target, options, this.services);
    if (
      this.exceptionBreaks !== null &&
      options.breakOnTaskFailed === undefined &&
      options.breakOnTaskCancelled === undefined
    ) {
      run.controller.setExceptionBreaks(this.exceptionBreaks.taskFailed, this.exceptionBreaks.taskCancelled);
    }
    run.breakOnUrlFailed = this.exceptionBreaks?.urlFailed ?? false;
    run.setBreakOnDeadlock(this.exceptionBreaks?.deadlock ?? false);
    for (const [file, bps] of this.breakpoints) run.controller.setBreakpoints(file, bps);
    this.run = run;
    try {
      await run.start(options);
    } catch (e) {
      await run.abort();
      if (e instanceof ProtocolError) throw e;
      throw new ProtocolError(`launch: ${e instanceof Error ? e.message : String(e)}`, 'launchFailed');
    }
    const result: HostMethods['launch']['result'] = { runId: run.id, heldAtEntry: run.heldAtEntry };
    if (run.siteUrl !== undefined) result.siteUrl = run.siteUrl;
    if (run.recording.unrecorded !== null) result.notRecorded = run.recording.unrecorded;
    return result;
  }

  /**
   * The coroutine traceback beside the callback trace of one failure. Of `url` when given;
   * else of the current crawl run's own failure (its /broken/ page, or its first failed URL,
   * with the error this run raised there), an error while it has none; a demonstration on a
   * demo site of its own only when no crawl run exists.
   */
  private async traces(url: string | undefined): Promise<TracePair> {
    const run = this.run;
    if (url === undefined && run !== null && run.crawler !== null) {
      const errors = run.crawler.errors;
      const failure = errors.find((x) => new URL(x.url).pathname === SITE_PATHS.broken) ?? errors[0];
      if (failure === undefined) {
        throw new ProtocolError(
          `traces: no URL has failed in run ${run.id} yet (${run.crawler.progress().done} fetched); the pair of traces comes once one does`,
          'noFailure',
        );
      }
      try {
        return { ...(await tracePair(failure.url, { coroutineError: failure.error })), runId: run.id };
      } catch (e) {
        throw new ProtocolError(`traces: ${e instanceof Error ? e.message : String(e)}`, 'traceFailed');
      }
    }
    let base = url;
    let temp: DemoSite | null = null;
    if (base === undefined) {
      temp = await startDemoSite({});
      base = temp.url;
    }
    try {
      let page: string;
      try {
        page = failingPageOf(base);
      } catch {
        throw new ProtocolError(`traces: ${JSON.stringify(base)} is not a URL`);
      }
      const known = run?.crawler?.errors.find((x) => x.url === page)?.error;
      try {
        return await tracePair(page, known === undefined ? {} : { coroutineError: known });
      } catch (e) {
        throw new ProtocolError(`traces: ${e instanceof Error ? e.message : String(e)}`, 'traceFailed');
      }
    } finally {
      await temp?.close();
    }
  }
}
