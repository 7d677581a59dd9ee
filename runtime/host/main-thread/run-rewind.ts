// Runs on a runtime host's main thread (a live host's, and a line replay host's). RunRewind: a
// recorded run's past on demand: to show tick N it re-executes the run on a loop of its own with
// the recorded inputs (ReplaySession), pauses after tick N and wraps it as a PastMoment. Replays
// are parked as checkpoints along the run, built in the background (in the idle time of a live
// run), and leaders are kept near a growing recording's end; traceTick re-runs one tick for the
// line replay. See docs/design/recording-and-replay.md, line-replay-and-breakpoint-search.md.
//
// Invariants: the run itself is never touched; seeks and traced ticks are served one at a time in
// order, never waiting for a checkpoint being built, and a scrub's stale seek stops, is parked and
// refused `superseded`; a replay that diverges or ends early fails the seek with its message,
// nothing is answered for a moment not reached; a live recording is read incrementally.

import { ProtocolError } from '../../../protocol/rpc';
import type { EventLoop } from '../../loop';
import { RecordingError } from '../../record/recording-errors';
import { RunLogReader } from '../../record/run-log';
import { PastMoment } from './past-moment';
import { type LogReading, ReplaySession, type RewindSource } from './replay-session';

export type { ReplayableProgram, RewindSource } from './replay-session';

/** A replay from the start costs about this long per gap between two checkpoints, at most. */
const CHECKPOINT_GAP_MS = 100;
/** Replays kept parked at once (each holds the program's state at its tick). */
const MAX_SESSIONS = 40;
/** While the run is live, a checkpoint replay takes at most this share of the wall time... */
const LIVE_SHARE = 0.2;
/** ... in slices of about this long (ms), and none while the run's loop has work ready. */
const LIVE_SLICE_MS = 4;
/** How often a live run's recording is looked at for new ticks to build checkpoints over (ms). */
const FOLLOW_MS = 250;
/** The first checkpoint's tick, before the replay's speed is known. */
const FIRST_CHECKPOINT = 200;

/**
 * Replays kept near the recording's end: how many, how many ticks short of it, and their share of the wall
 * time while the run is live.
 */
export interface Leaders {
  readonly count: number;
  readonly lag: number;
  readonly share: number;
}

export class RunRewind {
  /** Every replay parked at a tick (the viewed moment's among them), and the one being built. */
  private sessions: ReplaySession[] = [];
  private viewedSession: ReplaySession | null = null;
  private building: ReplaySession | null = null;
  /**
   * The seek's replay under way, to `tick`, and whether that tick is still wanted (a later seek may retarget
   * it, or stop it where it is).
   */
  private advancing: {
    session: ReplaySession;
    tick: number;
    wanted: () => boolean;
    overtaken: boolean;
    /** A seek for the views (not a traced tick's): paused while checkpoints are held. */
    holdable: boolean;
  } | null = null;
  /** Ticks run by every replay so far (for tests and the bench: the replay work a seek cost). */
  private ticksRun = 0;
  /** Seeks and traced ticks asked so far: a warm-up asked before one of them is dropped at its turn (warm). */
  private asked = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private seeking = 0;
  /** Checkpoints not built meanwhile (a replay host's scan under way: holdBuilding). */
  private buildingHeld = false;
  private closed = false;
  private reading: LogReading | null = null;
  private reader: RunLogReader;
  private following: ReturnType<typeof setInterval> | null = null;
  /** Replay speed, measured on the replays: ticks per millisecond of replaying. */
  private ticksPerMs: number | null = null;
  /** A checkpoint's replay failed (the run does not replay): none is built any more; seeks say why. */
  private buildFailed = false;
  /**
   * The loop of the replay holding objects a forward watch pinned (holdReplay): a walk's traced tick goes on in
   * it, and nothing else takes it.
   */
  private heldLoop: WeakRef<EventLoop> | null = null;

