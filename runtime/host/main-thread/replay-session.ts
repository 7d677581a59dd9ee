// Runs on a runtime host's main thread (a live host's, and a line replay host's).
//
// ReplaySession: one replay of a recorded run on a loop of its own, the recorded inputs fed back,
// paused right after a tick: what RunRewind keeps parked as checkpoints and takes on to a seek's
// tick. Also RewindSource and ReplayableProgram, what a rewind needs of its run and program.
//
// Invariants: a session is parked, failed (a failure sticks), or going on to its tick, never two
// at once; held, resting or closed it runs nothing; its loop logs nothing (the run logged it
// already), and what its program prints is not the run's output (replayRunsNow).

import type { Lint, TaskSummary } from '../../../protocol/host-protocol';
import { EventLoop } from '../../loop';
import type { Task } from '../../task';
import type { Crawler } from '../../crawler/crawler';
import { TaskHistory } from '../../inspect/history';
import { TaskRecorder } from '../../inspect/task-recorder';
import { summarizeTasks } from '../../inspect/task-summaries';
import { RecordingError } from '../../record/recording-errors';
import type { RecordingSoFar, RunLog } from '../../record/run-log';
import { RunReplay } from '../../record/run-replay';
import { CreationSites } from './creation-sites';
import { MOMENT_HISTORY } from './recorded-moment';
import { runningLoopOrNull } from '../../running-loop';
import { realNow } from '../../outside-values';

/** Replays whose program is being made again or started (its module loaded, its first ticks run) right now. */
let startingNow = 0;

/**
 * Whether the code running now is a replay's (its program made again, or a tick of a replayed loop): what it
 * prints was printed by the run already, and is not the program's output now.
 */
export function replayRunsNow(): boolean {
  return startingNow > 0 || runningLoopOrNull()?.isReplayed() === true;
}

/**
 * A recorded program made again on a replay's loop, not run yet: its crawler is known before any tick replays
 * (a recording's tick feed drives the loop at once, so its ticks, and a line stop in one, come within run()).
 */
export interface StartedReplay {
  readonly crawler: Crawler | null;
  /** Runs the program on the replay's loop: settles when it ends (a replay pauses before that). */
  run(): Promise<unknown>;
}

/** The recorded program, started again on a replay's loop exactly as the run started it. */
export interface ReplayableProgram {
  start(loop: EventLoop): StartedReplay;
  /**
   * Makes again a cancel asked from outside the loop as the recorded run's tool made it
   * (RunReplayOptions.cancelFromOutside; absent: by no one).
   */
  readonly cancelFromOutside?: (task: Task<unknown>, noTask: number) => void;
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
  /**
   * The recording up to its last complete tick: views of a live run's growing streams (read incrementally),
   * or the whole of a finished one.
   */
  recording(): RecordingSoFar;
  /** Ticks recorded so far (cheaper than reading the recording). */
  ticks(): number;
  /** The run is live (still recording); `busy`: its loop has work ready now. Absent: a finished run. */
  live?(): { busy: boolean } | null;
  readonly program: ReplayableProgram;
  /** The lints the run reported (each with its tick). */
  lints(): Lint[];
}

/** A reading of the recording: its log, decoded once and shared by every replay over it. */
export interface LogReading {
  readonly ticks: number;
  readonly log: RunLog;
  readonly events: Buffer;
}

/** One replay of the run, paused after a tick. */
export class ReplaySession {
  readonly finished = new TaskHistory<TaskSummary>(MOMENT_HISTORY);
  private pending: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;
  stoppedAt = 0;
  /** Paused right after stoppedAt, not failed: a seek may use it. */
  parked = false;
  private held = false;
  /** Built as a leader (RunRewind's `lead`): advanced as the recording grows while it stays the furthest one. */
  leader = false;
  /** Paused for the rest of a slice (a checkpoint built in a live run's idle time). */
  private resting: ReturnType<typeof setTimeout> | null = null;
  /** When set, the replay runs a slice at a time: asked after each tick whether to rest, and for how long (ms). */
  pace: (() => number) | null = null;
  private sliceStart = 0;
  /** Milliseconds spent running ticks, and the ticks run (the replay's speed). */
  busyMs = 0;
  private tickStartedAt = 0;
  /** Inside one of its ticks (from the loop's tickStart to its tickEnd). */
  private inTick = false;
  /** Counts each tick the replay runs (RunRewind's total, for tests and the bench). */
  onTick: (() => void) | null = null;
  /** The replayed crawl's crawler (its progress), when the run is a crawl. */
  crawler: Crawler | null = null;

  private constructor(
    private reading: LogReading,
    readonly replay: RunReplay,
    readonly loop: EventLoop,
    readonly recorder: TaskRecorder,
  ) {}

  /**
   * Where each replayed task was created (as the live run keeps them: its past moments show the same creation
   * sites).
   */
  readonly creationSites = new CreationSites();

