// Runs on a runtime host's line debugger worker thread, a live host's or a line replay host's
// (--line-replay). The host's worker when started with a client pipe: it owns the pipe and the
// LineDebugger, and routes every client request in one place (LineDebugWorker.route; which way:
// request-routes.ts): line requests are its own (moves: line-moves.ts; hit searches: past-hit-searches.ts),
// setBreakpoints is split (breakpoint-split.ts), moves into the past go to the line replay hosts
// (replay-hosts.ts), a replay host's own methods to its role (line-replay-role.ts), everything
// else to the main thread (main-thread-link.ts). See docs/design/line-debugging.md.
//
// Invariants: every client request gets one response; a forwarded request the main thread had
// not read when it stopped is answered through the synchronous call, a continue or step with the
// stop's tick (late answers dropped), so no client waits on a stopped thread; a run-changing
// request while stopped lets the thread go with breakpoints off; the pipe closing ends the host.

import { Session } from 'node:inspector';
import { resolve } from 'node:path';
import { Socket } from 'node:net';
import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { HostEvents } from '../../../protocol/host-protocol';
import { parseHostRequest } from '../../../protocol/host-requests';
import { ProtocolError, parseWireMessage, type RequestMessage } from '../../../protocol/rpc';
import { StreamTransport } from '../../../protocol/stream-transport';
import { LineReplayRole } from '../replay-host/line-replay-role';
import { isBridgeControl, type BridgeControl } from '../shared/bridge-control';
import { BreakpointSplit } from './breakpoint-split';
import { ClientViews } from './client-views';
import { LineDebugger } from './line-debugger';
import { LineMoves } from './line-moves';
import type { HostStart, LineReplayHost } from './line-replay-host';
import { LINE_REPLAY_ARG } from '../shared/line-replay-start';
import { MainThreadLink } from './main-thread-link';
import { isLineHandle, lineHandleOf, shiftedVariables, withLineFrames } from './line-task-detail';
import { isTaskDetail } from '../../../protocol/webview-protocol';
import { PastHitSearches } from './past-hit-searches';
import { PastView } from './past-view';
import type { OpenedHere } from './hit-replay-hosts';
import { ReplayHosts } from './replay-hosts';
import { hostOf, momentReplayed, showsLine } from './worker-position';
import {
  LOOP_MOVES,
  RUN_CHANGING,
  atLineStop,
  leavesSearchedHit,
  refusalCode,
  routeOf,
  waitsForWarmUp,
} from './request-routes';

export type { HostStart } from './line-replay-host';

/**
 * Serves the client's pipe as the line debugger's worker when this thread was started as one
 * (line-debug-bridge.ts: its workerData names the pipe, the held-time counter and how the host
 * was started); false on any other thread (the host's main thread: it serves itself).
 */
export function runLineDebugWorkerAsAsked(): boolean {
  const data = isMainThread
    ? null
    : (workerData as {
        coroscopeLineDebugFd?: unknown;
        coroscopeHeldTime?: unknown;
        coroscopeHostScript?: unknown;
        coroscopeHostExecArgv?: unknown;
      } | null);
  const fd = data?.coroscopeLineDebugFd;
  if (typeof fd !== 'number') return false;
  const heldTime = data?.coroscopeHeldTime;
  const script = data?.coroscopeHostScript;
  const execArgv = data?.coroscopeHostExecArgv;
  const hostStart =
    typeof script === 'string' && Array.isArray(execArgv) && execArgv.every((a) => typeof a === 'string')
      ? { script, execArgv: execArgv as string[] }
      : null;
  runLineDebugWorker(fd, heldTime instanceof SharedArrayBuffer ? heldTime : null, hostStart);
  return true;
}

export function runLineDebugWorker(fd: number, heldTime: SharedArrayBuffer | null, hostStart: HostStart | null): void {
  const port = parentPort;
  if (port === null) throw new Error('runLineDebugWorker runs in a worker thread');
  new LineDebugWorker(
    port,
    new StreamTransport(new Socket({ fd, readable: true, writable: true })),
    heldTime,
    hostStart,
  );
}

