// Runs on a live runtime host's line debugger worker thread: the client of the line replay host process it forks.
//
// LineReplayHost: the past of a live run's stops on a line, in the live runtime host's worker
// (line-debug-worker.ts). The live main thread is held mid-tick on a line, so its past is
// replayed elsewhere: a runtime host process of its own (this host's script, started with a
// client pipe, so it has its own line debugger, and `--line-replay`: it reads its source maps
// at once). The run's replay host is forked ahead of need (when a debugger sets its breaks on a
// recorded run, else at its first stop on a line), follows the run while it goes (given its
// recording so far now and then: open with `live`, the replays it keeps near the end advanced),
// (the whole recording once, then each time only its growth since: recording-growth.ts, grown
// in place there, Run.growInPlace) and serves that run's stops until the run goes away: at a stop's first use the live main
// thread writes the run's recording through the start of the stopped tick
// (`__coroscopeLine.writeMidTick`, recordings.ts) to a temporary file and the replay host opens
// it (openRecording midTick: the same run grown keeps the replays it parked along the run, its
// checkpoints); then it walks the stopped task's lines of that tick to the live stop (pastLine,
// past-line-walk.ts), stopping on the line asked for. Once the run has finished it is the run's
// hit replay host, given the whole recording.
//
// A replay host also serves Reverse Continue to a line breakpoint's earlier hit (findHit:
// pastHit, past-hit-search.ts): of a line stop's past (this host), or, with no line stop (a
// finished run, a loop-level stop), of the whole recording so far (the worker's hit replay,
// started at the first search, whose copy is the run's recording between ticks).
//
// While a past line is shown, the line requests (lineStack, lineVariables, lineEvaluate) are
// the replay host's; a step back or forward moves through the replayed lines (pastLine), and
// reaching the live stop is the present again; a step back from the task's first line of this
// step goes into its step before, an earlier tick (`beforeStop`), where moves go on as from a
// hit. From a breakpoint hit shown (and the lines reached from it: `atHit`), steps move through
// that task's lines around the hit instead (pastHitLine), forward past it through the ticks
// before the present. A seek to a past tick (seekTick, e.g. a step back from the task's first
// line of this step to its previous suspension, when no earlier step ran a line) is also the
// replay host's, and while one is viewed, so are the moment's queries (snapshot, taskDetail,
// variables, graph, lints, evaluate); its `viewedTick` is told in the live run's id.
//
// Invariants: the live worker keeps one line stop replay host per run at most, ended with the
// run (a run-changing request, the run finishing) and when the client goes away; a replay host
// also ends when this process does (its IPC channel closes). Its past is of one stopped tick at
// a time (`stop`): forgotten when the run goes on (continue, a stop in another tick; a line step
// that stops again in the same tick keeps it: the recording through the start of the tick
// still holds). A replay host given no recording yet replays nothing (it only loads the
// program). The network is never touched (the replay feeds the recorded inputs). The temporary
// file is removed once the replay host has read it.

import { fork, type ChildProcess } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { PROTOCOL_VERSION, type RecordingMark, type BreakpointHitLanding, type HostEvents, type LineStepKind, type LineStopPrint, type PastLineLanding, type ViewedMoment } from '../../../protocol/host-protocol';
import type { HostAndReplayHostMethods, ReplayHostMethods } from '../../../protocol/replay-host-protocol';
import { ProtocolError, RpcEndpoint } from '../../../protocol/rpc';
import { StreamTransport } from '../../../protocol/stream-transport';

/** The fd of the replay host's client pipe (as the extension starts a host). */
const CLIENT_FD = 4;
/** The argument that makes a runtime host a line replay host (line-debug-worker.ts reads it). */
export const LINE_REPLAY_ARG = '--line-replay';
let files = 0;

/** A temporary file for a recording a replay host opens (LineReplayHost.open). */
export function lineReplayFile(): string {
  return join(tmpdir(), `coroscope-line-replay-${process.pid}-${++files}.corotrace`);
}

