// Runs on a runtime host's line debugger worker thread. Where the worker's one dispatch
// (line-debug-worker.ts) sends a client request, from its method and what the worker shows: the
// worker's own line and past requests, the breakpoint split, a replay host showing the moment, the
// main thread (forwarded while it runs, served through the synchronous call while it is held on a
// line), or a refusal; and what becomes of a forwarded request still unanswered when the thread stops.
//
// Invariants: pure (no state, no I/O); each method and view has exactly one route; only queries that
// change nothing (READ_ONLY) may be answered twice; a loop move is never served by a held thread.

import { ProtocolError } from '../../../protocol/rpc';
import { MOMENT_QUERIES } from './line-replay-host';

/** Queries that are safe to answer twice (through the synchronous call, then late by message). */
export const READ_ONLY: ReadonlySet<string> = new Set([
  'hello',
  'snapshot',
  'taskDetail',
  'variables',
  'graph',
  'lints',
  'samples',
  'programLoops',
]);
/** Requests that change the run: while stopped, the thread goes first (breakpoints off). */
export const RUN_CHANGING: ReadonlySet<string> = new Set(['launch', 'openRecording', 'stop', 'shutdown']);
export const LOOP_STEPS: ReadonlySet<string> = new Set(['stepTick', 'stepTask', 'stepOut']);
/** Requests that let the loop run, answered with a tick. */
export const LOOP_MOVES: ReadonlySet<string> = new Set(['continue', ...LOOP_STEPS]);

/** What the routing reads of the worker when a request comes. */
export interface WorkerView {
  /** The live thread is held on a line (LineDebugger.isStopped). */
  readonly stopped: boolean;
  /** The search's replay host shows a line (a hit, or a line from it). */
  readonly searchShowsLine: boolean;
  /** The stop's replay host is there and replayed the moment shown (a past tick, or a past line of it). */
  readonly stopShowsMoment: boolean;
}

/** Where a request goes. */
export type RequestRoute =
  /** A line request or a past request: the worker's own (`own`). */
  | 'own'
  | 'setBreakpoints'
  /** A moment's query while the search's replay host shows a line and no live stop holds the run. */
  | 'searchReplay'
  /** The thread runs: to the main thread by message. */
  | 'forward'
  | 'continue'
  | 'pause'
  /** A loop step while held on a line: refused (`stoppedOnLine`). */
  | 'refuseLoopStep'
  | 'seekTick'
  /** A moment's query while the stop's replay host shows a past moment. */
  | 'stopReplay'
  /** Held: the thread is let go (breakpoints off), then the request forwarded. */
  | 'runChanging'
  /** Held: a line handle's variables are the stopped thread's, any other the main thread's. */
  | 'variables'
  /** Held: the main thread's detail, with the line task's frames. */
  | 'taskDetail'
  /** Held: the main thread serves it through the synchronous call. */
  | 'mainThreadHeld';

/** The worker's own requests: line requests, the line step mode, the past's. */
export function isOwnRequest(method: string): boolean {
  return method.startsWith('line') || method === 'setLineStepMode' || method.startsWith('past');
}

/** Where request `method` goes, the worker being as `view` says. */
export function routeOf(method: string, view: WorkerView): RequestRoute {
  if (isOwnRequest(method)) return 'own';
  if (method === 'setBreakpoints') return 'setBreakpoints';
  if (!view.stopped) return view.searchShowsLine && MOMENT_QUERIES.has(method) ? 'searchReplay' : 'forward';
  if (method === 'continue') return 'continue';
  if (method === 'pause') return 'pause';
  if (LOOP_STEPS.has(method)) return 'refuseLoopStep';
  if (method === 'seekTick') return 'seekTick';
  if (view.stopShowsMoment && MOMENT_QUERIES.has(method)) return 'stopReplay';
  if (RUN_CHANGING.has(method)) return 'runChanging';
  if (method === 'variables') return 'variables';
  if (method === 'taskDetail') return 'taskDetail';
  return 'mainThreadHeld';
}

/** A request that waits for a warm-up of the stop's past to end (all but the queries that change nothing). */
export function waitsForWarmUp(method: string): boolean {
  return !READ_ONLY.has(method);
}

/** The views move (a seek, the run going on, a new run): a hit the search's replay host shows is left. */
export function leavesSearchedHit(method: string): boolean {
  return LOOP_MOVES.has(method) || method === 'pause' || method === 'seekTick' || RUN_CHANGING.has(method);
}

/**
 * A request forwarded to the main thread, unanswered when the thread stopped on a line: a loop move is
 * answered with the stop's tick ('tick', its late answer dropped), a query served now ('serve'), anything
 * else waits for the main thread's answer ('wait').
 */
export function atLineStop(method: string): 'tick' | 'serve' | 'wait' {
  if (LOOP_MOVES.has(method)) return 'tick';
  return READ_ONLY.has(method) ? 'serve' : 'wait';
}

/** The code a failed request is refused with: a ProtocolError's own; else a line request's is the client's fault. */
export function refusalCode(method: string, error: unknown): string {
  if (error instanceof ProtocolError) return error.code;
  return method.startsWith('line') ? 'badRequest' : 'failed';
}
