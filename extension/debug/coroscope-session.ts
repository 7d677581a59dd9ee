// CoroscopeSession: the debug adapter of debug type `coroscope`. It speaks DAP to its client
// (VS Code inline, or stdio through standalone.ts) and the host protocol to its run's host;
// every view of a run shares that host, so a move asked by the panel arrives here as host events.
// This class only wires its rooms (session-core, session-lifecycle, session-threads,
// session-variables, session-breakpoints, session-sources, position-events, session-moves and
// their helpers), one concern each; see docs/ARCHITECTURE.md for the table.
//
// Invariants: only the requests in SUPPORTED_REQUESTS are answered and advertised; any other
// is refused with its reason (never a silent success). Every request gets exactly one response.

import { LoggingDebugSession, Response } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Run } from '../runs/run';
import type { DebuggedRun } from './debug-host';
import { LOGPOINT_HIT_REQUEST, PastLogpoints } from './past-logpoints';
import {
  FOLLOW_TASK_REQUEST,
  LINE_STEP_MODE_REQUEST,
  TASKS_REQUEST,
  TRACES_REQUEST,
  narrowFollowTask,
} from './custom-requests';
import { ERR_UNSUPPORTED, SessionCore, type CoroscopeSessionOptions } from './session-core';
import { SessionLifecycle } from './session-lifecycle';
import { StopCache } from './stop-cache';
import { SessionThreads } from './session-threads';
import { SessionVariables } from './session-variables';
import { CoroutinesViewRequests } from './coroutines-view-requests';
import { SessionBreakpoints } from './session-breakpoints';
import { LoadedSources } from './session-sources';
import { PositionEvents } from './position-events';
import { PastSearch } from './past-search';
import { SessionMoves } from './session-moves';
import { MoveAnswers } from './move-answers';
import { PastTravel } from './past-travel';
import { LineMoves } from './line-moves';
import { LineWalks } from './line-walks';

import { FieldWrites } from './field-writes';
import { LAST_CHANGE_REQUEST, NEXT_CHANGE_REQUEST, SessionChanges } from './session-changes';

export type { CoroscopeSessionOptions } from './session-core';
export { EXCEPTION_FILTERS } from './session-breakpoints';

/**
 * The requests this adapter answers. The base class would answer every other DAP request with
 * an empty success; here they are refused (dispatchRequest), and none is advertised.
 */
const SUPPORTED_REQUESTS: ReadonlySet<string> = new Set([
  'initialize',
  'launch',
  'attach',
  'configurationDone',
  'setBreakpoints',
  'setExceptionBreakpoints',
  'threads',
  'stackTrace',
  'scopes',
  'variables',
  'evaluate',
  'continue',
  'pause',
  'next',
  'stepIn',
  'stepOut',
  'stepBack',
  'reverseContinue',
  'exceptionInfo',
  'loadedSources',
  'terminate',
  'terminateThreads',
  'restart',
  'disconnect',
  'dataBreakpointInfo',
  'setDataBreakpoints',
  TASKS_REQUEST,
  TRACES_REQUEST,
  LINE_STEP_MODE_REQUEST,
  LOGPOINT_HIT_REQUEST,
  LAST_CHANGE_REQUEST,
  NEXT_CHANGE_REQUEST,
  FOLLOW_TASK_REQUEST,
]);

/** Why an unsupported request is refused: a reason for those a client may well send, else a general one. */
function refusalOf(command: string): string {
  switch (command) {
    case 'restartFrame':
    case 'goto':
      return `Coroscope cannot ${command === 'goto' ? 'jump to another line' : 'restart a frame'}: a suspended coroutine resumes only where it yielded`;
    case 'setVariable':
    case 'setExpression':
      return 'Coroscope shows locals but cannot change them';
    default:
      return `Coroscope's debugger does not support the "${command}" request`;
  }
}

export class CoroscopeSession<R extends DebuggedRun = Run> extends LoggingDebugSession {
  private readonly core: SessionCore<R>;
  private readonly lifecycle: SessionLifecycle;
  private readonly threads: SessionThreads;
  private readonly variables: SessionVariables;
  private readonly coroutinesView: CoroutinesViewRequests;
  private readonly breakpoints: SessionBreakpoints;
  private readonly sourceFiles: LoadedSources;
  private readonly moves: SessionMoves;
  private readonly logpoints: PastLogpoints;
  private readonly changes: SessionChanges;

