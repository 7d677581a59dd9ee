// The steps every adapter test takes, written once: start the standalone adapter (its bundles
// built first) and initialize it as VS Code does; launch or attach as VS Code does (launch,
// `initialized`, the configuration, configurationDone, the launch's answer); a move answered by
// its `stopped`; and what a stop shows (threads, a stack, a scope's variables, the Coroutines
// view's task table).
//
// Invariants: every wait starts at a mark taken before the request that causes it (an event of an
// earlier step is never taken for this one); a failed request throws (requestRaw for refusals);
// nothing here asserts what a test checks: it only drives the adapter and reads its answers.

import type { DebugProtocol } from '@vscode/debugprotocol';
import { TASKS_REQUEST, type TasksBody } from '../../../extension/debug/custom-requests';
import type { LogpointHitsBody } from '../../../extension/debug/past-logpoints';
import { ADAPTER_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient, type DapEvent, type InProcessAdapter } from './dap-client';

/** How long a launch's first stop, a move's stop, may take on a busy machine. */
const STOP_TIMEOUT_MS = 60_000;

/** The demo crawl the time-travel tests record: 12 pages of the embedded site, no latency, 3 workers. */
export function demoCrawl(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'coroscope',
    request: 'launch',
    name: 'demo',
    crawl: 'demo',
    pages: 12,
    demoLatency: 'instant',
    maxTasks: 3,
    ...overrides,
  };
}

/** The client's half of `initialize`, as VS Code sends it (lines and columns from 1, plain paths). */
const CLIENT_ARGUMENTS: DebugProtocol.InitializeRequestArguments = {
  clientID: 'coroscope-tests',
  adapterID: 'coroscope',
  linesStartAt1: true,
  columnsStartAt1: true,
  pathFormat: 'path',
};

/** What a test's client says it supports beyond the basics (VS Code says both). */
export interface ClientSupport {
  supportsVariableType?: boolean;
  supportsProgressReporting?: boolean;
}

/** Sends `initialize`; resolves with the adapter's capabilities. */
export function initialize(dap: DapClient, support: ClientSupport = {}): Promise<DebugProtocol.Capabilities> {
  return dap.request<DebugProtocol.Capabilities>('initialize', { ...CLIENT_ARGUMENTS, ...support });
}

/**
 * The standalone adapter as a process (`node dist/debugAdapter.js`), its bundles built first, not initialized;
 * `env`: its environment, and its host's (default: this process's).
 */
export async function spawnAdapter(env?: NodeJS.ProcessEnv): Promise<DapClient> {
  await buildAdapterAndHost();
  return DapClient.spawn(
    process.execPath,
    [ADAPTER_SCRIPT],
    env === undefined ? { cwd: PROJECT_ROOT } : { cwd: PROJECT_ROOT, env },
  );
}

/** The standalone adapter, started and initialized (`env`: as spawnAdapter's). */
export async function startAdapter(support: ClientSupport = {}, env?: NodeJS.ProcessEnv): Promise<DapClient> {
  const dap = await spawnAdapter(env);
  await initialize(dap, support);
  return dap;
}

/** An adapter object of this process (a CoroscopeSession), initialized and attached as VS Code does it. */
export async function attachedInProcess(
  adapter: InProcessAdapter,
  args: Record<string, unknown>,
  configuration: Configuration = {},
): Promise<DapClient> {
  const dap = DapClient.inProcess(adapter);
  await initialize(dap);
  await startDebugging(dap, 'attach', args, configuration);
  return dap;
}

/** What a test sets between `initialized` and configurationDone (breakpoints, exception filters). */
export interface Configuration {
  /** Breakpoints first (setBreakpoints...), as VS Code sends them. */
  configure?: (dap: DapClient) => Promise<void>;
  /** Then the exception filters to set (setExceptionBreakpoints); none sent when undefined. */
  exceptionFilters?: string[];
  /** How long `initialized` may take (a fake host's tests wait less). */
  timeoutMs?: number;
}

