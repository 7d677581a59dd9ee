// Runs on a live runtime host's line debugger worker thread. ReplayHosts: the run's line replay
// hosts and when each is started, fed and ended: the stop's (forked at a recorded run's launch or
// first line stop, following the run by paced growths, handed on at the run's end to be the hit
// replay host), and through parts of their own the hit replay host and a finished run's scan
// replay host (hit-replay-hosts.ts) and a line stop's warm-up (line-stop-warm-up.ts); a scan beside a
// live stop's past line shown gets one of its own (besideStop), closed after its use.
//
// Invariants: at most one of each kept per run, all ended with the run and when the client goes; what
// an ended replay host showed is dropped from the worker's position (PastView.drop); uses that
// give the stop's host a recording run one at a time (inQueue); the stop's replay host holds the
// current stop's past (one opened for a stop since left is opened again); a recording handed over
// is never shorter than the one it holds, nor of another run.

import { stopPlace } from './stop-place';
import { unlinkSync } from 'node:fs';
import { ProtocolError } from '../../../protocol/rpc';
import type { LineDebugger } from './line-debugger';
import { LineReplayHost, lineReplayFile, type HostStart, type ReplayCopy, type ReplayGrowth } from './line-replay-host';
import type { MainThreadLink } from './main-thread-link';
import { HitReplayHosts } from './hit-replay-hosts';
import { LineStopWarmUp } from './line-stop-warm-up';
import type { PastView } from './past-view';

/** A followed run's recording is first handed to its replay host this soon after its launch (ms)... */
const FIRST_FEED_MS = 100;
/** ... then at most this often (ms)... */
const FEED_MS = 500;
/**
 * ... and with at least this many times the main thread's time writing it between two (a growth's is what was
 * added since the last: small).
 */
const FEED_PACE = 20;

export class ReplayHosts {
  // The current run as launched or opened here: recorded (its past replayable), finished; and
  // whether a debugger has set its breaks on this host (a debug session: the panel sets none).
  runRecorded = false;
  runFinished = false;
  /** Its id, once the launch or open is answered (null: not yet). */
  runId: number | null = null;
  debugged = false;

  /** The hit replay host and the scan replay host beside it (the past with no line stop). */
  readonly hitHosts: HitReplayHosts;
  /** The warm-up of the current line stop's past (no more than one at a time, never beside a request). */
  readonly warmUp = new LineStopWarmUp(
    (method) => this.ofStop(method),
    () => this.lineDebugger(),
  );

  /** The stop's replay host (the past of the run's stops on a line), and one being forked. */
  private replay: LineReplayHost | null = null;
  private replayForking: Promise<LineReplayHost> | null = null;
  /** Uses of the stop's replay host that give it a recording, one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Replay hosts (forked or being forked) handed on from the line stops' role to the hit searches'. */
  private readonly handedOn = new WeakSet<Promise<LineReplayHost>>();
  // A recorded run launched here and debugged, followed: its replay host is given the recording so far now and then.
  private followTimer: ReturnType<typeof setTimeout> | null = null;
  private followed = false;
  /**
   * The live line stops seen and forgotten so far: a stop's past opened while this changed is of a stop gone
   * (ofStopNow).
   */
  private stopChanges = 0;

  constructor(
    private readonly hostStart: HostStart | null,
    /** This host is itself a line replay host: it starts none of its own ahead of need. */
    private readonly isLineReplay: boolean,
    private readonly main: MainThreadLink,
    private readonly lineDebugger: () => LineDebugger,
    private readonly view: PastView,
  ) {
    this.hitHosts = new HitReplayHosts(hostStart, isLineReplay, main, view, () => ({
      recorded: this.runRecorded,
      finished: this.runFinished,
    }));
  }

  /** The stop's replay host (null: none forked yet). */
  get stop(): LineReplayHost | null {
    return this.replay;
  }

  /** A new run (a launch, a recording opened): the previous one's replay hosts go. */
  newRun(recorded: boolean, finished: boolean): void {
    this.endStop();
    this.hitHosts.end();
    this.runRecorded = recorded;
    this.runFinished = finished;
    this.runId = null;
  }