/** The worker: its parts wired, and the one dispatch of the client's requests and the main thread's messages. */
class LineDebugWorker {
  private readonly session = new Session();
  private readonly client: ClientViews;
  private readonly main: MainThreadLink;
  private readonly view = new PastView();
  private readonly replays: ReplayHosts;
  private readonly breakpoints: BreakpointSplit;
  private readonly dbg: LineDebugger;
  private readonly hitSearches: PastHitSearches;
  private readonly lineMoves: LineMoves;
  /** As a line replay host: its replay role (pastLine, pastHit, pastHitLine). */
  private readonly replayRole: LineReplayRole;
  /**
   * A line replay host's first walk or search maps positions to TypeScript: its source maps are
   * read ahead of it, once its first recording is on its way to the main thread. Read at once,
   * they held up its hello and that open by the time they take (a third of its start), and so
   * the replays the open starts (its leaders), while a short run's first search waited for them.
   */
  private mapsRead: boolean;

  constructor(
    private readonly port: MessagePort,
    transport: StreamTransport,
    heldTime: SharedArrayBuffer | null,
    hostStart: HostStart | null,
  ) {
    const isLineReplay = process.argv.includes(LINE_REPLAY_ARG);
    this.mapsRead = !isLineReplay;
    this.session.connectToMainThread();
    this.client = new ClientViews(transport);
    this.main = new MainThreadLink(
      port,
      () => this.dbg,
      (m) => this.client.send(m),
    );
    this.replays = new ReplayHosts(hostStart, isLineReplay, this.main, () => this.dbg, this.view);
    this.breakpoints = new BreakpointSplit(
      () => this.dbg,
      this.main,
      this.client,
      () => ({ id: this.replays.runId, finished: this.replays.runFinished }),
    );
    this.dbg = new LineDebugger(this.session, {
      heldTime,
      replayOnly: isLineReplay,
      // As a line replay host, what its line steps print is said by the live host with their landing.
      emit: (event, body) =>
        isLineReplay && event === 'output'
          ? this.replayRole.heard((body as HostEvents['output']).text)
          : this.client.event(event, body),
      stopped: () => this.onLineStop(),
    });
    this.replayRole = new LineReplayRole(this.dbg, (method, params) => this.main.ask(method, params));
    this.hitSearches = new PastHitSearches(this.dbg, this.view, this.replays, this.breakpoints, this.client, this.main);
    this.lineMoves = new LineMoves(this.dbg, this.view, this.replays, this.breakpoints, this.client, this.hitSearches);
    transport.onMessage((raw) => {
      const m = parseWireMessage(raw);
      if (typeof m === 'string' || m.kind !== 'request') return;
      const route = (): Promise<void> =>
        this.route(m).catch((e: unknown) => this.client.refuse(m.id, e, refusalCode(m.method, e)));
      if (!waitsForWarmUp(m.method)) return void route();
      // A warm-up of the stop's past never runs beside a request that may use it (LineStopWarmUp.beginServing).
      const served = (): Promise<void> => route().finally(() => this.replays.warmUp.endServing());
      const warming = this.replays.warmUp.beginServing();
      if (warming === null) void served();
      else void warming.then(served);
    });
    transport.onClose((reason) => {
      this.replays.endAll();
      this.session.disconnect();
      port.postMessage({ bridge: 'closed', reason } satisfies BridgeControl);
    });
    port.on('message', (m: unknown) => this.fromMain(m));
  }

