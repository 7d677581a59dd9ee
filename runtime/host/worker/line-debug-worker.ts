// Runs on a runtime host's line debugger worker thread, in either role: a live host's, or a line replay host's (--line-replay).
//
// The runtime host's worker thread when it is started with a client pipe: it owns the pipe
// (StreamTransport, one JSON message per line) and the LineDebugger, and routes the client's
// requests:
// - the line requests (lineStep, lineStack, lineVariables, lineEvaluate, setLineStepMode)
//   and `continue` / `pause` while stopped on a line are its own;
// - `setBreakpoints`: lines with `yield` go to the main thread (they stop where a task
//   suspends, runtime/inspect/loop-control.ts), the others are line breakpoints, here;
// - everything else goes to the main thread: by postMessage while it runs, through the
//   line debugger's synchronous call (`__coroscopeLine.serve`) while it is stopped.
//   A run-changing request (launch, stop, shutdown) while stopped first lets the thread go
//   with breakpoints off, and turns them back on once answered.
// - Step Back at a line stop (lineStepBack) and every seek while stopped on a line go to the
//   run's line replay host (line-replay-host.ts, a host process of its own, forked at the
//   launch of a recorded run, else at its first stop on a line), given the stop's past at its
//   first use: while a past line is shown the line requests and line steps are its, while a
//   past tick is viewed the moment's queries are. A recorded run launched here is followed:
//   its recording so far is handed to the replay host now and then (paced: writing it takes at
//   most a share of the main thread), so the replays parked near its end (RunRewind's leaders)
//   are there when it stops on a line; when it finishes, that replay host, given the rest of
//   the recording, is its hit replay host. It is given the whole recording once, then only
//   what was added since (the recording's growth, appended there in place), so a feed costs
//   what is new.
// - As a line replay host itself: pastLine walks the live host's stop (past-line-walk.ts),
//   asking this host's main thread to replay the tick (replayLineTick, a request of its own),
//   and before the task's first line of the step into its step before (intoStepBefore, as
//   from a hit);
//   pastHit searches the replayed past for a line breakpoint's hit (past-hit-search.ts, with
//   scanTicks); pastHitLine walks the lines of the hit's task from there (a walk anchored at
//   the hit, on through the ticks after it while a step is under way).
// - At a hit shown (and the lines reached from it), lineStep and lineStepBack are moves of
//   that walk (pastHitLine); the views follow a line in another tick there.
// - pastBreakpointHit (Reverse Continue to a breakpoint's hit: the line debugger's and the
//   loop's own, ArmedLoopBreakpoints, kept as setBreakpoints sends them on) goes to the line stop's replay
//   host, or with no line stop to a replay host of the recording so far (started at the first
//   search, kept while the hit it shows or later searches need it, ended with the run).
// Whatever the main thread sends (responses, events) goes to the client as it is.
//
// Invariants: every client request gets one response; a forwarded query the main thread had
// not read when it stopped is answered through the synchronous call, and a continue or loop
// step it had not answered yet is answered with the stop's tick (late answers dropped), so no
// client waits on a stopped thread; the pipe closing ends the host.

import { readFileSync, unlinkSync } from 'node:fs';
import { Session } from 'node:inspector';
import { Socket } from 'node:net';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { resolve as resolvePath } from 'node:path';
import type { Breakpoint, BreakpointStatus, HostEvents } from '../../../protocol/host-protocol';
import { parseHostRequest } from '../../../protocol/host-requests';
import type { ReplayHostMethods } from '../../../protocol/replay-host-protocol';
import { parseReplayHostRequest } from '../../../protocol/replay-host-requests';
import { ProtocolError, parseWireMessage, type RequestMessage, type ResponseMessage } from '../../../protocol/rpc';
import { StreamTransport } from '../../../protocol/stream-transport';
import { isSuspensionLine } from '../../inspect/suspension-breakpoints';
import { isBridgeControl, type BridgeControl } from '../shared/bridge-control';
import { LineDebugger, type BreakpointsSetAt } from './line-debugger';
import { LINE_REPLAY_ARG, LineReplayHost, lineReplayFile, MOMENT_QUERIES, type ReplayCopy, type ReplayGrowth } from './line-replay-host';
import { PastLineWalk } from '../replay-host/past-line-walk';
import { stepEnds, stepsBefore } from './past-lines';
import { PastHitSearch } from '../replay-host/past-hit-search';
import { ArmedLoopBreakpoints } from './armed-loop-breakpoints';
import type { BreakpointHitLanding, HitBound, LineStopPrint, PastLineLanding, ScanTicksResult, Timeline, ViewedMoment } from '../../../protocol/host-protocol';

/** Queries that are safe to answer twice (through the synchronous call, then late by message). */
const READ_ONLY = new Set(['hello', 'snapshot', 'taskDetail', 'variables', 'graph', 'lints', 'samples', 'programLoops']);
/** A followed run's recording is first handed to its replay host this soon after its launch (ms)... */
const FIRST_FEED_MS = 100;
/** ... then at most this often (ms)... */
const FEED_MS = 500;
/** ... and with at least this many times the main thread's time writing it between two (a growth's is what was added since the last: small). */
const FEED_PACE = 20;
/** Requests that change the run: while stopped, the thread goes first (breakpoints off). */
const RUN_CHANGING = new Set(['launch', 'openRecording', 'stop', 'shutdown']);
const LOOP_STEPS = new Set(['stepTick', 'stepTask', 'stepOut']);
/** Requests that let the loop run, answered with a tick. */
const LOOP_MOVES = new Set(['continue', ...LOOP_STEPS]);

/** The host's script and node options: a line replay host (line-replay-host.ts) is started alike; null: none can be. */
export interface HostStart {
  readonly script: string;
  readonly execArgv: readonly string[];
}

/**
 * Serves the client's pipe as the line debugger's worker when this thread was started as one
 * (line-debug-bridge.ts: its workerData names the pipe, the held-time counter and how the host
 * was started); false on any other thread (the host's main thread: it serves itself).
 */