/**
 * A launch (or attach) as VS Code does it: the request, `initialized`, the configuration,
 * configurationDone, then the request's answer. Returns the mark taken before it (its events from there).
 */
export async function startDebugging(
  dap: DapClient,
  request: 'launch' | 'attach',
  args: Record<string, unknown>,
  configuration: Configuration = {},
): Promise<number> {
  const from = dap.mark();
  const answered = dap.request(request, args);
  await dap.waitForEvent('initialized', { from, timeoutMs: configuration.timeoutMs });
  await configuration.configure?.(dap);
  if (configuration.exceptionFilters !== undefined)
    await dap.request('setExceptionBreakpoints', { filters: configuration.exceptionFilters });
  await dap.request('configurationDone');
  await answered;
  return from;
}

/** A launch as VS Code does it (startDebugging), then its first stop (the launch failing if the session ends first). */
export async function launchToStop(
  dap: DapClient,
  args: Record<string, unknown>,
  configuration: Configuration = {},
): Promise<DapEvent> {
  const from = await startDebugging(dap, 'launch', args, configuration);
  return dap.waitForEvent('stopped', { from, timeoutMs: STOP_TIMEOUT_MS, failOn: ['terminated'] });
}

/** Sets one breakpoint in a file (the file's others removed); the adapter's answer for it. */
export async function setBreakpoint(
  dap: DapClient,
  file: string,
  breakpoint: DebugProtocol.SourceBreakpoint,
): Promise<DebugProtocol.Breakpoint> {
  const set = await dap.request<DebugProtocol.SetBreakpointsResponse['body']>('setBreakpoints', {
    source: { path: file },
    breakpoints: [breakpoint],
  });
  return set.breakpoints[0]!;
}

/** A request that moves (a step, continue, reverse continue...), then the `stopped` it causes. */
export async function moveToStop(
  dap: DapClient,
  command: string,
  args: unknown,
  wait: { predicate?: (body: Record<string, unknown>) => boolean; timeoutMs?: number } = {},
): Promise<DapEvent> {
  const from = dap.mark();
  await dap.request(command, args, wait.timeoutMs ?? STOP_TIMEOUT_MS);
  return dap.waitForEvent('stopped', { from, timeoutMs: wait.timeoutMs ?? STOP_TIMEOUT_MS, predicate: wait.predicate });
}

/** A `stopped` event's body, typed. */
export function stoppedBodyOf(e: DapEvent): DebugProtocol.StoppedEvent['body'] {
  return e.body as DebugProtocol.StoppedEvent['body'];
}

/** The threads the Call Stack view lists. */
export async function threadsOf(dap: DapClient): Promise<DebugProtocol.Thread[]> {
  return (await dap.request<DebugProtocol.ThreadsResponse['body']>('threads')).threads;
}

/**
 * Where a stop stands, as the Call Stack view shows it: its reason, the loop's tick (named by the loop's
 * thread), its task's name and its top frame.
 */
export async function stopPlace(
  dap: DapClient,
  stop: DapEvent,
): Promise<{ reason: string; tick: number; task: string; top: DebugProtocol.StackFrame }> {
  const threadId = Number(stop.body.threadId);
  const threads = await threadsOf(dap);
  const loop = threads.find((t) => /^event loop/.test(t.name))?.name ?? '';
  const tick = /in tick (\d+)/.exec(loop);
  if (tick === null) throw new Error(`the loop thread names no tick: ${loop}`);
  const top = (await stackOf(dap, threadId))[0];
  if (top === undefined) throw new Error(`thread ${threadId} has no frame`);
  return {
    reason: String(stop.body.reason),
    tick: Number(tick[1]),
    task: (threads.find((t) => t.id === threadId)?.name ?? '').split(' ')[0]!,
    top,
  };
}

/** A thread's stack, as the Call Stack view asks for it (the first `levels` frames, 20 as VS Code asks). */
export async function stackOf(dap: DapClient, threadId: number, levels = 20): Promise<DebugProtocol.StackFrame[]> {
  return (
    await dap.request<DebugProtocol.StackTraceResponse['body']>('stackTrace', { threadId, startFrame: 0, levels })
  ).stackFrames;
}

