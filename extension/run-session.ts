// RunSession: the extension's view of the current run in the runtime host. It launches
// targets through the HostManager, listens to the host's events, pulls snapshot deltas at
// the configured rate into a SnapshotMirror, keeps the run's status, its progress history,
// exceptions and lints, and tells its listeners (panel, status bar, decorations, progress
// notification, context keys) about each change. No `vscode` import: tested as it is.
//
// Invariants:
// - One poll in flight at a time; polling runs while a run is live (faster while running,
//   slower while paused) and stops after the finished run's last snapshot.
// - A host that dies turns the status into 'hostDied' with its last lines; every request
//   in flight has failed by then (the endpoint closed), so no caller waits forever.
// - Events of a run being replaced (between a launch request and its answer) are ignored;
//   only a pause that arrives then is kept and applied once the launch answers.

import type { CrawledPage, CrawlProgress, HostEvents, HostMethods, LaunchOptions, LaunchTarget, Lint, Snapshot } from '../protocol/host-protocol';
import { SnapshotMirror, type MirrorChange } from '../protocol/snapshot-mirror';
import type { Comparison, ExceptionEntry, ProgressPoint, RunStatus } from '../protocol/webview-protocol';
import type { HostEndpoint, HostProcess } from './host-client/host-process';
import type { HostManager } from './host-manager';

const MAX_EXCEPTIONS = 200;
const MAX_LINTS = 500;
const MAX_POINTS = 600;
const MAX_PAGES = 500;
const PAUSED_POLL_MS = 1000;

type Listener<T> = (value: T) => void;

class Emitter<T> {
  private list: Array<Listener<T>> = [];
  on(l: Listener<T>): () => void {
    this.list.push(l);
    return () => {
      this.list = this.list.filter((x) => x !== l);
    };
  }
  fire(v: T): void {
    for (const l of this.list.slice()) {
      try {
        l(v);
      } catch {
        // One listener's failure must not starve the others.
      }
    }
  }
}

export interface RunSessionOptions {
  /** Snapshots per second while the loop runs. */
  snapshotRate(): number;
}

/** A one-line description of a launch target, for titles. */
export function describeTarget(target: LaunchTarget, siteUrl?: string): string {
  switch (target.kind) {
    case 'crawl':
      return `Crawl of ${target.urls.join(', ')}`;
    case 'demo':
      return `Crawl of the demo site${siteUrl !== undefined ? ` (${siteUrl})` : ''}`;
    case 'sample':
      return `Sample ${target.id}`;
    case 'program':
      return `Program ${target.path}${target.exportName !== undefined ? `#${target.exportName}` : ''}`;
  }
}

export class RunSession {
  readonly mirror = new SnapshotMirror();
  status: RunStatus = { phase: 'idle', runId: null, title: 'No run', detail: 'Run a crawl or a sample to inspect it.', tick: 0 };
  readonly progressPoints: ProgressPoint[] = [];
  readonly exceptions: ExceptionEntry[] = [];
  readonly lints: Lint[] = [];
  readonly pages: CrawledPage[] = [];
  lastProgress: CrawlProgress | null = null;
  target: LaunchTarget | null = null;

  readonly onStatus = new Emitter<RunStatus>();
  readonly onReset = new Emitter<RunStatus>();
  readonly onSnapshot = new Emitter<{ snapshot: Snapshot; change: MirrorChange }>();
  /** `point` is null when the report adds nothing to the chart. */
  readonly onProgress = new Emitter<{ point: ProgressPoint | null; progress: CrawlProgress }>();
  readonly onException = new Emitter<ExceptionEntry>();
  readonly onLint = new Emitter<Lint>();
  readonly onOutput = new Emitter<HostEvents['output']>();
  readonly onFinished = new Emitter<HostEvents['finished']>();
  /** The latest comparison of approaches; it outlives runs (a new launch keeps it). */
  comparison: Comparison | null = null;
  readonly onComparison = new Emitter<Comparison>();
  /** The paused loop was stepped (a tick or a task) on the learner's request; `target` is what runs. */
  readonly onStepped = new Emitter<{ target: LaunchTarget | null; tick: number }>();

