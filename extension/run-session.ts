// RunSession: the extension's view of one run (a Run of the RunRegistry), the one the panel, status
// bar, decorations and context keys show. It launches or follows a run, pulls snapshot deltas into
// Run.tasks, keeps status, progress, exceptions and lints, and sends pause/step/continue to the host.
// No `vscode` import: tested as it is. Viewed moments: docs/design/time-travel-and-positions.md.
//
// Invariants:
// - Attached (as view 'panel') to at most one Run; a launch reuses it only when no other view is
//   attached, so a debug session's run is never replaced under it.
// - One poll in flight at a time; a dead host turns the status into 'hostDied', every request failed.
// - Events of a run being replaced are ignored (a pause then is applied once the launch answers).
// - The viewed moment is the host's: each change refetches the whole task table for every view.

import type {
  CancelRequester,
  CrawledPage,
  CrawlProgress,
  HostEvents,
  HostMethods,
  LaunchOptions,
  LaunchTarget,
  Lint,
  ProgramLoopState,
  RecordingInfo,
  Snapshot,
  ViewedMoment,
} from '../protocol/host-protocol';
import { CoalescingPoll } from '../protocol/coalescing-poll';
import { ProgressHistory } from '../protocol/progress-history';
import { MomentIds } from '../protocol/moment-ids';
import { progressAt, runMoment, type RunMoment } from '../protocol/run-moment';
import { SnapshotMirror, type MirrorChange } from '../protocol/snapshot-mirror';
import type { Comparison, ExceptionEntry, ProgressPoint, RunStatus } from '../protocol/webview-protocol';
import { Emitter } from './emitter';
import type { HostEndpoint } from './host-client/host-process';
import { describeRecording, describeTarget, PANEL_VIEW, type Run, type TasksRefresh } from './runs/run';
import type { RunRegistry } from './runs/run-registry';

const MAX_EXCEPTIONS = 200;
const MAX_LINTS = 500;
const PAUSED_POLL_MS = 1000;
/** RunSessions made so far: each names its seeks apart ('panel', then 'panel 2', ...). */
let sessionsMade = 0;

export interface RunSessionOptions {
  /** Snapshots per second while the loop runs. */
  snapshotRate(): number;
}

export class RunSession {
  /** Before any run is shown: an empty table. */
  private readonly noRunTasks = new SnapshotMirror();
  /** The task table of the run shown (the Run's own, shared with its other views); kept after its host ends. */
  private shownTasks: SnapshotMirror = this.noRunTasks;
  status: RunStatus = {
    phase: 'idle',
    runId: null,
    title: 'No run',
    detail: 'Run a crawl or a sample to inspect it.',
    tick: 0,
  };
  /** The chart's points and the crawled pages (trimmed as the webview trims its copy). */
  readonly history = new ProgressHistory();
  readonly exceptions: ExceptionEntry[] = [];
  readonly lints: Lint[] = [];
  /** The present's latest crawl numbers (a past tick's are momentProgress: see shownProgress()). */
  lastProgress: CrawlProgress | null = null;
  /** The crawl numbers of the past tick shown, null until its snapshot says them. */
  private momentProgress: CrawlProgress | null = null;
  target: LaunchTarget | null = null;

  readonly onStatus = new Emitter<RunStatus>();
  readonly onReset = new Emitter<RunStatus>();
  readonly onSnapshot = new Emitter<{ snapshot: Snapshot; change: MirrorChange }>();
  /** `point` is null when the report adds nothing to the chart. */
  readonly onProgress = new Emitter<{ point: ProgressPoint | null; progress: CrawlProgress }>();
  readonly onException = new Emitter<ExceptionEntry>();
  /** A deadlock found in a run that goes on (no debugger, or its Deadlock filter off): the notification's. */
  readonly onDeadlock = new Emitter<ExceptionEntry>();
  readonly onLint = new Emitter<Lint>();
  readonly onOutput = new Emitter<HostEvents['output']>();
  readonly onFinished = new Emitter<HostEvents['finished']>();
  /** The loops, threads and processes the program runs itself (a sample's hand-made loop), as of the last poll. */
  programLoops: ProgramLoopState[] = [];
  readonly onProgramLoops = new Emitter<ProgramLoopState[]>();
  /** The latest comparison of approaches; it outlives runs (a new launch keeps it). */
  comparison: Comparison | null = null;
  readonly onComparison = new Emitter<Comparison>();
  /** The paused loop was stepped (a tick or a task) on the learner's request; `target` is what runs. */
  readonly onStepped = new Emitter<{ target: LaunchTarget | null; tick: number }>();
  /** The run shown changed (another run followed, or none). */
  readonly onRun = new Emitter<Run | null>();
  /** The viewed moment moved: a past tick, or null for the present. */
  readonly onViewed = new Emitter<number | null>();