  constructor(
    private readonly source: RewindSource,
    /** Replay time between two checkpoints, at most (tests make it small). */
    private readonly gapMs = CHECKPOINT_GAP_MS,
    /** Replays kept near the recording's end, built before any other checkpoint; null: none. */
    private readonly lead: Leaders | null = null,
  ) {
    this.reader = new RunLogReader(source.what);
  }

  /**
   * The recording read through its open tick (a line stop's, RecordedStreams.openTick) has
   * grown past it (the same run at a later stop: ReplayHostServices.growOpened): it is read again whole, and
   * the replays parked along it go on into the longer one at their next seek.
   */
  regrow(): void {
    this.reader = new RunLogReader(this.source.what);
    this.reading = null;
  }

  /**
   * The run as it was right after `tick` (1 .. the ticks recorded). `wanted`: whether the tick
   * is still asked for (the views may move on before it lands): a seek no longer wanted when
   * its turn comes is refused (superseded) without replaying anything, and a replay under way
   * for a tick no longer wanted is taken on to this later one instead (then refused too).
   */
  seek(tick: number, wanted: () => boolean = () => true): Promise<PastMoment> {
    this.asked++;
    this.seeking++;
    this.building?.hold();
    const going = this.advancing;
    // One held for a replay host's scan (holdBuilding) goes on: the views ask again.
    if (going?.holdable === true) going.session.release();
    // A seek under way for a tick no longer viewed never delays this one: its replay stops at
    // this tick instead (later, or earlier and not begun yet), or else where it is, between two ticks.
    if (going !== null && !going.overtaken && going.tick !== tick && !going.wanted())
      going.overtaken = going.session.retarget(tick) || going.session.interrupt();
    const job = this.queue.then(() => {
      if (!wanted()) throw new ProtocolError(`seekTick: tick ${tick} is no longer viewed`, 'superseded');
      return this.seekNow(tick, wanted, false, true);
    });
    this.queue = job
      .catch(() => undefined)
      .finally(() => {
        if (--this.seeking === 0) this.goOnBuilding();
      });
    return job;
  }

  /**
   * Checkpoints are not built while `held` (the one under way pauses at its next tick), and the replay of a seek
   * under way for the views pauses too (its moment is shown from the log meanwhile: an opened recording's seek to
   * its last tick ran beside a replay host's first scan, on the same two cores); a seek asked meanwhile goes on,
   * and lets that one go on too.
   */
  holdBuilding(held: boolean): void {
    if (held === this.buildingHeld) return;
    this.buildingHeld = held;
    const seek = this.advancing?.holdable === true ? this.advancing.session : null;
    if (held) {
      this.building?.hold();
      seek?.hold();
      return;
    }
    seek?.release();
    if (this.seeking === 0) this.goOnBuilding();
  }

  /** No seek under way: the checkpoint under way goes on (unless held), or the next one starts. */
  private goOnBuilding(): void {
    if (this.buildingHeld) return;
    this.building?.release();
    this.buildCheckpoints();
  }

  /**
   * Parks a replay right after `tick` ahead of need (a line stop's walks start there: the tick before it, and
   * before its task's step before), in turn with the seeks: none parked there yet, the nearest parked before it
   * goes on to it (never the viewed one, nor one parked at a tick of `keep`), else one starts. Not the viewed
   * moment; true once parked there. Dropped at its turn (false) when `wanted` says no (a newer stop's warm-up)
   * or a seek or traced tick was asked after it.
   */
  warm(tick: number, keep: readonly number[] = [], wanted: () => boolean = () => true): Promise<boolean> {
    this.seeking++;
    this.building?.hold();
    // Dropped once a seek or traced tick is asked after it (the user moved on: what it asks replays its own
    // ticks, and a walk's breakpoints, planted meanwhile, would slow every tick replayed here).
    const asked = this.asked;
    const job = this.queue.then(() => (wanted() && this.asked === asked ? this.warmNow(tick, keep) : false));
    this.queue = job
      .catch(() => undefined)
      .finally(() => {
        if (--this.seeking === 0) this.goOnBuilding();
      });
    return job;
  }