  /** The live thread stopped on a line. */
  private async onLineStop(): Promise<void> {
    const d = this.dbg;
    // A feed asked of the main thread while a line step runs would be stepped through (host code): the
    // run is followed only until its first line stop (a Step Back hands the replay host the stop's
    // recording), and a feed asked before the stop but not read by the main thread yet is withdrawn.
    this.replays.stopFollowing();
    await this.main.withdrawFeeds();
    this.replays.onLineStop(d.tick(), d.stopRecorded());
    const forwarded = this.main.forwarded;
    for (const [id, m] of forwarded) {
      // A continue or a loop step the main thread took, whose answer it had not sent before
      // it stopped on a line (the program ran into the breakpoint first): it is answered
      // here, with the tick of the stop, and its late answer dropped.
      if (atLineStop(m.method) !== 'tick') continue;
      forwarded.delete(id);
      this.client.respond(id, { tick: d.tick() });
    }
    // Queries the main thread had not read yet: answer them now.
    for (const [id, m] of forwarded) {
      if (atLineStop(m.method) !== 'serve') continue;
      forwarded.delete(id);
      await this.main.serveStopped(m).catch((e: unknown) => this.client.refuse(id, e));
    }
  }

  /** The one dispatch of the client's requests. */
  private async route(m: RequestMessage): Promise<void> {
    const d = this.dbg;
    // As a line replay host: a landing held ready by a values walk is let go by any request but a walk's.
    // A line query is answered on the line shown, walked back to when a values walk let the thread go from it.
    if (m.method === 'lineStack' || m.method === 'lineVariables' || m.method === 'lineEvaluate')
      await this.replayRole.showAgain();
    else if (this.replayRole.holding && !m.method.startsWith('past')) await this.replayRole.letGoHeld();
    if (m.method === 'launch' || m.method === 'openRecording') {
      // A new run: the previous one's replay hosts go; a recorded one is prepared for (when debugged).
      this.replays.newRun(
        m.method === 'openRecording' ||
          (m.params as { options?: { record?: unknown } } | null)?.options?.record === true,
        m.method === 'openRecording',
      );
      d.newRun();
      this.breakpoints.newRun();
      // A recording file: its hit replay host starts now, beside the open (a malformed request starts none).
      if (m.method === 'openRecording') {
        const path = (m.params as { path?: unknown } | null)?.path;
        if (typeof path === 'string' && path !== '') this.replays.hitHosts.openingRecording(m.id, resolve(path));
      }
    }
    if (m.method === 'setExceptionBreaks' || m.method === 'setBreakpoints') {
      this.replays.debugged = true;
      this.replays.prepare();
    }
    if (this.replays.hitHosts.hitReplay !== null && leavesSearchedHit(m.method)) {
      // The views move (a seek, the run going on): the hit shown is left; a new run drops its replay.
      this.view.drop('search');
      if (RUN_CHANGING.has(m.method)) this.replays.hitHosts.end();
    }
    const searched = this.replays.hitHosts.hitReplay;
    const stopReplay = this.replays.stop;
    const pos = this.view.position;
    const route = routeOf(m.method, {
      stopped: d.isStopped(),
      searchShowsLine: searched !== null && showsLine(pos) && hostOf(pos) === 'search',
      stopShowsMoment: stopReplay !== null && momentReplayed(pos),
    });
    switch (route) {
      case 'own':
        return this.own(m);
      case 'setBreakpoints':
        return this.breakpoints.set(m);
      case 'searchReplay':
      case 'stopReplay': {
        // A hit (or a line from it) the search's replay host shows, no live line stop holding the run: the
        // moment's queries are that host's, stopped on the line within its tick (as the debugger's frames).
        // Held on a line with a past tick viewed, or a past line shown: the stop's replay host's (the other
        // tasks as they were then).
        const host = route === 'searchReplay' ? searched : stopReplay;
        if (host === null) throw new Error(`${m.method}: routed to a replay host that is not there`);
        parseHostRequest(m.method, m.params); // a malformed request is refused here, as the main thread would
        return this.client.respond(m.id, await host.request(m.method, m.params));
      }
      case 'forward':
        // A loop move lets the program run: a task's step limited to it runs on through other tasks' line hits.
        if (LOOP_MOVES.has(m.method)) {
          const p = m.method === 'stepTask' ? parseHostRequest('stepTask', m.params) : null;
          d.limitTo(p?.oneTask === true ? p.taskId : null);
        }
        return this.forward(m);
      case 'continue': {
        this.client.respond(m.id, { tick: d.tick() });
        // From a past line or tick too: the live stop goes on, and its past with it (the replay host stays, for
        // the run's next stops).
        const shownPast = stopReplay !== null && hostOf(this.view.position) === 'stop';
        if (stopReplay !== null && stopReplay.hasLiveStop())
          await this.view.move(stopReplay, 'leave').catch(() => undefined);
        this.client.leavePast(stopReplay, shownPast);
        this.replays.forgetStop();
        this.replays.warmUp.cancel();
        return d.resume();
      }
      case 'pause':
        return this.client.respond(m.id, { tick: d.tick() });
      case 'refuseLoopStep':
        return this.client.refuse(
          m.id,
          new Error(`${m.method}: the program is stopped on a line: step by line (lineStep) or continue`),
          'stoppedOnLine',
        );
      case 'seekTick': {
        // The main thread is held on this line: the past is replayed by the stop's replay host.
        const { tick, moment: id } = parseHostRequest('seekTick', m.params);
        // Nothing viewed: the present is what is shown.
        if (tick === null && (stopReplay === null || !stopReplay.hasLiveStop())) return this.main.serveStopped(m);
        const r = await this.replays.ofStop('seekTick');
        const leftLine = tick === null && showsLine(this.view.position) && hostOf(this.view.position) === 'stop';
        const moment = await this.view.seek(r, tick, id);
        this.client.respond(m.id, moment);
        this.client.tellSeek(moment);
        // Back to the present from a past line (the panel's "Back to present"): the live stop is shown again.
        if (leftLine) this.client.showLiveStop(id);
        return;
      }
      case 'runChanging':
        // A launch has ended the previous run's replay hosts already (and forked the next one's).
        if (m.method !== 'launch') this.replays.endStop();
        await d.setBreakpointsActive(false);
        await d.resume();
        this.forward(m);
        return;
      case 'variables': {
        // The task running the line: its frames' lines and locals are the stopped thread's (line-task-detail.ts),
        // as Variables shows them.
        const { handle } = parseHostRequest('variables', m.params);
        if (isLineHandle(handle))
          return this.client.respond(m.id, { variables: shiftedVariables(await d.variables(lineHandleOf(handle))) });
        return this.main.serveStopped(m);
      }
      case 'taskDetail': {
        const locals = parseHostRequest('taskDetail', m.params).locals ?? true;
        return this.main.serveStopped(m, async (detail) =>
          isTaskDetail(detail) ? withLineFrames(detail, d.stack(), locals, (h) => d.variables(h)) : detail,
        );
      }
      case 'mainThreadHeld':
        return this.main.serveStopped(m);
    }
  }