  /**
   * The run ended (`stopped`: by a view, its sessions end with it, none goes into its past):
   * its stop's replay host with it, unless it followed the run: given the whole recording, it
   * is the hit replay host (still being forked, maybe: a short run).
   */
  runEnded(stopped: boolean): void {
    const kept =
      this.followed && !stopped
        ? this.replay !== null && !this.replay.isClosed
          ? Promise.resolve(this.replay)
          : this.replayForking
        : null;
    if (kept !== null) {
      this.handedOn.add(kept);
      this.view.drop('stop');
      this.replay = null;
      this.replayForking = null;
    }
    this.endStop();
    this.hitHosts.end();
    this.runFinished = true;
    if (stopped) this.runRecorded = false;
    if (kept !== null) this.keepForHits(kept);
  }

  /** Both replay hosts end (the client went away). */
  endAll(): void {
    this.endStop();
    this.hitHosts.end();
  }

  /** The stop's replay host ends (and the run is followed no more). */
  endStop(): void {
    this.warmUp.cancel();
    this.stopFollowing();
    this.view.drop('stop');
    this.replay?.close();
    this.replay = null;
    const forking = this.replayForking;
    this.replayForking = null;
    forking?.then(
      (r) => r.close(),
      () => undefined,
    );
  }

  /** The stop's replay host forgets its stop's past (the run went on, or stopped in another tick). */
  forgetStop(): void {
    this.stopChanges++;
    this.warmUp.cancel();
    this.view.drop('stop');
    this.replay?.forget();
  }

  /**
   * The live thread stopped on a line (tick `tick`): the run is followed no more (a feed asked
   * of the main thread while a line step runs would be stepped through); a newer stop in
   * another tick forgets the previous one's past, in the same tick (a line step) the replay
   * host serves this one too; a recorded run's first stop forks its replay host now, idle, so a
   * Step Back finds it loaded.
   */
  onLineStop(tick: number, stopRecorded: boolean): void {
    this.stopChanges++;
    this.stopFollowing();
    const r = this.replay;
    const held = r !== null && r.hasLiveStop() ? r.stop : null;
    if (r !== null && held !== null && held.tick !== tick) this.forgetStop();
    else if (r !== null && held !== null) {
      r.stale = true;
      this.view.leaveTick();
    }
    if (
      !this.isLineReplay &&
      this.hostStart !== null &&
      this.replay === null &&
      this.replayForking === null &&
      stopRecorded
    )
      void this.fork().catch(() => undefined);
    // Its past prepared while it is read, once it has been shown a moment (not at each stop of a quick F10 run).
    if (!this.isLineReplay && this.hostStart !== null && stopRecorded) this.warmUp.schedule();
  }

  /**
   * Ahead of a debugger's use of the past: a recorded run going on is followed (its replay
   * host forked now); a finished one's hit replay host is started now.
   */
  prepare(): void {
    if (this.isLineReplay || this.hostStart === null || !this.debugged || !this.runRecorded || this.runId === null)
      return;
    if (this.runFinished) {
      this.hitHosts.startAhead();
      return;
    }
    if (this.followed) return;
    this.followed = true;
    void this.fork().catch(() => undefined);
    this.scheduleFeed(FIRST_FEED_MS);
  }

  /** The stop's replay host, holding the past of the current line stop (given it at its first use). */
  ofStop(method: string): Promise<LineReplayHost> {
    return this.inQueue(() => this.ofStopNow(method));
  }

