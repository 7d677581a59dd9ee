// A small Debug Adapter Protocol client for tests: starts a debug adapter as a process and
// talks to it over stdio with Content-Length framing, as VS Code does (or, with
// DapClient.inProcess, hands messages to an adapter object of this process and hears its
// messages, as VS Code runs a DebugAdapterInlineImplementation). Requests get
// increasing `seq` numbers and resolve with the response whose `request_seq` matches;
// events are recorded in arrival order, so a test can wait for one that may already have
// come (`waitForEvent` looks from a mark on, not only at future events).
//
// Invariants: every request resolves or rejects (on a timeout, or when the adapter exits);
// close() leaves no adapter process behind.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { DebugProtocol } from '@vscode/debugprotocol';

const HEADER_END = '\r\n\r\n';
const DEFAULT_TIMEOUT_MS = 30_000;

/** A response as it arrived: after the events before `afterEvents` (an index into `events`). */
export interface DapAnswer {
  command: string;
  /** The request's arguments. */
  args: unknown;
  success: boolean;
  body: Record<string, unknown>;
  afterEvents: number;
}

export interface DapEvent {
  event: string;
  body: Record<string, unknown>;
  /** Arrival index (for marks). */
  index: number;
  /** performance.now() at arrival. */
  at: number;
}

/** An adapter object of this process (a DebugSession), driven as VS Code drives an inline adapter. */
export interface InProcessAdapter {
  handleMessage(message: DebugProtocol.ProtocolMessage): void;
  onDidSendMessage(listener: (message: object) => void): unknown;
  dispose(): void;
}

/** Where the client's messages go and the adapter's come from. */
interface AdapterLink {
  send(message: object): void;
  /** Framed bytes from an adapter process (null: messages come through `listen`). */
  output: Readable | null;
  listen?(receive: (message: DebugProtocol.ProtocolMessage) => void): void;
  stderr: Readable | null;
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  /** Asks the adapter to end (its input closed). */
  end(): void;
  /** Ends it at once. */
  kill(): void;
}

export class DapClient {
  private readonly link: AdapterLink;
  readonly events: DapEvent[] = [];
  /** Every response, in arrival order among the events (VS Code acts on a move's answer as it comes). */
  readonly answers: DapAnswer[] = [];
  private buffer = Buffer.alloc(0);
  private seq = 1;
  private readonly pending = new Map<
    number,
    { resolve: (r: DebugProtocol.Response) => void; reject: (e: Error) => void; command: string; args: unknown }
  >();
  private readonly waiters: Array<() => void> = [];
  private stderr = '';
  private exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  readonly exitedPromise: Promise<void>;

  private constructor(link: AdapterLink) {
    this.link = link;
    this.exitedPromise = this.connect();
  }

  /** A client of an adapter program, started as a process (`node dist/debugAdapter.js`). */
  static spawn(
    command: string,
    args: readonly string[],
    options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
  ): DapClient {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new DapClient({
      send: (message) => {
        const json = JSON.stringify(message);
        child.stdin.write(`Content-Length: ${Buffer.byteLength(json, 'utf8')}${HEADER_END}${json}`, 'utf8');
      },
      output: child.stdout,
      stderr: child.stderr,
      onExit: (listener) => child.on('exit', listener),
      end: () => child.stdin.end(),
      kill: () => child.kill('SIGKILL'),
    });
  }