  /**
   * `beforeStart`: called with the replay's loop and session before the program starts on it (before its
   * first tick).
   */
  static start(
    source: RewindSource,
    reading: LogReading,
    tick: number,
    beforeStart?: (loop: EventLoop, session: ReplaySession) => void,
    onTick?: () => void,
  ): { session: ReplaySession; reached: Promise<void> } {
    let session: ReplaySession | null = null;
    const replay = new RunReplay(reading.log, reading.events, source.what, {
      frames: source.frames,
      stopAfterTick: tick,
      onStop: (at) => session?.stopped(at),
      ...(source.program.cancelFromOutside !== undefined
        ? { cancelFromOutside: source.program.cancelFromOutside }
        : {}),
    });
    // Quiet: what the replayed loop would log (a callback's error) was logged by the run already.
    const loop = new EventLoop({
      clock: replay.clock,
      debug: source.debug,
      logger: { warn: () => undefined, error: () => undefined },
    });
    const recorder = TaskRecorder.attach(loop);
    replay.attach(loop);
    const s = (session = new ReplaySession(reading, replay, loop, recorder));
    s.onTick = onTick ?? null;
    loop.addObserver({
      // As the live run, which captures them with inspection on (recorded with frames).
      ...(source.frames ? { taskCreated: (t: Task<unknown>) => s.creationSites.capture(t) } : {}),
      taskDone: (t) => void s.finished.add(summarizeTasks([t], { recorder })[0]!),
      tickStart: () => {
        s.inTick = true;
        s.tickStartedAt = realNow();
      },
      tickEnd: () => s.afterTick(),
    });
    const reached = s.wait();
    s.sliceStart = realNow();
    let completion: Promise<unknown>;
    startingNow++;
    try {
      beforeStart?.(loop, s);
      const program = source.program.start(loop);
      s.crawler = program.crawler;
      completion = program.run();
    } catch (e) {
      s.fail(e);
      return { session: s, reached };
    } finally {
      startingNow--;
    }
    completion.then(
      () =>
        s.fail(
          new RecordingError(`the replay of ${source.what} ended after tick ${replay.ticksReplayed} without pausing`),
        ),
      (e: unknown) => s.fail(e),
    );
    return { session: s, reached };
  }

  /** Ticks of the recording this replay reads. */
  get ticks(): number {
    return this.reading.ticks;
  }

  /** The tick it is at: parked there, or replayed up to (a checkpoint being built, held or not). */
  get position(): number {
    return this.parked ? this.stoppedAt : this.replay.ticksReplayed;
  }

  /** Reads a longer recording from here on (a live run's, read again). */
  extend(reading: LogReading): void {
    if (reading.ticks <= this.reading.ticks) return;
    this.replay.extend(reading.log, reading.events);
    this.reading = reading;
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

  /**
   * Going on to its tick (advance), not there yet: stops at `tick` instead (later, or earlier and not begun
   * yet); false when it cannot.
   */
  retarget(tick: number): boolean {
    return !this.parked && this.failure === null && !this.held && this.replay.retarget(tick);
  }

  /**
   * Going on to its tick (advance), not there yet: stops where it is now, between two ticks
   * (parked after the last one replayed, its wait resolved: a checkpoint like any other);
   * false when it cannot (in a tick, parked, held, failed, or no tick replayed yet).
   */
  interrupt(): boolean {
    const at = this.replay.ticksReplayed;
    if (this.parked || this.failure !== null || this.held || this.inTick || at < 1) return false;
    this.loop.pause();
    this.stopped(at);
    return true;
  }

  /** Goes on to a later tick (or stays, when it is there already), at full speed. */
  advance(tick: number): Promise<void> {
    const reached = this.wait();
    this.held = false;
    this.pace = null;
    this.stopRest();
    if (this.position === tick) {
      this.stopped(tick);
      return reached;
    }
    this.parked = false;
    this.sliceStart = realNow();
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
    this.goOn();
  }

  get failed(): Error | null {
    return this.failure;
  }

  close(): void {
    this.stopRest();
    // A replay let go mid-run must not run on: detached from its recording, its loop would go on running the
    // program on a clock that no longer moves (its timers never due: a busy loop for good).
    this.loop.pause();
    this.replay.detach();
    this.recorder.detach();
  }

  /** After each replayed tick: its time, and a rest when paced and its slice is over. */
  private afterTick(): void {
    const now = realNow();
    this.inTick = false;
    this.busyMs += now - this.tickStartedAt;
    this.onTick?.();
    if (this.pace === null || this.parked || this.held || this.resting !== null) return;
    const rest = this.pace();
    if (rest <= 0) return;
    this.loop.pause();
    this.resting = setTimeout(() => {
      this.resting = null;
      this.goOn();
    }, rest);
  }

  /** The milliseconds of this slice so far (a pace decides from it). */
  sliceMs(): number {
    return realNow() - this.sliceStart;
  }

  private stopRest(): void {
    if (this.resting === null) return;
    clearTimeout(this.resting);
    this.resting = null;
  }

  /** Runs on unless something holds it: parked, held by a seek, resting, or failed. */
  private goOn(): void {
    if (this.parked || this.held || this.resting !== null || this.failure !== null) return;
    this.sliceStart = realNow();
    this.loop.resume();
  }

  private wait(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => (this.pending = { resolve, reject }));
  }

  private stopped(tick: number): void {
    this.stoppedAt = tick;
    this.parked = true;
    this.stopRest();
    const p = this.pending;
    this.pending = null;
    p?.resolve();
  }

  private fail(e: unknown): void {
    const error = e instanceof Error ? e : new Error(String(e));
    this.failure ??= error;
    this.parked = false;
    this.stopRest();
    const p = this.pending;
    this.pending = null;
    p?.reject(error);
  }
}
