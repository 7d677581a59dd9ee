// A fake runtime host and run for the debug adapter's protocol-level tests: the port of
// extension/debug/debug-host.ts served in this process, no fork. Each test gives the answers
// of the host requests it expects (`serve`); a request with no answer given fails (the test
// sees which), every request is logged, and `emit` sends a host event to the session.
// A run made `launchable` is the one a launch starts (its `launch` asked of the fake host as well).
// seekTick is served as the real host does (runtime/host/main-thread/run.ts): the viewedTick
// event (replayed: false) before the answer, an opened recording's present is its last tick;
// the seek's moment id echoed on both.
//
// Invariants: nothing here decides what the adapter shows; the fake only answers and emits.

import type {
  HostEvents,
  HostMethods,
  LaunchOptions,
  LaunchTarget,
  Snapshot,
  Timeline,
  ViewedMoment,
} from '../../../protocol/host-protocol';
import type { DebugHost, DebugHostEndpoint, DebuggedRun, DebugRuns } from '../../../extension/debug/debug-host';
import type { HostExit } from '../../../extension/host-client/host-process';
import { SnapshotMirror } from '../../../protocol/snapshot-mirror';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { attachedInProcess } from './adapter-harness';
import type { DapClient } from './dap-client';

type Method = keyof HostMethods & string;
type Handler<M extends Method> = (
  params: HostMethods[M]['params'],
) => HostMethods[M]['result'] | Promise<HostMethods[M]['result']>;
type HandlerMap = { [M in Method]?: Handler<M> };

export class FakeHostEndpoint implements DebugHostEndpoint {
  readonly requests: Array<{ method: string; params: unknown }> = [];
  private readonly handlers: HandlerMap = {};
  private readonly listeners = new Map<string, Array<(body: never) => void>>();

  serve<M extends Method>(method: M, handler: Handler<M>): void {
    (this.handlers as Record<string, unknown>)[method] = handler;
  }

