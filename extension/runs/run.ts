// Run: one runtime host process and the run it carries, shared by every view attached to it
// (the panel's RunSession, any number of debug sessions): they talk to the same endpoint, so a
// pause, step or continue asked by one view moves every view.
//
// Invariants:
// - One Run = one HostProcess for life; a launch replaces its run, only by a view that owns it alone.
// - `phase`, `lastPause` and `viewedTick` follow the current run's host events only, so a view
//   attaching mid-run shows the same stop and moment as the others; `lastPause` is the live stop's.
// - One task table per Run (`tasks`): refreshTasks() keeps one snapshot request in flight and
//   tells every view (onTasks); a delta asked before the table was cleared is never applied.
// - The host ends when the last view detaches; stop() ends it for every view (onDidEnd).
// - No `vscode` import: the debug adapter (inline and standalone) and tests use it as it is.

import type {
  CancelRequester,
  HostEvents,
  HostMethods,
  LaunchOptions,
  LaunchTarget,
  RecordingInfo,
  Snapshot,
  ViewedMoment,
} from '../../protocol/host-protocol';
import { SnapshotMirror, type MirrorChange } from '../../protocol/snapshot-mirror';
import { isHostGone, isLivePhase, type RunPhase } from '../../protocol/run-phase';
import { Emitter } from '../emitter';
import type { HostEndpoint, HostExit, HostProcess } from '../host-client/host-process';

/**
 * idle: no launch yet; starting: the host has not answered the launch; hostDied / ended: the host process is
 * gone, unasked / asked (protocol/run-phase.ts).
 */
export type { RunPhase } from '../../protocol/run-phase';

/** The name the inspector panel's RunSession attaches to runs with (it relaunches a run only it shows). */
export const PANEL_VIEW = 'panel';

/** A one-line description of a launch target, for titles and pick lists. */
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

/** A one-line description of an opened recording, for titles. */
export function describeRecording(info: RecordingInfo): string {
  const name = info.path.split(/[\\/]/).pop() ?? info.path;
  return `Recording ${name} (${info.program}, ${info.ticks.toLocaleString('en-US')} ticks)`;
}

/** A refresh of a Run's task table: the host's snapshot and what it changed in the table. */
export interface TasksRefresh {
  snapshot: Snapshot;
  change: MirrorChange;
}

/** What a Run tells the registry that made it. */
export interface RunHooks {
  launched(run: Run, by: string): void;
  ended(run: Run, exit: HostExit): void;
}

export class Run {
  target: LaunchTarget | null = null;
  /** The options of the current launch (null: none yet, or a recording opened). */
  options: LaunchOptions | null = null;
  /** The recording this run shows, when it was opened from a file rather than launched. */
  recording: RecordingInfo | null = null;
  /** Launched with `record`, the host did not record it, and why (the launch answer's notRecorded); null: not said. */
  notRecorded: string | null = null;
  /** The host's id of the current run (null before the first launch answers). */
  runId: number | null = null;
  siteUrl: string | undefined;
  phase: RunPhase = 'idle';
  /**
   * The live run's stop in force while paused (also the hold at entry seen during a launch), never a past line's
   * `paused` (pastLine): a view that follows the run later shows it as the present.
   */
  lastPause: HostEvents['paused'] | null = null;
  /** The view that launched the current run. */
  launchedBy: string | null = null;
  /** The host's last viewedTick event (it may come before the launch or openRecording that caused it is answered). */
  private lastViewed: ViewedMoment | null = null;
  /** The run's task table, shared by every view of it (refreshTasks keeps it current). */
  readonly tasks = new SnapshotMirror();
  /** Each snapshot applied to `tasks`, whichever view asked for it. */
  readonly onTasks = new Emitter<TasksRefresh>();
  private tasksRefresh: Promise<TasksRefresh> | null = null;
  /** Any change of phase, target or viewers. */
  readonly onDidChange = new Emitter<Run>();
  readonly onDidEnd = new Emitter<HostExit>();
  private readonly views = new Map<number, string>();
  private nextView = 1;
  private launchSeq = 0;
  /** Runs that finished while a launch was unanswered (the old one, or the new one already). */
  private readonly finishedEarly = new Set<number>();