  private async ofStopNow(method: string): Promise<LineReplayHost> {
    const d = this.lineDebugger();
    const replay = this.replay;
    if (replay !== null && replay.hasLiveStop() && !replay.stale && !replay.isClosed) return replay;
    if (!d.isStopped()) throw new ProtocolError(`${method}: the program is not stopped on a line`, 'badState');
    const changes = this.stopChanges;
    const { taskId, tick, print } = await d.stopPrint();
    // Code no task of the runtime's loop runs (a loop, thread or process of the program's own, or its code
    // around the loop): the recording holds the loop's ticks only. Said with the thread and who runs the code
    // there.
    if (taskId === null)
      throw new ProtocolError(
        `${method}: ${stopPlace(d.stopFrames(), tick)}, not in a task of the runtime's loop: the recording holds the loop's tasks only (not a loop, thread or process of the program's own, nor its code outside its tasks), so its past cannot be replayed`,
        'notRecorded',
      );
    if (replay !== null && replay.hasLiveStop() && !replay.isClosed && replay.stale && replay.stop.tick === tick) {
      await this.view.move(replay, 'leave');
      this.view.leaveTick();
      replay.restop({ tick, taskId, print });
      return replay;
    }
    if (this.hostStart === null)
      throw new ProtocolError(`${method}: this host cannot start a replay host`, 'replayFailed');
    // The recording first: a run not recorded is refused before any replay host is forked.
    const path = lineReplayFile();
    try {
      const written = await this.writeStopCopy(method, path);
      const host = await this.fork();
      this.view.drop('stop');
      await host.open({ tick, taskId, print }, path, written);
      if (this.stopChanges !== changes) {
        // The live thread went on (and maybe stopped again) while this stop's past was opened (the open waited
        // for the replay host's fork, or its turn): onLineStop found no stop there to forget, so it is forgotten
        // now, and the current stop's past opened instead (refused when the thread is not stopped).
        host.forget();
        return await this.ofStopNow(method);
      }
      return host;
    } finally {
      removeFile(path);
    }
  }

  /**
   * The live line stop's recording (through the start of the tick stopped in) written to `path` by the stopped
   * thread itself (a message to it would wait for the thread to go on); refused for a run not recorded.
   */
  private async writeStopCopy(method: string, path: string): Promise<ReplayCopy> {
    const r = (await this.lineDebugger().callMain(`writeMidTick(${JSON.stringify(path)})`)) as {
      runId?: unknown;
      ticks?: unknown;
      midTick?: unknown;
      refused?: unknown;
    } | null;
    if (typeof r?.refused === 'string') throw new ProtocolError(r.refused, 'notRecorded');
    if (typeof r?.runId !== 'number' || typeof r.ticks !== 'number')
      throw new ProtocolError(`${method}: the run's recording could not be written`, 'replayFailed');
    return { runId: r.runId, ticks: r.ticks, midTick: r.midTick === true };
  }

  /**
   * `use` of a replay host of its own over the live line stop's recording (through the start of the stop's
   * tick, the stop its live stop), closed after: a scan of the past while the stop's replay host holds a past
   * line shown, which stays shown.
   */
  async besideStop<T>(method: string, use: (r: LineReplayHost) => Promise<T>): Promise<T> {
    const d = this.lineDebugger();
    if (!d.isStopped()) throw new ProtocolError(`${method}: the program is not stopped on a line`, 'badState');
    if (this.hostStart === null)
      throw new ProtocolError(`${method}: this host cannot start a replay host`, 'replayFailed');
    const { taskId, tick, print } = await d.stopPrint();
    const stop = taskId === null ? null : { tick, taskId, print };
    const once = await LineReplayHost.start(this.hostStart, stop, (path) => this.writeStopCopy(method, path));
    try {
      return await use(once);
    } finally {
      once.close();
    }
  }

  /** Runs `use` of the stop's replay host in turn with the other uses that give it a recording. */
  private inQueue<T>(use: () => Promise<T>): Promise<T> {
    const job = this.queue.then(use);
    this.queue = job.catch(() => undefined);
    return job;
  }

  /** The run's stop replay host: the one forked already (or being forked), else forked now. */
  private fork(): Promise<LineReplayHost> {
    if (this.replay !== null && !this.replay.isClosed) return Promise.resolve(this.replay);
    this.replay = null;
    if (this.replayForking !== null) return this.replayForking;
    if (this.hostStart === null)
      return Promise.reject(new ProtocolError('this host cannot start a line replay host', 'replayFailed'));
    const forking = LineReplayHost.fork(this.hostStart);
    this.replayForking = forking;
    forking.then(
      (r) => {
        // Ended meanwhile, unless handed on (the hit replay host of the run just finished).
        if (this.replayForking !== forking) return this.handedOn.has(forking) ? undefined : r.close();
        this.replayForking = null;
        this.replay = r;
      },
      () => {
        if (this.replayForking === forking) this.replayForking = null;
      },
    );
    return forking;
  }