  constructor(options: CoroscopeSessionOptions<R>) {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
    this.core = new SessionCore<R>(
      {
        sendEvent: (event) => super.sendEvent(event),
        sendResponse: (response) => super.sendResponse(response),
        sendErrorResponse: (response, error) => super.sendErrorResponse(response, error),
        convertDebuggerLineToClient: (line) => this.convertDebuggerLineToClient(line),
        convertDebuggerColumnToClient: (column) => this.convertDebuggerColumnToClient(column),
        convertDebuggerPathToClient: (path) => this.convertDebuggerPathToClient(path),
        convertClientPathToDebugger: (path) => this.convertClientPathToDebugger(path),
        convertClientLineToDebugger: (line) => this.convertClientLineToDebugger(line),
      },
      options,
    );
    const core: SessionCore = this.core;
    this.breakpoints = new SessionBreakpoints(core);
    this.sourceFiles = new LoadedSources(core);
    const stopCache = new StopCache(core);
    this.threads = new SessionThreads(core, stopCache, this.breakpoints, this.sourceFiles);
    this.variables = new SessionVariables(core, stopCache);
    this.coroutinesView = new CoroutinesViewRequests(core);
    const positionEvents = new PositionEvents(core);
    const past = new PastSearch(core, this.breakpoints);
    const answers = new MoveAnswers(core);
    const pastTravel = new PastTravel(core, this.breakpoints, past, positionEvents, answers);
    this.moves = new SessionMoves(core, past, answers, pastTravel, new LineMoves(core, past, answers));
    this.logpoints = new PastLogpoints(core, past, positionEvents, options.logpointHitLink ?? null);
    this.breakpoints.onLogpointsSet = (file, bps) => this.logpoints.list(file, bps);
    const fieldWrites = new FieldWrites(core, past, positionEvents);
    this.changes = new SessionChanges(core, this.variables, new LineWalks(core, answers), fieldWrites);
    this.lifecycle = new SessionLifecycle(core, this.breakpoints, positionEvents, () => this.shutdown());
  }

  /** The run this session debugs (launched or attached), null before and after. */
  get debuggedRun(): R | null {
    return this.core.run;
  }

  /** The runtime host's process id (while it runs). */
  get hostPid(): number | undefined {
    return this.core.hostPid;
  }

  override sendEvent(event: DebugProtocol.Event): void {
    this.core.sendEvent(event);
  }

  /** Refuses, with its reason, any request this adapter does not answer (never a silent success). */
  protected override dispatchRequest(request: DebugProtocol.Request): void {
    if (SUPPORTED_REQUESTS.has(request.command)) {
      super.dispatchRequest(request);
      return;
    }
    this.core.fail(new Response(request), ERR_UNSUPPORTED, refusalOf(request.command), true);
  }