  private host: HostProcess | null = null;
  private unbind: Array<() => void> = [];
  private pollTimer: NodeJS.Timeout | null = null;
  private polling = false;
  private pollAgain = false;
  private pendingPause: HostEvents['paused'] | null = null;
  private finishedRun: number | null = null;
  private launchSeq = 0;

  constructor(
    private readonly manager: HostManager,
    private readonly options: RunSessionOptions,
  ) {
    manager.onDidStart((host) => this.bind(host));
    manager.onDidExit(({ exit, host }) => {
      if (host !== this.host) return;
      this.unbindHost();
      this.stopPolling();
      if (exit.expected) {
        if (this.status.phase !== 'idle') this.setStatus({ ...this.status, phase: this.status.phase === 'finished' ? 'finished' : 'idle', detail: this.status.phase === 'finished' ? this.status.detail : 'Stopped.' });
      } else {
        const how = exit.signal !== null ? `was killed (${exit.signal})` : `exited with code ${exit.code}`;
        this.setStatus({ ...this.status, phase: 'hostDied', detail: `The runtime host ${how}.`, lastLines: exit.lastLines.slice(-20) });
      }
    });
    const live = manager.current();
    if (live !== null) this.bind(live);
  }

  /** True while a run is live (running or paused). */
  isActive(): boolean {
    return this.status.phase === 'running' || this.status.phase === 'paused' || this.status.phase === 'starting';
  }

  /** The live host's endpoint; throws when no host runs (does not start one). */
  endpoint(): HostEndpoint {
    const h = this.host;
    if (h === null || !h.isAlive()) throw new Error('The Coroscope runtime host is not running: run a crawl or a sample first.');
    return h.endpoint;
  }