  /** The replay host showing a past line (null: none). */
  private pastShown(): LineReplayHost | null {
    const pos = this.view.position;
    if (!showsLine(pos)) return null;
    return hostOf(pos) === 'stop' ? this.replays.stop : this.replays.hitHosts.hitReplay;
  }

  /** The worker's own requests: the line requests, and the past's. */
  private async own(m: RequestMessage): Promise<void> {
    const d = this.dbg;
    const past = this.pastShown();
    if (past !== null && (m.method === 'lineStack' || m.method === 'lineVariables' || m.method === 'lineEvaluate')) {
      // A past line: its frames are the replay host's.
      parseHostRequest(m.method, m.params);
      return this.client.respond(m.id, await past.request(m.method, m.params));
    }
    switch (m.method) {
      case 'lineStep':
        return this.lineMoves.lineStep(m, past);
      case 'lineStepBack':
        return this.lineMoves.lineStepBack(m, past);
      case 'lineValuesBack':
        return this.lineMoves.lineValuesBack(m, past);
      case 'pastBreakpointHit':
        return this.client.respond(m.id, await this.hitSearches.pastBreakpointHit(m.params));
      case 'pastLogpointHits':
        return this.client.respond(m.id, await this.hitSearches.pastLogpointHits(m.params));
      case 'pastLineValues':
        // As a line replay host: its replay role's.
        return this.client.respond(m.id, await this.replayRole.pastLineValues(m.params));
      case 'pastHitLineValues':
        // As a line replay host: its replay role's.
        return this.client.respond(m.id, await this.replayRole.pastHitLineValues(m.params));
      case 'pastWarm':
        // As a line replay host: its replay role's.
        return this.client.respond(m.id, await this.replayRole.pastWarm(m.params));
      case 'pastLog':
        // As a line replay host: its replay role's.
        return this.client.respond(m.id, await this.replayRole.pastLog(m.params));
      case 'pastHit':
      case 'pastHitLine':
      case 'pastLine': {
        // As a line replay host: its replay role's.
        const role = this.replayRole;
        return this.client.respond(
          m.id,
          await (m.method === 'pastHit'
            ? role.pastHit(m.params)
            : m.method === 'pastHitLine'
              ? role.pastHitLine(m.params)
              : role.pastLine(m.params)),
        );
      }
      case 'lineStack':
        parseHostRequest('lineStack', m.params);
        return this.client.respond(m.id, d.stack());
      case 'lineVariables':
        return this.client.respond(m.id, {
          variables: await d.variables(parseHostRequest('lineVariables', m.params).handle),
        });
      case 'lineEvaluate': {
        const p = parseHostRequest('lineEvaluate', m.params);
        return this.client.respond(m.id, await d.evaluate(p.expression, p.frameIndex ?? 0));
      }
      case 'setLineStepMode':
        d.setMode(parseHostRequest('setLineStepMode', m.params).mode);
        return this.client.respond(m.id, {});
      default:
        throw new ProtocolError(
          `unknown method ${JSON.stringify(m.method)}: the runtime host has no such method`,
          'unknownMethod',
        );
    }
  }