  private async warmNow(tick: number, keep: readonly number[]): Promise<boolean> {
    if (this.closed) return false;
    const reading = this.read();
    if (tick < 1 || reading.ticks < tick) return false;
    const usable = (s: ReplaySession): boolean =>
      s.parked && s.failed === null && s !== this.viewedSession && !this.isHeld(s);
    // One there already (the viewed one too: the next seek there takes it as it is).
    if (this.sessions.some((s) => s.parked && s.failed === null && s.stoppedAt === tick)) return true;
    let best: ReplaySession | null = null;
    for (const s of this.sessions) {
      if (!usable(s) || s.position > tick || keep.includes(s.stoppedAt)) continue;
      if (best === null || s.position > best.position) best = s;
    }
    let session: ReplaySession;
    try {
      if (best !== null) {
        session = best;
        session.extend(reading);
        await session.advance(tick);
      } else {
        const started = this.startReplay(reading, tick);
        session = started.session;
        this.sessions.push(session);
        await started.reached;
      }
      session.check();
    } catch {
      // Not parked: the seek that needs it replays it then, and says why it fails.
      this.drop((s) => s.failed !== null);
      return false;
    }
    this.learnSpeed(session);
    return true;
  }

  /**
   * The replay running `loop` holds objects a forward watch pinned (line-debug-bridge.ts): the walk's next
   * traced tick after it (traceTick's `inHeld`) goes on in that replay, so its objects are the ones the walk
   * reads; no seek, warm-up or scan takes it meanwhile, and it stays parked when traced. A newer one replaces it.
   */
  holdReplay(loop: EventLoop): void {
    this.heldLoop = new WeakRef(loop);
  }

  private isHeld(s: ReplaySession): boolean {
    return this.heldLoop !== null && this.heldLoop.deref() === s.loop;
  }

  /**
   * Builds checkpoints from now on, as the recording grows (a live run: a slice at a time in
   * its idle time), until close().
   */
  follow(): void {
    if (this.closed || this.following !== null) return;
    this.following = setInterval(() => this.buildCheckpoints(), FOLLOW_MS);
    this.following.unref?.();
    this.buildCheckpoints();
  }

  /**
   * Runs tick `tick` of the recording once more for the line replay (line-replay-host.ts): a
   * replay paused right before it (after tick - 1, from a checkpoint) goes on through that one
   * tick with `tracing` given its loop first (the replay host's line debugger stops only in
   * that loop), and null once the tick has run or failed. The tick may be the recording's
   * open one (RecordedStreams.openTick): then the replay is dropped after it, never a moment
   * shown nor a checkpoint; after a whole tick it is parked there, a checkpoint. Served in
   * turn with the seeks. With `from`, ticks from+1 .. `tick` run traced (a breakpoint search's
   * stretch, hit-scan.ts); `momentAt` is the replay's moment within one of them (a stop in a
   * tick not known before: a forward search's first hit). `startAt`: asked of the replay paused
   * after `from`, the tick the traced ticks must begin after instead (at most `from`: a stretch's
   * warm-up; the replay at `from` stays parked, a checkpoint). `inHeld`: a walk's tick, gone on with in the
   * held replay (holdReplay) when it is parked at or before `from`.
   */
  traceTick(
    tick: number,
    tracing: (loop: EventLoop | null, moment: PastMoment | null, momentAt?: (within: number) => PastMoment) => void,
    from = tick - 1,
    startAt?: (loop: EventLoop) => number,
    inHeld = false,
  ): Promise<void> {
    this.asked++;
    this.seeking++;
    this.building?.hold();
    const job = this.queue.then(async () => {
      let start = from;
      if (from > 0 && startAt !== undefined) {
        await this.seekNow(from);
        start = Math.max(0, Math.min(from, startAt(this.viewedSession!.loop)));
        this.viewedSession = null;
      }
      return this.traceNow(tick, tracing, start, inHeld);
    });
    this.queue = job
      .catch(() => undefined)
      .finally(() => {
        if (--this.seeking === 0) this.goOnBuilding();
      });
    return job;
  }