  request<M extends Method>(method: M, params: HostMethods[M]['params']): Promise<HostMethods[M]['result']> {
    this.requests.push({ method, params });
    const handler = this.handlers[method] as Handler<M> | undefined;
    if (handler === undefined) return Promise.reject(new Error(`fake host: no answer for ${method}`));
    try {
      return Promise.resolve(handler(params));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  on<E extends keyof HostEvents & string>(event: E, listener: (body: HostEvents[E]) => void): () => void {
    const list = this.listeners.get(event) ?? [];
    list.push(listener as (body: never) => void);
    this.listeners.set(event, list);
    return () => {
      const i = list.indexOf(listener as (body: never) => void);
      if (i >= 0) list.splice(i, 1);
    };
  }

  emit<E extends keyof HostEvents & string>(event: E, body: HostEvents[E]): void {
    for (const l of [...(this.listeners.get(event) ?? [])]) (l as (b: HostEvents[E]) => void)(body);
  }

  /** The methods asked, in order. */
  asked(): string[] {
    return this.requests.map((r) => r.method);
  }
}

export class FakeHost implements DebugHost {
  readonly endpoint = new FakeHostEndpoint();
  readonly pid = 4242;
  alive = true;
  isAlive(): boolean {
    return this.alive;
  }
}

/** A run on the fake host, as extension/runs/run.ts's Run shows one to a debugger. */
export class FakeRun implements DebuggedRun {
  readonly key = 1;
  readonly host = new FakeHost();
  readonly title = 'fake run';
  phase: string;
  recorded = true;
  runId: number | null = 7;
  target: LaunchTarget | null = null;
  lastPause: HostEvents['paused'] | null = null;
  viewedTick: number | null = null;
  readonly tasks = new SnapshotMirror();
  private readonly endListeners: Array<(exit: HostExit) => void> = [];
  readonly onDidEnd = {
    on: (listener: (exit: HostExit) => void): (() => void) => {
      this.endListeners.push(listener);
      return () => undefined;
    },
  };

  constructor(phase: 'paused' | 'running' | 'finished') {
    this.phase = phase;
  }

  get endpoint(): FakeHostEndpoint {
    return this.host.endpoint;
  }
  isLive(): boolean {
    return this.phase !== 'finished' && this.phase !== 'ended';
  }
  isDebuggable(): boolean {
    return this.isLive() || (this.phase === 'finished' && this.recorded);
  }
  isAlive(): boolean {
    return this.host.alive;
  }
  async refreshTasks(): Promise<void> {
    const since = this.tasks.since;
    this.tasks.apply(await this.endpoint.request('snapshot', since === undefined ? {} : { since }));
  }
  attach(_view: string): () => void {
    return () => undefined;
  }
  /** A launch (a session's own run: launch, restart) is the host's `launch` answer; its runId becomes the run's. */
  async launch(target: LaunchTarget, options: LaunchOptions, _by: string): Promise<HostMethods['launch']['result']> {
    const r = await this.endpoint.request('launch', { target, options });
    this.runId = r.runId;
    this.target = target;
    this.phase = 'running';
    return r;
  }
  async stop(): Promise<void> {
    this.host.alive = false;
    this.phase = 'ended';
    for (const l of this.endListeners) l({ code: 0, signal: null, expected: true, lastLines: [] });
  }
}

export class FakeRuns implements DebugRuns<FakeRun> {
  /** `launchable`: a session may launch on the run (its host is the one started); else attach only. */
  constructor(
    readonly run: FakeRun,
    private readonly launchable = false,
  ) {}
  start(): Promise<FakeRun> {
    return this.launchable ? Promise.resolve(this.run) : Promise.reject(new Error('fake runs: attach only'));
  }
  get(key: number): FakeRun | undefined {
    return key === this.run.key ? this.run : undefined;
  }
  debuggable(): FakeRun[] {
    return this.run.isDebuggable() ? [this.run] : [];
  }
}

/** A session in this process attached to `run` (no host script to fork), once its first stop is shown. */
export async function attachedToFake(run: FakeRun, timeoutMs = 5000): Promise<DapClient> {
  const dap = await attachedInProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
    { run: run.key },
    { timeoutMs },
  );
  await dap.waitForEvent('stopped', { from: 0, timeoutMs });
  return dap;
}

/** A snapshot of a loop at `tick` with no task (the adapter lists the loop's thread). */
export function snapshotAt(tick: number, paused: boolean): Snapshot {
  return {
    version: tick,
    full: true,
    tick,
    paused,
    tasks: [],
    removed: [],
    counts: { scheduled: 0, running: 0, suspended: 0, done: 0, cancelled: 0, failed: 0 },
    progress: null,
  };
}

/** A timeline of `ticks` ticks with the given lanes and marks. */
export function timelineOf(
  runId: number,
  ticks: number,
  parts: Partial<Pick<Timeline, 'lanes' | 'marks'>> = {},
): Timeline {
  return { runId, ticks, sinceTick: 0, live: false, lanes: parts.lanes ?? [], marks: parts.marks ?? [], tickTimes: [] };
}

/**
 * Serves seekTick as the real host does: the views move (a `viewedTick` event, replayed
 * false, then replayed true once "replayed"), then the answer. `opened`: an opened recording,
 * whose present is its last tick.
 */
export function serveSeeks(run: FakeRun, ticks: number, opened = false): void {
  run.endpoint.serve('seekTick', (p) => {
    const tick = p.tick === null && opened ? ticks : p.tick;
    if (tick !== null && (tick < 1 || tick > ticks))
      throw new Error(`seekTick: run ${run.runId} has ticks 1..${ticks} recorded, not ${tick}`);
    const moment: ViewedMoment =
      tick === null ? { runId: run.runId!, tick: null, ticks } : { runId: run.runId!, tick, ticks, replayed: false };
    // The asker's id, echoed on the answer and the events the seek causes (protocol/moment-ids.ts).
    if (p.moment !== undefined) moment.moment = p.moment;
    run.viewedTick = tick;
    run.endpoint.emit('viewedTick', moment);
    if (tick === null) return moment;
    const landed: ViewedMoment = { ...moment, replayed: true };
    run.endpoint.emit('viewedTick', landed);
    return landed;
  });
}
