// The debug adapter's port to its runtime host and run: what CoroscopeSession needs of them,
// and nothing more. The extension's RunRegistry, Run and HostProcess (extension/runs/,
// extension/host-client/) satisfy these interfaces as they are; a test gives a fake host
// instead (no fork, no socket), so the session's positions and moves are tested in seconds.
//
// Invariants: the session talks to a host only through `request` and `on` (the runtime host
// protocol's requests and events, protocol/host-protocol.ts); `isAlive()` is false once the
// host is gone, and then no request is sent.

import type {
  CancelRequester,
  HostEvents,
  HostMethods,
  LaunchOptions,
  LaunchTarget,
} from '../../protocol/host-protocol';
import type { HostExit } from '../host-client/host-process';
import type { SnapshotMirror } from '../../protocol/snapshot-mirror';

/** The host protocol as the adapter uses it: requests, and listeners of events (each returns its removal). */
export interface DebugHostEndpoint {
  request<M extends keyof HostMethods & string>(
    method: M,
    params: HostMethods[M]['params'],
  ): Promise<HostMethods[M]['result']>;
  on<E extends keyof HostEvents & string>(event: E, listener: (body: HostEvents[E]) => void): () => void;
}

/** The runtime host process of a run. */
export interface DebugHost {
  readonly endpoint: DebugHostEndpoint;
  /** Its process id (a fake host: any number, or undefined). */
  readonly pid: number | undefined;
  isAlive(): boolean;
}

/** A run as the adapter sees it (extension/runs/run.ts's Run). */
export interface DebuggedRun {
  readonly key: number;
  readonly host: DebugHost;
  readonly title: string;
  readonly phase: string;
  readonly recorded: boolean;
  readonly runId: number | null;
  readonly target: LaunchTarget | null;
  readonly lastPause: HostEvents['paused'] | null;
  /** The run's task table, shared by every view of it. */
  readonly tasks: SnapshotMirror;
  /** Brings `tasks` up to date (one snapshot request for every view asking meanwhile). */
  refreshTasks(): Promise<unknown>;
  /** The past tick every view shows (null: the present). */
  readonly viewedTick: number | null;
  readonly endpoint: DebugHostEndpoint;
  readonly onDidEnd: { on(listener: (exit: HostExit) => void): () => void };
  isLive(): boolean;
  isDebuggable(): boolean;
  isAlive(): boolean;
  /** Attaches a view; returns its detach. */
  attach(view: string): () => void;
  launch(target: LaunchTarget, options: LaunchOptions, by: string): Promise<HostMethods['launch']['result']>;
  stop(by: CancelRequester, graceMs?: number): Promise<void>;
}

/** Where runs are started (launch) and found (attach): the extension's RunRegistry. */
export interface DebugRuns<R extends DebuggedRun = DebuggedRun> {
  start(overrides?: { cwd?: string }): Promise<R>;
  get(key: number): R | undefined;
  debuggable(): R[];
}