  private async traceNow(
    tick: number,
    tracing: (loop: EventLoop | null, moment: PastMoment | null, momentAt?: (within: number) => PastMoment) => void,
    from: number,
    inHeld: boolean,
  ): Promise<void> {
    let session: ReplaySession;
    let reached: Promise<void>;
    if (from > 0) {
      await this.seekNow(from, undefined, inHeld);
      session = this.viewedSession!;
      this.viewedSession = null;
      tracing(session.loop, this.momentOf(session, tick), (within) => this.momentOf(session, within));
      reached = session.advance(tick);
    } else {
      // The moment is the traced tick's from before the program starts: a line stop in its first tick (a task's
      // first step) may come before start() returns, and its queries are the moment's (the tasks then).
      const started = this.startReplay(this.read(), tick, (loop, s) =>
        tracing(loop, this.momentOf(s, tick), (within) => this.momentOf(s, within)),
      );
      session = started.session;
      reached = started.reached;
    }
    this.sessions = this.sessions.filter((s) => s !== session);
    let keep = false;
    try {
      await reached;
      // A whole tick of the recording (not an open one), replayed exactly: parked there, a checkpoint for the
      // next seek or stretch.
      keep =
        tick <= this.source.ticks() && !this.closed && (this.sessions.length < MAX_SESSIONS || this.isHeld(session));
      if (keep) session.check();
    } catch (e) {
      keep = false;
      if (e instanceof RecordingError) throw new ProtocolError(`replayLineTick: ${e.message}`, 'replayFailed');
      throw new ProtocolError(
        `replayLineTick: the replay of ${this.source.what} through tick ${tick} failed: ${e instanceof Error ? e.message : String(e)}`,
        'replayFailed',
      );
    } finally {
      tracing(null, null);
      if (keep) this.sessions.push(session);
      else session.close();
    }
  }

  /** The clock reading of each tick of the recording as read now (tick i's: `[i - 1]`). */
  tickTimes(): Float64Array {
    return this.read().log.times;
  }

  /** Ticks run by every replay of this run so far (for tests and the bench). */
  ticksReplayed(): number {
    return this.ticksRun;
  }

  /** Ticks at which a replay is parked now (for tests and the bench). */
  parkedTicks(): number[] {
    return this.sessions.filter((s) => s.parked).map((s) => s.stoppedAt);
  }

  /** Drops the replays (the run is released, or replaced). */
  close(): void {
    this.closed = true;
    if (this.following !== null) clearInterval(this.following);
    this.following = null;
    for (const s of this.sessions) s.close();
    this.building?.close();
    this.sessions = [];
    this.building = null;
    this.viewedSession = null;
  }

  /** A replay from tick 0 to `tick` (ReplaySession.start), its ticks counted. */
  private startReplay(
    reading: LogReading,
    tick: number,
    beforeStart?: (loop: EventLoop, session: ReplaySession) => void,
  ): ReturnType<typeof ReplaySession.start> {
    return ReplaySession.start(this.source, reading, tick, beforeStart, () => void this.ticksRun++);
  }

  /** The recording as read now: read again only when it has grown, and then only what is new (RunLogReader). */
  private read(): LogReading {
    const ticks = this.source.ticks();
    if (this.reading !== null && this.reading.ticks >= ticks) return this.reading;
    const recording = this.source.recording();
    const log = this.reader.read(recording);
    this.reading = { ticks: log.times.length, log, events: recording.events };
    return this.reading;
  }

