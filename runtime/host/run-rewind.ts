// RunRewind: a recorded run's past, on demand. To show tick N it re-executes the run on a
// loop of its own with the recorded inputs fed back (runtime/record's RunReplay: the
// recorded clock, the recorded socket inputs, the network never touched), pauses that loop
// right after tick N and wraps it as a PastMoment (past-moment.ts). The run itself (a live
// one still going, paused or not) is not touched.
//
// Checkpoints: replays are kept parked at ticks along the run. A seek takes the nearest one
// parked at or before the tick and goes on from it (only the ticks between are
// re-executed); the replay it leaves is parked where the seek ended. Between seeks, one
// replay at a time is built in the background (held while a seek runs) until some replay is
// parked in every gap of CHECKPOINT_GAP_MS of replaying, so a seek anywhere costs at most
// about that much replay.
//
// Invariants:
// - Seeks are served one at a time, in the order asked.
// - A replay that diverges from the recording, or ends before the tick, fails the seek with
//   the replay's own message; nothing is answered for a moment that was not reached, nor for
//   one whose replayed events differ from the recorded ones (checked at every seek).
// - A live run's recording is read up to its last complete tick when a replay starts; a
//   seek past that starts a new replay over the longer recording.

import type { Lint, TaskSummary } from '../../protocol/host-protocol';
import { ProtocolError } from '../../protocol/rpc';
import { EventLoop } from '../loop';
import type { Crawler } from '../crawler/crawler';
import { TaskHistory } from '../inspect/history';
import { TaskRecorder } from '../inspect/task-recorder';
import { summarizeTasks } from '../inspect/task-summaries';
import { RecordingError } from '../record/recording-errors';
import { readRunLog } from '../record/run-log';
import type { RecordedStreams } from '../record/run-recorder';
import { RunReplay } from '../record/run-replay';
import { PastMoment } from './past-moment';

/** Finished tasks a past moment lists (as many as the present's history keeps). */
const HISTORY = 1000;

/** The recorded program, started again on a replay's loop exactly as the run started it. */
export interface ReplayableProgram {
  start(loop: EventLoop): { crawler: Crawler | null; completion: Promise<unknown> };
}

/** What a rewind needs of its run. */
export interface RewindSource {
  readonly runId: number;
  /** The run or file, for messages ('run 3', 'crawl.corotrace'). */
  readonly what: string;
  /** Recorded with frames (coroutine tracking on): the replay must record alike. */
  readonly frames: boolean;
  /** The run's loop was in debug mode. */
  readonly debug: boolean;
  /** The recording up to its last complete tick. */
  streams(): RecordedStreams;
  readonly program: ReplayableProgram;
  /** The lints the run reported (each with its tick). */
  lints(): Lint[];
}

/** One replay of the run, paused after a tick. */
class ReplaySession {
  readonly finished = new TaskHistory<TaskSummary>(HISTORY);
  private pending: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;
  stoppedAt = 0;
  /** Paused right after stoppedAt, not failed: a seek may use it. */
  parked = false;
  private held = false;
  /** The replayed crawl's crawler (its progress), when the run is a crawl. */
  crawler: Crawler | null = null;

  private constructor(
    readonly ticks: number,
    readonly replay: RunReplay,
    readonly loop: EventLoop,
    readonly recorder: TaskRecorder,
  ) {}

  static start(source: RewindSource, tick: number): { session: ReplaySession; reached: Promise<void> } {
    const streams = source.streams();
    const log = readRunLog(streams.events, streams.gaps, streams.payload, source.what);
    let session: ReplaySession | null = null;
    const replay = new RunReplay(log, streams.events, source.what, {
      frames: source.frames,
      stopAfterTick: tick,
      onStop: (at) => session?.stopped(at),
    });
    // Quiet: what the replayed loop would log (a callback's error) was logged by the run already.
    const loop = new EventLoop({ clock: replay.clock, debug: source.debug, logger: { warn: () => undefined, error: () => undefined } });
    const recorder = TaskRecorder.attach(loop);
    replay.attach(loop);
    const s = (session = new ReplaySession(log.times.length, replay, loop, recorder));
    loop.addObserver({ taskDone: (t) => void s.finished.add(summarizeTasks([t], { recorder })[0]!) });
    const reached = s.wait();
    let program: ReturnType<ReplayableProgram['start']>;
    try {
      program = source.program.start(loop);
    } catch (e) {
      s.fail(e);
      return { session: s, reached };
    }
    s.crawler = program.crawler;
    program.completion.then(
      () => s.fail(new RecordingError(`the replay of ${source.what} ended after tick ${replay.ticksReplayed} without pausing`)),
      (e: unknown) => s.fail(e),
    );
    return { session: s, reached };
  }

  /** Checks the replayed events so far against the recording; a difference fails the session. */
  check(): void {
    try {
      this.replay.checkSoFar();
    } catch (e) {
      this.fail(e);
      throw e;
    }
  }

  /** Goes on to a later tick. */
  advance(tick: number): Promise<void> {
    const reached = this.wait();
    this.parked = false;
    this.replay.continueTo(tick);
    return reached;
  }

  /** Holds a replay under way (a seek needs the process); release() lets it go on. */
  hold(): void {
    if (this.parked || this.held || this.failure !== null) return;
    this.held = true;
    this.loop.pause();
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    // Reached its tick while held: it stays parked there.
    if (!this.parked && this.failure === null) this.loop.resume();
  }

  get failed(): Error | null {
    return this.failure;
  }

  close(): void {
    this.replay.detach();
    this.recorder.detach();
  }