  private current: Run | null = null;
  private detach: (() => void) | null = null;
  private unbind: Array<() => void> = [];
  private starting: Promise<Run> | null = null;
  private readonly polls = new CoalescingPoll(() => this.poll());
  private pendingPause: HostEvents['paused'] | null = null;
  /** The live run's latest stop (a `paused` not of a past line): what the status says again back in the present. */
  private livePause: HostEvents['paused'] | null = null;
  /** A past line is shown (the host's `paused` said pastLine): the task table is of that moment. */
  private onPastLine = false;
  private finishedRun: number | null = null;
  private launchSeq = 0;
  /** The ids of this session's seeks (protocol/moment-ids.ts). */
  private readonly momentIds: MomentIds;
  /** This session's seeks in flight, by moment id: whether the host's `viewedTick` of it has been heard yet. */
  private readonly seeksInFlight = new Map<string, boolean>();

  constructor(
    private readonly registry: RunRegistry,
    private readonly options: RunSessionOptions,
  ) {
    sessionsMade++;
    this.momentIds = new MomentIds(sessionsMade === 1 ? PANEL_VIEW : `${PANEL_VIEW} ${sessionsMade}`);
  }

  /** The task table of the run shown (Run.tasks: every view of the run reads the same one). */
  get mirror(): SnapshotMirror {
    return this.shownTasks;
  }

  /** The run shown, while its host is up. */
  get run(): Run | null {
    return this.current !== null && this.current.isAlive() ? this.current : null;
  }

  get progressPoints(): readonly ProgressPoint[] {
    return this.history.points;
  }

  get pages(): readonly CrawledPage[] {
    return this.history.pages;
  }

  /** True while a run is live (running or paused). */
  isActive(): boolean {
    return this.status.phase === 'running' || this.status.phase === 'paused' || this.status.phase === 'starting';
  }

  /** The live host's endpoint; throws when no host runs (does not start one). */
  endpoint(): HostEndpoint {
    const r = this.run;
    if (r === null) throw new Error('The Coroscope runtime host is not running: run a crawl or a sample first.');
    return r.endpoint;
  }