  /**
   * `inHeld`: a walk's tick, gone on with in the held replay (holdReplay); `holdable`: a seek for the views, paused
   * while a replay host scans (holdBuilding), never a traced tick's (a scan of this process's own).
   */
  private async seekNow(
    tick: number,
    wanted: () => boolean = () => true,
    inHeld = false,
    holdable = false,
  ): Promise<PastMoment> {
    if (this.closed) throw new ProtocolError(`seekTick: run ${this.source.runId} is gone`, 'noRun');
    let session: ReplaySession;
    let overtaken = false;
    try {
      const reading = this.read();
      if (reading.ticks < tick)
        throw new RecordingError(`${this.source.what} has ${reading.ticks} ticks recorded, not ${tick}`);
      // The nearest replay at or before the tick: parked, or the checkpoint under way; a walk's own (inHeld)
      // before any other, and another's only where it stands (a step's scan going on from there).
      let best: ReplaySession | null = null;
      for (const s of this.building === null ? this.sessions : [...this.sessions, this.building]) {
        if ((!s.parked && s !== this.building) || s.failed !== null || s.position > tick) continue;
        const held = this.isHeld(s);
        if (held && inHeld) {
          best = s;
          break;
        }
        if (held && s.position !== tick) continue;
        if (best === null || s.position > best.position) best = s;
      }
      if (best !== null) {
        session = best;
        if (session === this.building) {
          // The checkpoint under way is this seek's now (parked where the seek ends).
          this.building = null;
          this.sessions.push(session);
        }
        session.extend(reading);
        if (!session.parked || session.stoppedAt !== tick)
          overtaken = await this.timed(session, tick, session.advance(tick), wanted, holdable);
      } else {
        const started = this.startReplay(reading, tick);
        session = started.session;
        this.sessions.push(session);
        overtaken = await this.timed(session, tick, started.reached, wanted, holdable);
      }
      // Exact or refused: the replayed events so far must be the recorded ones.
      session.check();
    } catch (e) {
      this.drop((s) => s.failed !== null);
      if (this.viewedSession === null || this.viewedSession.failed !== null) this.viewedSession = null;
      if (e instanceof RecordingError) throw new ProtocolError(`seekTick: ${e.message}`, 'replayFailed');
      throw new ProtocolError(
        `seekTick: the replay of ${this.source.what} to tick ${tick} failed: ${e instanceof Error ? e.message : String(e)}`,
        'replayFailed',
      );
    }
    // Overtaken by a later seek: parked at that seek's tick, or where it was stopped for it.
    if (overtaken)
      throw new ProtocolError(
        `seekTick: tick ${tick} is no longer viewed (its replay ${session.stoppedAt > tick ? 'went on to' : 'stopped at'} tick ${session.stoppedAt})`,
        'superseded',
      );
    this.viewedSession = session;
    return this.momentOf(session, tick);
  }

  /** A replay's moment, as the views ask it (at tick `tick`: right after it, or within it while traced). */
  private momentOf(session: ReplaySession, tick: number): PastMoment {
    return new PastMoment(
      this.source.runId,
      tick,
      session.loop,
      () => session.crawler,
      session.recorder,
      session.finished,
      () => this.source.lints(),
      this.read().log.times[tick - 1] ?? session.loop.time(),
      session.creationSites,
    );
  }

  /**
   * Waits for a seek's replay to reach its tick (or to stop where a later seek had it stop: true), and learns
   * the replay's speed from it.
   */
  private async timed(
    session: ReplaySession,
    tick: number,
    reached: Promise<void>,
    wanted: () => boolean,
    holdable: boolean,
  ): Promise<boolean> {
    const going = { session, tick, wanted, overtaken: false, holdable };
    this.advancing = going;
    try {
      await reached;
    } finally {
      if (this.advancing === going) this.advancing = null;
    }
    this.learnSpeed(session);
    return going.overtaken;
  }

  private learnSpeed(session: ReplaySession): void {
    const ticks = session.replay.ticksReplayed;
    if (ticks >= 50 && session.busyMs > 0) this.ticksPerMs = ticks / session.busyMs;
  }

