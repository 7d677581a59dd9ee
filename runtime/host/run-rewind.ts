// RunRewind: a recorded run's past, on demand. To show tick N it re-executes the run on a
// loop of its own with the recorded inputs fed back (runtime/record's RunReplay: the
// recorded clock, the recorded socket inputs, the network never touched), pauses that loop
// right after tick N and wraps it as a PastMoment (past-moment.ts). The run itself (a live
// one still going, paused or not) is not touched.
//
// A replay paused at a tick is kept: a later seek goes on from it (only the ticks between
// are re-executed); an earlier one starts a new replay from the recording's beginning.
//
// Invariants:
// - Seeks are served one at a time, in the order asked.
// - A replay that diverges from the recording, or ends before the tick, fails the seek with
//   the replay's own message; nothing is answered for a moment that was not reached.
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

  /** Goes on to a later tick. */
  advance(tick: number): Promise<void> {
    const reached = this.wait();
    this.replay.continueTo(tick);
    return reached;
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
    const p = this.pending;
    this.pending = null;
    p?.resolve();
  }

  private fail(e: unknown): void {
    const error = e instanceof Error ? e : new Error(String(e));
    this.failure ??= error;
    const p = this.pending;
    this.pending = null;
    p?.reject(error);
  }
}

export class RunRewind {
  private session: ReplaySession | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly source: RewindSource) {}

  /** The run as it was right after `tick` (1 .. the ticks recorded). */
  seek(tick: number, ticksRecorded: number): Promise<PastMoment> {
    const job = this.queue.then(() => this.seekNow(tick, ticksRecorded));
    this.queue = job.catch(() => undefined);
    return job;
  }

  /** Drops the replays (the run is released, or replaced). */
  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = null;
  }

  private async seekNow(tick: number, ticksRecorded: number): Promise<PastMoment> {
    if (this.closed) throw new ProtocolError(`seekTick: run ${this.source.runId} is gone`, 'noRun');
    let s = this.session;
    try {
      if (s !== null && s.failed === null && s.stoppedAt < tick && tick <= s.ticks) {
        await s.advance(tick);
      } else if (s === null || s.stoppedAt !== tick || s.failed !== null || s.ticks < Math.min(tick, ticksRecorded)) {
        s?.close();
        this.session = null;
        const started = ReplaySession.start(this.source, tick);
        s = started.session;
        this.session = s;
        await started.reached;
      }
    } catch (e) {
      this.session?.close();
      this.session = null;
      if (e instanceof RecordingError) throw new ProtocolError(`seekTick: ${e.message}`, 'replayFailed');
      throw new ProtocolError(`seekTick: the replay of ${this.source.what} to tick ${tick} failed: ${e instanceof Error ? e.message : String(e)}`, 'replayFailed');
    }
    return new PastMoment(this.source.runId, tick, s.loop, s.crawler, s.recorder, s.finished, () => this.source.lints());
  }
}
