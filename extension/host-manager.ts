// HostManager: owns the extension's one runtime host process (HostProcess) at a time.
// Nothing starts at activation: the first command that needs the host calls ensure(), which
// forks dist/runtime-host.js and completes the handshake; concurrent callers share that start.
//
// Invariants:
// - At most one live HostProcess. If it dies without being asked to (crash, kill), every
//   pending request has already failed (HostProcess closes its endpoint), listeners of
//   onDidExit hear it with `expected: false` and the host's last lines, and the manager
//   forgets it: the next ensure() starts a fresh one.
// - stop() and dispose() end the process (shutdown, then SIGKILL after a grace period).
// - No `vscode` import: the debug adapter (extension/debug/) and tests use it as it is.
//
// Public surface for the debug adapter: ensure(), current(), onDidStart(), onDidExit(),
// onLog(); all listener registrations return a function that removes the listener.

import { HostProcess, type HostExit } from './host-client/host-process';

export interface HostManagerOptions {
  /** Path of dist/runtime-host.js. */
  hostScript: string;
  /** Working directory of the host (the workspace folder, for user programs). */
  cwd?: string;
  /** Name sent in hello. */
  clientName?: string;
  /** Extra node arguments for the host. */
  execArgv?: string[];
}

type Listener<T> = (value: T) => void;

class Listeners<T> {
  private list: Array<Listener<T>> = [];
  add(l: Listener<T>): () => void {
    this.list.push(l);
    return () => {
      this.list = this.list.filter((x) => x !== l);
    };
  }
  fire(value: T): void {
    for (const l of this.list.slice()) {
      try {
        l(value);
      } catch {
        // A listener's failure must not keep the others from hearing it.
      }
    }
  }
}

export class HostManager {
  private host: HostProcess | null = null;
  private starting: Promise<HostProcess> | null = null;
  private disposed = false;
  private readonly started = new Listeners<HostProcess>();
  private readonly exited = new Listeners<{ exit: HostExit; host: HostProcess }>();
  private readonly logs = new Listeners<{ line: string; stream: 'stdout' | 'stderr' }>();

  constructor(private readonly options: HostManagerOptions) {}

  /** The live host, if one runs. */
  current(): HostProcess | null {
    return this.host !== null && this.host.isAlive() ? this.host : null;
  }

  isStarting(): boolean {
    return this.starting !== null;
  }

  /** The live host, starting one if needed. */
  ensure(): Promise<HostProcess> {
    if (this.disposed) return Promise.reject(new Error('the Coroscope extension is shutting down'));
    const live = this.current();
    if (live !== null) return Promise.resolve(live);
    if (this.starting !== null) return this.starting;
    const start = HostProcess.start({
      hostScript: this.options.hostScript,
      cwd: this.options.cwd,
      execArgv: this.options.execArgv,
      clientName: this.options.clientName ?? 'coroscope-extension',
      onLog: (line, stream) => this.logs.fire({ line, stream }),
    }).then(
      (host) => {
        this.starting = null;
        if (this.disposed) {
          void host.dispose();
          throw new Error('the Coroscope extension is shutting down');
        }
        this.host = host;
        host.onExit((exit) => {
          if (this.host === host) this.host = null;
          this.exited.fire({ exit, host });
        });
        this.started.fire(host);
        return host;
      },
      (e: unknown) => {
        this.starting = null;
        throw e;
      },
    );
    this.starting = start;
    return start;
  }

  onDidStart(listener: Listener<HostProcess>): () => void {
    return this.started.add(listener);
  }

  /** Every exit: `exit.expected` is false when the host died on its own. */
  onDidExit(listener: Listener<{ exit: HostExit; host: HostProcess }>): () => void {
    return this.exited.add(listener);
  }

  /** Each line the host writes on stdout/stderr. */
  onLog(listener: Listener<{ line: string; stream: 'stdout' | 'stderr' }>): () => void {
    return this.logs.add(listener);
  }

  /** Ends the host process, if one runs (the next ensure() starts a new one). */
  async stop(graceMs = 2000): Promise<void> {
    const starting = this.starting;
    if (starting !== null) await starting.catch(() => undefined);
    const host = this.host;
    this.host = null;
    if (host !== null) await host.dispose(graceMs);
  }

  /** Ends the host and refuses new starts. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop(1000);
  }
}