  constructor(
    /** The registry's number for this run (stable, shown in pick lists). */
    readonly key: number,
    readonly host: HostProcess,
    private readonly hooks: RunHooks,
  ) {
    const ep = host.endpoint;
    ep.on('paused', (b) => {
      // A past line's (a step back, a hit replayed): the live run's stop still holds behind it.
      if (b.pastLine !== true) this.lastPause = b;
      if (this.phase === 'running' || this.phase === 'paused') this.setPhase('paused');
    });
    ep.on('continued', () => {
      if (this.phase === 'starting') this.lastPause = null;
      if (this.phase !== 'paused') return;
      this.lastPause = null;
      this.setPhase('running');
    });
    ep.on('viewedTick', (b) => {
      this.lastViewed = b;
    });
    ep.on('finished', (b) => {
      if (this.phase === 'starting') this.finishedEarly.add(b.runId);
      else if (b.runId === this.runId && (this.phase === 'running' || this.phase === 'paused')) {
        this.lastPause = null;
        this.setPhase('finished');
      }
    });
    host.onExit((exit) => {
      this.lastPause = null;
      this.phase = exit.expected ? 'ended' : 'hostDied';
      this.onDidEnd.fire(exit);
      this.onDidChange.fire(this);
      this.hooks.ended(this, exit);
    });
  }

  get endpoint(): HostEndpoint {
    return this.host.endpoint;
  }

  get pid(): number | undefined {
    return this.host.pid;
  }

  /** A title for the run: what it runs, or that nothing runs yet. */
  get title(): string {
    if (this.recording !== null) return describeRecording(this.recording);
    return this.target === null ? 'No run' : describeTarget(this.target, this.siteUrl);
  }

  /** True when the run is recorded (its timeline can be shown, sought and saved). */
  get recorded(): boolean {
    return this.recording !== null || (this.options?.record === true && this.notRecorded === null);
  }

  /**
   * The past tick every view of the current run shows (an opened recording's last tick when at its present);
   * null: the present.
   */
  get viewedTick(): number | null {
    const v = this.lastViewed;
    return v !== null && v.runId === this.runId ? v.tick : null;
  }

  /** A debugger can attach: the run is live, or it has finished and was recorded (its past is stepped through). */
  isDebuggable(): boolean {
    return this.isLive() || (this.phase === 'finished' && this.recorded);
  }

  /** True from a launch until the run finishes (running, paused, or still launching). */
  isLive(): boolean {
    return isLivePhase(this.phase);
  }

  isAlive(): boolean {
    return !isHostGone(this.phase) && this.host.isAlive();
  }

  /** The views attached now (their names: 'panel', 'debug 1', ...). */
  viewers(): string[] {
    return [...this.views.values()];
  }

  /** Attaches a view; returns its detach (the last detach ends the host process). */
  attach(view: string): () => void {
    const id = this.nextView++;
    this.views.set(id, view);
    this.onDidChange.fire(this);
    return () => {
      if (!this.views.delete(id)) return;
      this.onDidChange.fire(this);
      if (this.views.size === 0 && this.isAlive()) void this.host.dispose();
    };
  }

