// A test client for the runtime host: forks the host (from the TypeScript source through tsx,
// or a bundle), speaks the protocol over the IPC channel with protocol/rpc.ts, and records
// every event so a test can wait for one.
//
// Invariants: every host a test forks is ended by the test (close(): shutdown, then kill if
// it does not exit); waitFor never waits longer than its timeout.

import { fork, type ChildProcess, type StdioOptions } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RpcEndpoint, type Transport } from '../../../protocol/rpc';
import { StreamTransport } from '../../../protocol/stream-transport';
import { withHostPreload } from '../../../runtime/host/shared/host-preload-option';
import assert from 'node:assert/strict';
import type { BreakpointHitLanding, HostEvents } from '../../../protocol/host-protocol';
import type { HostAndReplayHostMethods } from '../../../protocol/replay-host-protocol';

export const ROOT = join(__dirname, '..', '..', '..');
export const HOST_SOURCE = join(ROOT, 'runtime', 'host', 'main-thread', 'main.ts');

/**
 * The tests' client: the public host protocol, and the replay-host methods a live host's worker asks
 * (protocol/replay-host-protocol.ts), which some tests ask as it does.
 */
export type ClientEndpoint = RpcEndpoint<
  HostAndReplayHostMethods,
  Record<string, never>,
  HostEvents,
  Record<string, never>
>;

export interface RecordedEvent {
  readonly event: string;
  readonly body: unknown;
  readonly at: number;
}

export class HostClient {
  readonly child: ChildProcess;
  readonly rpc: ClientEndpoint;
  readonly events: RecordedEvent[] = [];
  readonly exited: Promise<number | null>;
  private waiters: Array<() => void> = [];

  constructor(child: ChildProcess) {
    this.child = child;
    // Started with a client pipe (fd 4): the protocol goes over it, one JSON message a line.
    const pipe = child.stdio[4];
    const piped = pipe !== undefined && pipe !== null && 'write' in pipe ? new StreamTransport(pipe as Duplex) : null;
    const incoming: Transport['onMessage'] =
      piped !== null
        ? (receive) => piped.onMessage(receive)
        : (receive) => child.on('message', (m: unknown) => receive(m));
    const transport: Transport = {
      send: (m) => {
        if (piped !== null) piped.send(m);
        else child.send(m as object);
      },
      onMessage: incoming,
      onClose: (closed) => {
        child.on('exit', (code) => closed(`host exited with ${code}`));
      },
    };
    this.rpc = new RpcEndpoint(transport);
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    incoming((m: unknown) => {
      if (typeof m === 'object' && m !== null && (m as { kind?: unknown }).kind === 'event') {
        const e = m as { event: string; body: unknown };
        this.events.push({ event: e.event, body: e.body, at: performance.now() });
        const ws = this.waiters;
        this.waiters = [];
        for (const w of ws) w();
      }
    });
  }

  /** Events of one kind so far. */
  eventsOf<E extends keyof HostEvents & string>(event: E): HostEvents[E][] {
    return this.events.filter((e) => e.event === event).map((e) => e.body as HostEvents[E]);
  }

  /** Waits for an event (recorded after index `from`) satisfying `match`. */
  async waitFor<E extends keyof HostEvents & string>(
    event: E,
    match: (body: HostEvents[E]) => boolean = () => true,
    timeoutMs = 20000,
    from = 0,
  ): Promise<HostEvents[E]> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find((e) => e.event === event && match(e.body as HostEvents[E]));
      if (found !== undefined) return found.body as HostEvents[E];
      const left = deadline - performance.now();
      if (left <= 0)
        throw new Error(
          `no ${event} event within ${timeoutMs} ms (events: ${this.events.map((e) => e.event).join(', ')})`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the first event of one of `kinds` recorded at index `from` or later: it, with its index. */
  async nextOf(kinds: readonly string[], from = 0, timeoutMs = 20000): Promise<RecordedEvent & { index: number }> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const index = this.events.findIndex((e, i) => i >= from && kinds.includes(e.event));
      if (index >= 0) return { ...this.events[index]!, index };
      const left = deadline - performance.now();
      if (left <= 0)
        throw new Error(
          `no ${kinds.join(' or ')} event within ${timeoutMs} ms (events: ${this.events.map((e) => e.event).join(', ')})`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Continues the program and waits for its next line stop (a `paused` naming a line). */
  async continueToLineStop(timeoutMs = 30_000): Promise<HostEvents['paused']> {
    const from = this.events.length;
    await this.rpc.request('continue', {});
    return this.waitFor('paused', (b) => b.line !== undefined, timeoutMs, from);
  }

  /** The locals of the line stop's top frame shown (its Locals scope), by name: their values' text. */
  async lineLocals(): Promise<Map<string, string>> {
    const stack = await this.rpc.request('lineStack', {});
    const scope = stack.frames[0]!.scopes.find((s) => s.name === 'Locals') ?? stack.frames[0]!.scopes[0]!;
    const r = await this.rpc.request('lineVariables', { handle: scope.handle });
    return new Map(r.variables.map((v) => [v.name, v.value]));
  }

  /** Output text of one category so far. */
  output(category: 'stdout' | 'stderr' | 'log'): string {
    return this.eventsOf('output')
      .filter((o) => o.category === category)
      .map((o) => o.text)
      .join('');
  }

  /** Shuts the host down (kills it if it does not exit within 5 s). */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    try {
      await this.rpc.request('shutdown', {});
    } catch {
      // Already going.
    }
    await this.exited;
    clearTimeout(killer);
  }
}

/**
 * Forks the host from its TypeScript source (tsx), or from a bundle when `bundle` is given.
 * `pipe`: speak over a client pipe (the host's line debugger serves it), not the IPC channel.
 */
export function forkHost(options: { bundle?: string; pipe?: boolean; cwd?: string } = {}): HostClient {
  const stdio: StdioOptions =
    options.pipe === true ? ['ignore', 'ignore', 'inherit', 'ipc', 'pipe'] : ['ignore', 'ignore', 'inherit', 'ipc'];
  const args = options.pipe === true ? ['--client-fd=4'] : [];
  const child =
    options.bundle !== undefined
      ? // With a client pipe, as the extension forks it: its preload first (host-preload-option.ts).
        fork(options.bundle, args, {
          cwd: options.cwd ?? ROOT,
          execArgv: options.pipe === true ? withHostPreload(options.bundle, []) : [],
          stdio,
        })
      : fork(HOST_SOURCE, args, { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio });
  return new HostClient(child);
}

/**
 * CPU milliseconds (user + system, all threads) a process has used so far, from /proc; null where there is no
 * /proc. `thread`: only that thread's (its id; the main thread's is the pid).
 */
export function processCpuMs(pid: number, thread?: number): number | null {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command name, in clock ticks
    // (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** This process's CPU milliseconds so far. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * A breakpoint search's or a past step's landing that must be on a line (else the test fails, printing what
 * it was).
 */
export function landedOnLine(landing: BreakpointHitLanding): Extract<BreakpointHitLanding, { landed: 'line' }> {
  assert.equal(landing.landed, 'line', JSON.stringify(landing));
  return landing as Extract<BreakpointHitLanding, { landed: 'line' }>;
}
