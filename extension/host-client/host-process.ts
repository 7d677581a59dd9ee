// HostProcess: starts the runtime host (dist/runtime-host.js) as a child Node process and
// talks to it through the typed host protocol over a pipe of its own (fd 4; the IPC channel
// only tells the host when this side goes away). Used by the extension
// (the panel, the commands) and by the debug adapter, inline or standalone, so it must not
// import `vscode`.
//
// Invariants: one HostProcess = one child process. If the child dies (crash, kill), every
// pending request fails, `onExit` fires with the exit code/signal and the last lines it
// wrote, and the object is dead: the caller makes a new one for the next command.
// dispose() ends the child (shutdown request, then SIGKILL after a grace period).

import { fork, type ChildProcess } from 'node:child_process';
import { HOST_PRELOAD_FILE, PROTOCOL_VERSION, type HostEvents, type HostMethods } from '../../protocol/host-protocol';
import type { Duplex } from 'node:stream';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RpcEndpoint, type Transport } from '../../protocol/rpc';
import { StreamTransport } from '../../protocol/stream-transport';

export type HostEndpoint = RpcEndpoint<HostMethods, Record<string, never>, HostEvents, Record<string, never>>;

export interface HostExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the host wrote on stdout/stderr, for the user. */
  lastLines: string[];
  /** True when dispose() asked for it. */
  expected: boolean;
}

export interface HostProcessOptions {
  /** Path of dist/runtime-host.js. */
  hostScript: string;
  /** Extra arguments for node (e.g. --enable-source-maps is always added). */
  execArgv?: string[];
  /** Working directory of the host (the workspace, for user modules). */
  cwd?: string;
  /** Name sent in hello. */
  clientName: string;
  /** Receives each line the host writes on stdout/stderr. */
  onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
}

const KEEP_LINES = 50;
/** The host's end of the client pipe (runtime/host/main-thread/main.ts `--client-fd`). */
const CLIENT_FD = 4;

/**
 * The node options that load the host's preload first (HOST_PRELOAD_FILE, beside the host's bundle), so the
 * host says hello sooner. The runtime's own forks name it alike (runtime/host/shared/host-preload-option.ts).
 */
function preloadOf(hostScript: string): string[] {
  const preload = join(dirname(hostScript), HOST_PRELOAD_FILE);
  return existsSync(preload) ? ['--require', preload] : [];
}

export class HostProcess {
  readonly endpoint: HostEndpoint;
  readonly pid: number | undefined;
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private exitInfo: HostExit | null = null;
  private disposing = false;
  private readonly exitListeners: Array<(exit: HostExit) => void> = [];

  private constructor(child: ChildProcess, options: HostProcessOptions) {
    this.child = child;
    this.pid = child.pid;
    const closeListeners: Array<(reason: string) => void> = [];
    // The protocol goes over the client pipe (fd 4): the host's worker thread serves it, also
    // while the host's main thread is stopped on a line (its IPC channel is not read then).
    const pipe = new StreamTransport(child.stdio[CLIENT_FD] as Duplex);
    const transport: Transport = {
      send: (message) => {
        if (this.exitInfo !== null) throw new Error('the runtime host is not running');
        pipe.send(message);
      },
      onMessage: (receive) => pipe.onMessage(receive),
      onClose: (closed) => closeListeners.push(closed),
    };
    this.endpoint = new RpcEndpoint(transport);
    const capture = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split(/\r?\n/)) {
        if (line === '') continue;
        this.lines.push(line);
        if (this.lines.length > KEEP_LINES) this.lines.shift();
        options.onLog?.(line, stream);
      }
    };
    child.stdout?.on('data', capture('stdout'));
    child.stderr?.on('data', capture('stderr'));
    child.on('exit', (code, signal) => {
      this.exitInfo = { code, signal, lastLines: this.lines.slice(), expected: this.disposing };
      for (const c of closeListeners) c(`the runtime host exited (${signal ?? `code ${code}`})`);
      for (const l of this.exitListeners) l(this.exitInfo);
    });
    child.on('error', (err) => {
      this.lines.push(`host process error: ${err.message}`);
    });
  }

  /** Forks the host (its preload first: see preloadOf) and completes the hello handshake. */
  static async start(options: HostProcessOptions): Promise<HostProcess> {
    const child = fork(options.hostScript, [`--client-fd=${CLIENT_FD}`], {
      cwd: options.cwd,
      execArgv: [...preloadOf(options.hostScript), '--enable-source-maps', ...(options.execArgv ?? [])],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc', 'pipe'],
      serialization: 'json',
    });
    const host = new HostProcess(child, options);
    try {
      const hello = await host.endpoint.request('hello', {
        client: options.clientName,
        protocolVersion: PROTOCOL_VERSION,
      });
      if (hello.protocolVersion !== PROTOCOL_VERSION)
        throw new Error(`the runtime host speaks protocol ${hello.protocolVersion}, this client ${PROTOCOL_VERSION}`);
    } catch (e) {
      host.kill();
      const detail = host.lines.length > 0 ? `\n${host.lines.slice(-10).join('\n')}` : '';
      throw new Error(`the runtime host did not start: ${e instanceof Error ? e.message : String(e)}${detail}`);
    }
    return host;
  }

  /** Whether the child is still running. */
  isAlive(): boolean {
    return this.exitInfo === null;
  }

  /** How it ended, once it has. */
  exit(): HostExit | null {
    return this.exitInfo;
  }

  /** The last lines the host wrote. */
  lastLines(): string[] {
    return this.lines.slice();
  }

  onExit(listener: (exit: HostExit) => void): void {
    if (this.exitInfo !== null) listener(this.exitInfo);
    else this.exitListeners.push(listener);
  }

  /** Asks the host to shut down; kills it if it has not exited after `graceMs`. */
  async dispose(graceMs = 2000): Promise<void> {
    if (this.exitInfo !== null) return;
    this.disposing = true;
    const exited = new Promise<void>((resolve) => this.onExit(() => resolve()));
    this.endpoint.request('shutdown', {}).catch(() => undefined);
    const timer = setTimeout(() => this.kill(), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /** Ends the child at once. */
  kill(): void {
    this.disposing = true;
    if (this.exitInfo === null) this.child.kill('SIGKILL');
  }
}