  /**
   * Launches `target` on this host (replacing the run it carried), for the view `by`.
   * Resolves once the host has answered; `phase` is then 'paused' (held at entry, or a stop
   * already), 'running' or 'finished'.
   */
  async launch(target: LaunchTarget, options: LaunchOptions, by: string): Promise<HostMethods['launch']['result']> {
    const { answer: result, current } = await this.replaceRun(by, target, options, () =>
      this.endpoint.request('launch', { target, options }),
    );
    if (!current) return result;
    this.runId = result.runId;
    this.siteUrl = result.siteUrl;
    this.notRecorded = result.notRecorded ?? null;
    if (this.phase === 'starting')
      this.setPhase(this.finishedEarly.has(result.runId) ? 'finished' : this.lastPause !== null ? 'paused' : 'running');
    this.finishedEarly.clear();
    this.hooks.launched(this, by);
    return result;
  }

  /**
   * Opens a recording file on this host (replacing the run it carried), for the view `by`:
   * the recording becomes a finished run every view shows, sought with seekTick, with no
   * network. Rejects with the host's reason (a corrupt file, changed sources: named).
   */
  async openRecording(path: string, by: string): Promise<RecordingInfo & { runId: number }> {
    const { answer: info, current } = await this.replaceRun(by, null, null, () =>
      this.endpoint.request('openRecording', { path }),
    );
    if (!current) return info;
    this.recording = info;
    this.runId = info.runId;
    this.setPhase('finished');
    this.hooks.launched(this, by);
    return info;
  }

  /**
   * What a launch and an opened recording share: the previous run's state forgotten, the
   * phase 'starting' until the host answers `ask` (back to 'idle' if it refuses). `current`
   * is false when a newer launch replaced this one meanwhile (its answer then changes nothing).
   */
  private async replaceRun<T>(
    by: string,
    target: LaunchTarget | null,
    options: LaunchOptions | null,
    ask: () => Promise<T>,
  ): Promise<{ answer: T; current: boolean }> {
    const seq = ++this.launchSeq;
    this.target = target;
    this.options = options;
    this.recording = null;
    this.notRecorded = null;
    this.launchedBy = by;
    this.runId = null;
    this.siteUrl = undefined;
    this.lastPause = null;
    this.lastViewed = null;
    this.finishedEarly.clear();
    this.tasks.clear();
    this.setPhase('starting');
    let answer: T;
    try {
      answer = await ask();
    } catch (e) {
      if (seq === this.launchSeq && this.phase === 'starting') this.setPhase('idle');
      throw e;
    }
    return { answer, current: seq === this.launchSeq };
  }

  /**
   * Brings `tasks` up to date: one snapshot request (a delta since the table's version), shared
   * by every view that asks while it is in flight. Rejects when the host does (gone, no run).
   */
  refreshTasks(): Promise<TasksRefresh> {
    if (this.tasksRefresh !== null) return this.tasksRefresh;
    const refresh = this.askTasks().finally(() => {
      if (this.tasksRefresh === refresh) this.tasksRefresh = null;
    });
    this.tasksRefresh = refresh;
    return refresh;
  }

  private async askTasks(): Promise<TasksRefresh> {
    for (;;) {
      const clears = this.tasks.clears;
      const launch = this.launchSeq;
      const since = this.tasks.since;
      const snapshot = await this.endpoint.request('snapshot', since === undefined ? {} : { since });
      // Another run launched meanwhile: its table, not the one before's.
      if (this.launchSeq !== launch) continue;
      // Cleared meanwhile (another moment shown): a delta of the table before is not one of this.
      if (this.tasks.clears !== clears && !snapshot.full) continue;
      const change = this.tasks.apply(snapshot);
      const refresh = { snapshot, change };
      this.onTasks.fire(refresh);
      return refresh;
    }
  }

  /**
   * Ends the run and its host process, for every view attached; `by` is the view that asked (the tasks'
   * cancelledBy).
   */
  async stop(by: CancelRequester, graceMs = 2000): Promise<void> {
    if (!this.isAlive()) return;
    if (this.isLive()) await this.endpoint.request('stop', { by }).catch(() => undefined);
    await this.host.dispose(graceMs);
  }

  private setPhase(phase: RunPhase): void {
    this.phase = phase;
    this.onDidChange.fire(this);
  }
}