export function runLineDebugWorkerAsAsked(): boolean {
  const data = isMainThread ? null : (workerData as { coroscopeLineDebugFd?: unknown; coroscopeHeldTime?: unknown; coroscopeHostScript?: unknown; coroscopeHostExecArgv?: unknown } | null);
  const fd = data?.coroscopeLineDebugFd;
  if (typeof fd !== 'number') return false;
  const heldTime = data?.coroscopeHeldTime;
  const script = data?.coroscopeHostScript;
  const execArgv = data?.coroscopeHostExecArgv;
  const hostStart = typeof script === 'string' && Array.isArray(execArgv) && execArgv.every((a) => typeof a === 'string') ? { script, execArgv: execArgv as string[] } : null;
  runLineDebugWorker(fd, heldTime instanceof SharedArrayBuffer ? heldTime : null, hostStart);
  return true;
}

export function runLineDebugWorker(fd: number, heldTime: SharedArrayBuffer | null, hostStart: HostStart | null): void {
  const port = parentPort;
  if (port === null) throw new Error('runLineDebugWorker runs in a worker thread');
  const client = new StreamTransport(new Socket({ fd, readable: true, writable: true }));
  const session = new Session();
  session.connectToMainThread();
  const forwarded = new Map<number, RequestMessage>();

  const respond = (id: number, result: unknown): void => client.send({ kind: 'response', id, ok: true, result } satisfies ResponseMessage);
  const refuse = (id: number, e: unknown, code = 'failed'): void =>
    client.send({ kind: 'response', id, ok: false, error: { message: e instanceof Error ? e.message : String(e), code } } satisfies ResponseMessage);

  /** Serves a message on the stopped main thread; sends what it answered. */
  const serveStopped = async (m: RequestMessage): Promise<void> => {
    const raw = await debuggerOf().callMain(`serve(${JSON.stringify(JSON.stringify(m))})`);
    const out: unknown = typeof raw === 'string' ? JSON.parse(raw) : [];
    if (Array.isArray(out)) for (const x of out) deliver(x);
  };
  /** Something the main thread sent: a setBreakpoints part to merge, or for the client. */
  const deliver = (m: unknown): void => {
    if (!takeMerge(m)) client.send(m);
  };

  // The run's line replay host (the past of its stops on a line), and the stop's own `paused`.
  let replay: LineReplayHost | null = null;
  let replayForking: Promise<LineReplayHost> | null = null;
  /** Uses of the replay host that give it a stop, one at a time. */
  let replayQueue: Promise<unknown> = Promise.resolve();
  let livePaused: HostEvents['paused'] | null = null;
  /** This host is itself a line replay host: it starts none of its own ahead of need. */
  const isLineReplay = process.argv.includes(LINE_REPLAY_ARG);
  const endReplay = (): void => {
    stopFollowing();
    replay?.close();
    replay = null;
    const forking = replayForking;
    replayForking = null;
    forking?.then(
      (r) => r.close(),
      () => undefined,
    );
  };
  /** The run's replay host: the one forked already (or being forked), else forked now. */
  const forkReplay = (): Promise<LineReplayHost> => {
    if (replay !== null && !replay.isClosed) return Promise.resolve(replay);
    replay = null;
    if (replayForking !== null) return replayForking;
    if (hostStart === null) return Promise.reject(new ProtocolError('this host cannot start a line replay host', 'replayFailed'));
    const forking = LineReplayHost.fork(hostStart);
    replayForking = forking;
    forking.then(
      (r) => {
        // Ended meanwhile, unless handed on (the hit replay host of the run just finished).
        if (replayForking !== forking) return handedOn.has(forking) ? undefined : r.close();
        replayForking = null;
        replay = r;
      },
      () => {
        if (replayForking === forking) replayForking = null;
      },
    );
    return forking;
  };
  // As a line replay host: the walk through the replayed lines (past-line-walk.ts), and the breakpoint searches (past-hit-search.ts).
  let walk: PastLineWalk | null = null;
  /** While `walk` is in an earlier step of a live stop's task (a step back from its first line of the step): the live stop's walk, where a step forward out of it goes on. */
  let stopWalk: PastLineWalk | null = null;
  let hits: PastHitSearch | null = null;
  // With no line stop (a finished run, a loop-level stop): the replay host of breakpoint searches (pastBreakpointHit), over the recording as it was written.
  let hitReplay: LineReplayHost | null = null;
  let hitReplayStarting: Promise<LineReplayHost> | null = null;
  const endHitReplay = (): void => {
    hitReplay?.close();
    hitReplay = null;
    hitReplayStarting = null;
  };

  /** Runs `use` of the replay host in turn with the other uses that give it a recording. */
  const inReplayQueue = <T>(use: () => Promise<T>): Promise<T> => {
    const job = replayQueue.then(use);
    replayQueue = job.catch(() => undefined);
    return job;
  };

  // The current run as launched or opened here: recorded (its past replayable), finished; and
  // whether a debugger has set its breaks on this host (a debug session: the panel sets none).
  let runRecorded = false;
  let runFinished = false;
  /** Its id, once the launch or open is answered (null: not yet). */
  let runId: number | null = null;
  let debugged = false;
  // A recorded run launched here and debugged, followed: its replay host is given the recording so far now and then.
  let followTimer: ReturnType<typeof setTimeout> | null = null;
  let followed = false;
  function stopFollowing(): void {
    followed = false;
    if (followTimer !== null) clearTimeout(followTimer);
    followTimer = null;
  }
  /**
   * Ahead of a debugger's use of the past: a recorded run going on is followed (its replay
   * host forked now); a finished one's hit replay host is started now.
   */
  const prepareReplays = (): void => {
    if (isLineReplay || hostStart === null || !debugged || !runRecorded || runId === null) return;
    if (runFinished) {
      if (hitReplay === null && hitReplayStarting === null) void hitReplayOf(0).catch(() => undefined);
      return;
    }
    if (followed) return;
    followed = true;
    void forkReplay().catch(() => undefined);
    scheduleFeed(FIRST_FEED_MS);
  };
  const scheduleFeed = (ms: number): void => {
    followTimer = setTimeout(() => void feed(), ms);
    followTimer.unref?.();
  };
  const feed = async (): Promise<void> => {
    followTimer = null;
    let writing = 0;
    if (replay === null && replayForking !== null) await replayForking.catch(() => undefined);
    // Not while stopped on a line (the stop's own recording is newer) or while its past is open.
    if (followed && replay !== null && !replay.isClosed && !replay.hasLiveStop() && !dbg!.isStopped()) await handOver(replay, true, (ms) => (writing += ms)).catch(() => undefined);
    if (followed) scheduleFeed(Math.max(FEED_MS, FEED_PACE * writing));
  };
  /**
   * The run's recording so far (between ticks), handed to replay host `r` (`live`: the run goes
   * on): its run grows. When `r` holds a copy between ticks (its mark), only what the recording
   * gained since is written by the main thread and appended there in place (writeRecordingGrowth,
   * growRecording: a feed costs what is new); else, or when that is refused, the whole recording
   * is written and opened. Skipped when `r` has been given a stop's or a later recording
   * meanwhile (never a shorter one). `wrote`: the main thread's time writing (ms), each time.
   */
  const handOver = async (r: LineReplayHost, live: boolean, wrote?: (ms: number) => void): Promise<LineReplayHost> => {
    const from = r.mark;
    if (from !== null && !r.hasLiveStop()) {
      const path = lineReplayFile();
      try {
        const written = (await askMain('writeRecordingGrowth', { path, from }, live)) as ReplayGrowth & { writeMs: number };
        wrote?.(written.writeMs);
        return await inReplayQueue(async () => {
          if (stillWanted(r, live) && r.mark === from && written.runId === runId) await r.grow(path, written, live);
          return r;
        });
      } catch (e) {
        // Withdrawn at a line stop: no feed now (the replay host keeps its copy and mark).
        if (e instanceof ProtocolError && e.code === 'superseded') return r;
        // Not a mark of the recording any more, or a growth the replay host refused (its mark is dropped): the whole recording, below.
      } finally {
        try {
          unlinkSync(path);
        } catch {
          // Not written, or gone already.
        }
      }
    }
    return handOverWhole(r, live, wrote);
  };
  /**
   * Whether a recording written for replay host `r` is still to be handed over once its turn
   * comes: `r` open, given no stop's recording meanwhile (never a shorter one), and for a feed
   * (`live`) still the run's replay host and the run still followed (a line stop ends that: its
   * own recording is newer, and the replay host is not kept busy with an older one).
   */
  const stillWanted = (r: LineReplayHost, live: boolean): boolean => !r.isClosed && !r.hasLiveStop() && (!live || (replay === r && followed));
  /** The run's recording so far (between ticks), written whole by the main thread and opened in replay host `r` (handOver). */
  const handOverWhole = async (r: LineReplayHost, live: boolean, wrote?: (ms: number) => void): Promise<LineReplayHost> => {
    const path = lineReplayFile();
    try {
      const written = (await askMain('writeReplayCopy', { path }, live)) as ReplayCopy & { writeMs?: number };
      wrote?.(written.writeMs ?? 0);
      return await inReplayQueue(async () => {
        if (stillWanted(r, live) && !written.midTick && written.runId === runId && written.ticks >= r.ticks) await r.open(null, path, written, live);
        return r;
      });
    } catch (e) {
      // Withdrawn at a line stop: no feed now.
      if (e instanceof ProtocolError && e.code === 'superseded') return r;
      throw e;
    } finally {
      try {
        unlinkSync(path);
      } catch {
        // Not written, or gone already.
      }
    }
  };

  /** Requests of this worker's own to the main thread (negative ids, never a client's). */
  let askedIds = 0;
  const asked = new Map<number, (w: ResponseMessage) => void>();
  /** A feed's requests to the main thread not answered yet: a line stop withdraws those it has not read (withdrawFeeds). */
  const feedAsks = new Set<number>();
  const askMain = (method: string, params: unknown, feed = false): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = --askedIds;
      if (feed) feedAsks.add(id);
      asked.set(id, (w) => {
        feedAsks.delete(id);
        if (w.ok) resolve(w.result);
        else reject(new ProtocolError(w.error?.message ?? `${method} failed`, w.error?.code ?? 'failed'));
      });
      port.postMessage({ kind: 'request', id, method, params } satisfies RequestMessage);
    });
  /**
   * At a line stop: the feeds asked of the main thread that it had not read before it stopped
   * are withdrawn (through the synchronous call: it drops them unread), so none runs when it
   * goes on (a line step would step through it): the stop's own recording supersedes them, and
   * the replay host keeps its copy and mark, which the next whole copy or growth goes on from.
   */
  const withdrawFeeds = async (d: LineDebugger): Promise<void> => {
    for (const id of [...feedAsks]) {
      if ((await d.callMain(`withdraw(${id})`).catch(() => false)) !== true) continue;
      const answer = asked.get(id);
      asked.delete(id);
      answer?.({ kind: 'response', id, ok: false, error: { message: 'the feed was withdrawn at a line stop', code: 'superseded' } });
    }
  };

  let dbg: LineDebugger | null = null;
  const debuggerOf = (): LineDebugger => dbg!;
  dbg = new LineDebugger(session, {
    heldTime,
    replayOnly: isLineReplay,
    emit: <E extends 'paused' | 'continued' | 'output'>(event: E, body: HostEvents[E]) => {
      if (event === 'paused') livePaused = body as HostEvents['paused'];
      client.send({ kind: 'event', event, body });
    },
    stopped: async () => {
      // A feed asked of the main thread while a line step runs would be stepped through (host code): the
      // run is followed only until its first line stop (a Step Back hands the replay host the stop's
      // recording), and a feed asked before the stop but not read by the main thread yet is withdrawn.
      stopFollowing();
      await withdrawFeeds(debuggerOf());
      // A new stop: in another tick, the past of the previous one is gone; in the same tick (a line step), the replay host serves this one too.
      const held = replay !== null && replay.hasLiveStop() ? replay.stop : null;
      if (replay !== null && held !== null && held.tick !== debuggerOf().tick()) replay.forget();
      else if (replay !== null && held !== null) {
        replay.stale = true;
        replay.viewing = false;
      }
      // A recorded run's first stop on a line: its replay host is forked now, idle, so a Step Back finds it loaded.
      if (!isLineReplay && hostStart !== null && replay === null && replayForking === null && debuggerOf().stopRecorded()) void forkReplay().catch(() => undefined);
      for (const [id, m] of forwarded) {
        // A continue or a loop step the main thread took, whose answer it had not sent before
        // it stopped on a line (the program ran into the breakpoint first): it is answered
        // here, with the tick of the stop, and its late answer dropped.
        if (!LOOP_MOVES.has(m.method)) continue;
        forwarded.delete(id);
        respond(id, { tick: debuggerOf().tick() });
      }
      // Queries the main thread had not read yet: answer them now.
      for (const [id, m] of forwarded) {
        if (!READ_ONLY.has(m.method)) continue;
        forwarded.delete(id);
        await serveStopped(m).catch((e: unknown) => refuse(id, e));
      }
    },
  });

  // A line replay host's first walk or search maps positions to TypeScript: its source maps are
  // read ahead of it, once its first recording is on its way to the main thread. Read at once,
  // they held up its hello and that open by the time they take (a third of its start), and so
  // the replays the open starts (its leaders), while a short run's first search waited for them.
  let mapsRead = !isLineReplay;

  const toMain = (m: RequestMessage): void => {
    forwarded.set(m.id, m);
    port.postMessage(m);
    if (!mapsRead && m.method === 'openRecording') {
      mapsRead = true;
      setImmediate(() => void dbg!.warm().catch(() => undefined));
    }
  };

  const setBreakpoints = async (m: RequestMessage): Promise<void> => {
    const p = (typeof m.params === 'object' && m.params !== null ? m.params : {}) as { file?: unknown; breakpoints?: unknown };
    if (typeof p.file !== 'string' || !Array.isArray(p.breakpoints)) {
      // Let the host's own checks word the refusal.
      if (dbg!.isStopped()) await serveStopped(m);
      else toMain(m);
      return;
    }
    const file = resolvePath(p.file);
    let lines: string[] = [];
    try {
      lines = readFileSync(file, 'utf8').split('\n');
    } catch {
      // The host's checks say it cannot read the file.
    }
    const all = p.breakpoints as Breakpoint[];
    const suspension = all.filter((b) => typeof b === 'object' && b !== null && (lines.length === 0 || isSuspensionLine(lines[(b.line ?? 0) - 1] ?? 'yield')));
    const line = all.filter((b) => !suspension.includes(b));
    const lineStatuses = await dbg!.setLineBreakpoints(file, line, null, setAt(line));
    // The main thread's part, asked as a request of our own.
    const sub: RequestMessage = { kind: 'request', id: m.id, method: 'setBreakpoints', params: { file, breakpoints: suspension } };
    const mainStatuses = await new Promise<BreakpointStatus[] | Error>((resolve) => {
      pendingMerges.set(m.id, resolve);
      if (dbg!.isStopped()) serveStopped(sub).catch((e: unknown) => resolve(e instanceof Error ? e : new Error(String(e))));
      else port.postMessage(sub);
    });
    if (mainStatuses instanceof Error) return refuse(m.id, mainStatuses);
    loopBreakpoints.set(file, suspension, mainStatuses, setAt(suspension));
    respond(m.id, { breakpoints: all.map((b) => (suspension.includes(b) ? mainStatuses[suspension.indexOf(b)] : lineStatuses[line.indexOf(b)])) });
  };
  /**
   * When line breakpoints are set, for their hit conditions (hits since set, as a search of the
   * past counts them too): before the run or once it has finished, from its start; at a line
   * stop, its tick; else the tick the main thread is at (its snapshot's, asked only for a hit
   * condition).
   */
  const setAt = (breakpoints: readonly Breakpoint[]): BreakpointsSetAt => {
    if (runFinished || runId === null || !breakpoints.some((b) => b.hitCondition !== undefined && b.hitCondition.trim() !== '')) return 'start';
    if (dbg!.isStopped()) return { tick: dbg!.tick() };
    return { telling: askMain('snapshot', {}).then((r) => (r as { tick: number }).tick) };
  };
  /** The breakpoints the loop stops at (lines with yield), as a search of the past arms them beside the line debugger's. */
  const loopBreakpoints = new ArmedLoopBreakpoints();
  /** setBreakpoints answers of the main thread, merged before the client sees them. */
  const pendingMerges = new Map<number, (r: BreakpointStatus[] | Error) => void>();
  const takeMerge = (m: unknown): boolean => {
    const w = parseWireMessage(m);
    if (typeof w === 'string' || w.kind !== 'response') return false;
    const merge = pendingMerges.get(w.id);
    if (merge === undefined) return false;
    pendingMerges.delete(w.id);
    const r = w.result as { breakpoints?: BreakpointStatus[] } | undefined;
    merge(w.ok && r?.breakpoints !== undefined ? r.breakpoints : new Error(w.error?.message ?? 'setBreakpoints failed'));
    return true;
  };

  /** The run's replay host, holding the past of the current stop (given it at its first use). */
  const replayOf = (method: string): Promise<LineReplayHost> => inReplayQueue(() => replayOfStop(method));
  const replayOfStop = async (method: string): Promise<LineReplayHost> => {
    const d = dbg!;
    if (replay !== null && replay.hasLiveStop() && !replay.stale && !replay.isClosed) return replay;
    if (!d.isStopped()) throw new ProtocolError(`${method}: the program is not stopped on a line`, 'badState');
    const { taskId, tick, print } = await d.stopPrint();
    // Code no task of the runtime's loop runs (a loop, thread or process of the program's own, or its code around the loop): the recording holds the loop's ticks only.
    if (taskId === null) throw new ProtocolError(`${method}: the stop is not in a task of the runtime's loop: the program runs this code on a loop, thread or process of its own (or outside its tasks), which the recording does not hold, so its past cannot be replayed`, 'notRecorded');
    if (replay !== null && replay.hasLiveStop() && !replay.isClosed && replay.stale && replay.stop.tick === tick) {
      await replay.restop({ tick, taskId, print });
      return replay;
    }
    if (hostStart === null) throw new ProtocolError(`${method}: this host cannot start a replay host`, 'replayFailed');
    // The recording first: a run not recorded is refused before any replay host is forked.
    const path = lineReplayFile();
    try {
      const r = (await d.callMain(`writeMidTick(${JSON.stringify(path)})`)) as { runId?: unknown; ticks?: unknown; midTick?: unknown; refused?: unknown } | null;
      if (typeof r?.refused === 'string') throw new ProtocolError(r.refused, 'notRecorded');
      if (typeof r?.runId !== 'number' || typeof r.ticks !== 'number') throw new ProtocolError(`${method}: the run's recording could not be written`, 'replayFailed');
      const host = await forkReplay();
      await host.open({ tick, taskId, print }, path, { runId: r.runId, ticks: r.ticks, midTick: r.midTick === true });
      return host;
    } finally {
      try {
        unlinkSync(path);
      } catch {
        // Not written, or gone already.
      }
    }
  };

  /** The replay host of breakpoint searches with no line stop, started at the first use (again when the recording has grown past `tick`). */
  const hitReplayOf = async (tick: number): Promise<LineReplayHost> => {
    // The followed run's replay host, being given the whole recording as the run finished.
    if (hitReplayStarting !== null) await hitReplayStarting.catch(() => undefined);
    if (hitReplay !== null && !hitReplay.isClosed && hitReplay.ticks >= tick) return hitReplay;
    endHitReplay();
    if (hostStart === null) throw new ProtocolError('pastBreakpointHit: this host cannot start a replay host', 'replayFailed');
    const starting = (hitReplayStarting = LineReplayHost.start(hostStart, null, async (path) => (await askMain('writeReplayCopy', { path })) as { runId: number; ticks: number; midTick: boolean }));
    try {
      const started = await starting;
      if (hitReplayStarting === starting) hitReplay = started;
      else started.close();
      return started;
    } catch (e) {
      if (hitReplayStarting === starting) hitReplayStarting = null;
      throw e;
    }
  };

  /**
   * The moment the views were told last while a line stop holds the main thread (the tick of
   * a past line or hit the replay host shows; null: the present): the panel's cursor, table and
   * stacks follow the debugger's past lines and hits there, and come back with it.
   */
  let toldPast: number | null = null;
  const tellViewed = (r: LineReplayHost, tick: number | null, moment?: string): void => {
    // Every landing is told, in the same tick too (another line, another task: another moment); the present once.
    if (tick === null && toldPast === null) return;
    toldPast = tick;
    const body: ViewedMoment = { runId: r.runId, tick, ticks: Math.max(r.ticks, tick ?? 0), line: true, ...(moment === undefined ? {} : { moment }) };
    client.send({ kind: 'event', event: 'viewedTick', body });
  };

  /** Replay hosts (forked or being forked) handed on from the line stops' role to the hit searches'. */
  const handedOn = new WeakSet<Promise<LineReplayHost>>();
  /** The followed run's replay host, given the whole recording once the run has finished: the hit replay host. */
  const keepForHits = (forked: Promise<LineReplayHost>): void => {
    const starting = forked.then((r) => handOver(r, false).catch((e: unknown) => {
      r.close();
      throw e;
    }));
    hitReplayStarting = starting;
    starting.then(
      (started) => {
        if (hitReplayStarting !== starting) return started.close();
        hitReplayStarting = null;
        hitReplay = started;
      },
      () => {
        if (hitReplayStarting === starting) hitReplayStarting = null;
      },
    );
  };

  /** Shows where a move through the replayed lines landed: a past line (in an earlier step of the task too), or the live stop again. */
  const showLanding = (landing: PastLineLanding, r: LineReplayHost, moment?: string): void => {
    const id = moment === undefined ? {} : { moment };
    if (landing.landed === 'present' && livePaused !== null) {
      tellViewed(r, null, moment);
      client.send({ kind: 'event', event: 'paused', body: { ...livePaused, reason: 'step', ...id } });
      return;
    }
    if (landing.landed !== 'line' || !r.hasLiveStop()) return;
    if (landing.tick !== undefined) {
      // In an earlier step (a walk anchored there, as at a hit): the views follow to its tick.
      tellViewed(r, landing.tick, moment);
      return showHitLanding(landing, moment);
    }
    tellViewed(r, r.stop.tick, moment);
    const who = livePaused?.description.split(' stopped on a line')[0] ?? `task #${r.stop.taskId}`;
    const at = landing.line === null ? '' : ` at ${landing.line.file}:${landing.line.line}`;
    const note = landing.note === undefined ? '' : `: ${landing.note}`;
    const body: HostEvents['paused'] = { reason: 'step', tick: r.stop.tick, taskId: r.stop.taskId, description: `${who} on a past line${at} (tick ${r.stop.tick}, replayed)${note}`, pastLine: true, ...id };
    if (landing.line !== null) body.line = landing.line;
    client.send({ kind: 'event', event: 'paused', body });
  };

  /** A line reached from a breakpoint hit, in another tick maybe: the views follow to its tick (as to the hit's). */
  const followHitLine = async (landing: PastLineLanding, r: LineReplayHost, moment?: string): Promise<void> => {
    if (landing.landed !== 'line' || landing.tick === undefined) return;
    if (dbg!.isStopped()) tellViewed(r, landing.tick, moment);
    else await askMain('seekTick', { tick: landing.tick, ...(moment === undefined ? {} : { moment }) });
  };
  /** Shows a line reached from a breakpoint hit: a `paused` of that past line (the present and a suspension are the client's to show). */
  const showHitLanding = (landing: PastLineLanding, moment?: string): void => {
    if (landing.landed !== 'line' || landing.tick === undefined) return;
    const who = landing.task ?? (landing.taskId !== undefined ? `task #${landing.taskId}` : 'the main thread');
    const at = landing.line === null ? '' : ` at ${landing.line.file}:${landing.line.line}`;
    const note = landing.note === undefined ? '' : `: ${landing.note}`;
    const body: HostEvents['paused'] = { reason: 'step', tick: landing.tick, description: `${who} on a past line${at} (tick ${landing.tick}, replayed)${note}`, pastLine: true, ...(moment === undefined ? {} : { moment }) };
    if (landing.taskId !== undefined) body.taskId = landing.taskId;
    if (landing.line !== null) body.line = landing.line;
    client.send({ kind: 'event', event: 'paused', body });
  };

  /** As a line replay host: a walk through task `taskId`'s replayed lines in tick `tick` (past-line-walk.ts), its ticks replayed by this host's main thread. */
  const walkOf = (tick: number, taskId: number, print: LineStopPrint, ceiling: number | null = null, lastOfTick = false, present: HitBound | null = null): PastLineWalk =>
    new PastLineWalk(
      dbg!,
      (t) => askMain('replayLineTick', { tick: t }),
      (t) => askMain('seekTick', { tick: t, replayed: true }),
      tick,
      taskId,
      print,
      ceiling,
      lastOfTick,
      present,
    );

  /**
   * As a line replay host, a step back before the task's first line of a step (a hit's, or the
   * live stop's: pastHitLine, pastLine): the last line it ran of the walk's functions in an
   * earlier step, however far back (past-lines.ts stepsBefore: the steps spent wholly in deeper
   * calls, or in calls of none of the stop's functions, passed over by their recorded frames),
   * replayed, a walk anchored there that goes on like a hit's, through `ceiling`; at the task's
   * first step, the start of the task (startOfTask); else its previous suspension, saying why.
   */
  const intoStepBefore = async (from: PastLineWalk, ceiling: number): Promise<PastLineLanding> => {
    const timeline = (await askMain('timeline', { taskId: from.taskId })) as Timeline;
    const segments = timeline.lanes.find((l) => l.taskId === from.taskId)?.segments ?? [];
    if (stepEnds(segments, from.tick).length === 0) return startOfTask(from);
    const steps = stepsBefore(segments, from.tick, from.print.frames.length, from.print.names);
    if (steps.length === 0) return { landed: 'suspension', why: `its steps before the one at tick ${from.tick} ran no line of the functions on these frames` };
    await from.dispose();
    walk = null;
    // However far back: each step tried is one tick replayed, and the recorded chains leave only those that ran one of these functions.
    let skipped = 0;
    for (const step of steps) {
      const earlier = walkOf(step.tick, from.taskId, from.print, from.present !== null ? from.ceiling : ceiling, true, from.present);
      walk = earlier;
      const passed = step.passedOver + skipped;
      const between = passed === 0 ? '' : ` (its ${passed === 1 ? 'step' : `${passed} steps`} between ran no line of these frames' functions)`;
      const landing = await earlier.enterLast(`the last line of its step at tick ${step.tick}, before its step at tick ${from.tick}${between}`);
      if (landing !== null) return landing;
      await earlier.dispose();
      walk = null;
      skipped = passed + 1;
    }
    return { landed: 'suspension', why: `its steps before the one at tick ${from.tick} ran no line of the functions on these frames (${steps.length} replayed to see)` };
  };

  /**
   * Before the first line of the task's first step: nothing of it ran before, it is the start
   * of the task. The walk stops on that first line again, its landing saying so; when that line
   * is the live stop itself, the answer is a suspension saying why (the client finds none
   * before it, and says the task is at its start).
   */
  const startOfTask = async (from: PastLineWalk): Promise<PastLineLanding> => {
    const start = `the start of the task: its step at tick ${from.tick} is its first, nothing of it ran before`;
    const again = await from.enterFirst();
    if (again.landed === 'line') return { ...again, note: start };
    return { landed: 'suspension', why: start };
  };

  /** A replay host's answer with the moment id of its request echoed (protocol/replay-host-protocol.ts). */
  const echo = <T extends object>(answer: T, moment: string | undefined): T & { moment?: string } => (moment === undefined ? answer : { ...answer, moment });
  const own = async (m: RequestMessage): Promise<void> => {
    const d = dbg!;
    const past = replay?.pastLine === true ? replay : hitReplay?.pastLine === true ? hitReplay : null;
    if (past !== null && (m.method === 'lineStack' || m.method === 'lineVariables' || m.method === 'lineEvaluate')) {
      // A past line: its frames are the replay host's.
      parseHostRequest(m.method, m.params);
      return respond(m.id, await past.request(m.method, m.params));
    }
    switch (m.method) {
      case 'lineStep': {
        const { kind, moment } = parseHostRequest('lineStep', m.params);
        if (past?.atHit === true) {
          // From a line of an earlier step of the live stop's task, a step that comes to the present shows the live stop (a hit's client shows the present itself).
          const beforeStop = past.beforeStop;
          const landing = await past.moveAtHit(kind, moment);
          await followHitLine(landing, past, moment);
          respond(m.id, { landing });
          return beforeStop ? showLanding(landing, past, moment) : showHitLanding(landing, moment);
        }
        if (past !== null) {
          const landing = await past.move(kind, moment);
          respond(m.id, {});
          return showLanding(landing, past, moment);
        }
        // The live thread goes on; the stop it comes to says whether the tick's past stays.
        if (replay !== null && replay.hasLiveStop()) await replay.move('leave').catch(() => undefined);
        respond(m.id, {});
        await d.lineStep(kind);
        return;
      }
      case 'lineStepBack': {
        const { moment } = parseHostRequest('lineStepBack', m.params);
        if (past?.atHit === true) {
          const beforeStop = past.beforeStop;
          const landing = await past.moveAtHit('back', moment);
          await followHitLine(landing, past, moment);
          respond(m.id, landing);
          return beforeStop ? showLanding(landing, past, moment) : showHitLanding(landing, moment);
        }
        const r = await replayOf('lineStepBack');
        const landing = await r.move('back', moment);
        respond(m.id, landing);
        return showLanding(landing, r, moment);
      }
      case 'pastBreakpointHit': {
        // Reverse Continue (or Continue from a past hit) to a line breakpoint's hit, replayed: the
        // line stop's replay host, else the hit replay host of the recording so far.
        const p = parseHostRequest('pastBreakpointHit', m.params);
        const armed = [...d.armedBreakpoints(), ...loopBreakpoints.armed()];
        // Nothing armed: nothing to replay for (a past line shown stays shown).
        if (armed.length === 0) return respond(m.id, { landed: 'none', breakpoints: [], from: p.floor ?? 0, to: p.tick } satisfies BreakpointHitLanding);
        let r: LineReplayHost;
        let bound: HitBound = { tick: p.tick };
        if (d.isStopped()) {
          r = replay?.pastLine === true ? replay : await replayOf('pastBreakpointHit');
          // A past line shown: the replay host starts from it (it is stopped there).
          bound = { tick: r.stop.tick, taskId: r.stop.taskId, print: r.stop.print };
        } else {
          r = hitReplay?.pastLine === true ? hitReplay : await hitReplayOf(p.tick);
        }
        // A live line stop's tick is open: forward, the search ends at the live stop in it (its hits after the live stop are the present's, not the past's).
        const live = r.hasLiveStop() ? r.stop : null;
        const end = live !== null ? live.tick : r.ticks;
        const ceiling = Math.min(p.ceiling ?? end, end);
        const params: ReplayHostMethods['pastHit']['params'] = { direction: p.direction, bound, floor: p.floor ?? 0, ceiling, breakpoints: armed, ...(p.moment === undefined ? {} : { moment: p.moment }) };
        if (live !== null && p.direction === 'forward' && ceiling === live.tick) params.until = { tick: live.tick, taskId: live.taskId, print: live.print };
        const landing = await r.findHit(params);
        // The views follow to the hit's tick (the live host's own seek; while a line stop holds its main thread, the replay host's moment).
        if (landing.landed === 'line' && d.isStopped()) tellViewed(r, landing.tick, p.moment);
        else if (landing.landed === 'line') await askMain('seekTick', { tick: landing.tick, ...(p.moment === undefined ? {} : { moment: p.moment }) });
        return respond(m.id, landing);
      }
      case 'pastHit': {
        // As a line replay host: a breakpoint search of the opened recording, from the past line shown if any.
        const p = parseReplayHostRequest('pastHit', m.params);
        let bound = p.bound;
        const shown = p.shown === true && d.isStopped();
        if (shown) {
          const at = await d.stopPrint();
          bound = at.taskId === null ? { tick: at.tick } : { tick: at.tick, taskId: at.taskId, print: at.print };
        }
        await walk?.dispose();
        walk = null;
        stopWalk = null;
        hits ??= new PastHitSearch(d, async (params) => (await askMain('scanTicks', params)) as ScanTicksResult, (tick) => askMain('seekTick', { tick, replayed: true }));
        return respond(m.id, echo(await hits.find(p.direction, bound, p.floor, p.ceiling, p.breakpoints, shown, p.until ?? null), p.moment));
      }
      case 'pastHitLine': {
        // As a line replay host: a move through the lines of the task of the hit shown (a walk anchored there), or of a line reached from it.
        const p = parseReplayHostRequest('pastHitLine', m.params);
        if (hits?.isStopped() === true) {
          const at = await d.stopPrint();
          if (at.taskId === null) throw new ProtocolError('pastHitLine: the hit shown is outside any task; its lines are walked through a task', 'badState');
          await hits.leaveHit();
          await walk?.dispose();
          stopWalk = null;
          // A hit of the live line stop's task: its walk goes on into the stop's tick, to the stop (the present).
          const present = p.present !== undefined && p.present.taskId === at.taskId && p.present.print !== undefined ? p.present : null;
          walk = walkOf(at.tick, at.taskId, at.print, present !== null ? Math.max(p.ceiling, present.tick) : p.ceiling, false, present);
        } else if (walk === null || walk.ceiling === null) {
          throw new ProtocolError('pastHitLine: no breakpoint hit is shown', 'badState');
        }
        let landing = await walk.move(p.move);
        if (landing.landed === 'present' && p.move !== 'back' && p.move !== 'leave' && stopWalk !== null) {
          // Forward out of the live stop's task's step before, into the live stop's step: its first line (the present when that is the live stop).
          await walk.dispose();
          walk = stopWalk;
          stopWalk = null;
          landing = await walk.enterFirst();
        }
        // Before the task's first line of this step: the last line of its step before, when it ran one the walk sees.
        return respond(m.id, echo(landing.landed === 'suspension' && p.move === 'back' ? await intoStepBefore(walk, p.ceiling) : landing, p.moment));
      }
      case 'pastLine': {
        // As a line replay host: a move through the replayed lines of the live host's stop.
        const p = parseReplayHostRequest('pastLine', m.params);
        await hits?.release();
        if (walk === null || !walk.isOf(p.tick, p.taskId, p.stop)) {
          await walk?.dispose();
          stopWalk = null;
          walk = walkOf(p.tick, p.taskId, p.stop);
        }
        const landing = await walk.move(p.move);
        if (landing.landed !== 'suspension' || p.move !== 'back') return respond(m.id, echo(landing, p.moment));
        // Before the task's first line of this step: the last line of its step before (a walk anchored there, as from a hit's), through the tick before the live stop's.
        const live = walk;
        const before = await intoStepBefore(live, p.tick - 1);
        if (before.landed === 'line' && before.tick !== undefined) stopWalk = live;
        return respond(m.id, echo(before, p.moment));
      }
      case 'lineStack':
        parseHostRequest('lineStack', m.params);
        return respond(m.id, d.stack());
      case 'lineVariables':
        return respond(m.id, { variables: await d.variables(parseHostRequest('lineVariables', m.params).handle) });
      case 'lineEvaluate': {
        const p = parseHostRequest('lineEvaluate', m.params);
        return respond(m.id, await d.evaluate(p.expression, p.frameIndex ?? 0));
      }
      case 'setLineStepMode':
        d.setMode(parseHostRequest('setLineStepMode', m.params).mode);
        return respond(m.id, {});
      default:
        throw new ProtocolError(`unknown method ${JSON.stringify(m.method)}: the runtime host has no such method`, 'unknownMethod');
    }
  };

  const route = async (m: RequestMessage): Promise<void> => {
    const d = dbg!;
    if (m.method === 'launch' || m.method === 'openRecording') {
      // A new run: the previous one's replay hosts go; a recorded one is prepared for (when debugged).
      endReplay();
      endHitReplay();
      runRecorded = m.method === 'openRecording' || (m.params as { options?: { record?: unknown } } | null)?.options?.record === true;
      runFinished = m.method === 'openRecording';
      runId = null;
      d.newRun();
      loopBreakpoints.newRun();
    }
    if (m.method === 'setExceptionBreaks' || m.method === 'setBreakpoints') {
      debugged = true;
      prepareReplays();
    }
    if (m.method.startsWith('line') || m.method === 'setLineStepMode' || m.method.startsWith('past')) return own(m);
    if (m.method === 'setBreakpoints') return setBreakpoints(m);
    if (hitReplay !== null && (LOOP_MOVES.has(m.method) || m.method === 'pause' || m.method === 'seekTick' || RUN_CHANGING.has(m.method))) {
      // The views move (a seek, the run going on): the hit shown is left; a new run drops its replay.
      hitReplay.pastLine = false;
      if (RUN_CHANGING.has(m.method)) endHitReplay();
    }
    if (!d.isStopped()) return toMain(m);
    if (m.method === 'continue') {
      const tick = d.tick();
      respond(m.id, { tick });
      // From a past line or tick too: the live stop goes on, and its past with it (the replay host stays, for the run's next stops).
      const shownPast = replay !== null && (replay.pastLine || replay.viewing);
      if (replay !== null && replay.hasLiveStop()) await replay.move('leave').catch(() => undefined);
      if (replay !== null && (shownPast || toldPast !== null)) client.send({ kind: 'event', event: 'viewedTick', body: { runId: replay.runId, tick: null, ticks: replay.ticks } });
      toldPast = null;
      replay?.forget();
      return d.resume();
    }
    if (m.method === 'pause') return respond(m.id, { tick: d.tick() });
    if (LOOP_STEPS.has(m.method)) return refuse(m.id, new Error(`${m.method}: the program is stopped on a line: step by line (lineStep) or continue`), 'stoppedOnLine');
    // The main thread is held on this line: the past is replayed by the stop's replay host.
    if (m.method === 'seekTick') {
      const { tick, moment: id } = parseHostRequest('seekTick', m.params);
      if (tick === null && (replay === null || !replay.hasLiveStop())) {
        // Nothing viewed: the present is what is shown.
        return serveStopped(m);
      }
      const r = await replayOf('seekTick');
      const leftLine = tick === null && r.pastLine;
      const moment = await r.seek(tick, id);
      toldPast = tick;
      respond(m.id, moment);
      client.send({ kind: 'event', event: 'viewedTick', body: moment });
      // Back to the present from a past line (the panel's "Back to present"): the live stop is shown again.
      if (leftLine && livePaused !== null) client.send({ kind: 'event', event: 'paused', body: { ...livePaused, reason: 'step', ...(id === undefined ? {} : { moment: id }) } });
      return;
    }
    // A past tick viewed, or a past line shown: the moment's queries are the replay host's (the other tasks as they were then).
    if (replay !== null && (replay.viewing || replay.walkedLine || replay.atHit) && MOMENT_QUERIES.has(m.method)) {
      parseHostRequest(m.method, m.params);
      return respond(m.id, await replay.request(m.method, m.params));
    }
    if (RUN_CHANGING.has(m.method)) {
      // A launch has ended the previous run's replay hosts already (and forked the next one's).
      if (m.method !== 'launch') endReplay();
      await d.setBreakpointsActive(false);
      await d.resume();
      toMain(m);
      return;
    }
    return serveStopped(m);
  };

  client.onMessage((raw) => {
    const m = parseWireMessage(raw);
    if (typeof m === 'string' || m.kind !== 'request') return;
    route(m).catch((e: unknown) => refuse(m.id, e, e instanceof ProtocolError ? e.code : m.method.startsWith('line') ? 'badRequest' : 'failed'));
  });
  client.onClose((reason) => {
    endReplay();
    endHitReplay();
    session.disconnect();
    port.postMessage({ bridge: 'closed', reason } satisfies BridgeControl);
  });

  port.on('message', (m: unknown) => {
    if (isBridgeControl(m)) {
      if (m.bridge === 'disconnect') {
        session.disconnect();
        port.postMessage({ bridge: 'disconnected' } satisfies BridgeControl);
      }
      return;
    }
    if (takeMerge(m)) return;
    const w = parseWireMessage(m);
    if (typeof w !== 'string' && w.kind === 'response') {
      const answer = asked.get(w.id);
      if (answer !== undefined) {
        asked.delete(w.id);
        return answer(w);
      }
      const request = forwarded.get(w.id);
      // Answered already through the synchronous call (the thread had stopped).
      if (request === undefined) return;
      forwarded.delete(w.id);
      if (RUN_CHANGING.has(request.method)) void dbg!.setBreakpointsActive(true);
      if ((request.method === 'launch' || request.method === 'openRecording') && w.ok) {
        // The run is there now: its replays are prepared for (when debugged).
        const id = (w.result as { runId?: unknown } | undefined)?.runId;
        runId = typeof id === 'number' ? id : null;
        prepareReplays();
      }
    }
    // The run ended: its line replay host with it, unless it followed the run: given the whole recording, it is the hit replay host.
    if (typeof w !== 'string' && w.kind === 'event' && w.event === 'finished') {
      // (Still being forked, maybe: a short run.)
      const kept = followed && (w.body as { stopped?: unknown } | undefined)?.stopped !== true ? (replay !== null && !replay.isClosed ? Promise.resolve(replay) : replayForking) : null;
      if (kept !== null) {
        handedOn.add(kept);
        replay = null;
        replayForking = null;
      }
      endReplay();
      endHitReplay();
      runFinished = true;
      // Stopped by a view: its sessions end with it, none goes into its past.
      if ((w.body as { stopped?: unknown } | undefined)?.stopped === true) runRecorded = false;
      if (kept !== null) keepForHits(kept);
    }
    deliver(m);
  });
}
