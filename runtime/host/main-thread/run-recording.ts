// Runs on a runtime host's main thread (a live host's run, and a line replay host's opened copy).
//
// RunRecording: a Run's recording and what is read from it: grown by a live run's RunRecorder,
// or an opened file's streams with what was saved beside them. One decode of the log (RunLogFeed)
// feeds the timeline and the task table by tick, each read only as far as is new. A line replay
// host's copy grows (growOpened, growInPlace).
//
// Invariants: a mid-tick recording's open tick is never counted nor read; a growth is taken only
// when it continues this recording exactly, else nothing changes; notes and lints only grow.

import type { LaunchTarget, Lint, RecordingMark, SourcePosition, Timeline } from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';
import type { RunRecorder, RecordedStreams } from '../../record/run-recorder';
import { RunTimeline } from '../../record/run-timeline';
import type { AskedCancel, OutsideCancels } from '../../record/asked-cancels';
import { RecordedTasks } from '../../record/recorded-tasks';
import { RunLogFeed } from '../../record/run-log-feed';
import type { TableNotes } from '../../record/await-details';
import { wholeRecording, type RecordingSoFar } from '../../record/run-log';
import { GrowingRecording, type StreamCounts, type StreamMark } from '../../record/recording-growth';
import { RecordingError } from '../../record/recording-errors';
import type { OpenedRecording, ReadGrowth } from './recordings';
import { UrlFailures } from './url-failures';
import type { CrawlSignal } from './launch-programs';

/** What an opened recording gives its run: the recording and what was saved beside it. */
export type SavedRecording = Pick<OpenedRecording, 'program' | 'streams' | 'lints' | 'notes' | 'urlFailures'>;

/** What the recording needs of its run. */
export interface RecordingOwner {
  readonly id: number;
  readonly target: LaunchTarget;
  readonly siteUrl: string | undefined;
  readonly finished: boolean;
  /** The live run's lints (LintCollector): those it reported. */
  readonly lints: { lints(): Lint[] };
  /** The live run's task table: where a task alive now was created (a timeline lane's site). */
  readonly tasks: { createdSiteOf(taskId: number): SourcePosition | null };
}

export class RunRecording {
  /** The run's recording, once it has finished (saveRecording writes it), or the recording opened. */
  private current: RecordedStreams | null = null;
  /** The recording file this run was opened from (openRecording): a run that never ran here. */
  openedFrom: string | null = null;
  /** Whether the recording holds frame chains (its replays must record alike); the run's own inspect unless opened. */
  framesRecorded: boolean;
  /**
   * The signal that interrupted an opened CLI recording's crawl: its replays make that cancel as the CLI did,
   * and its timeline names it.
   */
  openedSignal: CrawlSignal | null = null;
  /**
   * An opened copy of a run still going (a line replay host following it): its replays keep up at a share of
   * the time, as a live run's do.
   */
  following = false;
  /** The URLs the crawl recorded as failed, kept with a recorded run's recording (or as saved with an opened one). */
  urlFailures = new UrlFailures();
  /** The recording's task table by tick, read from its log (recorded-tasks.ts), fed as it grows. */
  private recordedTasks: RecordedTasks | null = null;
  private timelineState: RunTimeline | null = null;
  /** The one decode of the run's log feeding its timeline and its task table by tick (run-log-feed.ts). */
  private logFeed: RunLogFeed | null = null;
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

  constructor(
    private readonly run: RecordingOwner,
    /** Records the run when launched with options.record (runtime/record); null: not recorded as it runs. */
    readonly recorder: RunRecorder | null,
    frames: boolean,
    /** Launched with options.record, but its program cannot be recorded, and why (launch-programs.ts unrecordedWhy). */
    readonly unrecorded: string | null = null,
  ) {
    this.framesRecorded = frames;
  }

  /** The run's recording once it has finished, or the recording opened; null while a live run records. */
  get streams(): RecordedStreams | null {
    return this.current;
  }

  /** The run or file, for messages ('run 3', 'crawl.corotrace'). */
  get what(): string {
    return this.openedFrom ?? `run ${this.run.id}`;
  }

  /** Makes this an opened recording's (Run.opened): its streams and what was saved beside them. */
  open(path: string, opened: SavedRecording, following: boolean): void {
    this.openedFrom = path;
    this.openedLints = opened.lints;
    this.openedNotes = opened.notes;
    this.urlFailures = new UrlFailures(opened.urlFailures);
    this.openedSignal = opened.program.signal ?? null;
    this.current = opened.streams;
    this.following = following;
  }

  /** The live run has finished: its recording is whole. */
  finish(): void {
    if (this.recorder !== null) this.current = this.recorder.finish();
  }

  /** A live run recording as it goes, not finished (its recording read through its last complete tick). */
  recordingLive(): boolean {
    return this.current === null && this.recorder !== null;
  }

  /** The run is recorded (launched with options.record) or was opened from a recording. */
  get recorded(): boolean {
    return this.recorder !== null || this.current !== null;
  }

  /** The recording up to its last complete tick: a live run's views of its growing streams, or the whole. */
  soFar(): RecordingSoFar {
    return this.current !== null ? wholeRecording(this.current) : this.recorder!.soFar();
  }

