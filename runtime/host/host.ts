// RuntimeHost: serves protocol/host-protocol.ts over an RpcEndpoint. It holds the current Run
// (one launch at a time: a new launch stops the previous run first), the breakpoints and
// exception breaks (kept across runs), and the inspector's process-wide parts: the
// coroutine tracking hooks hub and the exception tracer (await-throw hook).
//
// One extension beyond protocol/host-protocol.ts's params, asked for by the debug adapter:
// setExceptionBreaks accepts `urlFailed` (stop where the crawler records a URL as failed).
//
// Every request's params are narrowed here (params.ts) and a bad one is answered with a
// ProtocolError naming what was wrong; a request that needs a run when there is none, or a
// paused loop when it runs, is answered with a ProtocolError too (codes: badRequest,
// noRun, notPaused, unknownTask, taskFinished, ...).
//
// Invariants: requests are answered in any state (a paused loop answers every query); the
// host never blocks its own event loop for longer than one request's work; shutdown answers
// before the process exits.

import { crawlOptionProblem } from '../../protocol/crawl-option-bounds';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PROTOCOL_VERSION,
  type Breakpoint,
  type HostEvents,
  type HostMethods,
  type LaunchOptions,
  type LaunchTarget,
  type TracePair,
} from '../../protocol/host-protocol';
import { ProtocolError, type RpcEndpoint } from '../../protocol/rpc';
import type { Task } from '../task';
import { SITE_PATHS, isDemoLatency, startDemoSite, type DemoSite } from '../demo-site/index';
import { CoroutineHooksHub } from '../inspect/coroutine-hooks';
import { ExceptionTracer, failingPageOf, tracePair } from '../inspect/traces';
import { LoopControlError, checkBreakpoints } from '../inspect/loop-control';
import { taskFrames } from '../inspect/task-snapshot';
import { Run, type RunServices } from './run';
import { openRecording, saveRecording } from './recordings';
import { compareApproaches, listSamples } from '../samples/index';
import {
  nested,
  optionalBoolean,
  optionalNumber,
  optionalString,
  paramsOf,
  requireArray,
  requireBoolean,
  requireNumber,
  requireObject,
  requireString,
  requireStringArray,
  type Params,
} from './params';

/** Bounds of a `compare` request: 1,000 pages is the large case; beyond, a request would hold the host for minutes. */
const MAX_COMPARE_PAGES = 2000;
const MAX_COMPARE_LATENCY_MS = 5000;

export type HostEndpoint = RpcEndpoint<Record<string, never>, HostMethods, Record<string, never>, HostEvents>;