/** A frame's scope by name (Locals, Task...): its reference and its variables by name (throws when it has none). */
export async function scopeOf(
  dap: DapClient,
  frameId: number,
  name: string,
): Promise<{ ref: number; variables: Map<string, DebugProtocol.Variable> }> {
  const { scopes } = await dap.request<DebugProtocol.ScopesResponse['body']>('scopes', { frameId });
  const scope = scopes.find((s) => s.name === name);
  if (scope === undefined) throw new Error(`no ${name} scope among ${scopes.map((s) => s.name).join(', ')}`);
  const { variables } = await dap.request<DebugProtocol.VariablesResponse['body']>('variables', {
    variablesReference: scope.variablesReference,
  });
  return { ref: scope.variablesReference, variables: new Map(variables.map((v) => [v.name, v])) };
}

/** A frame's Locals scope, name to shown value, as the Variables view reads it. */
export async function localsOf(dap: DapClient, frameId: number): Promise<Map<string, string>> {
  const { variables } = await scopeOf(dap, frameId, 'Locals');
  return new Map([...variables].map(([name, v]) => [name, v.value]));
}

/** The Coroutines view's task table: the tasks, the tick the views show, the loop's state. */
export function tasksOf(dap: DapClient): Promise<TasksBody> {
  return dap.request<TasksBody>(TASKS_REQUEST);
}

/** The Debug Console's text since event index `from`. */
export function outputSince(dap: DapClient, from: number): string {
  return dap.events
    .slice(from)
    .filter((e) => e.event === 'output')
    .map((e) => String(e.body.output))
    .join('');
}

/** A request the adapter refuses: its error response (throws when it succeeds). */
export async function refusalOf(dap: DapClient, command: string, args?: unknown): Promise<DebugProtocol.Response> {
  const r = await dap.requestRaw(command, args);
  if (r.success) throw new Error(`${command} succeeded; a refusal was expected`);
  return r;
}

/**
 * Lets a run go to its end and ends its session: a recorded run stops there (reason 'end') and
 * Continue at the end ends the session (terminated); a run with no tick recorded (a program
 * that runs a loop of its own) ends it at once.
 */
export async function continueThroughEnd(dap: DapClient, threadId: number, timeoutMs = 60_000): Promise<void> {
  let from = dap.mark();
  await dap.request('continue', { threadId });
  const end = await dap
    .waitForEvent('stopped', { from, timeoutMs, predicate: (b) => b.reason === 'end', failOn: ['terminated'] })
    .catch((e: unknown) => {
      if (dap.events.slice(from).some((x) => x.event === 'terminated')) return null;
      throw e;
    });
  if (end === null) return;
  from = dap.mark();
  await dap.request('continue', { threadId: Number(end.body.threadId) });
  await dap.waitForEvent('terminated', { from, timeoutMs });
}

/** Sets `file`'s breakpoints (logpoints among them); the past hits they list (`coroscope/logpointHits`). */
export async function listLogpointHits(
  dap: DapClient,
  file: string,
  breakpoints: DebugProtocol.SourceBreakpoint[],
): Promise<LogpointHitsBody['hits']> {
  const from = dap.mark();
  await dap.request('setBreakpoints', { source: { path: file }, breakpoints });
  const listed = await dap.waitForEvent('coroscope/logpointHits', { from, timeoutMs: 120_000 });
  return (listed.body as unknown as LogpointHitsBody).hits;
}

/** Goes to a listed hit (`coroscope/goToLogpointHit`); its stop. */
export async function goToLogpointHit(dap: DapClient, hit: number): Promise<DapEvent> {
  const at = dap.mark();
  await dap.request('coroscope/goToLogpointHit', { hit });
  return dap.waitForEvent('stopped', { from: at, timeoutMs: 60_000 });
}