  /**
   * The recording so far between ticks (a live run's views through its last complete tick, a finished or
   * opened run's streams), where it ends and its counts; null: not recorded.
   */
  recordingNow(): { readonly soFar: RecordingSoFar; readonly mark: StreamMark; readonly counts: StreamCounts } | null {
    const r = this.current;
    if (r !== null)
      return {
        soFar: wholeRecording(r),
        mark: { events: r.events.length, gaps: r.gaps.length, payload: r.payload.length },
        counts: { ticks: r.ticks, steps: r.steps, tasks: r.tasks, sockets: r.sockets },
      };
    if (this.recorder === null) return null;
    return { soFar: this.recorder.soFar(), ...this.recorder.markSoFar() };
  }

  /** The recording through the start of the tick running now (a live run stopped on a line); null: not recorded. */
  streamsMidTick(): RecordedStreams | null {
    return this.recorder?.streamsWithOpenTick() ?? null;
  }

  /** Ticks recorded so far (a ProtocolError for a run not recorded); a mid-tick recording's open tick is not one. */
  recordedTicks(method: string): number {
    if (this.current !== null) return this.current.openTick === true ? this.current.ticks - 1 : this.current.ticks;
    if (this.recorder !== null) return this.recorder.ticks;
    throw this.notRecorded(method);
  }

  /** The refusal of `method` for a run not recorded, and why (a program a recording cannot hold, or not asked). */
  notRecorded(method: string): ProtocolError {
    return new ProtocolError(
      this.unrecorded !== null
        ? `${method}: run ${this.run.id} was not recorded: ${this.unrecorded}`
        : `${method}: run ${this.run.id} was not recorded: launch it with options.record (the extension's coroscope.record setting)`,
      'notRecorded',
    );
  }

  /** The run's timeline, or what is new after `sinceTick`; `taskId`: only that task's lane and marks. */
  timeline(sinceTick: number, taskId?: number): Timeline {
    this.recordedTicks('timeline');
    const t = (this.timelineState ??= new RunTimeline(this.what, this.outsideCancels(), this.logFeedNow()));
    const details = this.awaitDetails();
    const asked = this.tableNotes()?.cancels ?? null;
    if (this.current !== null) t.update(this.current.events, this.current.events.length, details, asked);
    else {
      const soFar = this.recorder!.eventsSoFar();
      t.update(soFar.bytes, soFar.upTo, details, asked);
    }
    const timeline = t.timeline(this.run.id, sinceTick, !this.run.finished, taskId);
    const failed = this.urlFailures.between(timeline.sinceTick, timeline.ticks, taskId);
    if (failed.length > 0) timeline.urlFailures = failed;
    for (const lane of timeline.lanes) {
      const site = this.run.tasks.createdSiteOf(lane.taskId);
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
    return this.recorder?.tableNotes() ?? this.openedNotes;
  }

  /** The run's one log decode, made when its first reader is. */
  private logFeedNow(): RunLogFeed {
    return (this.logFeed ??= new RunLogFeed(this.what));
  }

  /**
   * The recording's task table by tick, read up to its last complete tick (only what is new since the last
   * reading).
   */
  recordedTasksNow(): RecordedTasks {
    const t = (this.recordedTasks ??= new RecordedTasks(this.what, this.outsideCancels(), this.logFeedNow()));
    const notes = this.tableNotes();
    // (A mid-tick recording's open tick is read as started, nothing in it: never asked for.)
    if (this.current !== null) t.update(this.current.events, this.current.events.length, notes);
    else {
      const soFar = this.recorder!.eventsSoFar();
      t.update(soFar.bytes, soFar.upTo, notes);
    }
    return t;
  }

  /** The lints the run reported, each with its tick (the present's, or those saved with an opened recording). */
  lintsThen(): Lint[] {
    return this.openedFrom !== null ? this.openedLints : this.run.lints.lints();
  }

  /**
   * A line replay host's run (an opened copy of a live run, line-replay-host.ts) given the same
   * live run's recording taken later (followed as it runs, at a line stop through its open
   * tick, or once it has finished): it reads the longer one from now on (the caller has the
   * replays parked along it go on into it: RunRewind.regrow). `following`: the run is still
   * going (more will come). False, nothing changed, when `streams` is not this run's recording
   * grown (its streams a prefix of the new ones, the same program).
   */
  growOpened(opened: SavedRecording, following = false): boolean {
    const { program, streams } = opened;
    const now = this.current;
    if (this.openedFrom === null || now === null || streams.events.length < now.events.length) return false;
    if (
      JSON.stringify(program.target) !== JSON.stringify(this.run.target) ||
      program.frames !== this.framesRecorded ||
      (program.siteUrl ?? undefined) !== this.run.siteUrl
    )
      return false;
    const prefix = (a: Uint8Array, b: Uint8Array): boolean =>
      a.length <= b.length &&
      Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, a.length));
    if (!prefix(now.events, streams.events) || !prefix(now.gaps, streams.gaps) || !prefix(now.payload, streams.payload))
      return false;
    this.current = streams;
    this.openedLints = opened.lints;
    this.openedNotes = opened.notes;
    this.urlFailures = new UrlFailures(opened.urlFailures);
    this.grown = null;
    this.grownNotes = null;
    this.following = following;
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
    const now = this.current;
    if (this.openedFrom === null || now === null || now.openTick === true)
      throw new ProtocolError(
        `growRecording: run ${this.run.id} is not an opened copy of a run between ticks`,
        'badState',
      );
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
        `growRecording: run ${this.run.id}'s recording ends at ${JSON.stringify(at)}, the growth starts at ${JSON.stringify(growth.from)}`,
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
    this.current = grown.streams();
    this.following = following;
    return this.current.ticks;
  }
}