/** Queries answered for the viewed past tick while one is viewed. */
export const MOMENT_QUERIES: ReadonlySet<string> = new Set(['snapshot', 'taskDetail', 'variables', 'graph', 'lints', 'evaluate']);

/** The live stop the replay is of. */
export interface LiveLineStop {
  readonly runId: number;
  readonly tick: number;
  readonly taskId: number;
  readonly print: LineStopPrint;
}

/** A recording written for a replay host: the live run's id, its ticks, whether its last tick is open (a line stop's), and where it ends (between ticks: a growth goes on from there). */
export interface ReplayCopy {
  readonly runId: number;
  readonly ticks: number;
  readonly midTick: boolean;
  readonly mark?: RecordingMark;
}

/** A growth of the live run's recording written for a replay host (writeRecordingGrowth): the run's id, its ticks, where it ends. */
export interface ReplayGrowth {
  readonly runId: number;
  readonly ticks: number;
  readonly to: RecordingMark;
}

export class LineReplayHost {
  /** A past line is shown (the replay host is stopped on it). */
  pastLine = false;
  /** A past tick is viewed (seekTick): the moment's queries are the replay host's. */
  viewing = false;
  /** The past line shown is the stop's walk's (pastLine, not a breakpoint search's hit): the moment's queries are the replay host's too (its traced replay is its viewed moment). */
  walkedLine = false;
  /**
   * The past line shown is a breakpoint hit (findHit), or a line reached from one by line moves
   * (moveAtHit), or a line of an earlier step of the live stop's task (`beforeStop`): moves
   * from it are pastHitLine's.
   */
  atHit = false;
  /** The past line shown is in an earlier step of the live stop's task (a step back from its first line of this step): the present a move comes to is the live stop. */
  beforeStop = false;
  /** A newer live stop (a line step in the same tick) is shown: restop() before the next move. */
  stale = false;
  /** The live run's id (of the recording opened last). */
  runId = 0;
  /** Ticks of the recording before the stopped one (the ticks a seek may go to; a search's whole span). */
  ticks = 0;
  /** Where the recording it holds ends, between ticks (a copy's or a growth's mark): the next growth goes on from there; null: none can (a mid-tick copy, none given yet, a growth refused). */
  mark: RecordingMark | null = null;
  /** The live line stop it replays the past of; null: none (pre-warmed, the run went on, or a replay for breakpoint searches). */
  private liveStop: LiveLineStop | null = null;
  private closed = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly endpoint: RpcEndpoint<HostAndReplayHostMethods, Record<string, never>, HostEvents, Record<string, never>>,
  ) {}

  /** Forks a replay host: loaded and idle (it replays nothing until a recording is opened in it). */
  static async fork(host: { script: string; execArgv: readonly string[] }): Promise<LineReplayHost> {
    const child = fork(host.script, [`--client-fd=${CLIENT_FD}`, LINE_REPLAY_ARG], { execArgv: [...host.execArgv], stdio: ['ignore', 'ignore', 'ignore', 'ipc', 'pipe'], serialization: 'json' });
    const endpoint = new RpcEndpoint<HostAndReplayHostMethods, Record<string, never>, HostEvents, Record<string, never>>(new StreamTransport(child.stdio[CLIENT_FD] as Duplex));
    const replay = new LineReplayHost(child, endpoint);
    child.on('exit', () => {
      replay.closed = true;
      endpoint.close('the line replay host exited');
    });
    try {
      await endpoint.request('hello', { client: 'line replay', protocolVersion: PROTOCOL_VERSION });
    } catch (e) {
      replay.close();
      throw new ProtocolError(`the line replay host did not start: ${e instanceof Error ? e.message : String(e)}`, 'replayFailed');
    }
    return replay;
  }

  /**
   * Writes the live run's recording (`writeCopy(path)`: a ProtocolError when the run was not
   * recorded), then forks a replay host and opens it there.
   */
  static async start(host: { script: string; execArgv: readonly string[] }, stop: Omit<LiveLineStop, 'runId'> | null, writeCopy: (path: string) => Promise<ReplayCopy>): Promise<LineReplayHost> {
    const path = lineReplayFile();
    try {
      const written = await writeCopy(path);
      const replay = await LineReplayHost.fork(host);
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
    if (this.liveStop === null) throw new ProtocolError('the line replay holds no live stop (the run went on, or a replay for breakpoint searches)', 'badState');
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
    try {
      await this.endpoint.request('openRecording', written.midTick ? { path, midTick: true } : live ? { path, unshown: true, live: true } : { path, unshown: true });
    } catch (e) {
      throw new ProtocolError(`the line replay host cannot replay the run: ${e instanceof Error ? e.message : String(e)}`, 'replayFailed');
    }
    this.runId = written.runId;
    this.ticks = written.midTick ? written.ticks - 1 : written.ticks;
    this.liveStop = stop === null ? null : { ...stop, runId: written.runId };    this.mark = written.midTick ? null : (written.mark ?? null);
  }

  /**
   * Grows the recording it holds (opened between ticks, `mark`) in place by the growth written
   * to `path` (the caller removes the file): the live run's recording since `mark`. `live`: the
   * run is still going. Refused (the caller then opens the whole recording again), the mark is
   * dropped.
   */
  async grow(path: string, written: ReplayGrowth, live: boolean): Promise<void> {
    this.forget();
    const mark = this.mark;
    this.mark = null;
    if (mark === null) throw new ProtocolError('the line replay host holds no recording a growth goes on from', 'badState');
    try {
      await this.endpoint.request('growRecording', { path, live });
    } catch (e) {
      throw new ProtocolError(`the line replay host cannot grow the run's recording: ${e instanceof Error ? e.message : String(e)}`, 'replayFailed');
    }
    this.runId = written.runId;
    this.ticks = written.ticks;
    this.mark = written.to;
  }

  /** The run went on from the stop (or stopped in another tick): its past is opened again at the next use. */
  forget(): void {
    this.liveStop = null;
    this.pastLine = false;
    this.walkedLine = false;
    this.atHit = false;
    this.beforeStop = false;
    this.viewing = false;
    this.stale = false;
  }

  /**
   * The live thread stopped again in the same tick (a line step): the recording through the
   * start of that tick still holds, so this replay host serves the new stop (a walk of its own).
   */
  async restop(stop: Omit<LiveLineStop, 'runId'>): Promise<void> {
    await this.move('leave');
    this.viewing = false;
    this.liveStop = { ...stop, runId: this.runId };
    this.stale = false;
  }

  /** A move through the stopped task's replayed lines: back, forward ('over', 'into', 'out'), or 'leave' (the present again). */
  async move(move: 'back' | 'leave' | LineStepKind, moment?: string): Promise<PastLineLanding> {
    if (move === 'leave' && !this.pastLine) return { landed: 'present' };
    if (this.atHit) return this.moveAtHit(move, moment);
    this.viewing = false;
    const landing = echoed(await this.endpoint.request('pastLine', { tick: this.stop.tick, taskId: this.stop.taskId, stop: this.stop.print, move, ...idOf(moment) }), moment);
    this.pastLine = landing.landed === 'line';
    this.walkedLine = this.pastLine;
    // Back from the task's first line of this step into an earlier step: a walk anchored there (as at a hit) goes on.
    this.atHit = landing.landed === 'line' && landing.tick !== undefined;
    this.beforeStop = this.atHit;
    return landing;
  }

  /**
   * A move through the lines of the task of the hit shown (pastHitLine): back, forward by line
   * past it (through the last tick before the present), or 'leave'. Off a line (the present,
   * the task's previous suspension), the hit is no longer shown.
   */
  async moveAtHit(move: 'back' | 'leave' | LineStepKind, moment?: string): Promise<PastLineLanding> {
    // A live line stop held: a walk of its task goes on into its tick to it, the present (what its tick runs after it is not the past).
    const live = this.liveStop;
    const landing = echoed(await this.endpoint.request('pastHitLine', live === null ? { move, ceiling: this.ticks, ...idOf(moment) } : { move, ceiling: this.ticks, present: { tick: live.tick, taskId: live.taskId, print: live.print }, ...idOf(moment) }), moment);
    this.pastLine = landing.landed === 'line';
    // From an earlier step of the live stop's task forward into the live stop's step: a line of that step (no tick: the stop's), the stop's own walk again.
    const ofStop = this.beforeStop && landing.landed === 'line' && landing.tick === undefined;
    this.atHit = this.pastLine && !ofStop;
    if (!this.atHit) this.beforeStop = false;
    this.walkedLine = this.pastLine && (ofStop || this.walkedLine);
    return landing;
  }

  /**
   * A search of the replayed past for a breakpoint's hit (pastHit, past-hit-search.ts): found,
   * the replay host is stopped on it and its frames are the line requests' (pastLine).
   */
  async findHit(params: ReplayHostMethods['pastHit']['params']): Promise<BreakpointHitLanding> {
    this.viewing = false;
    // A past line shown stays shown when no hit is found (the replay host stops on it again).
    const shown = this.pastLine;
    const wasAtHit = this.atHit;
    this.pastLine = false;
    this.walkedLine = false;
    this.atHit = false;
    const wasBeforeStop = this.beforeStop;
    this.beforeStop = false;
    const landing = echoed(await this.endpoint.request('pastHit', { ...params, shown }), params.moment);
    // A loop breakpoint's hit ('tick') leaves the line shown: the caller seeks to its tick.
    const stays = shown && landing.landed === 'none';
    this.pastLine = landing.landed === 'line' || stays;
    this.atHit = landing.landed === 'line' || (stays && wasAtHit);
    this.beforeStop = stays && wasBeforeStop;
    return landing;
  }

  /** Moves the viewed moment to a past tick (null: the present), in the live run's words. */
  async seek(tick: number | null, moment?: string): Promise<ViewedMoment> {
    await this.move('leave');
    const viewed: ViewedMoment = { runId: this.runId, tick, ticks: this.ticks };
    if (moment !== undefined) viewed.moment = moment;
    if (tick === null) this.viewing = false;
    else {
      if (tick < 1 || tick > this.ticks) throw new ProtocolError(`seekTick: run ${this.runId} has ticks 1..${this.ticks} recorded before the tick stopped in, not ${tick}`, 'badTick');
      // Replayed before it answers: the moment's queries are then the replay's, with positions and locals (no second viewedTick reaches the views from here).
      // The asker's id rides through the replay host and back: its answer is this seek's own landing.
      const landed = await this.endpoint.request('seekTick', { tick, replayed: true, ...(moment === undefined ? {} : { moment }) });
      if (landed.moment !== moment) throw new ProtocolError(`seekTick: the replay host answered moment ${String(landed.moment)} for ${String(moment)}`, 'replayFailed');
      this.viewing = true;
    }
    return viewed;
  }

  /** Asks the replay host (a line query at a past line, a moment's query at a past tick). */
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

/** `{moment}` for a request when there is one. */
function idOf(moment: string | undefined): { moment?: string } {
  return moment === undefined ? {} : { moment };
}

/** The replay host's answer, checked to echo the moment id of its request (the id rides there and back). */
function echoed<T extends { moment?: string }>(answer: T, moment: string | undefined): T {
  if (answer.moment !== moment) throw new ProtocolError(`the line replay host answered moment ${String(answer.moment)} for ${String(moment)}`, 'replayFailed');
  return answer;
}