  private wait(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => (this.pending = { resolve, reject }));
  }

  private stopped(tick: number): void {
    this.stoppedAt = tick;
    this.parked = true;
    const p = this.pending;
    this.pending = null;
    p?.resolve();
  }

  private fail(e: unknown): void {
    const error = e instanceof Error ? e : new Error(String(e));
    this.failure ??= error;
    this.parked = false;
    const p = this.pending;
    this.pending = null;
    p?.reject(error);
  }
}

/** A replay from the start costs about this long per gap between two checkpoints, at most. */
const CHECKPOINT_GAP_MS = 100;
/** Replays kept parked at once (each holds the program's state at its tick). */
const MAX_SESSIONS = 40;

export class RunRewind {
  /** Every replay parked at a tick (the viewed moment's among them), and the one being built. */
  private sessions: ReplaySession[] = [];
  private viewedSession: ReplaySession | null = null;
  private building: { session: ReplaySession; tick: number } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private seeking = 0;
  private closed = false;
  /** Replay speed measured on the first replay: ticks per millisecond. */
  private ticksPerMs: number | null = null;
  private ticksRecorded = 0;

  constructor(
    private readonly source: RewindSource,
    /** Replay time between two checkpoints, at most (tests make it small). */
    private readonly gapMs = CHECKPOINT_GAP_MS,
  ) {}

  /** The run as it was right after `tick` (1 .. the ticks recorded). */
  seek(tick: number, ticksRecorded: number): Promise<PastMoment> {
    this.seeking++;
    this.building?.session.hold();
    const job = this.queue.then(() => this.seekNow(tick, ticksRecorded));
    this.queue = job.catch(() => undefined).finally(() => {
      if (--this.seeking === 0) {
        this.building?.session.release();
        this.buildCheckpoints();
      }
    });
    return job;
  }

  /** Ticks at which a replay is parked now (for tests and the bench). */
  parkedTicks(): number[] {
    return this.sessions.filter((s) => s.parked).map((s) => s.stoppedAt);
  }

  /** Drops the replays (the run is released, or replaced). */
  close(): void {
    this.closed = true;
    for (const s of this.sessions) s.close();
    this.building?.session.close();
    this.sessions = [];
    this.building = null;
    this.viewedSession = null;
  }

  private async seekNow(tick: number, ticksRecorded: number): Promise<PastMoment> {
    if (this.closed) throw new ProtocolError(`seekTick: run ${this.source.runId} is gone`, 'noRun');
    this.ticksRecorded = ticksRecorded;
    // The nearest replay parked at or before the tick, over a recording that has it.
    let best: ReplaySession | null = null;
    for (const s of this.sessions) {
      if (!s.parked || s.stoppedAt > tick || s.ticks < tick) continue;
      if (best === null || s.stoppedAt > best.stoppedAt) best = s;
    }
    let session: ReplaySession;
    try {
      if (best !== null) {
        session = best;
        if (session.stoppedAt < tick) await session.advance(tick);
      } else {
        const t0 = performance.now();
        const started = ReplaySession.start(this.source, tick);
        session = started.session;
        this.sessions.push(session);
        await started.reached;
        const ms = performance.now() - t0;
        if (this.ticksPerMs === null && tick >= 50 && ms > 0) this.ticksPerMs = tick / ms;
      }
      // Exact or refused: the replayed events so far must be the recorded ones.
      session.check();
    } catch (e) {
      this.drop((s) => s.failed !== null);
      if (this.viewedSession === null || this.viewedSession.failed !== null) this.viewedSession = null;
      if (e instanceof RecordingError) throw new ProtocolError(`seekTick: ${e.message}`, 'replayFailed');
      throw new ProtocolError(`seekTick: the replay of ${this.source.what} to tick ${tick} failed: ${e instanceof Error ? e.message : String(e)}`, 'replayFailed');
    }
    this.viewedSession = session;
    return new PastMoment(this.source.runId, tick, session.loop, session.crawler, session.recorder, session.finished, () => this.source.lints());
  }

  /**
   * Between seeks: park replays along the run so that any tick is at most one gap of replay
   * away (CHECKPOINT_GAP_MS of replaying), one replay at a time, held while a seek runs.
   */
  private buildCheckpoints(): void {
    if (this.closed || this.building !== null || this.seeking > 0 || this.ticksPerMs === null) return;
    const gap = Math.max(1, Math.floor(this.ticksPerMs * this.gapMs));
    const total = this.ticksRecorded;
    this.drop((s) => s.failed !== null || s.ticks < Math.min(total, s.stoppedAt));
    // The first checkpoint target with no replay parked within a gap after it.
    let target = 0;
    for (let t = gap; t < total; t += gap) {
      if (!this.sessions.some((s) => s.parked && s.stoppedAt >= t && s.stoppedAt < t + gap && s.ticks >= t)) {
        target = t;
        break;
      }
    }
    if (target === 0 || this.sessions.length >= MAX_SESSIONS) return;
    let started: ReturnType<typeof ReplaySession.start>;
    try {
      started = ReplaySession.start(this.source, target);
    } catch {
      return;
    }
    this.building = { session: started.session, tick: target };
    started.reached.then(
      () => {
        this.building = null;
        if (this.closed) started.session.close();
        else this.sessions.push(started.session);
        this.buildCheckpoints();
      },
      () => {
        this.building = null;
        started.session.close();
      },
    );
  }

  private drop(which: (s: ReplaySession) => boolean): void {
    const keep: ReplaySession[] = [];
    for (const s of this.sessions) {
      if (s !== this.viewedSession && which(s)) s.close();
      else keep.push(s);
    }
    this.sessions = keep;
  }
}