  // --- lifecycle ---
  protected override initializeRequest(
    response: DebugProtocol.InitializeResponse,
    args: DebugProtocol.InitializeRequestArguments,
  ): void {
    this.lifecycle.initializeRequest(response, args);
  }
  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.lifecycle.configurationDoneRequest(response);
  }
  protected override launchRequest(
    response: DebugProtocol.LaunchResponse,
    args: DebugProtocol.LaunchRequestArguments,
  ): void {
    this.lifecycle.launchRequest(response, args);
  }
  protected override attachRequest(
    response: DebugProtocol.AttachResponse,
    args: DebugProtocol.AttachRequestArguments,
  ): void {
    this.lifecycle.attachRequest(response, args);
  }
  protected override restartRequest(
    response: DebugProtocol.RestartResponse,
    args: DebugProtocol.RestartArguments,
  ): void {
    this.lifecycle.restartRequest(response, args);
  }
  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.lifecycle.terminateRequest(response);
  }
  protected override disconnectRequest(
    response: DebugProtocol.DisconnectResponse,
    args: DebugProtocol.DisconnectArguments,
  ): void {
    this.lifecycle.disconnectRequest(response, args);
  }

  // --- breakpoints, sources ---
  protected override setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: DebugProtocol.SetBreakpointsArguments,
  ): void {
    this.breakpoints.setBreakPointsRequest(response, args);
  }
  protected override setExceptionBreakPointsRequest(
    response: DebugProtocol.SetExceptionBreakpointsResponse,
    args: DebugProtocol.SetExceptionBreakpointsArguments,
  ): void {
    this.breakpoints.setExceptionBreakPointsRequest(response, args);
  }
  protected override loadedSourcesRequest(response: DebugProtocol.LoadedSourcesResponse): void {
    this.sourceFiles.loadedSourcesRequest(response);
  }

  // --- what a stop shows ---
  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    this.threads.threadsRequest(response);
  }
  protected override stackTraceRequest(
    response: DebugProtocol.StackTraceResponse,
    args: DebugProtocol.StackTraceArguments,
  ): void {
    this.threads.stackTraceRequest(response, args);
  }
  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    this.variables.scopesRequest(response, args);
  }
  protected override variablesRequest(
    response: DebugProtocol.VariablesResponse,
    args: DebugProtocol.VariablesArguments,
  ): void {
    this.variables.variablesRequest(response, args);
  }
  protected override evaluateRequest(
    response: DebugProtocol.EvaluateResponse,
    args: DebugProtocol.EvaluateArguments,
  ): void {
    this.variables.evaluateRequest(response, args);
  }
  protected override exceptionInfoRequest(
    response: DebugProtocol.ExceptionInfoResponse,
    args: DebugProtocol.ExceptionInfoArguments,
  ): void {
    this.threads.exceptionInfoRequest(response, args);
  }
  protected override terminateThreadsRequest(
    response: DebugProtocol.TerminateThreadsResponse,
    args: DebugProtocol.TerminateThreadsArguments,
  ): void {
    this.threads.terminateThreadsRequest(response, args);
  }
  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    if (command === LOGPOINT_HIT_REQUEST) {
      this.logpoints.goTo(response, args);
      return;
    }
    if (command === FOLLOW_TASK_REQUEST) {
      const task = narrowFollowTask(args);
      if (task === undefined) {
        this.core.fail(
          response,
          ERR_UNSUPPORTED,
          `${FOLLOW_TASK_REQUEST}: "threadId" must be a task's thread id or null`,
        );
        return;
      }
      this.moves.followedTask = task;
      this.core.output(
        task === null
          ? 'Coroscope: no task followed: Continue, Reverse Continue and Step Over move every task again'
          : `Coroscope: following ${this.core.nameOf(task) ?? `task #${task}`}: Continue, Reverse Continue and Step Over go to its next (previous) line or suspension, whatever other tasks run meanwhile`,
      );
      this.core.sendResponse(response);
      return;
    }
    if (this.changes.customRequest(command, response, args)) return;
    if (!this.coroutinesView.customRequest(command, response, args)) super.customRequest(command, response, args);
  }

  // --- where a value was set ---
  protected override dataBreakpointInfoRequest(
    response: DebugProtocol.DataBreakpointInfoResponse,
    args: DebugProtocol.DataBreakpointInfoArguments,
  ): void {
    this.changes.dataBreakpointInfoRequest(response, args);
  }
  protected override setDataBreakpointsRequest(
    response: DebugProtocol.SetDataBreakpointsResponse,
    args: DebugProtocol.SetDataBreakpointsArguments,
  ): void {
    this.changes.setDataBreakpointsRequest(response, args);
  }

  // --- moves ---
  protected override continueRequest(
    response: DebugProtocol.ContinueResponse,
    args: DebugProtocol.ContinueArguments,
  ): void {
    if (this.moves.oneTaskOf(args) === null && this.changes.takesMove()) {
      response.body = { allThreadsContinued: true };
      this.changes.moveToChange(response, args.threadId, 'forward');
      return;
    }
    this.changes.sayNotFollowed('Continue');
    this.moves.continueRequest(response, args);
  }
  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.moves.nextRequest(response, args);
  }
  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    this.moves.stepInRequest(response, args);
  }
  protected override stepOutRequest(
    response: DebugProtocol.StepOutResponse,
    args: DebugProtocol.StepOutArguments,
  ): void {
    this.moves.stepOutRequest(response, args);
  }
  protected override stepBackRequest(
    response: DebugProtocol.StepBackResponse,
    args: DebugProtocol.StepBackArguments,
  ): void {
    this.moves.stepBackRequest(response, args);
  }
  protected override reverseContinueRequest(
    response: DebugProtocol.ReverseContinueResponse,
    args: DebugProtocol.ReverseContinueArguments,
  ): void {
    if (this.moves.oneTaskOf(args) === null && this.changes.takesMove()) {
      this.changes.moveToChange(response, args.threadId, 'back');
      return;
    }
    this.changes.sayNotFollowed('Reverse Continue');
    this.moves.reverseContinueRequest(response, args);
  }
  protected override pauseRequest(response: DebugProtocol.PauseResponse, args: DebugProtocol.PauseArguments): void {
    this.moves.pauseRequest(response, args);
  }

  /** Ends the session's hold on its run; `endRun` (by default: a run it launched) ends the run and its host process. */
  disposeHost(endRun?: boolean): Promise<void> {
    return this.lifecycle.disposeHost(endRun);
  }

  override shutdown(): void {
    void this.lifecycle.disposeHost().finally(() => super.shutdown());
  }

  override dispose(): void {
    void this.lifecycle.disposeHost();
    super.dispose();
  }
}
