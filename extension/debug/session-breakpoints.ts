// SessionBreakpoints: line breakpoints (conditions, hit counts, logpoints) and the exception
// filters, set on the host; before the host exists they are kept and applied at launch.
//
// Invariants: a breakpoint keeps its id from the request that set it (pending ones are
// reported again with `breakpoint` events once applied); `exceptionBreaks` is what the host
// was told (or will be, at launch), and the past searches read the same filters.

import { resolve } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Breakpoint, HostMethods } from '../../protocol/host-protocol';
import { DEADLOCK_FILTER } from './dap-mapping';
import type { SessionCore } from './session-core';

/**
 * Exception breakpoint filters. `urlFailed` is the host's extension of setExceptionBreaks:
 * the crawler catches a worker's fetch errors (the task goes on), so "Task failed" never
 * stops on a failing page; this one does, with the error's coroutine traceback.
 */
export const EXCEPTION_FILTERS: DebugProtocol.ExceptionBreakpointsFilter[] = [
  {
    filter: 'taskFailed',
    label: 'Task failed',
    description: 'Stop when a task ends with an exception (an uncaught error in its coroutine chain).',
    default: true,
  },
  {
    filter: 'taskCancelled',
    label: 'Task cancelled',
    description: 'Stop when a task ends cancelled (CancelledError).',
    default: false,
  },
  {
    filter: 'urlFailed',
    label: 'URL failed (crawler)',
    description:
      'Stop where the crawler records a URL as failed: an error raised in a worker and caught by the crawler (the task goes on).',
    default: false,
  },
  DEADLOCK_FILTER,
];

/** The host's setExceptionBreaks params, with the URL-failed break the adapter asks for. */
export type ExceptionBreaksParams = HostMethods['setExceptionBreaks']['params'] & { urlFailed?: boolean };

export class SessionBreakpoints {
  constructor(private readonly core: SessionCore) {}

  // Breakpoints, by absolute file: the lines the client set (for the stack's focus).
  readonly breakpointLines = new Map<string, Set<number>>();

  readonly pendingBreakpoints = new Map<string, { args: DebugProtocol.SetBreakpointsArguments; ids: number[] }>();

  private nextBreakpointId = 1;

  /** The breakpoints of each file as the host was last given them. */
  private readonly setIn = new Map<string, Breakpoint[]>();

  /** Told the breakpoints of a file once set on a running host (past-logpoints.ts lists its logpoints' past). */
  onLogpointsSet: ((file: string, breakpoints: readonly Breakpoint[]) => Promise<void>) | null = null;

  exceptionBreaks: ExceptionBreaksParams = { taskFailed: true, taskCancelled: false, urlFailed: false, deadlock: true };

  setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: DebugProtocol.SetBreakpointsArguments,
  ): void {
    this.core.serve(response, async () => {
      const path = args.source.path;
      const requested: DebugProtocol.SourceBreakpoint[] =
        args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
      const ids = requested.map(() => this.nextBreakpointId++);
      if (path === undefined) {
        response.body = {
          breakpoints: requested.map((b, i) => ({
            id: ids[i],
            verified: false,
            line: b.line,
            message: 'Coroscope only sets breakpoints in files on disk',
          })),
        };
        this.core.sendResponse(response);
        return;
      }
      if (this.core.host === null || !this.core.host.isAlive()) {
        // Before launch: kept, applied (and reported with breakpoint events) once the host runs.
        this.pendingBreakpoints.set(resolve(this.core.convertClientPathToDebugger(path)), { args, ids });
        response.body = {
          breakpoints: requested.map((b, i) => ({
            id: ids[i],
            verified: false,
            line: b.line,
            message: 'set when the run starts',
          })),
        };
        this.core.sendResponse(response);
        return;
      }
      response.body = { breakpoints: await this.applyBreakpoints(args, ids) };
      this.core.sendResponse(response);
      // Logpoints set on a recorded run shown: their past hits listed (past-logpoints.ts), after the answer.
      const file = resolve(this.core.convertClientPathToDebugger(path));
      void this.onLogpointsSet?.(file, this.setIn.get(file) ?? []).catch(() => undefined);
    });
  }

  async applyBreakpoints(
    args: DebugProtocol.SetBreakpointsArguments,
    ids: number[],
  ): Promise<DebugProtocol.Breakpoint[]> {
    const clientPath = args.source.path!;
    const file = resolve(this.core.convertClientPathToDebugger(clientPath));
    const requested: DebugProtocol.SourceBreakpoint[] =
      args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
    const breakpoints = requested.map((b) => {
      const bp: HostMethods['setBreakpoints']['params']['breakpoints'][number] = {
        file,
        line: this.core.convertClientLineToDebugger(b.line),
      };
      if (b.condition !== undefined && b.condition !== '') bp.condition = b.condition;
      if (b.hitCondition !== undefined && b.hitCondition !== '') bp.hitCondition = b.hitCondition;
      if (b.logMessage !== undefined && b.logMessage !== '') bp.logMessage = b.logMessage;
      return bp;
    });
    this.setIn.set(file, breakpoints);
    // A breakpoint on a `yield*` line stops before the line runs, as on any line (issue 26).
    const r = await this.core
      .requireHost()
      .endpoint.request('setBreakpoints', { file, breakpoints, yieldLines: 'before' });
    const lines = new Set<number>();
    const out = r.breakpoints.map((s, i): DebugProtocol.Breakpoint => {
      if (s.verified) lines.add(s.line);
      const bp: DebugProtocol.Breakpoint = {
        id: ids[i],
        verified: s.verified,
        line: this.core.convertDebuggerLineToClient(s.line),
        source: { ...args.source, path: clientPath },
      };
      if (s.message !== undefined) bp.message = s.message;
      return bp;
    });
    if (lines.size > 0) this.breakpointLines.set(file, lines);
    else this.breakpointLines.delete(file);
    return out;
  }

  setExceptionBreakPointsRequest(
    response: DebugProtocol.SetExceptionBreakpointsResponse,
    args: DebugProtocol.SetExceptionBreakpointsArguments,
  ): void {
    this.core.serve(response, async () => {
      const filters = new Set([...args.filters, ...(args.filterOptions ?? []).map((o) => o.filterId)]);
      this.exceptionBreaks = {
        taskFailed: filters.has('taskFailed'),
        taskCancelled: filters.has('taskCancelled'),
        urlFailed: filters.has('urlFailed'),
        deadlock: filters.has('deadlock'),
      };
      if (this.core.host !== null && this.core.host.isAlive())
        await this.core.host.endpoint.request('setExceptionBreaks', this.exceptionBreaks);
      response.body = { breakpoints: [...filters].map(() => ({ verified: true })) };
      this.core.sendResponse(response);
    });
  }
}