  /** A client's request for the main thread, while it runs. */
  private forward(m: RequestMessage): void {
    this.main.forward(m);
    if (!this.mapsRead && m.method === 'openRecording') {
      this.mapsRead = true;
      setImmediate(() => void this.dbg.warm().catch(() => undefined));
    }
  }

  /**
   * The one dispatch of what the main thread sends: bridge control, answers to the worker's own requests, the
   * client's answers and events.
   */
  private fromMain(m: unknown): void {
    if (isBridgeControl(m)) {
      if (m.bridge === 'disconnect') {
        this.session.disconnect();
        this.port.postMessage({ bridge: 'disconnected' } satisfies BridgeControl);
      }
      if (m.bridge === 'logHit') this.dbg.noteLogHit(m.key, m.tick);
      return;
    }
    if (this.main.take(m)) return;
    const w = parseWireMessage(m);
    if (typeof w !== 'string' && w.kind === 'response') {
      const request = this.main.forwarded.get(w.id);
      // Answered already through the synchronous call (the thread had stopped).
      if (request === undefined) return;
      this.main.forwarded.delete(w.id);
      if (RUN_CHANGING.has(request.method)) void this.dbg.setBreakpointsActive(true);
      if ((request.method === 'launch' || request.method === 'openRecording') && w.ok) {
        // The run is there now: its replays are prepared for (when debugged).
        const id = (w.result as { runId?: unknown } | undefined)?.runId;
        this.replays.runId = typeof id === 'number' ? id : null;
        if (request.method === 'openRecording')
          this.replays.hitHosts.recordingOpened(w.id, this.replays.runId === null ? null : (w.result as OpenedHere));
        this.replays.prepare();
      }
      if (request.method === 'openRecording' && !w.ok) this.replays.hitHosts.recordingOpened(w.id, null);
    }
    // The run ended: its line replay host with it, unless it followed the run: given the whole recording, it
    // is the hit replay host.
    if (typeof w !== 'string' && w.kind === 'event' && w.event === 'finished')
      this.replays.runEnded((w.body as { stopped?: unknown } | undefined)?.stopped === true);
    this.client.send(m);
  }
}
