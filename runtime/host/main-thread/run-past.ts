// Runs on a runtime host's main thread (a live host's run, and a line replay host's).
//
// RunPast: a recorded Run's seeks into its past and the moment its views show. seekTick moves the
// viewed moment to right after a tick (or back to the present): known at once from the log (a
// RecordedMoment), a PastMoment once its replay lands. Every answer and `viewedTick` event carries
// the moment id of the seek that made it (protocol/moment-ids.ts).
//
// Invariants: seeks and traced ticks are served one at a time, in order; a moment is shown only
// for the tick asked (a late replay is never shown, its waiters refused as superseded);
// `shownMoment` is the id of the seek that made the moment viewed now.

import type { LaunchOptions, LaunchTarget, ViewedMoment } from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { EventLoop } from '../../loop';
import { FIRST_STRETCH } from '../shared/hit-scan';
import { outsideCanceller, startReplayed } from './launch-programs';
import type { PastMoment } from './past-moment';
import { RecordedMoment } from './recorded-moment';
import { RunRewind, type Leaders, type ReplayableProgram, type RewindSource } from './run-rewind';
import type { RunRecording } from './run-recording';
import type { Emit } from './run-services';

/**
 * An opened recording's replays kept near its end (RunRewind's leaders): two (a line replay
 * host's step back, and a backward search from the end, each use up two), a search's first
 * stretch short of the end; a copy of a live run followed by a line replay host (a process of
 * its own) keeps them up at half the wall time.
 */
const OPENED_LEADERS: Leaders = { count: 2, lag: FIRST_STRETCH, share: 0.5 };

/** A past tick viewed while its replay is under way (RunPast.viewPast). */
interface PastView {
  readonly tick: number;
  /** The moment as the log tells it, meanwhile. */
  readonly recorded: RecordedMoment;
  /** The replay to it: its PastMoment once landed; rejected when it failed or the views moved on. */
  landing: Promise<PastMoment>;
  /** Why the replay failed (the views say so), null while under way. */
  error: Error | null;
}

/** Makes the run's RunRewind (tests: one whose seeks they hold back, to order them against the views' moves). */
export type MakeRewind = (source: RewindSource, leaders: Leaders | null) => RunRewind;

/** What the past needs of its run: what the run is, and how to start its program again on a replay's loop. */
export interface PastOfRun {
  readonly id: number;
  readonly inspect: boolean;
  readonly loop: EventLoop;
  readonly finished: boolean;
  readonly target: LaunchTarget;
  readonly options: LaunchOptions;
  readonly siteUrl: string | undefined;
  readonly sampleInputs: Record<string, number>;
  readonly cliArgv: readonly string[] | undefined;
  readonly recording: RunRecording;
}

export class RunPast {
  /** What the views show when not the present: a past tick, replayed (seekTick), once its replay has landed. */
  viewed: PastMoment | null = null;
  /** The past tick viewed while its replay is under way: known from the log meanwhile (RecordedMoment). */
  private pastView: PastView | null = null;
  /**
   * The id of the seek that made the moment viewed now (protocol/moment-ids.ts); undefined: no seek with an
   * id made it.
   */
  private shownMoment: string | undefined = undefined;
  private seeks: Promise<unknown> = Promise.resolve();
  private rewind: RunRewind | null = null;

  constructor(
    private readonly run: PastOfRun,
    private readonly emit: Emit,
    private readonly makeRewind: MakeRewind = (source, leaders) => new RunRewind(source, undefined, leaders),
  ) {}

  /**
   * The moment the views show: null for the present; a past tick, replayed or (replayed false) known from the
   * log meanwhile.
   */
  viewedMoment(): ViewedMoment {
    const recording = this.run.recording;
    const ticks = recording.streams !== null ? recording.recordedTicks('seekTick') : (recording.recorder?.ticks ?? 0);
    const past = this.pastView;
    let moment: ViewedMoment;
    if (past !== null) {
      moment = { runId: this.run.id, tick: past.tick, ticks, replayed: false };
      if (past.error !== null) moment.replayError = past.error.message;
    } else if (this.viewed === null) moment = { runId: this.run.id, tick: null, ticks };
    else moment = { runId: this.run.id, tick: this.viewed.tick, ticks, replayed: true };
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
    const job = this.inTurn(() => this.seekNow(tick, moment));
    if (!replayed) return job.then((done) => done.moment);
    return job.then(async ({ moment: answer, view }) => {
      if (view === null) return answer;
      await view.landing;
      const landed: ViewedMoment = { runId: this.run.id, tick: view.tick, ticks: answer.ticks, replayed: true };
      if (moment !== undefined) landed.moment = moment;
      return landed;
    });
  }

  /** Runs `job` in its turn after the seeks (and traced ticks) asked before it. */
  inTurn<T>(job: () => Promise<T>): Promise<T> {
    const done = this.seeks.then(job);
    this.seeks = done.catch(() => undefined);
    return done;
  }