function hostVersion(): string {
  for (const candidate of [join(__dirname, '..', '..', 'package.json'), join(__dirname, '..', 'package.json')]) {
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

function parseTarget(p: Params): LaunchTarget {
  const t = requireObject('launch', p, 'target');
  const where = nested('launch', 'target');
  const kind = requireString(where, t, 'kind');
  switch (kind) {
    case 'crawl': {
      const urls = requireStringArray(where, t, 'urls');
      if (urls.length === 0) throw new ProtocolError('launch: target.urls must name at least one URL');
      return { kind, urls };
    }
    case 'demo': {
      const pages = optionalNumber(where, t, 'pages', 'integer');
      const problem = pages === undefined ? null : crawlOptionProblem('demoPages', pages, 'launch: target.pages');
      if (problem !== null) throw new ProtocolError(problem);
      const latency = optionalString(where, t, 'latency');
      if (latency !== undefined && !isDemoLatency(latency)) throw new ProtocolError(`launch: target.latency must be 'realistic' or 'instant', got ${JSON.stringify(latency)}`);
      const target: LaunchTarget = { kind };
      if (pages !== undefined) target.pages = pages;
      if (latency !== undefined) target.latency = latency;
      return target;
    }
    case 'sample':
      return { kind, id: requireString(where, t, 'id') };
    case 'program': {
      const path = requireString(where, t, 'path');
      const exportName = optionalString(where, t, 'exportName');
      return exportName === undefined ? { kind, path } : { kind, path, exportName };
    }
    default:
      throw new ProtocolError(`launch: target.kind must be 'crawl', 'demo', 'sample' or 'program', got ${JSON.stringify(kind)}`);
  }
}

function parseOptions(p: Params): LaunchOptions {
  if (p.options === undefined) return {};
  const o = requireObject('launch', p, 'options');
  const where = nested('launch', 'options');
  const out: LaunchOptions = {};
  for (const key of ['maxTasks', 'maxRedirect', 'maxTries'] as const) {
    const v = optionalNumber(where, o, key, 'integer');
    if (v !== undefined) {
      // The documented bounds: 1e30 workers would exhaust memory before the crawl began.
      const problem = crawlOptionProblem(key, v, `launch: options.${key}`);
      if (problem !== null) throw new ProtocolError(problem);
      out[key] = v;
    }
  }
  if (o.exclude !== undefined && o.exclude !== null) {
    const ex = requireString(where, o, 'exclude');
    try {
      new RegExp(ex);
    } catch (e) {
      throw new ProtocolError(`launch: options.exclude is not a regular expression: ${e instanceof Error ? e.message : String(e)}`);
    }
    out.exclude = ex;
  }
  for (const key of ['strict', 'robots', 'inspect', 'stopOnEntry', 'breakOnTaskFailed', 'breakOnTaskCancelled', 'record'] as const) {
    const v = optionalBoolean(where, o, key);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function parseBreakpoints(p: Params): Breakpoint[] {
  return requireArray('setBreakpoints', p, 'breakpoints').map((raw, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ProtocolError(`setBreakpoints: params.breakpoints[${i}] must be an object`);
    const b = raw as Params;
    const where = nested('setBreakpoints', `breakpoints[${i}]`);
    const line = requireNumber(where, b, 'line', 'integer');
    const bp: Breakpoint = { file: optionalString(where, b, 'file') ?? '', line };
    const condition = optionalString(where, b, 'condition');
    const hitCondition = optionalString(where, b, 'hitCondition');
    if (condition !== undefined) bp.condition = condition;
    if (hitCondition !== undefined) bp.hitCondition = hitCondition;
    return bp;
  });
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
  private readonly breakpoints = new Map<string, Breakpoint[]>();
  private exceptionBreaks: { taskFailed: boolean; taskCancelled: boolean; urlFailed: boolean } | null = null;
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
    this.hub.onError = (e) => this.log(`coroutine tracking hook failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
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

  private requireTask(method: string, p: Params, run: Run): Task<unknown> {
    return run.liveTask(requireNumber(method, p, 'taskId', 'id'), method);
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
  async stopRun(): Promise<void> {
    const run = this.run;
    if (run !== null && !run.finished) await run.stop();
  }

  private serve(): void {
    const e = this.endpoint;
    e.handle('hello', (raw) => {
      const p = paramsOf('hello', raw);
      requireString('hello', p, 'client');
      const v = requireNumber('hello', p, 'protocolVersion', 'integer');
      if (v !== PROTOCOL_VERSION) throw new ProtocolError(`hello: this host speaks protocol version ${PROTOCOL_VERSION}, the client ${v}`, 'versionMismatch');
      return { protocolVersion: PROTOCOL_VERSION, hostVersion: hostVersion(), pid: process.pid };
    });

    e.handle('samples', () => ({ samples: listSamples() }));
    e.handle('saveRecording', (params) => saveRecording(this.requireRun('saveRecording'), requireString('saveRecording', paramsOf('saveRecording', params), 'path')));
    e.handle('openRecording', (params) => openRecording(requireString('openRecording', paramsOf('openRecording', params), 'path')));

    e.handle('compare', async (raw) => {
      const p = paramsOf('compare', raw);
      const pages = requireNumber('compare', p, 'pages', 'integer');
      const latencyMs = requireNumber('compare', p, 'latencyMs');
      if (pages < 1 || pages > MAX_COMPARE_PAGES) throw new ProtocolError(`compare: params.pages must be 1..${MAX_COMPARE_PAGES}, got ${pages}`, 'badRequest');
      if (latencyMs < 0 || latencyMs > MAX_COMPARE_LATENCY_MS) throw new ProtocolError(`compare: params.latencyMs must be 0..${MAX_COMPARE_LATENCY_MS}, got ${latencyMs}`, 'badRequest');
      const rows = await compareApproaches({ pages, latencyMs });
      return { rows: rows.map((r) => ({ ...r })) };
    });

    e.handle('launch', (raw) => {
      const p = paramsOf('launch', raw);
      const target = parseTarget(p);
      const options = parseOptions(p);
      // Launches are serialised: the second waits for the first to be up (and then stops it).
      const job = this.launching.then(() => this.launch(target, options));
      this.launching = job.catch(() => undefined);
      return job;
    });

    e.handle('pause', () => control(() => ({ tick: this.requireActiveRun('pause').controller.pause() })));
    e.handle('continue', () =>
      control(() => {
        const run = this.requireActiveRun('continue');
        run.releaseEntry();
        return { tick: run.controller.continue() };
      }),
    );
    e.handle('stepTick', () =>
      control(async () => {
        const run = this.requireActiveRun('stepTick');
        if (!run.controller.isPaused()) throw new ProtocolError('stepTick: the loop is running: pause first', 'notPaused');
        run.releaseEntry();
        return { tick: await run.controller.stepTick() };
      }),
    );
    e.handle('stepTask', (raw) =>
      control(async () => {
        const run = this.requireActiveRun('stepTask');
        const task = this.requireTask('stepTask', paramsOf('stepTask', raw), run);
        return { tick: await run.controller.stepTask(task) };
      }),
    );
    e.handle('stepOut', (raw) =>
      control(async () => {
        const run = this.requireActiveRun('stepOut');
        const p = paramsOf('stepOut', raw);
        const task = this.requireTask('stepOut', p, run);
        return { tick: await run.controller.stepOut(task, requireNumber('stepOut', p, 'depth', 'id')) };
      }),
    );

    e.handle('setBreakpoints', (raw) => {
      const p = paramsOf('setBreakpoints', raw);
      const file = requireString('setBreakpoints', p, 'file');
      const bps = parseBreakpoints(p).map((b) => ({ ...b, file }));
      this.breakpoints.set(file, bps);
      const run = this.run;
      if (run !== null && !run.finished) return { breakpoints: run.controller.setBreakpoints(file, bps) };
      // No run: verify against the file now; they apply to the next launch.
      return { breakpoints: checkBreakpoints(file, bps).statuses };
    });

    e.handle('setExceptionBreaks', (raw) => {
      const p = paramsOf('setExceptionBreaks', raw);
      const taskFailed = requireBoolean('setExceptionBreaks', p, 'taskFailed');
      const taskCancelled = requireBoolean('setExceptionBreaks', p, 'taskCancelled');
      // Beyond the protocol's params: `urlFailed`, stop where the crawler records a URL as failed.
      const urlFailed = optionalBoolean('setExceptionBreaks', p, 'urlFailed') ?? false;
      this.exceptionBreaks = { taskFailed, taskCancelled, urlFailed };
      this.run?.controller.setExceptionBreaks(taskFailed, taskCancelled);
      if (this.run !== null) this.run.breakOnUrlFailed = urlFailed;
      this.tracer.captureCancellations = taskCancelled;
      return {};
    });

    e.handle('snapshot', (raw) => {
      const p = paramsOf('snapshot', raw);
      const since = optionalNumber('snapshot', p, 'since', 'id');
      return this.requireRun('snapshot').snapshot(since);
    });

    e.handle('taskDetail', (raw) => {
      const p = paramsOf('taskDetail', raw);
      const run = this.requireRun('taskDetail');
      const taskId = requireNumber('taskDetail', p, 'taskId', 'id');
      const locals = optionalBoolean('taskDetail', p, 'locals') ?? true;
      return run.taskDetail(taskId, locals && run.inspect);
    });

    e.handle('variables', (raw) => {
      const p = paramsOf('variables', raw);
      const handle = requireNumber('variables', p, 'handle', 'id');
      if (handle === 0) throw new ProtocolError('variables: handle 0 has no children');
      return { variables: this.requireRun('variables').variables.children(handle) };
    });

    e.handle('graph', () => this.requireRun('graph').graph());

    e.handle('traces', async (raw) => {
      const p = paramsOf('traces', raw);
      return this.traces(optionalString('traces', p, 'url'));
    });

    e.handle('lints', () => {
      const run = this.requireRun('lints');
      if (!run.loop.isClosed()) {
        run.lints.sweep();
        run.lints.checkWakeups();
        run.lints.checkDeadlocks(true);
      }
      return { lints: run.lints.lints() };
    });

    e.handle('evaluate', (raw) => {
      const p = paramsOf('evaluate', raw);
      const expression = requireString('evaluate', p, 'expression');
      if (expression.trim() === '') throw new ProtocolError('evaluate: the expression is empty');
      const taskId = optionalNumber('evaluate', p, 'taskId', 'id');
      const frameIndex = optionalNumber('evaluate', p, 'frameIndex', 'id');
      const run = this.requireRun('evaluate');
      if (taskId === undefined) {
        if (frameIndex !== undefined) throw new ProtocolError('evaluate: frameIndex needs a taskId');
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
      if (frames.length === 0) throw new ProtocolError(`evaluate: task #${taskId} has no frames to evaluate in (inspection off, or not started)`);
      const index = frameIndex ?? frames.length - 1;
      const frame = frames[index];
      if (frame === undefined) throw new ProtocolError(`evaluate: task #${taskId} has frames 0..${frames.length - 1}, not ${index}`);
      const bindings: Array<readonly [string, unknown]> = [];
      let self: unknown = undefined;
      const cut: string[] = [];
      for (const l of frame.locals ?? []) {
        const v = run.variables.valueOfLocal(l);
        if (v.cut) cut.push(l.name);
        if (l.name === 'this') self = v.value;
        else bindings.push([l.name, v.value]);
      }
      const note = cut.length > 0 && cut.some((n) => new RegExp(`\\b${n.replace(/\$/g, '\\$')}\\b`).test(expression)) ? `${cut.join(', ')} passed as cut previews` : null;
      return run.variables.evaluate(expression, bindings, self, note);
    });

    e.handle('cancelTask', (raw) => {
      const p = paramsOf('cancelTask', raw);
      const run = this.requireActiveRun('cancelTask');
      const task = this.requireTask('cancelTask', p, run);
      const message = optionalString('cancelTask', p, 'message');
      try {
        return { cancelled: task.cancel(message ?? 'cancelled by the client') };
      } catch (err) {
        throw new ProtocolError(`cancelTask: cancelling task #${task.id} failed: ${err instanceof Error ? err.message : String(err)}`, 'cancelFailed');
      }
    });

    e.handle('stop', async () => {
      await this.stopRun();
      return {};
    });

    e.handle('shutdown', async () => {
      await this.stopRun().catch(() => undefined);
      await this.run?.release();
      setImmediate(() => this.onShutdown());
      return {};
    });
  }

  private async launch(target: LaunchTarget, options: LaunchOptions): Promise<HostMethods['launch']['result']> {
    await this.stopRun();
    await this.run?.release();
    const inspect = options.inspect ?? true;
    this.setInspection(inspect);
    const run = new Run(this.nextRunId++, target, options, this.services);
    if (this.exceptionBreaks !== null && options.breakOnTaskFailed === undefined && options.breakOnTaskCancelled === undefined) {
      run.controller.setExceptionBreaks(this.exceptionBreaks.taskFailed, this.exceptionBreaks.taskCancelled);
    }
    run.breakOnUrlFailed = this.exceptionBreaks?.urlFailed ?? false;
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
        throw new ProtocolError(`traces: no URL has failed in run ${run.id} yet (${run.crawler.progress().done} fetched); the pair of traces comes once one does`, 'noFailure');
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