  /**
   * Between seeks: park a replay in the middle of the widest stretch of the run with none
   * parked (from tick 0 to the last tick recorded), one replay at a time, held while a seek
   * runs, until no stretch is wider than a gap (gapMs of replaying) or MAX_SESSIONS are kept.
   */
  private buildCheckpoints(): void {
    if (this.closed || this.buildFailed || this.building !== null || this.seeking > 0 || this.buildingHeld) return;
    const live = this.source.live?.() ?? null;
    if (live === null && this.following !== null) {
      // The run has ended: its recording is whole; build on at full speed.
      clearInterval(this.following);
      this.following = null;
    }
    const total = this.source.ticks();
    this.drop((s) => s.failed !== null);
    if (total < 2 || this.sessions.length >= MAX_SESSIONS) return;
    if (this.buildLeader(total, live)) return;
    const gap = this.ticksPerMs === null ? FIRST_CHECKPOINT : Math.max(1, Math.floor(this.ticksPerMs * this.gapMs));
    const parked = this.sessions.filter((s) => s.parked).map((s) => s.stoppedAt);
    parked.push(0, total);
    parked.sort((a, b) => a - b);
    let from = 0;
    let widest = 0;
    for (let i = 1; i < parked.length; i++) {
      const w = parked[i]! - parked[i - 1]!;
      if (w > widest) {
        widest = w;
        from = parked[i - 1]!;
      }
    }
    if (widest <= gap) return;
    const target = this.ticksPerMs === null && from === 0 ? Math.min(gap, total) : from + Math.floor(widest / 2);
    let started: ReturnType<typeof ReplaySession.start>;
    try {
      started = this.startReplay(this.read(), target);
    } catch {
      this.buildFailed = true;
      return;
    }
    const session = started.session;
    if (live !== null) session.pace = () => this.livePace(session);
    this.settleBuilt(session, started.reached);
  }

  /** A checkpoint under way: parked once it reaches its tick (unless a seek took it), then the next one. */
  private settleBuilt(session: ReplaySession, reached: Promise<void>): void {
    this.building = session;
    reached.then(
      () => {
        if (this.building !== session) return; // taken by a seek
        this.building = null;
        this.learnSpeed(session);
        if (this.closed) session.close();
        else this.sessions.push(session);
        this.buildCheckpoints();
      },
      () => {
        if (this.building !== session) return;
        this.building = null;
        this.buildFailed = true;
        session.close();
      },
    );
  }

  /**
   * Builds a leader when fewer than `lead.count` replays are parked within `lag` of the leaders'
   * tick (`lag` short of the end): the furthest leader left behind as the recording grew goes
   * on, else a new one starts. True: one is under way.
   */
  private buildLeader(total: number, live: { busy: boolean } | null): boolean {
    const lead = this.lead;
    if (lead === null) return false;
    const at = Math.max(1, total - lead.lag);
    const parked = this.sessions.filter(
      (s) => s.parked && s.failed === null && s !== this.viewedSession && !this.isHeld(s),
    );
    if (parked.filter((s) => s.stoppedAt >= at - lead.lag && s.stoppedAt <= at).length >= lead.count) return false;
    const behind = parked
      .filter((s) => s.leader && s.stoppedAt < at - lead.lag)
      .sort((a, b) => b.stoppedAt - a.stoppedAt)[0];
    let session: ReplaySession;
    let reached: Promise<void>;
    try {
      if (behind !== undefined) {
        session = behind;
        this.sessions = this.sessions.filter((s) => s !== behind);
        session.extend(this.read());
        reached = session.advance(at);
      } else {
        const started = this.startReplay(this.read(), at);
        session = started.session;
        reached = started.reached;
      }
    } catch {
      this.buildFailed = true;
      return true;
    }
    session.leader = true;
    if (live !== null) session.pace = () => this.livePace(session, lead.share);
    this.settleBuilt(session, reached);
    return true;
  }

  /**
   * A checkpoint replay's rest (ms) after a tick while the run is live: none while its slice lasts, then
   * enough to keep to LIVE_SHARE.
   */
  private livePace(session: ReplaySession, share = LIVE_SHARE): number {
    const live = this.source.live?.() ?? null;
    if (live === null) {
      session.pace = null;
      return 0;
    }
    const ms = session.sliceMs();
    if (ms < LIVE_SLICE_MS && !live.busy) return 0;
    return Math.max(1, (ms * (1 - share)) / share);
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