  /**
   * One seek, in its turn: the moment it shows, and the past view it started (null: none, the present or the
   * tick already viewed).
   */
  private async seekNow(
    asked: number | null,
    id: string | undefined,
  ): Promise<{ moment: ViewedMoment; view: PastView | null }> {
    const ticks = this.run.recording.recordedTicks('seekTick');
    let tick = asked;
    if (tick === null && this.run.recording.openedFrom !== null) tick = ticks;
    let view: PastView | null = null;
    if (tick === null) {
      this.viewed = null;
      this.pastView = null;
    } else {
      if (tick < 1 || tick > ticks)
        throw new ProtocolError(`seekTick: run ${this.run.id} has ticks 1..${ticks} recorded, not ${tick}`, 'badTick');
      if (this.viewed === null || this.viewed.tick !== tick || this.pastView !== null) view = this.viewPast(tick);
    }
    // Set before the landing can be told (a replay parked at the tick lands within this seek's turn).
    this.shownMoment = id;
    const moment = this.viewedMoment();
    this.emit('viewedTick', moment);
    return { moment, view };
  }

  /**
   * Views past tick `tick`: from the log at once, the replay to it started (the one to a tick viewed before
   * dropped or retargeted: RunRewind.seek).
   */
  private viewPast(tick: number): PastView {
    const recording = this.run.recording;
    const recorded = new RecordedMoment(this.run.id, tick, recording.recordedTasksNow(), () => recording.lintsThen());
    this.viewed = null;
    const view: PastView = { tick, recorded, landing: Promise.resolve(null as unknown as PastMoment), error: null };
    this.pastView = view;
    view.landing = this.rewindOf().seek(tick, () => this.pastView === view);
    view.landing.then(
      (moment) => {
        if (this.pastView !== view) return;
        this.pastView = null;
        this.viewed = moment;
        this.emit('viewedTick', this.viewedMoment());
      },
      (e: unknown) => {
        if (this.pastView !== view) return;
        view.error = e instanceof Error ? e : new Error(String(e));
        this.emit('viewedTick', this.viewedMoment());
      },
    );
    return view;
  }

  /**
   * Shows a moment no seek made (a tick traced for the line replay or a breakpoint search:
   * replay-host-services.ts): the moment's queries answer for it; no seek's id names it.
   */
  showTraced(moment: PastMoment | null): void {
    this.viewed = moment;
    this.pastView = null;
    this.shownMoment = undefined;
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
   * variables, the await graph, evaluate): the present (`present`, the run itself) or the past
   * tick viewed once replayed, at once (a line stop serves its queries synchronously, on its
   * stopped thread), or once its replay has landed, waited for: a ProtocolError when it failed,
   * or when the views moved on before it landed (never an answer for another tick).
   */
  withReplayed<T, P>(method: string, present: P, answer: (moment: PastMoment | P) => T): T | Promise<T> {
    const past = this.pastView;
    if (past === null) return answer(this.viewed ?? present);
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

  /** The run's past, replayed on demand (created on first use). */
  rewindOf(): RunRewind {
    const run = this.run;
    const recording = run.recording;
    this.rewind ??= this.makeRewind(
      {
        runId: run.id,
        what: recording.what,
        frames: recording.framesRecorded,
        debug: run.inspect,
        recording: () => recording.soFar(),
        ticks: () => recording.recordedTicks('seekTick'),
        live: () =>
          recording.recordingLive() && !run.finished
            ? { busy: run.loop.readyCount() > 0 }
            : recording.following
              ? { busy: false }
              : null,
        program: this.replayableProgram(),
        lints: () => recording.lintsThen(),
      },
      recording.openedFrom !== null ? OPENED_LEADERS : null,
    );
    return this.rewind;
  }

  /** Builds checkpoints of the past as the run goes (RunRewind.follow). */
  follow(): void {
    this.rewindOf().follow();
  }

  /**
   * While a replay host scans the past (`held`), no checkpoint is built here (one under way pauses); seeks go
   * on. Not held, the building goes on.
   */
  holdCheckpoints(held: boolean): void {
    this.rewind?.holdBuilding(held);
  }

  /** The recording was replaced by a longer one (RunRecording.growOpened): the replays go on into it. */
  regrow(): void {
    this.rewind?.regrow();
  }

  /** Drops the replays (a launch undone). */
  dropReplays(): void {
    this.rewind?.close();
    this.rewind = null;
  }

  /** Drops the replays and the moment viewed (the run is being replaced). */
  close(): void {
    this.dropReplays();
    this.viewed = null;
    this.pastView = null;
    this.shownMoment = undefined;
  }

  /** The run's program, to be started again on a replay's loop exactly as start() started it (launch-programs.ts). */
  private replayableProgram(): ReplayableProgram {
    const run = this.run;
    const t = run.target;
    const options = run.options;
    const siteUrl = run.siteUrl ?? null;
    return {
      start: (loop) => startReplayed(loop, t, options, siteUrl, run.sampleInputs, run.cliArgv),
      cancelFromOutside: outsideCanceller(() => run.recording.tableNotes()?.cancels, run.recording.openedSignal),
    };
  }
}
