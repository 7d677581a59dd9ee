// SessionLifecycle: a debug session's life: initialize (capabilities), launch (a new Run, one
// host process, held before its first tick until configurationDone), attach (a run another
// view launched, or a finished recorded one), the run's end (exited + terminated, or staying
// at the end of a recorded run: stopAtEnd), restart, terminate and disconnect.
//
// Invariants: a launch that fails ends the session (an output with the reason, then
// `terminated`); disconnect ends the run and its host when this session launched it (answered
// once it is gone), and only detaches when it attached; `terminateDebuggee` overrides either way.
// Host events of an older run (another runId) are ignored.

import { BreakpointEvent, ContinuedEvent, Event, InitializedEvent, ThreadEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { HostEvents } from '../../protocol/host-protocol';
import type { HostExit } from '../host-client/host-process';
import type { DebuggedRun } from './debug-host';
import { LOOP_THREAD_ID } from './dap-mapping';
import { attachRunKey, parseLaunchArguments, type ParsedLaunch } from './launch-arguments';
import { ERR_LAUNCH, type SessionCore } from './session-core';
import type { SessionBreakpoints } from './session-breakpoints';
import { EXCEPTION_FILTERS } from './session-breakpoints';
import type { PositionEvents } from './position-events';
import { onFinished, onLaunched, onPaused, openedRecording, viewedTickOf } from './debug-position';
import { endHint, endStop, message, stoppedEvent } from './stop-events';

/** How long launch waits for configurationDone before letting the run go anyway. */
const CONFIGURATION_TIMEOUT_MS = 10_000;

export class SessionLifecycle {
  constructor(
    private readonly core: SessionCore,
    private readonly breakpoints: SessionBreakpoints,
    private readonly positionEvents: PositionEvents,
    /** Ends the DAP session (after disconnect). */
    private readonly shutdown: () => void,
  ) {
    this.configured = new Promise((resolveConfigured) => {
      this.markConfigured = resolveConfigured;
    });
  }

  configured: Promise<void>;

  markConfigured: () => void = () => undefined;

  initializeRequest(response: DebugProtocol.InitializeResponse, args: DebugProtocol.InitializeRequestArguments): void {
    this.core.clientSupportsProgress = args.supportsProgressReporting === true;
    response.body = {
      ...response.body,
      supportsConfigurationDoneRequest: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsEvaluateForHovers: true,
      supportsExceptionInfoRequest: true,
      supportsTerminateRequest: true,
      // Terminate Thread on a task's thread cancels the task (attributed to the debugger).
      supportsTerminateThreadsRequest: true,
      supportsRestartRequest: true,
      supportsLoadedSourcesRequest: true,
      supportsDelayedStackTraceLoading: true,
      // A recorded run (extension launches record by default) is replayed to a past tick.
      supportsStepBack: true,
      // Continue, Reverse Continue and the steps limited to one task (session-moves.ts oneTask).
      supportsSingleThreadExecutionRequests: true,
      // On a local or a field at a line stop: Continue / Reverse Continue to its next / previous change.
      supportsDataBreakpoints: true,
      // disconnect honours terminateDebuggee: end the run (default for a launch) or leave it to the other
      // views (default for an attach).
      supportTerminateDebuggee: true,
      exceptionBreakpointFilters: EXCEPTION_FILTERS,
    };
    this.core.sendResponse(response);
  }

  /**
   * Tells the client it may configure (breakpoints, exception filters), then waits for configurationDone (or
   * the timeout).
   */
  private async configuration(): Promise<void> {
    this.core.sendEvent(new InitializedEvent());
    await Promise.race([this.configured, new Promise<void>((r) => setTimeout(r, CONFIGURATION_TIMEOUT_MS).unref())]);
  }

  configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.markConfigured();
    this.core.sendResponse(response);
  }

  launchRequest(response: DebugProtocol.LaunchResponse, args: DebugProtocol.LaunchRequestArguments): void {
    if (this.core.run !== null) {
      this.core.fail(response, ERR_LAUNCH, 'Coroscope: this session has already launched');
      return;
    }
    const parsed = parseLaunchArguments(args, this.core.options.cwd);
    if ('error' in parsed) {
      this.launchFailed(response, parsed.error);
      return;
    }
    let answered = false;
    const launch = async (): Promise<void> => {
      const started = performance.now();
      await this.startHost(parsed);
      await this.launchRun(parsed);
      this.core.output(
        `Coroscope: ${parsed.description} (runtime host pid ${this.core.hostPid ?? '?'}, started in ${(performance.now() - started).toFixed(0)} ms)`,
      );
      await this.configuration();
      answered = true;
      this.core.sendResponse(response);
      await this.release(parsed);
    };
    launch().catch((e: unknown) => this.launchFailed(answered ? null : response, message(e)));
  }

  /** A launch that failed ends the session, saying why (the response, if not yet sent, is the error). */
  private launchFailed(response: DebugProtocol.LaunchResponse | null, reason: string): void {
    const text = `Coroscope: the launch failed: ${reason.replace(/^launch: /, '')}`;
    if (response !== null) this.core.fail(response, ERR_LAUNCH, text, true);
    if (this.core.phase === 'disposed') return;
    this.core.output(text, 'stderr');
    this.core.phase = 'finished';
    this.core.sendTerminated();
  }

  /**
   * Attaches to a run another view launched (the panel's crawl, another debug session's, an
   * opened recording): `run` names it (its key in the registry); without it, the only one a
   * debugger can attach to. A live run goes on as it is: if it is paused, the session shows
   * that stop. A finished run is debugged through its recording (refused when it has none):
   * the session starts stopped at the tick the views show (its end, or the scrubber's tick).
   */
  attachRequest(response: DebugProtocol.AttachResponse, args: DebugProtocol.AttachRequestArguments): void {
    const key = attachRunKey(args);
    if (typeof key === 'object') {
      this.core.fail(response, ERR_LAUNCH, `Coroscope: ${key.error}`, true);
      return;
    }
    this.core.serve(
      response,
      async () => {
        if (this.core.run !== null) throw new Error('this session is already debugging a run');
        const candidates = this.core.options.runs.debuggable();
        const describe = (r: DebuggedRun): string => `${r.key}: ${r.title}${r.isLive() ? '' : ' (finished, recorded)'}`;
        let run: DebuggedRun | undefined;
        if (key !== undefined) {
          run = this.core.options.runs.get(key);
          if (run !== undefined && run.phase === 'finished' && !run.recorded) {
            throw new Error(
              `run ${key} (${run.title}) has finished and was not recorded: it has no past to step through (run it again with recording on: the launch attribute "record", the coroscope.record setting)`,
            );
          }
          if (run === undefined || !run.isDebuggable()) {
            throw new Error(
              `there is no run ${key} to debug${candidates.length > 0 ? ` (runs: ${candidates.map(describe).join('; ')})` : ''}`,
            );
          }
        } else if (candidates.length === 1) {
          run = candidates[0]!;
        } else {
          throw new Error(
            candidates.length === 0
              ? 'there is no run to attach to: start one first (Coroscope: Run Crawl, or a sample), or open a recording'
              : `several runs are live (or finished and recorded), say which with "run": ${candidates.map(describe).join('; ')}`,
          );
        }
        this.bindRun(run, false);
        this.core.runId = run.runId;
        const finished = run.phase === 'finished';
        this.core.phase = finished ? 'atEnd' : 'running';
        if (!finished) this.core.startProgress(run.target, 'attached');
        this.core.output(
          `Coroscope: attached to run ${run.key}, ${run.title}${finished ? ', finished: its recording is replayed' : ''} (runtime host pid ${this.core.hostPid ?? '?'})`,
        );
        await this.configuration();
        this.core.sendResponse(response);
        await this.core.refreshTasks().catch(() => undefined);
        this.core.sendEvent(new ThreadEvent('started', LOOP_THREAD_ID));
        const pause = run.phase === 'paused' ? run.lastPause : null;
        const viewed = run.viewedTick;
        if (finished) {
          // A finished run attached to is debugged as a recording: no present, its last tick is its end.
          const ticks = await this.core.recordedTickCount();
          this.core.moveTo(openedRecording(ticks, ticks, endStop(ticks)));
        } else if (pause !== null && viewed !== null)
          this.core.moveTo(onPaused(this.core.position, this.core.stopOf(pause), false));
        if (viewed !== null) {
          // The views show a past tick (an opened recording's present is its last tick): so does the session.
          this.positionEvents.onViewedTick({ runId: run.runId ?? -1, tick: viewed, ticks: this.core.recordedTicks });
        } else if (finished) {
          this.positionEvents.showEnd();
        } else if (pause !== null) this.positionEvents.onPaused(pause);
        else this.core.tasksChanged();
      },
      ERR_LAUNCH,
    );
  }

  private async startHost(parsed: ParsedLaunch): Promise<void> {
    const cwd = parsed.cwd ?? this.core.options.cwd;
    const run = await this.core.options.runs.start(cwd !== undefined ? { cwd } : {});
    this.bindRun(run, true);
  }

  /** Listens to the run's host and holds the run (as this session's view) until the session ends. */
  private bindRun(run: DebuggedRun, owned: boolean): void {
    const host = run.host;
    this.core.run = run;
    this.core.owned = owned;
    this.core.host = host;
    const e = host.endpoint;
    const offs = [
      e.on('paused', (b) => this.positionEvents.onPaused(b)),
      e.on('continued', () => this.positionEvents.onContinued()),
      e.on('output', (b) => this.core.output(b.text, b.category === 'log' ? 'console' : b.category)),
      e.on('exception', (b) => this.core.onException(b)),
      e.on('finished', (b) => this.onFinished(b)),
      e.on('taskCreated', (b) => this.core.onTaskEvent(b.task, 'created')),
      e.on('taskFinished', (b) => this.core.onTaskEvent(b.task, 'finished')),
      e.on('lint', (b) => this.core.output(`[lint] ${b.lint.message}`)),
      e.on('progress', (b) => this.core.onProgress(b)),
      e.on('viewedTick', (b) => this.positionEvents.onViewedTick(b)),
      run.onDidEnd.on((exit) => this.onRunEnded(exit)),
    ];
    const detach = run.attach(this.core.options.viewName ?? 'debugger');
    // Detached, the session hears nothing more of the run (it may go on for other views).
    this.core.detachRun = () => {
      for (const off of offs) off();
      detach();
    };
    this.core.sendEvent(
      new Event('process', {
        name: 'coroscope runtime host',
        systemProcessId: host.pid,
        isLocalProcess: true,
        startMethod: owned ? 'launch' : 'attach',
      }),
    );
  }

  /** The run's host process ended: asked by another view (the panel's Stop), or it died. */
  private onRunEnded(exit: HostExit): void {
    if (this.core.phase === 'disposed') return;
    if (exit.expected) {
      // Stopped by another view (the panel's Stop): the run is over for this one too.
      this.core.output('Coroscope: the run was stopped');
    } else {
      const why = exit.signal ?? `code ${exit.code}`;
      this.core.output(
        `Coroscope: the runtime host exited (${why})\n${exit.lastLines.slice(-10).join('\n')}`,
        'stderr',
      );
    }
    this.core.phase = 'finished';
    this.core.endProgress('ended');
    this.core.sendTerminated();
  }

  /**
   * Launches the run held at entry (when the host can hold it: see heldAtEntry); applies what
   * the client set before the host existed.
   */
  private async launchRun(parsed: ParsedLaunch): Promise<void> {
    const host = this.core.requireHost();
    const run = this.core.run;
    if (run === null) throw new Error('no run to launch on');
    this.core.phase = 'launching';
    this.core.launchArgs = parsed;
    this.core.tasks.clear();
    this.core.exceptions.clear();
    this.core.runId = null;
    // A new run: nothing of the last one's position is kept (debug-position.ts onLaunched).
    this.core.resumed();
    this.core.moveTo(onLaunched(this.core.position));
    this.core.stopTicks.clear();
    this.core.lineStopTicks.clear();
    this.core.endedOk = null;
    this.core.recordedTicks = 0;
    const r = await run.launch(parsed.target, parsed.options, this.core.options.viewName ?? 'debugger');
    this.core.runId = r.runId;
    this.core.heldAtEntry = r.heldAtEntry;
    // Not held (a sample with a loop of its own): it runs already, so its events count now.
    if (!r.heldAtEntry) this.core.phase = 'running';
    if (r.siteUrl !== undefined) this.core.output(`Coroscope: demo site at ${r.siteUrl}`);
    await host.endpoint.request('setExceptionBreaks', this.breakpoints.exceptionBreaks);
    await host.endpoint.request('setLineStepMode', { mode: parsed.lineStepMode });
    for (const [file, pending] of this.breakpoints.pendingBreakpoints) {
      const bps = await this.breakpoints.applyBreakpoints(pending.args, pending.ids);
      for (const bp of bps) this.core.sendEvent(new BreakpointEvent('changed', bp));
      this.breakpoints.pendingBreakpoints.delete(file);
    }
    this.core.startProgress(parsed.target, 'starting');
  }

  /** Lets the held run go, or shows the stop on entry (only when the host really holds the run). */
  private async release(parsed: ParsedLaunch): Promise<void> {
    if (this.core.phase === 'finished' || this.core.phase === 'disposed') return;
    const host = this.core.requireHost();
    this.core.phase = 'running';
    if (!this.core.heldAtEntry) {
      if (parsed.stopOnEntry) {
        this.core.output(
          `Coroscope: not paused at entry: the ${parsed.description} runs a loop of its own (sockets, threads or processes), with no task on the runtime's loop to hold; it runs to its end.`,
        );
      }
      return;
    }
    if (parsed.stopOnEntry) {
      await this.core.refreshTasks();
      const first = this.core.tasks.liveTasks()[0];
      const threadId = first?.id ?? LOOP_THREAD_ID;
      this.core.moveTo(
        onPaused(
          this.core.position,
          {
            reason: 'entry',
            tick: this.core.tasks.tick,
            taskId: first?.id,
            threadId,
            description: 'Paused before the first tick',
          },
          false,
        ),
      );
      this.core.sendEvent(stoppedEvent('entry', threadId));
      this.core.tasksChanged();
    } else {
      await host.endpoint.request('continue', {});
    }
  }

  private onFinished(b: HostEvents['finished']): void {
    if (b.runId !== this.core.runId) return;
    if (this.core.phase === 'restarting') {
      this.core.restartDone?.();
      return;
    }
    if (this.core.phase === 'disposed') return;
    this.core.endProgress(b.summary);
    this.core.output(
      `Coroscope: ${b.summary}${b.error !== undefined ? ` (${b.error})` : ''}`,
      b.ok ? 'console' : 'important',
    );
    // A recorded run its program ended stays open at its end (a stop asked by a view ends the session).
    const stopAtEnd = this.core.owned ? this.core.launchArgs?.stopAtEnd === true : this.core.run?.recorded === true;
    if (stopAtEnd && b.stopped !== true && this.core.phase === 'running') {
      this.core.phase = 'atEnd';
      this.core.endedOk = b.ok;
      void this.stayAtEnd();
      return;
    }
    this.core.endSession(b.ok);
  }

  /**
   * The run finished: the session stops at its end (or keeps the past tick shown, the end kept for the way
   * forward).
   */
  private async stayAtEnd(): Promise<void> {
    const ticks = await this.core.recordedTickCount().catch(() => 0);
    if (this.core.phase !== 'atEnd') return;
    if (ticks === 0) {
      // No tick recorded (a program that ran a loop of its own): no past to look at.
      this.core.endSession(this.core.endedOk ?? true);
      return;
    }
    const end = endStop(ticks);
    const viewed = viewedTickOf(this.core.position);
    // The end is the present now (a past tick shown stays shown, the end kept for the way forward).
    this.core.moveTo(onFinished(this.core.position, end));
    if (viewed !== null) {
      this.core.output(`Coroscope: ${endHint(ticks)}; the views show tick ${viewed}, replayed`);
      return;
    }
    this.core.tasks.clear();
    await this.core.refreshTasks().catch(() => undefined);
    this.positionEvents.showEnd();
  }

  terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.core.serve(response, async () => {
      const h = this.core.host;
      this.core.sendResponse(response);
      if (h === null || !h.isAlive() || this.core.phase === 'finished' || this.core.phase === 'atEnd') {
        this.core.sendTerminated();
        return;
      }
      // The host answers `finished`, which sends `terminated`.
      await h.endpoint.request('stop', { by: 'debugger' });
      // In case the host's `finished` did not come (it sends terminated otherwise).
      this.core.sendTerminated();
    });
  }

  restartRequest(response: DebugProtocol.RestartResponse, args: DebugProtocol.RestartArguments): void {
    this.core.serve(
      response,
      async () => {
        const host = this.core.requireHost();
        if (!this.core.owned)
          throw new Error(
            'this session attached to a run another view launched: restart it from there (or launch it from Run and Debug)',
          );
        const raw = args.arguments ?? null;
        const parsed = raw !== null ? parseLaunchArguments(raw, this.core.options.cwd) : this.core.launchArgs;
        if (parsed === null) throw new Error('nothing to restart: no launch yet');
        if ('error' in parsed) throw new Error(parsed.error);
        const wasRunning = this.core.phase === 'running';
        this.core.phase = 'restarting';
        this.core.endProgress('restarted');
        if (wasRunning) {
          const finished = new Promise<void>((r) => {
            this.core.restartDone = r;
          });
          await host.endpoint.request('stop', { by: 'debugger' });
          await Promise.race([finished, new Promise<void>((r) => setTimeout(r, 3000).unref())]);
          this.core.restartDone = null;
        }
        this.core.terminatedSent = false;
        if (this.core.currentStop !== null) this.core.sendEvent(new ContinuedEvent(LOOP_THREAD_ID, true));
        await this.launchRun(parsed);
        this.core.output(`Coroscope: restarted the ${parsed.description}`);
        this.core.sendResponse(response);
        this.core.sendEvent(new ThreadEvent('started', LOOP_THREAD_ID));
        await this.release(parsed);
        this.core.tasksChanged();
      },
      ERR_LAUNCH,
    );
  }

  disconnectRequest(response: DebugProtocol.DisconnectResponse, args: DebugProtocol.DisconnectArguments): void {
    this.core.serve(response, async () => {
      // A launched run ends with its session unless the client asks to leave it running; an
      // attached one goes on unless the client asks to end it.
      const endRun = args?.terminateDebuggee ?? this.core.owned;
      if (!endRun) await this.detach();
      await this.disposeHost(endRun);
      this.core.sendResponse(response);
      if (args?.restart !== true) this.shutdown();
    });
  }

  /**
   * Leaves the run to its other views: drops this session's breakpoints and exception breaks (a task failure
   * or a deadlock must not stop a run nobody debugs) and lets a paused run go.
   */
  private async detach(): Promise<void> {
    const run = this.core.run;
    const detachRun = this.core.detachRun;
    if (run === null || detachRun === null || !run.isAlive()) return;
    this.core.phase = 'disposed';
    const ep = run.endpoint;
    for (const file of this.breakpoints.breakpointLines.keys())
      await ep.request('setBreakpoints', { file, breakpoints: [] }).catch(() => undefined);
    if (run.phase === 'paused') await ep.request('continue', {}).catch(() => undefined);
    // Not waited for: a host held on a line (a past line shown) answers it only once the line is left.
    void ep
      .request('setExceptionBreaks', { taskFailed: false, taskCancelled: false, urlFailed: false, deadlock: false })
      .catch(() => undefined);
    this.core.detachRun = null;
    detachRun();
  }

  /**
   * Ends the session's hold on its run; `endRun` (by default: a run it launched) ends the run and its host
   * process, resolving once it is gone.
   */
  async disposeHost(endRun = this.core.owned): Promise<void> {
    this.core.phase = 'disposed';
    if (this.core.threadTimer !== null) clearTimeout(this.core.threadTimer);
    if (this.core.tasksChangedTimer !== null) clearTimeout(this.core.tasksChangedTimer);
    this.core.threadTimer = null;
    this.core.tasksChangedTimer = null;
    const run = this.core.run;
    const detachRun = this.core.detachRun;
    this.core.detachRun = null;
    if (run !== null && detachRun !== null) {
      if (endRun) await run.stop('debugger', 1500);
      detachRun();
    }
  }
}