  /** Calls a host method on the live host. */
  request<M extends keyof HostMethods & string>(method: M, params: HostMethods[M]['params']): Promise<HostMethods[M]['result']> {
    try {
      return this.endpoint().request(method, params);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  // --- launching ----------------------------------------------------------------------------

  async launch(target: LaunchTarget, options: LaunchOptions): Promise<{ runId: number; siteUrl?: string }> {
    const seq = ++this.launchSeq;
    this.stopPolling();
    this.target = target;
    this.mirror.clear();
    this.progressPoints.length = 0;
    this.exceptions.length = 0;
    this.lints.length = 0;
    this.pages.length = 0;
    this.lastProgress = null;
    this.pendingPause = null;
    this.finishedRun = null;
    const starting: RunStatus = { phase: 'starting', runId: null, title: describeTarget(target), detail: 'Starting…', tick: 0 };
    this.status = starting;
    this.onReset.fire(starting);
    this.onStatus.fire(starting);
    let result: HostMethods['launch']['result'];
    try {
      const host = await this.manager.ensure();
      if (this.host !== host) this.bind(host);
      result = await host.endpoint.request('launch', { target, options });
    } catch (e) {
      if (seq === this.launchSeq && this.status.phase === 'starting') {
        this.setStatus({ phase: 'idle', runId: null, title: describeTarget(target), detail: `Launch failed: ${e instanceof Error ? e.message : String(e)}`, tick: 0 });
      }
      throw e;
    }
    if (seq !== this.launchSeq) return result;
    const pause = this.pendingPause;
    this.pendingPause = null;
    const base: RunStatus = { phase: 'running', runId: result.runId, title: describeTarget(target, result.siteUrl), detail: 'Running', tick: 0 };
    if (this.finishedRun === result.runId) return result; // finished already (the status says so)
    if (pause !== null) this.applyPause(pause, base);
    else if (this.status.phase === 'starting') this.setStatus(base);
    this.schedulePoll(0);
    return result;
  }

  /**
   * Asks the host to compare the approaches on `pages` pages (each response `latencyMs` late),
   * firing onComparison when it starts and when it ends. Runs beside any run; a second
   * request while one is under way is refused (the measurements would disturb each other).
   */
  async compare(pages: number, latencyMs: number): Promise<Comparison> {
    if (this.comparison?.state === 'running') throw new Error('a comparison is already running');
    const set = (c: Comparison): Comparison => {
      this.comparison = c;
      this.onComparison.fire(c);
      return c;
    };
    set({ pages, latencyMs, state: 'running', rows: [] });
    try {
      const host = await this.manager.ensure();
      if (this.host !== host) this.bind(host);
      const { rows } = await host.endpoint.request('compare', { pages, latencyMs });
      return set({ pages, latencyMs, state: 'done', rows });
    } catch (e) {
      return set({ pages, latencyMs, state: 'failed', rows: [], error: e instanceof Error ? e.message : String(e) });
    }
  }

  pause(): Promise<{ tick: number }> {
    return this.control('pause', {});
  }
  continue(): Promise<{ tick: number }> {
    return this.control('continue', {});
  }
  stepTick(): Promise<{ tick: number }> {
    return this.control('stepTick', {});
  }
  stepTask(taskId: number): Promise<{ tick: number }> {
    return this.control('stepTask', { taskId });
  }

  async cancelTask(taskId: number): Promise<boolean> {
    const r = await this.request('cancelTask', { taskId });
    this.schedulePoll(0);
    return r.cancelled;
  }

  /** Ends the current run; the host stays up. */
  async stopRun(): Promise<void> {
    if (this.host === null || !this.host.isAlive()) return;
    await this.request('stop', {});
    this.schedulePoll(0);
  }

  private async control<M extends 'pause' | 'continue' | 'stepTick' | 'stepTask'>(method: M, params: HostMethods[M]['params']): Promise<{ tick: number }> {
    const r = (await this.request(method, params)) as { tick: number };
    if (method === 'continue' && this.status.phase === 'paused') this.setStatus({ ...this.status, phase: 'running', detail: 'Running', tick: r.tick, pauseReason: undefined, pausedTaskId: undefined });
    this.schedulePoll(0);
    if (method === 'stepTick' || method === 'stepTask') this.onStepped.fire({ target: this.target, tick: r.tick });
    return r;
  }

  dispose(): void {
    this.stopPolling();
    this.unbindHost();
  }

  // --- host events --------------------------------------------------------------------------

  private bind(host: HostProcess): void {
    if (this.host === host) return;
    this.unbindHost();
    this.host = host;
    const ep = host.endpoint;
    this.unbind.push(
      ep.on('paused', (b) => {
        if (this.status.phase === 'starting') {
          this.pendingPause = b;
          return;
        }
        if (this.status.phase === 'running' || this.status.phase === 'paused') this.applyPause(b, this.status);
        this.schedulePoll(0);
      }),
      ep.on('continued', (b) => {
        if (this.status.phase === 'paused') this.setStatus({ ...this.status, phase: 'running', detail: 'Running', tick: typeof b.tick === 'number' ? b.tick : this.status.tick, pauseReason: undefined, pausedTaskId: undefined });
        this.schedulePoll(0);
      }),
      ep.on('progress', (p) => {
        if (this.status.phase === 'starting') return;
        this.addProgress(p);
      }),
      ep.on('exception', (b) => {
        if (this.status.phase === 'starting' || typeof b !== 'object' || b === null || typeof b.taskId !== 'number') return;
        const entry: ExceptionEntry = { taskId: b.taskId, traceback: b.traceback };
        this.exceptions.push(entry);
        if (this.exceptions.length > MAX_EXCEPTIONS) this.exceptions.shift();
        this.onException.fire(entry);
      }),
      ep.on('lint', (b) => {
        if (this.status.phase === 'starting' || typeof b !== 'object' || b === null) return;
        this.lints.push(b.lint);
        if (this.lints.length > MAX_LINTS) this.lints.shift();
        this.onLint.fire(b.lint);
      }),
      ep.on('output', (b) => {
        if (typeof b === 'object' && b !== null && typeof b.text === 'string') this.onOutput.fire(b);
      }),
      ep.on('finished', (b) => {
        if (typeof b !== 'object' || b === null) return;
        if (this.status.phase === 'starting') {
          // The previous run ending as the new one launches, or the new one ending before the launch answered.
          this.finishedRun = b.runId;
          return;
        }
        if (b.runId !== this.status.runId) return;
        this.finishedRun = b.runId;
        this.setStatus({ ...this.status, phase: 'finished', detail: b.error !== undefined ? `${b.summary} (${b.error})` : b.summary, pauseReason: undefined, pausedTaskId: undefined });
        this.onFinished.fire(b);
        this.schedulePoll(0);
      }),
    );
  }

  private unbindHost(): void {
    for (const u of this.unbind) u();
    this.unbind = [];
    this.host = null;
  }

  private applyPause(b: HostEvents['paused'], base: RunStatus): void {
    const s: RunStatus = { ...base, phase: 'paused', detail: b.description, tick: b.tick, pauseReason: b.reason };
    if (typeof b.taskId === 'number') s.pausedTaskId = b.taskId;
    else delete s.pausedTaskId;
    this.setStatus(s);
  }

  private addProgress(p: CrawlProgress): void {
    const prev = this.progressPoints[this.progressPoints.length - 1];
    let rate = p.rate;
    if (prev !== undefined && p.seconds > prev.t) rate = (p.done - prev.done) / (p.seconds - prev.t);
    const point: ProgressPoint = { t: p.seconds, done: p.done, rate: Math.max(0, rate), queued: p.queued, inFlight: p.inFlight };
    // The chart's points go forward in time and each says something new (a report repeated
    // after the run ended, with a clock of its own, would draw a false line).
    const accepted = prev === undefined || (p.seconds > prev.t && (p.done !== prev.done || p.queued !== prev.queued || p.inFlight !== prev.inFlight));
    if (accepted) {
      this.progressPoints.push(point);
      if (this.progressPoints.length > MAX_POINTS) this.progressPoints.shift();
    }
    this.lastProgress = p;
    if (Array.isArray(p.recent)) {
      for (const page of p.recent) this.pages.push(page);
      if (this.pages.length > MAX_PAGES) this.pages.splice(0, this.pages.length - MAX_PAGES);
    }
    this.onProgress.fire({ point: accepted ? point : null, progress: p });
  }

  private setStatus(s: RunStatus): void {
    this.status = s;
    this.onStatus.fire(s);
  }

  // --- polling ------------------------------------------------------------------------------

  private stopPolling(): void {
    if (this.pollTimer !== null) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  /** Polls after `ms` (sooner if one is already due sooner). */
  schedulePoll(ms: number): void {
    if (this.polling) {
      if (ms === 0) this.pollAgain = true;
      return;
    }
    if (this.pollTimer !== null) {
      if (ms > 0) return;
      clearTimeout(this.pollTimer);
    }
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.poll();
    }, ms);
  }

  private async poll(): Promise<void> {
    const host = this.host;
    if (host === null || !host.isAlive() || this.status.runId === null) return;
    this.polling = true;
    this.pollAgain = false;
    const runId = this.status.runId;
    try {
      const since = this.mirror.version >= 0 ? this.mirror.version : undefined;
      const snap = await host.endpoint.request('snapshot', since === undefined ? {} : { since });
      if (runId !== this.status.runId || host !== this.host) return;
      const change = this.mirror.apply(snap);
      if (snap.progress !== null && this.lastProgress === null) this.lastProgress = snap.progress;
      if (this.status.phase === 'running' && snap.tick !== this.status.tick) this.status = { ...this.status, tick: snap.tick };
      if (change.full || change.upserted.length > 0 || change.removed.length > 0) this.onSnapshot.fire({ snapshot: snap, change });
    } catch {
      // The host died (onDidExit handles it) or the run is gone: polling stops below.
    } finally {
      this.polling = false;
    }
    const phase = this.status.phase;
    if (this.pollAgain) this.schedulePoll(0);
    else if (phase === 'running') this.schedulePoll(Math.max(30, 1000 / Math.max(0.1, this.options.snapshotRate())));
    else if (phase === 'paused') this.schedulePoll(PAUSED_POLL_MS);
  }
}
