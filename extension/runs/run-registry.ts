// RunRegistry: every run of the extension, each on a runtime host process of its own (Run).
// Views find runs here: the panel's RunSession starts or follows one, a debug session launches
// or attaches to one, "Debug This Run" and the attach pick list list them. Nothing starts until
// a view asks (start()).
//
// Invariants:
// - One host process per Run; a Run leaves the registry when its host exits (asked or not),
//   and onDidEnd hears it with the exit (its last lines when it died).
// - Concurrent start() calls start one host each; dispose() ends every host and refuses starts.
// - No `vscode` import: the debug adapter (inline and standalone) and tests use it as it is.

import { Emitter } from '../emitter';
import { HostProcess, type HostExit } from '../host-client/host-process';
import { Run } from './run';

export interface RunRegistryOptions {
  /** Path of dist/runtime-host.js. */
  hostScript: string;
  /** Working directory of the hosts (the workspace folder, for user programs). */
  cwd?: string;
  /** Name sent in hello. */
  clientName?: string;
  /** Extra node arguments for the hosts. */
  execArgv?: string[];
}

export class RunRegistry {
  private readonly runs = new Map<number, Run>();
  private nextKey = 1;
  private disposed = false;
  private readonly starting = new Set<Promise<Run>>();
  /** A run's host process started (it has no launched run yet). */
  readonly onDidStart = new Emitter<Run>();
  /** A run's host process exited; `exit.expected` is false when it died on its own. */
  readonly onDidEnd = new Emitter<{ run: Run; exit: HostExit }>();
  /** A view launched a run (`by` names the view). */
  readonly onDidLaunch = new Emitter<{ run: Run; by: string }>();
  /** Each line a host writes on stdout/stderr. */
  readonly onLog = new Emitter<{ run: Run | null; line: string; stream: 'stdout' | 'stderr' }>();

  constructor(private readonly options: RunRegistryOptions) {}

  /** Starts a runtime host process for a new run (launch it with Run.launch). */
  start(overrides: { cwd?: string } = {}): Promise<Run> {
    if (this.disposed) return Promise.reject(new Error('the Coroscope extension is shutting down'));
    const key = this.nextKey++;
    let run: Run | null = null;
    const cwd = overrides.cwd ?? this.options.cwd;
    const start = HostProcess.start({
      hostScript: this.options.hostScript,
      clientName: this.options.clientName ?? 'coroscope-extension',
      ...(cwd !== undefined ? { cwd } : {}),
      ...(this.options.execArgv !== undefined ? { execArgv: this.options.execArgv } : {}),
      onLog: (line, stream) => this.onLog.fire({ run, line, stream }),
    }).then((host) => {
      if (this.disposed) {
        void host.dispose();
        throw new Error('the Coroscope extension is shutting down');
      }
      run = new Run(key, host, {
        launched: (r, by) => this.onDidLaunch.fire({ run: r, by }),
        ended: (r, exit) => {
          this.runs.delete(r.key);
          this.onDidEnd.fire({ run: r, exit });
        },
      });
      if (host.isAlive()) this.runs.set(key, run);
      this.onDidStart.fire(run);
      return run;
    });
    this.starting.add(start);
    const forget = (): void => {
      this.starting.delete(start);
    };
    start.then(forget, forget);
    return start;
  }

  get(key: number): Run | undefined {
    return this.runs.get(key);
  }

  /** Every run whose host is up, oldest first. */
  list(): Run[] {
    return [...this.runs.values()].sort((a, b) => a.key - b.key);
  }

  /** Runs launched and not finished, oldest first. */
  live(): Run[] {
    return this.list().filter((r) => r.isLive());
  }

  /** What a debugger can attach to: the live runs and the finished recorded ones, oldest first. */
  debuggable(): Run[] {
    return this.list().filter((r) => r.isDebuggable());
  }

  /** Ends every host and refuses new starts. */
  async dispose(graceMs = 1000): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.starting].map((s) => s.catch(() => undefined)));
    await Promise.all(this.list().map((r) => r.host.dispose(graceMs)));
  }
}