  /** A client of an adapter object of this process (the inline adapter VS Code runs in the extension host). */
  static inProcess(adapter: InProcessAdapter): DapClient {
    const exitListeners: Array<(code: number | null, signal: NodeJS.Signals | null) => void> = [];
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      adapter.dispose();
      for (const l of exitListeners) l(0, null);
    };
    return new DapClient({
      // A copy, as if it had crossed a wire.
      send: (message) => adapter.handleMessage(JSON.parse(JSON.stringify(message)) as DebugProtocol.ProtocolMessage),
      output: null,
      listen: (receive) =>
        adapter.onDidSendMessage((m) => receive(JSON.parse(JSON.stringify(m)) as DebugProtocol.ProtocolMessage)),
      stderr: null,
      onExit: (l) => exitListeners.push(l),
      end,
      kill: end,
    });
  }

  private connect(): Promise<void> {
    this.link.output?.on('data', (chunk: Buffer) => this.receive(chunk));
    this.link.listen?.((message) => this.dispatch(message));
    this.link.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
      if (this.stderr.length > 100_000) this.stderr = this.stderr.slice(-50_000);
    });
    return new Promise((resolve) => {
      this.link.onExit((code, signal) => {
        this.exited = { code, signal };
        for (const [, p] of this.pending)
          p.reject(new Error(`the adapter exited (${signal ?? code}) while waiting for ${p.command}\n${this.stderr}`));
        this.pending.clear();
        this.wake();
        resolve();
      });
    });
  }

  /** What the adapter wrote on stderr. */
  stderrText(): string {
    return this.stderr;
  }

  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | null {
    return this.exited;
  }

  /** The text of every `output` event so far. */
  outputText(): string {
    return this.events
      .filter((e) => e.event === 'output')
      .map((e) => String(e.body.output ?? ''))
      .join('');
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf(HEADER_END);
      if (headerEnd < 0) return;
      const header = this.buffer.subarray(0, headerEnd).toString('ascii');
      const m = /Content-Length: (\d+)/i.exec(header);
      if (m === null) throw new Error(`bad DAP header: ${JSON.stringify(header)}`);
      const length = Number(m[1]);
      const start = headerEnd + HEADER_END.length;
      if (this.buffer.length < start + length) return;
      const body = this.buffer.subarray(start, start + length).toString('utf8');
      this.buffer = this.buffer.subarray(start + length);
      this.dispatch(JSON.parse(body) as DebugProtocol.ProtocolMessage);
    }
  }

  private dispatch(message: DebugProtocol.ProtocolMessage): void {
    if (message.type === 'response') {
      const r = message as DebugProtocol.Response;
      const p = this.pending.get(r.request_seq);
      this.answers.push({
        command: r.command,
        args: p?.args,
        success: r.success,
        body: (r.body ?? {}) as Record<string, unknown>,
        afterEvents: this.events.length,
      });
      if (p !== undefined) {
        this.pending.delete(r.request_seq);
        p.resolve(r);
      }
    } else if (message.type === 'event') {
      const e = message as DebugProtocol.Event;
      this.events.push({
        event: e.event,
        body: (e.body ?? {}) as Record<string, unknown>,
        index: this.events.length,
        at: performance.now(),
      });
      this.wake();
    } else if (message.type === 'request') {
      // Reverse requests (runInTerminal, startDebugging): not used by this adapter; refuse.
      const r = message as DebugProtocol.Request;
      this.send({
        type: 'response',
        seq: this.seq++,
        request_seq: r.seq,
        success: false,
        command: r.command,
        message: 'not supported by the test client',
      });
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private send(message: object): void {
    this.link.send(message);
  }

  /** Sends a request; resolves with its response, successful or not. */
  requestRaw(command: string, args?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<DebugProtocol.Response> {
    if (this.exited !== null) return Promise.reject(new Error(`the adapter has exited; cannot send ${command}`));
    const seq = this.seq++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        reject(new Error(`no response to ${command} within ${timeoutMs} ms\n--- adapter stderr ---\n${this.stderr}`));
      }, timeoutMs);
      this.pending.set(seq, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
        command,
        args,
      });
      this.send(
        args === undefined ? { type: 'request', seq, command } : { type: 'request', seq, command, arguments: args },
      );
    });
  }

  /** Sends a request; resolves with the response's body, rejects with the adapter's message if it failed. */
  async request<B = Record<string, unknown>>(
    command: string,
    args?: unknown,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<B> {
    const r = await this.requestRaw(command, args, timeoutMs);
    if (!r.success) {
      const detail = (r.body as { error?: { format?: string } } | undefined)?.error?.format;
      throw new Error(`${command} failed: ${detail ?? r.message ?? 'no message'}`);
    }
    return (r.body ?? {}) as B;
  }

  /** The index the next event will get: pass it to waitForEvent to see only later events. */
  mark(): number {
    return this.events.length;
  }

  /**
   * The first event named `name` (matching `predicate`) from index `from` on, waiting for it if
   * needed. A `stopped` that only relabels a thread (the loop's, sent right after a stop on a
   * task's thread: focus kept, not every thread) is not the stop waited for unless `relabels`
   * asks for it: it may arrive after the next step's mark (a split read), and a predicate such as
   * `reason === 'step'` would take it for that step's stop.
   */
  async waitForEvent(
    name: string,
    options: {
      from?: number;
      predicate?: (body: Record<string, unknown>) => boolean;
      timeoutMs?: number;
      failOn?: readonly string[];
      relabels?: boolean;
    } = {},
  ): Promise<DapEvent> {
    const deadline = performance.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let from = options.from ?? 0;
    const relabel = (body: Record<string, unknown>): boolean =>
      name === 'stopped' && body.preserveFocusHint === true && body.allThreadsStopped !== true;
    for (;;) {
      for (; from < this.events.length; from++) {
        const e = this.events[from]!;
        if (
          e.event === name &&
          (options.relabels === true || !relabel(e.body)) &&
          (options.predicate === undefined || options.predicate(e.body))
        )
          return e;
        if (options.failOn?.includes(e.event)) {
          const seen = this.events
            .slice(Math.max(0, from - 10), from + 1)
            .map((x) => `${x.event} ${JSON.stringify(x.body).slice(0, 200)}`);
          throw new Error(`got ${e.event} while waiting for the event ${name}; events before it:\n${seen.join('\n')}`);
        }
      }
      if (this.exited !== null)
        throw new Error(`the adapter exited while waiting for the event ${name}\n${this.stderr}`);
      const left = deadline - performance.now();
      if (left <= 0) {
        const seen = this.events.slice(-15).map((e) => `${e.event} ${JSON.stringify(e.body).slice(0, 200)}`);
        throw new Error(
          `no ${name} event within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms; last events:\n${seen.join('\n')}\n--- adapter stderr ---\n${this.stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Ends the adapter if it is still running (SIGKILL after a grace period). */
  async close(graceMs = 3000): Promise<void> {
    if (this.exited !== null) return;
    this.link.end();
    const timer = setTimeout(() => this.link.kill(), graceMs);
    await this.exitedPromise;
    clearTimeout(timer);
  }
}

/** Whether a process with this pid exists (a zombie counts as gone). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
