// Runs on a live runtime host's line debugger worker thread: the client of the line replay host
// process it forks (this host's script with `--line-replay`), which replays the past of the
// live run's line stops while the live main thread is held mid-tick. It follows the run (its
// recording, then growths), opens the stopped tick's mid-tick copy at a stop's first use, and
// answers walks (pastLine, pastHitLine), searches (pastHit) and seeks. What it shows is the
// worker's position (worker-position.ts). See docs/design/line-replay-and-breakpoint-search.md.
//
// Invariants: at most one line stop replay host per run, ended with the run, the client or this
// process; its past is of one stopped tick at a time, forgotten when the run goes on; the network
// is never touched; the temporary file is removed once read; a move's moment id must be echoed
// on its answer (else the move fails: replayFailed); opens, moves and lists reach it one at a time.

import type { ChildProcess } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import {
  PROTOCOL_VERSION,
  type RecordingMark,
  type BreakpointHitLanding,
  type LineStepKind,
  type LineStopPrint,
  type PastLineLanding,
  type ArmedBreakpoint,
  type HitBound,
  type ScanHit,
  type LineWatched,
  type RecordingInfo,
} from '../../../protocol/host-protocol';
import type { ReplayHostMethods } from '../../../protocol/replay-host-protocol';
import { idOf } from '../../../protocol/moment-ids';
import { ProtocolError } from '../../../protocol/rpc';
import { lineReplayFile } from '../shared/line-replay-files';
import { forkLineReplayHost, type LineReplayEndpoint } from '../shared/line-replay-start';

export { lineReplayFile };

/** Queries answered for the viewed past tick while one is viewed. */
export const MOMENT_QUERIES: ReadonlySet<string> = new Set([
  'snapshot',
  'taskDetail',
  'variables',
  'graph',
  'lints',
  'evaluate',
]);

/** The host's script and node options: a line replay host is started alike. */
export interface HostStart {
  readonly script: string;
  readonly execArgv: readonly string[];
}

/** The live stop the replay is of. */
export interface LiveLineStop {
  readonly runId: number;
  readonly tick: number;
  readonly taskId: number;
  readonly print: LineStopPrint;
}

/** The live stop as a replay host's search or walk bounds itself by it (`until`, `present`). */
export function liveBound(stop: LiveLineStop): HitBound {
  return { tick: stop.tick, taskId: stop.taskId, print: stop.print };
}

/**
 * A recording written for a replay host: the live run's id, its ticks, whether its last tick is open (a line
 * stop's), and where it ends (between ticks: a growth goes on from there).
 */
export interface ReplayCopy {
  readonly runId: number;
  readonly ticks: number;
  readonly midTick: boolean;
  readonly mark?: RecordingMark;
}

/**
 * A growth of the live run's recording written for a replay host (writeRecordingGrowth): the run's id, its
 * ticks, where it ends.
 */
export interface ReplayGrowth {
  readonly runId: number;
  readonly ticks: number;
  readonly to: RecordingMark;
}