  /** The followed run's replay host, given the whole recording once the run has finished: the hit replay host. */
  private keepForHits(forked: Promise<LineReplayHost>): void {
    const starting = forked.then((r) =>
      this.handOver(r, false).catch((e: unknown) => {
        r.close();
        throw e;
      }),
    );
    this.hitHosts.becomeHitReplay(starting);
  }

  stopFollowing(): void {
    this.followed = false;
    if (this.followTimer !== null) clearTimeout(this.followTimer);
    this.followTimer = null;
  }

  private scheduleFeed(ms: number): void {
    this.followTimer = setTimeout(() => void this.feed(), ms);
    this.followTimer.unref?.();
  }

  private async feed(): Promise<void> {
    this.followTimer = null;
    let writing = 0;
    if (this.replay === null && this.replayForking !== null) await this.replayForking.catch(() => undefined);
    // Not while stopped on a line (the stop's own recording is newer) or while its past is open.
    const r = this.replay;
    if (this.followed && r !== null && !r.isClosed && !r.hasLiveStop() && !this.lineDebugger().isStopped())
      await this.handOver(r, true, (ms) => (writing += ms)).catch(() => undefined);
    if (this.followed) this.scheduleFeed(Math.max(FEED_MS, FEED_PACE * writing));
  }

  /**
   * The run's recording so far (between ticks), handed to replay host `r` (`live`: the run goes
   * on): its run grows. When `r` holds a copy between ticks (its mark), only what the recording
   * gained since is written by the main thread and appended there in place (writeRecordingGrowth,
   * growRecording: a feed costs what is new); else, or when that is refused, the whole recording
   * is written and opened. Skipped when `r` has been given a stop's or a later recording
   * meanwhile (never a shorter one). `wrote`: the main thread's time writing (ms), each time.
   */
  private async handOver(r: LineReplayHost, live: boolean, wrote?: (ms: number) => void): Promise<LineReplayHost> {
    const from = r.mark;
    if (from !== null && !r.hasLiveStop()) {
      const path = lineReplayFile();
      try {
        const written = (await this.main.ask('writeRecordingGrowth', { path, from }, live)) as ReplayGrowth & {
          writeMs: number;
        };
        wrote?.(written.writeMs);
        return await this.inQueue(async () => {
          if (this.stillWanted(r, live) && r.mark === from && written.runId === this.runId)
            await r.grow(path, written, live);
          return r;
        });
      } catch (e) {
        // Withdrawn at a line stop: no feed now (the replay host keeps its copy and mark).
        if (e instanceof ProtocolError && e.code === 'superseded') return r;
        // Not a mark of the recording any more, or a growth the replay host refused (its mark is dropped):
        // the whole recording, below.
      } finally {
        removeFile(path);
      }
    }
    return this.handOverWhole(r, live, wrote);
  }

  /**
   * Whether a recording written for replay host `r` is still to be handed over once its turn
   * comes: `r` open, given no stop's recording meanwhile (never a shorter one), and for a feed
   * (`live`) still the run's replay host and the run still followed (a line stop ends that: its
   * own recording is newer, and the replay host is not kept busy with an older one).
   */
  private stillWanted(r: LineReplayHost, live: boolean): boolean {
    return !r.isClosed && !r.hasLiveStop() && (!live || (this.replay === r && this.followed));
  }

  /**
   * The run's recording so far (between ticks), written whole by the main thread and opened in replay host
   * `r` (handOver).
   */
  private async handOverWhole(r: LineReplayHost, live: boolean, wrote?: (ms: number) => void): Promise<LineReplayHost> {
    const path = lineReplayFile();
    try {
      const written = (await this.main.ask('writeReplayCopy', { path }, live)) as ReplayCopy & { writeMs?: number };
      wrote?.(written.writeMs ?? 0);
      return await this.inQueue(async () => {
        if (this.stillWanted(r, live) && !written.midTick && written.runId === this.runId && written.ticks >= r.ticks)
          await r.open(null, path, written, live);
        return r;
      });
    } catch (e) {
      // Withdrawn at a line stop: no feed now.
      if (e instanceof ProtocolError && e.code === 'superseded') return r;
      throw e;
    } finally {
      removeFile(path);
    }
  }
}

function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Not written, or gone already.
  }
}
