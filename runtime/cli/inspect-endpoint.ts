// The inspect endpoint of a process started with `--inspect`: a Unix domain socket in the
// per-user directory (inspect-socket-path.ts) on which `coroscope ps PID` / `pstree PID` ask
// for the task table or tree. One JSON line asked (`{"command":"ps"|"pstree"}`), one answered.
//
// Invariants:
// - An answer is taken between ticks, never mid-step (it runs in Node's callbacks).
// - It does not change the program: public inspection only, nothing scheduled, no clock read
//   between ticks; server and connections are unref'd.
// - Only the owner can connect (directory 0700, socket 0600); the socket file is removed on a
//   normal exit, and a stale one is replaced or removed by a client that finds its process gone.

import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket as NetSocket } from 'node:net';
import type { EventLoop, LoopObserver } from '../loop';
import { runningLoopOrNull } from '../running-loop';
import { formatAwaitCycles, formatPsTree, formatTaskTable } from '../inspect/dumps';
import { ensureInspectSocketDir, inspectSocketPath } from './inspect-socket-path';

export type InspectCommand = 'ps' | 'pstree';

/** The largest request read (a request is one short JSON line). */
const MAX_REQUEST_BYTES = 4096;

/** Narrows a request line to its command, or says what is wrong with it. */
export function parseInspectRequest(line: string): InspectCommand | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: 'the request is not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { error: 'the request is not a JSON object' };
  const command = (value as { command?: unknown }).command;
  if (command === 'ps' || command === 'pstree') return command;
  return { error: `unknown command ${JSON.stringify(command)} (ps or pstree)` };
}

interface WatchedLoop {
  readonly loop: EventLoop;
  /** The loop time of the last tick's start (read inside that tick), or null before the first tick. */
  tickTime: number | null;
}

export class InspectEndpoint {
  private readonly loops: WatchedLoop[] = [];
  private closed = false;

  private constructor(
    private readonly server: Server,
    /** The socket's path. */
    readonly path: string,
  ) {}

  /** Opens this process's endpoint (throws with why when the per-user directory cannot be used). */
  static async open(): Promise<InspectEndpoint> {
    const dir = ensureInspectSocketDir();
    const path = inspectSocketPath(process.pid, dir);
    // A socket left by an earlier process that had this PID and was killed.
    if (existsSync(path)) unlinkSync(path);
    const server = createServer();
    const endpoint = new InspectEndpoint(server, path);
    server.on('connection', (sock) => endpoint.serve(sock));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    server.unref();
    process.once('exit', () => endpoint.close());
    return endpoint;
  }

  /** Answers for `loop` too from now on (until it is closed). */
  watch(loop: EventLoop): void {
    const watched: WatchedLoop = { loop, tickTime: null };
    // Read inside the tick (a recording clock gives the tick's sampled time and logs nothing).
    const observer: LoopObserver = { tickStart: () => void (watched.tickTime = loop.time()) };
    loop.addObserver(observer);
    this.loops.push(watched);
  }

  /** Stops answering and removes the socket file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.server.close();
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }

  private serve(sock: NetSocket): void {
    sock.unref();
    sock.setEncoding('utf8');
    let request = '';
    const answer = (reply: { ok: true; text: string } | { ok: false; error: string }): void => {
      sock.end(JSON.stringify(reply) + '\n');
    };
    sock.on('error', () => sock.destroy());
    sock.on('data', (chunk: string) => {
      request += chunk;
      const end = request.indexOf('\n');
      if (end < 0) {
        if (request.length > MAX_REQUEST_BYTES) answer({ ok: false, error: 'request too long' });
        return;
      }
      sock.removeAllListeners('data');
      const command = parseInspectRequest(request.slice(0, end));
      if (typeof command !== 'string') answer({ ok: false, error: command.error });
      else this.whenBetweenTicks(() => answer({ ok: true, text: this.report(command) }));
    });
  }

  /** Runs `fn` now if no tick is running (always so in a Node callback), else at the next turn of Node's loop. */
  private whenBetweenTicks(fn: () => void): void {
    if (runningLoopOrNull() === null) fn();
    else setImmediate(() => this.whenBetweenTicks(fn));
  }

  /** The table or tree of every watched loop still open. */
  report(command: InspectCommand): string {
    const open = this.loops.filter((w) => !w.loop.isClosed());
    if (open.length === 0)
      return `process ${process.pid}: no event loop is running (none started yet, or the program's have ended)\n`;
    return open
      .map((w, i) => {
        const now = w.tickTime ?? 0;
        const head = open.length > 1 ? `=== loop ${i + 1} of ${open.length} ===\n` : '';
        const body =
          command === 'ps'
            ? `Tasks at tick ${w.loop.tickCount()}, loop time ${now.toFixed(3)} s\n${formatTaskTable(w.loop, { now })}`
            : formatPsTree(w.loop, { now });
        return head + body + formatAwaitCycles(w.loop);
      })
      .join('\n');
  }
}