export class LineReplayHost {
  /** A newer live stop (a line step in the same tick) is shown: restop() before the next move. */
  stale = false;
  /** The live run's id (of the recording opened last). */
  runId = 0;
  /** Ticks of the recording before the stopped one (the ticks a seek may go to; a search's whole span). */
  ticks = 0;
  /**
   * Where the recording it holds ends, between ticks (a copy's or a growth's mark): the next growth goes on
   * from there; null: none can (a mid-tick copy, none given yet, a growth refused).
   */
  mark: RecordingMark | null = null;
  /**
   * The live line stop it replays the past of; null: none (pre-warmed, the run went on, or a replay for
   * breakpoint searches).
   */
  private liveStop: LiveLineStop | null = null;
  private closed = false;
  /** Recordings given so far (open, grow): an answer over an earlier one is not kept. */
  private given = 0;
  /**
   * The last logpoints listed (logHits) over the recording held, and their hits: the same logpoints through
   * the same tick list the same hits, so they are not replayed again; forgotten with that recording.
   */
  private logged: { key: string; given: number; hits: ScanHit[] } | null = null;
  /**
   * The requests that move its main thread or change what it holds (opens, growths, walks, searches, seeks,
   * lists, warm-ups), one at a time in the order asked (inTurn): two at once would share its one main thread
   * and one set of scan breakpoints, and one of them could wait forever on a pause the other took (seen: a
   * logpoint list asked at one line stop, still replaying when a Reverse Continue's search came, never
   * answered). Queries (a stop's frames, a past tick's moment) are not held behind them.
   */
  private turn: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly child: ChildProcess,
    private readonly endpoint: LineReplayEndpoint,
  ) {}

  /** Forks a replay host: loaded and idle (it replays nothing until a recording is opened in it). */
  static async fork(host: HostStart): Promise<LineReplayHost> {
    const { child, endpoint } = forkLineReplayHost(host.script, host.execArgv);
    const replay = new LineReplayHost(child, endpoint);
    child.on('exit', () => {
      replay.closed = true;
    });
    try {
      await endpoint.request('hello', { client: 'line replay', protocolVersion: PROTOCOL_VERSION });
    } catch (e) {
      replay.close();
      throw new ProtocolError(
        `the line replay host did not start: ${e instanceof Error ? e.message : String(e)}`,
        'replayFailed',
      );
    }
    return replay;
  }

  /**
   * Writes the live run's recording (`writeCopy(path)`: a ProtocolError when the run was not
   * recorded) while a replay host is forked (the two take about as long: side by side, not one after the
   * other), then opens it there; the replay host is closed if the copy is refused.
   */
  static async start(
    host: HostStart,
    stop: Omit<LiveLineStop, 'runId'> | null,
    writeCopy: (path: string) => Promise<ReplayCopy>,
  ): Promise<LineReplayHost> {
    const path = lineReplayFile();
    try {
      const forking = LineReplayHost.fork(host);
      let written: ReplayCopy;
      try {
        written = await writeCopy(path);
      } catch (e) {
        void forking.then((r) => r.close()).catch(() => undefined);
        throw e;
      }
      const replay = await forking;
      try {
        await replay.open(stop, path, written);
      } catch (e) {
        replay.close();
        throw e;
      }
      return replay;
    } finally {
      try {
        unlinkSync(path);
      } catch {
        // Not written, or gone already.
      }
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The live stop it replays the past of. */
  get stop(): LiveLineStop {
    if (this.liveStop === null)
      throw new ProtocolError(
        'the line replay holds no live stop (the run went on, or a replay for breakpoint searches)',
        'badState',
      );
    return this.liveStop;
  }

  hasLiveStop(): boolean {
    return this.liveStop !== null;
  }

  /**
   * Opens the live run's recording written to `path` (the caller removes the file): of live
   * stop `stop` (its last tick open), or of the run between ticks (`stop` null; `live`: the run
   * is still going and followed, more of it will come). The same run's recording opened again
   * grows the replay host's run (its replays kept).
   */
  async open(stop: Omit<LiveLineStop, 'runId'> | null, path: string, written: ReplayCopy, live = false): Promise<void> {
    this.forget();
    this.mark = null;
    this.given++;
    try {
      await this.inTurn(() =>
        this.endpoint.request(
          'openRecording',
          written.midTick
            ? { path, midTick: true }
            : live
              ? { path, unshown: true, live: true }
              : { path, unshown: true },
        ),
      );
    } catch (e) {
      throw new ProtocolError(
        `the line replay host cannot replay the run: ${e instanceof Error ? e.message : String(e)}`,
        'replayFailed',
      );
    }
    this.runId = written.runId;
    this.ticks = written.midTick ? written.ticks - 1 : written.ticks;
    this.liveStop = stop === null ? null : { ...stop, runId: written.runId };
    this.mark = written.midTick ? null : (written.mark ?? null);
  }

  /**
   * Opens the recording file the host is opening itself (openRecording), read here too: nothing is written
   * for it and the file stays. `opened`: the host's own answer (null: it refused the file); the two must
   * describe the same recording (a file changed between the two reads is refused), and its run is the host's.
   */
  async openSaved(path: string, opened: Promise<(RecordingInfo & { runId: number }) | null>): Promise<void> {
    this.forget();
    this.mark = null;
    this.given++;
    let mine: RecordingInfo;
    try {
      mine = await this.inTurn(() => this.endpoint.request('openRecording', { path, unshown: true }));
    } catch (e) {
      throw new ProtocolError(
        `the line replay host cannot replay the run: ${e instanceof Error ? e.message : String(e)}`,
        'replayFailed',
      );
    }
    const here = await opened;
    if (here === null) throw new ProtocolError(`the host did not open ${path}`, 'replayFailed');
    const same: Array<keyof RecordingInfo> = ['bytes', 'program', 'ticks', 'steps', 'tasks', 'sockets', 'recordedAt'];
    if (same.some((k) => mine[k] !== here[k]))
      throw new ProtocolError(`${path} changed while the host and its replay host read it`, 'replayFailed');
    this.runId = here.runId;
    this.ticks = here.ticks;
  }

  /**
   * Grows the recording it holds (opened between ticks, `mark`) in place by the growth written
   * to `path` (the caller removes the file): the live run's recording since `mark`. `live`: the
   * run is still going. Refused (the caller then opens the whole recording again), the mark is
   * dropped.
   */
  async grow(path: string, written: ReplayGrowth, live: boolean): Promise<void> {
    this.forget();
    this.given++;
    const mark = this.mark;
    this.mark = null;
    if (mark === null)
      throw new ProtocolError('the line replay host holds no recording a growth goes on from', 'badState');
    try {
      await this.inTurn(() => this.endpoint.request('growRecording', { path, live }));
    } catch (e) {
      throw new ProtocolError(
        `the line replay host cannot grow the run's recording: ${e instanceof Error ? e.message : String(e)}`,
        'replayFailed',
      );
    }
    this.runId = written.runId;
    this.ticks = written.ticks;
    this.mark = written.to;
  }

  /**
   * The run went on from the stop (or stopped in another tick): its past is opened again at the next use
   * (what it showed: PastView.drop).
   */
  forget(): void {
    this.liveStop = null;
    this.stale = false;
  }

  /**
   * The live thread stopped again in the same tick (a line step): the recording through the
   * start of that tick still holds, so this replay host serves the new stop (a walk of its own;
   * the caller has left the line shown: PastView).
   */
  restop(stop: Omit<LiveLineStop, 'runId'>): void {
    this.liveStop = { ...stop, runId: this.runId };
    this.stale = false;
  }

  /**
   * A move of the live stop's walk through its task's replayed lines (pastLine): back, forward ('over',
   * 'into', 'out'), or 'leave'.
   */
  async walkStop(
    move: 'back' | 'leave' | LineStepKind,
    moment?: string,
    lines = 1,
    breakpoints: readonly ArmedBreakpoint[] = [],
  ): Promise<PastLineLanding> {
    const params = {
      tick: this.stop.tick,
      taskId: this.stop.taskId,
      stop: this.stop.print,
      move,
      ...(lines > 1 ? { lines } : {}),
      ...stepBreakpoints(move, breakpoints),
      ...idOf(moment),
    };
    return echoed(await this.inTurn(() => this.endpoint.request('pastLine', params)), moment);
  }

  /** The watched values at each line a step back lands on in turn within the live stop's tick (pastLineValues). */
  valuesBack(watched: LineWatched[]): Promise<ReplayHostMethods['pastLineValues']['result']> {
    const params = { tick: this.stop.tick, taskId: this.stop.taskId, stop: this.stop.print, watched };
    return this.inTurn(() => this.endpoint.request('pastLineValues', params));
  }

  /**
   * The watched values at each line a step back lands on in turn from the line shown of a walk from a hit (or into
   * an earlier step of the live stop's task), back to its step's first line (pastHitLineValues).
   */
  valuesBackFromHit(watched: LineWatched[]): Promise<ReplayHostMethods['pastHitLineValues']['result']> {
    const params = { ceiling: this.ticks, ...this.presentOf(), watched };
    return this.inTurn(() => this.endpoint.request('pastHitLineValues', params));
  }

  /**
   * Replays parked ahead of the live stop's walks while it is read (pastWarm); the ticks parked at. In turn: a
   * move asked meanwhile waits for it (as the worker's requests wait for a warm-up: line-stop-warm-up.ts).
   */
  warm(): Promise<ReplayHostMethods['pastWarm']['result']> {
    const params = { tick: this.stop.tick, taskId: this.stop.taskId, stop: this.stop.print };
    return this.inTurn(() => this.endpoint.request('pastWarm', params));
  }

  /**
   * A move through the lines of the task of the hit shown (pastHitLine): back, forward by line
   * past it (through the last tick before the present), or 'leave'.
   */
  async walkFromHit(
    move: 'back' | 'leave' | LineStepKind,
    moment?: string,
    breakpoints: readonly ArmedBreakpoint[] = [],
    lines = 1,
    oneTask = false,
  ): Promise<PastLineLanding> {
    const params = {
      move,
      ...(lines > 1 ? { lines } : {}),
      ceiling: this.ticks,
      ...this.presentOf(),
      ...stepBreakpoints(move, breakpoints, true),
      ...(oneTask && move !== 'back' && move !== 'leave' ? { oneTask } : {}),
      ...idOf(moment),
    };
    return echoed(await this.inTurn(() => this.endpoint.request('pastHitLine', params)), moment);
  }

  /**
   * A live line stop held: a walk from a hit of its task goes on into its tick to it, the present (what its tick
   * runs after it is not the past).
   */
  private presentOf(): { present?: HitBound } {
    const live = this.liveStop;
    return live === null ? {} : { present: liveBound(live) };
  }

  /**
   * A search of the replayed past for a breakpoint's hit (pastHit, past-hit-search.ts), from the
   * past line shown (`shown`): found, the replay host is stopped on it and its frames are the
   * line requests'; none found, it stops on the line shown again.
   */
  async searchHit(params: ReplayHostMethods['pastHit']['params']): Promise<BreakpointHitLanding> {
    return echoed(await this.inTurn(() => this.endpoint.request('pastHit', params)), params.moment);
  }

  /** Replays past tick `tick` there (its moment's queries are then the replay's, with positions and locals). */
  async seekPast(tick: number, moment?: string): Promise<void> {
    if (tick < 1 || tick > this.ticks)
      throw new ProtocolError(
        `seekTick: run ${this.runId} has ticks 1..${this.ticks} recorded before the tick stopped in, not ${tick}`,
        'badTick',
      );
    // Replayed before it answers (no second viewedTick reaches the views from here); the asker's id rides
    // there and back.
    echoed(
      await this.inTurn(() => this.endpoint.request('seekTick', { tick, replayed: true, ...idOf(moment) })),
      moment,
    );
  }

  /**
   * Every hit of `logpoints` in the recording held through tick `ceiling` (pastLog), in order; `until`: the
   * live stop in that tick the list ends at. The last list again when asked again with the same logpoints,
   * ceiling and end over the same recording.
   */
  async logHits(logpoints: readonly ArmedBreakpoint[], ceiling: number, until?: HitBound): Promise<ScanHit[]> {
    const key = JSON.stringify({ logpoints, ceiling, until });
    const given = this.given;
    if (this.logged !== null && this.logged.key === key && this.logged.given === given) return this.logged.hits;
    const { hits } = (await this.inTurn(() =>
      this.endpoint.request('pastLog', {
        logpoints: [...logpoints],
        ceiling,
        ...(until === undefined ? {} : { until }),
      }),
    )) as ReplayHostMethods['pastLog']['result'];
    if (this.given === given) this.logged = { key, given, hits };
    return hits;
  }

  /** Runs `ask`, a request of the turn's kind, once those asked before it have been answered. */
  private inTurn<T>(ask: () => Promise<T>): Promise<T> {
    const job = this.turn.then(ask);
    this.turn = job.catch(() => undefined);
    return job;
  }

  /** Asks the replay host a query (a line query at a past line, a moment's query at a past tick), out of turn. */
  request(method: string, params: unknown): Promise<unknown> {
    return (this.endpoint.request as (m: string, p: unknown) => Promise<unknown>)(method, params);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.forget();
    this.endpoint.close('the line replay ended');
    this.child.kill();
  }
}

/**
 * What a forward step is given of the breakpoints armed: it stops at a line breakpoint's hit between its line
 * and its landing; `loop`: at a loop breakpoint's hit in a tick that ends before its landing too (a step of
 * the live stop's own walk stays in that stop's tick, whose end is after the stop: none there).
 */
function stepBreakpoints(
  move: 'back' | 'leave' | LineStepKind,
  breakpoints: readonly ArmedBreakpoint[],
  loop = false,
): { breakpoints?: ArmedBreakpoint[] } {
  const lines = loop ? [...breakpoints] : breakpoints.filter((b) => b.atSuspension !== true);
  return move === 'back' || move === 'leave' || lines.length === 0 ? {} : { breakpoints: lines };
}

/**
 * The replay host's answer, checked to echo the moment id of its request (protocol/replay-host-protocol.ts:
 * the id rides there and back).
 */
function echoed<T extends { moment?: string }>(answer: T, moment: string | undefined): T {
  if (answer.moment !== moment)
    throw new ProtocolError(
      `the line replay host answered moment ${String(answer.moment)} for ${String(moment)}`,
      'replayFailed',
    );
  return answer;
}