  /** Calls a host method on the live host. */
  request<M extends keyof HostMethods & string>(
    method: M,
    params: HostMethods[M]['params'],
  ): Promise<HostMethods[M]['result']> {
    try {
      return this.endpoint().request(method, params);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The run shown if its host is up, else a new one (nothing launched on it yet). */
  ensureRun(): Promise<Run> {
    const r = this.run;
    if (r !== null) return Promise.resolve(r);
    return this.startRun();
  }

  private startRun(): Promise<Run> {
    if (this.starting !== null) return this.starting;
    const start = this.registry.start().then(
      (run) => {
        this.starting = null;
        this.bind(run);
        return run;
      },
      (e: unknown) => {
        this.starting = null;
        throw e;
      },
    );
    this.starting = start;
    return start;
  }

  // --- launching ----------------------------------------------------------------------------

  private resetData(status: RunStatus, target: LaunchTarget | null): void {
    this.stopPolling();
    this.target = target;
    this.mirror.clear();
    this.history.reset();
    this.exceptions.length = 0;
    this.lints.length = 0;
    this.lastProgress = null;
    this.momentProgress = null;
    this.pendingPause = null;
    this.livePause = null;
    this.finishedRun = null;
    this.programLoops = [];
    this.status = status;
    this.onReset.fire(status);
    this.onStatus.fire(status);
  }

  async launch(target: LaunchTarget, options: LaunchOptions): Promise<{ runId: number; siteUrl?: string }> {
    const seq = ++this.launchSeq;
    this.resetData(
      { phase: 'starting', runId: null, title: describeTarget(target), detail: 'Starting…', tick: 0 },
      target,
    );
    let result: HostMethods['launch']['result'];
    try {
      // The run shown is relaunched only when this view holds it alone (a debug session's
      // run is never replaced under it): otherwise a run of its own.
      const shown = this.run;
      const run = shown !== null && shown.viewers().every((v) => v === PANEL_VIEW) ? shown : await this.startRun();
      if (seq !== this.launchSeq) throw new Error('replaced by a newer launch');
      result = await run.launch(target, options, PANEL_VIEW);
    } catch (e) {
      if (seq === this.launchSeq && this.status.phase === 'starting') {
        this.setStatus({
          phase: 'idle',
          runId: null,
          title: describeTarget(target),
          detail: `Launch failed: ${e instanceof Error ? e.message : String(e)}`,
          tick: 0,
        });
      }
      throw e;
    }
    if (seq !== this.launchSeq) return result;
    this.settleLaunch(result.runId, describeTarget(target, result.siteUrl));
    return result;
  }

  /**
   * Opens a recording file as the run shown (on the run shown when only the panel holds it,
   * else on a run of its own): a finished run every view shows, timeline included, with no
   * network. Rejects with the host's reason, prefixed with the file's name.
   */
  async openRecording(path: string): Promise<RecordingInfo> {
    const seq = ++this.launchSeq;
    const name = path.split(/[\\/]/).pop() ?? path;
    this.resetData({ phase: 'starting', runId: null, title: `Recording ${name}`, detail: 'Opening…', tick: 0 }, null);
    let info: RecordingInfo & { runId: number };
    let run: Run;
    try {
      const shown = this.run;
      run = shown !== null && shown.viewers().every((v) => v === PANEL_VIEW) ? shown : await this.startRun();
      if (seq !== this.launchSeq) throw new Error('replaced by a newer launch');
      info = await run.openRecording(path, PANEL_VIEW);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      const text = why.includes(name) ? why : `${name}: ${why}`;
      if (seq === this.launchSeq && this.status.phase === 'starting')
        this.setStatus({
          phase: 'idle',
          runId: null,
          title: `Recording ${name}`,
          detail: `Could not open the recording: ${text}`,
          tick: 0,
        });
      throw new Error(text);
    }
    if (seq !== this.launchSeq) return info;
    this.setStatus({
      phase: 'finished',
      runId: info.runId,
      title: describeRecording(info),
      detail: `Opened from ${path}`,
      tick: info.ticks,
      recorded: true,
      recordingFile: path,
    });
    this.schedulePoll(0);
    return info;
  }

  /**
   * Shows the run at `tick` in every view (null: back to the present). `moment`: the id the
   * panel chose for this seek (its SeekQueue's), else one of this session's.
   */
  async seek(tick: number | null, moment: string = this.momentIds.next()): Promise<number | null> {
    this.seeksInFlight.set(moment, false);
    let r: ViewedMoment;
    try {
      r = await this.request('seekTick', { tick, moment });
    } catch (e) {
      this.seeksInFlight.delete(moment);
      throw e;
    }
    const heard = this.seeksInFlight.get(moment) === true;
    this.seeksInFlight.delete(moment);
    // Its own viewedTick heard already: that (and any landing after it) said the moment.
    if (!heard && r.runId === this.status.runId) this.applyViewed(r);
    return r.tick;
  }

  /**
   * The host says which moment is shown (and, for a past tick, whether its replay has landed):
   * the status, then a whole table of that moment (again when the replay lands: the replayed
   * one, with the timings the log lacks; the views then read stacks with positions and locals).
   */
  private applyViewed(moment: ViewedMoment, announced = false): void {
    const tick = moment.tick;
    const replaying = tick !== null && moment.replayed === false;
    const error = replaying ? moment.replayError : undefined;
    const now = this.status.viewedTick ?? null;
    const same =
      now === tick && (this.status.viewedReplaying === true) === replaying && this.status.viewedReplayError === error;
    const id = moment.moment;
    // The moment shown, known by its id: its replay landing, or its event after its answer; never another moment.
    const ofShown = id !== undefined && id === this.status.momentId;
    if (same && ofShown) return;
    // No id: the host's word of the same moment again is another moment in that tick (a breakpoint hit, a
    // past line); a seek's answer of it is not.
    if (same && id === undefined && (!announced || tick === null)) return;
    // Another moment in the tick shown: another request's (by its id), or, with no id, the same words again.
    const newInTick = tick !== null && now === tick && !ofShown && (id !== undefined || same);
    const s: RunStatus = { ...this.status };
    if (id !== undefined) s.momentId = id;
    else delete s.momentId;
    if (tick === null) {
      delete s.viewedTick;
      delete s.viewedMoment;
      delete s.viewedLine;
      // Back in the present: its own stop is what the status says again (a past line's words were the past's).
      const live = this.livePause;
      if (s.phase === 'paused' && live !== null && now !== null) {
        s.detail = live.description;
        s.pauseReason = live.reason;
        if (typeof live.taskId === 'number') s.pausedTaskId = live.taskId;
        else delete s.pausedTaskId;
      }
    } else {
      s.viewedTick = tick;
      if (newInTick) s.viewedMoment = (s.viewedMoment ?? 0) + 1;
      // A line within the tick (a past line, a hit found in the past), as the debugger shows it; a hit says its stop.
      if (moment.line === true) s.viewedLine = true;
      else if (!same) delete s.viewedLine;
      if (moment.line === true && moment.stop !== undefined) {
        s.detail = moment.stop.description;
        s.pauseReason = moment.stop.reason;
        if (moment.stop.taskId !== undefined) s.pausedTaskId = moment.stop.taskId;
        else delete s.pausedTaskId;
      }
    }
    if (replaying && error === undefined) s.viewedReplaying = true;
    else delete s.viewedReplaying;
    if (error !== undefined) s.viewedReplayError = error;
    else delete s.viewedReplayError;
    // A full table of the moment shown (the host answers for it), not a delta of another; its crawl numbers with it.
    this.mirror.clear();
    this.momentProgress = null;
    this.setStatus(s);
    // A new moment (not the same one's replay landing: its table comes whole all the same).
    if (now !== tick || newInTick) this.onViewed.fire(tick);
    this.schedulePoll(0);
  }

  /** True while the views show a past tick. */
  viewingPast(): boolean {
    return this.status.viewedTick !== undefined;
  }

  /** The moment every view of the session shows (protocol/run-moment.ts). */
  moment(): RunMoment {
    return runMoment(this.status);
  }

  /**
   * The crawl's numbers at the moment shown: the present's latest, or a past tick's (null until known); null
   * for a run that is no crawl.
   */
  shownProgress(): CrawlProgress | null {
    return progressAt(
      this.moment(),
      this.lastProgress ?? (this.viewingPast() ? null : this.mirror.progress),
      this.momentProgress,
    );
  }

  /**
   * A launch answered: the status from the run's stop (or running), then a poll. The Run every view shares is
   * the one word on whether it is paused (its `lastPause`): a stop told before this session followed the run
   * (another view's launch) is its stop all the same; the pause this session kept is only for a run it heard
   * before the Run had one.
   */
  private settleLaunch(runId: number, title: string): void {
    const run = this.current;
    const pause = run !== null && run.phase === 'paused' && run.lastPause !== null ? run.lastPause : this.pendingPause;
    this.pendingPause = null;
    const base: RunStatus = { phase: 'running', runId, title, detail: 'Running', tick: 0 };
    if (this.current?.recorded === true) base.recorded = true;
    const unrecorded = this.current?.notRecorded ?? null;
    if (unrecorded !== null) base.notRecorded = unrecorded;
    if (this.finishedRun === runId) {
      // Finished already (the status says so).
      if (base.recorded === true && this.status.recorded !== true) this.setStatus({ ...this.status, recorded: true });
      else if (base.notRecorded !== undefined && this.status.notRecorded === undefined)
        this.setStatus({ ...this.status, notRecorded: base.notRecorded });
      return;
    }
    if (pause !== null) this.applyPause(pause, base);
    else if (this.status.phase === 'starting') this.setStatus(base);
    this.schedulePoll(0);
  }

  /**
   * Shows `run` (launched by another view, a debug session): attaches to it and takes its
   * state as it is now (its stop, if paused; its tasks at the next poll).
   */
  show(run: Run): void {
    if (this.current === run || !run.isAlive()) return;
    const seq = ++this.launchSeq;
    this.bind(run);
    const title = run.title;
    if (run.phase === 'starting' || run.runId === null) {
      this.resetData({ phase: 'starting', runId: null, title, detail: 'Starting…', tick: 0 }, run.target);
      // The launching view awaits the answer; this one hears it through the run.
      const off = run.onDidChange.on((r) => {
        if (r.phase === 'starting') return;
        off();
        if (seq !== this.launchSeq || this.current !== run) return;
        if (r.runId === null) this.setStatus({ ...this.status, phase: 'idle', detail: 'Launch failed.' });
        else this.settleLaunch(r.runId, r.title);
      });
      return;
    }
    const base: RunStatus = {
      phase: run.phase === 'finished' ? 'finished' : 'running',
      runId: run.runId,
      title,
      detail: run.phase === 'finished' ? 'Finished' : 'Running',
      tick: 0,
    };
    if (run.recorded) base.recorded = true;
    if (run.notRecorded !== null) base.notRecorded = run.notRecorded;
    if (run.recording !== null) base.recordingFile = run.recording.path;
    this.resetData(base, run.target);
    if (run.phase === 'paused' && run.lastPause !== null) this.applyPause(run.lastPause, base);
    this.schedulePoll(0);
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
      const run = await this.ensureRun();
      const { rows } = await run.endpoint.request('compare', { pages, latencyMs });
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

  /** Cancels the task on behalf of `by` (the inspector's panel and command, the debug adapter). */
  async cancelTask(taskId: number, by: CancelRequester): Promise<boolean> {
    const r = await this.request('cancelTask', { taskId, by });
    this.schedulePoll(0);
    return r.cancelled;
  }

  /** Ends the current run; the host stays up. */
  async stopRun(): Promise<void> {
    if (this.run === null) return;
    await this.request('stop', { by: 'inspector' });
    this.schedulePoll(0);
  }

  /** Ends the run shown and its host process, for every view of it (a debug session too). */
  async stop(): Promise<void> {
    const starting = this.starting;
    if (starting !== null) await starting.catch(() => undefined);
    await this.current?.stop('inspector');
  }

  private async control<M extends 'pause' | 'continue' | 'stepTick' | 'stepTask'>(
    method: M,
    params: HostMethods[M]['params'],
  ): Promise<{ tick: number }> {
    const r = (await this.request(method, params)) as { tick: number };
    if (method === 'continue' && this.status.phase === 'paused')
      this.setStatus({
        ...this.status,
        phase: 'running',
        detail: 'Running',
        tick: r.tick,
        pauseReason: undefined,
        pausedTaskId: undefined,
        onLine: undefined,
      });
    this.schedulePoll(0);
    if (method === 'stepTick' || method === 'stepTask') this.onStepped.fire({ target: this.target, tick: r.tick });
    return r;
  }

  dispose(): void {
    this.stopPolling();
    this.unbindRun();
  }

  // --- host events --------------------------------------------------------------------------

  private bind(run: Run): void {
    if (this.current === run) return;
    this.unbindRun();
    this.current = run;
    this.shownTasks = run.tasks;
    this.detach = run.attach(PANEL_VIEW);
    const ep = run.endpoint;
    this.unbind.push(
      run.onTasks.on((refresh) => this.tasksRefreshed(run, refresh)),
      run.onDidEnd.on((exit) => {
        if (this.current !== run) return;
        this.unbindRun();
        this.stopPolling();
        if (exit.expected) {
          if (this.status.phase !== 'idle')
            this.setStatus({
              ...this.status,
              phase: this.status.phase === 'finished' ? 'finished' : 'idle',
              detail: this.status.phase === 'finished' ? this.status.detail : 'Stopped.',
            });
        } else {
          const how = exit.signal !== null ? `was killed (${exit.signal})` : `exited with code ${exit.code}`;
          this.setStatus({
            ...this.status,
            phase: 'hostDied',
            detail: `The runtime host ${how}.`,
            lastLines: exit.lastLines.slice(-20),
          });
        }
        this.onRun.fire(null);
      }),
      ep.on('paused', (b) => {
        if (this.status.phase === 'starting') {
          this.pendingPause = b;
          return;
        }
        if (b.pastLine !== true) this.livePause = b;
        if (this.status.phase === 'running' || this.status.phase === 'paused') this.applyPause(b, this.status);
        // Onto a past line or back from one (the line replay): a whole table of that moment, not a delta of another.
        if ((b.pastLine === true) !== this.onPastLine) {
          this.onPastLine = b.pastLine === true;
          this.mirror.clear();
        }
        this.schedulePoll(0);
      }),
      ep.on('continued', (b) => {
        if (this.status.phase === 'starting') this.pendingPause = null;
        this.livePause = null;
        if (this.onPastLine) {
          this.onPastLine = false;
          this.mirror.clear();
        }
        if (this.status.phase === 'paused')
          this.setStatus({
            ...this.status,
            phase: 'running',
            detail: 'Running',
            tick: typeof b.tick === 'number' ? b.tick : this.status.tick,
            pauseReason: undefined,
            pausedTaskId: undefined,
            onLine: undefined,
          });
        this.schedulePoll(0);
      }),
      ep.on('progress', (p) => {
        if (this.status.phase === 'starting') return;
        this.addProgress(p);
      }),
      ep.on('exception', (b) => {
        if (this.status.phase === 'starting' || typeof b !== 'object' || b === null || typeof b.taskId !== 'number')
          return;
        const entry: ExceptionEntry = { taskId: b.taskId, traceback: b.traceback };
        if (b.deadlock !== undefined) entry.deadlock = b.deadlock;
        this.exceptions.push(entry);
        if (this.exceptions.length > MAX_EXCEPTIONS) this.exceptions.shift();
        this.onException.fire(entry);
        // A deadlock the run goes on with (no debugger stopped it, which would have said it): the window says it.
        if (b.deadlock !== undefined && !b.deadlock.stopped) this.onDeadlock.fire(entry);
      }),
      ep.on('lint', (b) => {
        if (this.status.phase === 'starting' || typeof b !== 'object' || b === null) return;
        this.lints.push(b.lint);
        if (this.lints.length > MAX_LINTS) this.lints.shift();
        this.onLint.fire(b.lint);
      }),
      ep.on('viewedTick', (b) => {
        if (this.status.phase === 'starting' || typeof b !== 'object' || b === null || b.runId !== this.status.runId)
          return;
        if (b.moment !== undefined && this.seeksInFlight.has(b.moment)) this.seeksInFlight.set(b.moment, true);
        this.applyViewed(b, true);
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
        this.setStatus({
          ...this.status,
          phase: 'finished',
          detail: b.error !== undefined ? `${b.summary} (${b.error})` : b.summary,
          pauseReason: undefined,
          pausedTaskId: undefined,
          onLine: undefined,
        });
        this.onFinished.fire(b);
        this.schedulePoll(0);
      }),
    );
    this.onRun.fire(run);
  }

  /** Stops listening to the run shown and detaches from it (its host ends if no other view holds it). */
  private unbindRun(): void {
    for (const u of this.unbind) u();
    this.unbind = [];
    this.current = null;
    const detach = this.detach;
    this.detach = null;
    detach?.();
  }

  private setProgramLoops(loops: ProgramLoopState[]): void {
    if (JSON.stringify(loops) === JSON.stringify(this.programLoops)) return;
    this.programLoops = loops;
    this.onProgramLoops.fire(loops);
  }

  private applyPause(b: HostEvents['paused'], base: RunStatus): void {
    const s: RunStatus = { ...base, phase: 'paused', detail: b.description, tick: b.tick, pauseReason: b.reason };
    if (typeof b.taskId === 'number') s.pausedTaskId = b.taskId;
    else delete s.pausedTaskId;
    if (b.pastLine === true) {
      // A past line is the moment viewed (its viewedTick came first), within its tick; the present's tick and
      // stop stand behind it.
      s.tick = base.tick;
      if (s.viewedTick !== undefined) s.viewedLine = true;
    } else if (b.line !== undefined) s.onLine = true;
    // On a line the loop is within its tick, not after it.
    else delete s.onLine;
    this.setStatus(s);
  }

  private addProgress(p: CrawlProgress): void {
    const point = this.history.pointOf(p);
    this.history.record(point, p.recent);
    this.lastProgress = p;
    this.onProgress.fire({ point, progress: p });
  }

  private setStatus(s: RunStatus): void {
    this.status = s;
    this.onStatus.fire(s);
  }

  // --- polling ------------------------------------------------------------------------------

  private stopPolling(): void {
    this.polls.cancel();
  }

  /** Polls after `ms` (sooner if one is already due sooner). */
  schedulePoll(ms: number): void {
    this.polls.schedule(ms);
  }

  /**
   * One snapshot poll (the Run's refresh: joined with any other view's in flight); the delay before the next
   * (null: none until asked).
   */
  private async poll(): Promise<number | null> {
    const run = this.run;
    if (run === null || this.status.runId === null) return null;
    const runId = this.status.runId;
    try {
      await run.refreshTasks();
      if (runId !== this.status.runId || run !== this.current) return null;
      // A sample's own loop (sockets, ready list, timers, threads) changes with every step of it.
      if (this.target?.kind === 'sample') this.setProgramLoops((await run.endpoint.request('programLoops', {})).loops);
    } catch {
      // The host died (the run's onDidEnd handles it) or the run is gone: polling stops below.
    }
    const phase = this.status.phase;
    if (phase === 'running') return Math.max(30, 1000 / Math.max(0.1, this.options.snapshotRate()));
    if (phase === 'paused') return PAUSED_POLL_MS;
    return null;
  }

  /**
   * The run's table was refreshed (by this session's poll or another view's): the moment's numbers, the
   * present's tick, the listeners.
   */
  private tasksRefreshed(run: Run, { snapshot: snap, change }: TasksRefresh): void {
    if (run !== this.current || this.status.runId === null || this.status.phase === 'starting') return;
    // A past tick's table (or an opened recording's: no present) says that moment's crawl numbers, not the live ones.
    if (this.viewingPast() || snap.fromLog === true || this.status.recordingFile !== undefined) {
      if (snap.progress !== null) this.momentProgress = snap.progress;
    } else {
      if (snap.progress !== null && this.lastProgress === null) this.lastProgress = snap.progress;
      // The present's tick is the newest the host has said (it only grows within a run): while running, as often as
      // snapshots come (said to the views with them); otherwise (a step, the run's last ticks) as a status of its own.
      if (snap.tick > this.status.tick) {
        if (this.status.phase === 'running') this.status = { ...this.status, tick: snap.tick };
        else if (this.status.phase === 'paused' || this.status.phase === 'finished')
          this.setStatus({ ...this.status, tick: snap.tick });
      }
    }
    if (change.full || change.upserted.length > 0 || change.removed.length > 0)
      this.onSnapshot.fire({ snapshot: snap, change });
  }
}
