// Socket: a non-blocking TCP (or TLS) socket in the shape of Python's socket module, over node:net
// and node:tls, as the chapter uses it: connect() throws BlockingIOError (EINPROGRESS), recv(n)
// and send(bytes) throw BlockingIOError (EAGAIN) when they cannot proceed. The calls, one by one,
// are in docs/design/socket-and-streams.md.
//
// Invariants: blocking mode (Python's default) is refused with a clear error (a blocking call
// would freeze the loop). Node reads eagerly, and reading pauses while more than RECV_HIGH_WATER
// bytes wait, so a slow reader bounds memory. File numbers are counted per loop, from 3, by the
// loop running when the socket is made, so a replay on a loop of its own numbers its sockets as
// the run did (runtime/record).

import * as net from 'node:net';
import * as tls from 'node:tls';
import { BlockingIOError, OSError, RuntimeError, osErrorFromNode } from './errors';
import type { Future } from './future';
import { inspect, type Inspectable, type ResourceInspection } from './inspection';
import type { EventLoop } from './loop';
import { runningLoopOrNull } from './running-loop';
import { batchWrite } from './write-batch';
import {
  EVENT_READ,
  EVENT_WRITE,
  trackOpenSocket,
  untrackOpenSocket,
  type DefaultSelector,
  type Selectable,
} from './selector';

const RECV_HIGH_WATER = 1 << 20;
/** Where Node reads TCP data for every socket; each read is copied out before the next one. */
const sharedReadBuffer = Buffer.allocUnsafe(64 * 1024);
const SEND_HIGH_WATER = 1 << 16;
const EMPTY = Buffer.alloc(0);

/** The next file number of each loop's sockets, and of those made outside any loop's tick. */
const nextFilenos = new WeakMap<EventLoop, number>();
let nextFilenoOutside = 3;

function takeFileno(loop: EventLoop | null): number {
  if (loop === null) return nextFilenoOutside++;
  const n = nextFilenos.get(loop) ?? 3;
  nextFilenos.set(loop, n + 1);
  return n;
}

/** What arrives from a socket's connection between the loop's ticks. */
export type SocketInputKind = 'connect' | 'data' | 'end' | 'drain' | 'error' | 'close';

/**
 * @internal What a Socket uses of its node:net connection: a net.Socket, or the stand-in a
 * replay hands it instead of connecting (the replay feeds the inputs itself, through `replayInput`).
 */
export interface SocketConnection {
  setNoDelay(noDelay: boolean): unknown;
  once(event: string, listener: (...args: never[]) => void): unknown;
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeAllListeners(event?: string): unknown;
  write(data: Uint8Array): boolean;
  cork(): void;
  uncork(): void;
  readonly writableLength: number;
  readonly writableCorked: number;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  end(): unknown;
  destroy(): unknown;
  destroySoon(): void;
  resetAndDestroy(): unknown;
  pause(): unknown;
  resume(): unknown;
}

/**
 * @internal Where a run's recording sees every socket input and its replay supplies them
 * (runtime/record). One tap per loop: a socket takes the tap of the loop running when it
 * starts connecting (the only one installed, when it connects outside any loop's tick), so a
 * live run's recording and a replay of it can go on side by side in one process. No tap (the
 * default) costs one test per input.
 */
export interface SocketIoTap {
  /** `sock` starts connecting: a stand-in connection (replay), or null to really connect. */
  opening(sock: Socket, host: string, port: number): SocketConnection | null;
  /** An input reached `sock` (data: the bytes; error: Node's error). */
  input(sock: Socket, kind: SocketInputKind, payload: Buffer | Error | null): void;
}
const ioTaps = new Map<EventLoop, SocketIoTap>();

/** @internal Installs (or removes, with null) the recording's or replay's tap for the sockets `loop` opens. */
export function setSocketIoTap(loop: EventLoop, tap: SocketIoTap | null): void {
  if (tap === null) ioTaps.delete(loop);
  else ioTaps.set(loop, tap);
}

/** The tap for a socket starting to connect now. */
function tapForOpening(): SocketIoTap | null {
  if (ioTaps.size === 0) return null;
  const loop = runningLoopOrNull();
  if (loop !== null) return ioTaps.get(loop) ?? null;
  return ioTaps.size === 1 ? ioTaps.values().next().value! : null;
}

export type SocketAddress = readonly [host: string, port: number];

export interface SocketOptions {
  /** Connect with TLS (https). `true` uses the host name for SNI and verifies certificates. */
  tls?: boolean | tls.ConnectionOptions;
}

type SocketState = 'new' | 'connecting' | 'connected' | 'closed';

export class Socket implements Selectable, Inspectable {
  private readonly _fd: number;
  private _blocking = true;
  private _state: SocketState = 'new';
  private _conn: SocketConnection | null = null;
  private _chunks: Buffer[] = [];
  private _chunkHead = 0;
  private _buffered = 0;
  private _eof = false;
  private _error: OSError | null = null;
  private _paused = false;
  private _selectors: DefaultSelector[] = [];
  /** Futures of the coroutines waiting for this socket to be ready (settled when it closes). */
  private _waits: Array<Future<void>> | null = null;
  private readonly _tls: SocketOptions['tls'];
  private _peer: SocketAddress | null = null;
  /** The recording's or replay's tap this socket reports its inputs to (setSocketIoTap). */
  private _tap: SocketIoTap | null = null;

  /** The loop whose count gave this socket its number (null: made outside any loop's tick). */
  private readonly _numberedBy: EventLoop | null;

  constructor(options: SocketOptions = {}) {
    this._numberedBy = runningLoopOrNull();
    this._fd = takeFileno(this._numberedBy);
    this._tls = options.tls;
    trackOpenSocket(this, this._numberedBy);
  }

  fileno(): number {
    return this._state === 'closed' ? -1 : this._fd;
  }

  /** Python's setblocking(): only non-blocking mode is usable on the event loop. */
  setBlocking(flag: boolean): void {
    this._blocking = Boolean(flag);
  }

  getBlocking(): boolean {
    return this._blocking;
  }

  /** Starts connecting to [host, port]; throws BlockingIOError while in progress. */
  connect(address: SocketAddress): never | void {
    this._checkNonBlocking('connect');
    if (
      !Array.isArray(address) ||
      address.length !== 2 ||
      typeof address[0] !== 'string' ||
      !Number.isInteger(address[1])
    ) {
      throw new TypeError(`connect() needs a [host, port] pair, got ${JSON.stringify(address)}`);
    }
    const [host, port] = address;
    if (port < 0 || port > 65535) throw new RangeError(`port must be 0-65535, got ${port}`);
    switch (this._state) {
      case 'closed':
        throw new OSError('EBADF', 'Bad file descriptor: the socket is closed');
      case 'connected':
        throw new OSError('EISCONN', 'Transport endpoint is already connected');
      case 'connecting':
        throw new BlockingIOError('EINPROGRESS', 'Operation already in progress');
    }
    this._state = 'connecting';
    this._peer = [host, port];
    // allowHalfOpen (TCP): the peer's FIN only ends our reading (recv gives EOF); we may
    // still send, as with a Python socket. Node would otherwise end our side too, and the
    // next send would fail with EPIPE. (TLS has no half-close: it keeps Node's default.)
    // TCP reads land in one shared buffer and go straight to _received (Node's `onread`),
    // skipping the Readable stream's per-chunk machinery; TLS keeps the 'data' event.
    this._tap = tapForOpening();
    const conn =
      this._tap?.opening(this, host, port) ??
      (this._tls
        ? tls.connect({
            host,
            port,
            servername: net.isIP(host) ? undefined : host,
            ...(typeof this._tls === 'object' ? this._tls : {}),
          })
        : net.connect({
            host,
            port,
            allowHalfOpen: true,
            onread: { buffer: sharedReadBuffer, callback: (n: number, buf: Uint8Array) => this._receivedInto(n, buf) },
          }));
    this._conn = conn;
    conn.setNoDelay(true);
    conn.once(this._tls ? 'secureConnect' : 'connect', () => this._input('connect', null));
    if (this._tls) conn.on('data', (chunk: Buffer) => this._received(chunk));
    conn.on('end', () => this._input('end', null));
    conn.on('drain', () => this._input('drain', null));
    conn.on('error', (err: Error) => this._input('error', err));
    conn.on('close', () => this._input('close', null));
    throw new BlockingIOError('EINPROGRESS', 'Operation now in progress');
  }

  /**
   * Bytes arrived in the shared read buffer: keep a copy (the buffer is reused at once); _received pauses the
   * socket when too much waits.
   */
  private _receivedInto(n: number, buf: Uint8Array): boolean {
    if (n > 0) this._received(Buffer.from(buf.subarray(0, n)));
    return true;
  }

  /** @internal A replay (runtime/record) feeding back one recorded input: exactly what node:net's would have done. */
  replayInput(kind: SocketInputKind, payload: Buffer | Error | null): void {
    this._input(kind, payload);
  }

  /**
   * @internal One input from the connection, from node:net or fed back by a replay: the
   * only way the world outside the loop changes a socket (besides its own calls).
   */
  _input(kind: SocketInputKind, payload: Buffer | Error | null): void {
    if (kind === 'data') {
      this._received(payload as Buffer);
      return;
    }
    if (this._tap !== null) this._tap.input(this, kind, payload);
    switch (kind) {
      case 'connect':
        if (this._state !== 'connecting') return;
        this._state = 'connected';
        break;
      case 'error':
        if (this._error === null) {
          const [host, port] = this._peer ?? ['?', 0];
          this._error = osErrorFromNode(
            payload,
            `${this._state === 'connecting' ? 'connect to' : 'socket'} ${host}:${port}`,
          );
        }
        break;
      case 'end':
      case 'close':
        this._eof = true;
        break;
    }
    this._notify();
  }

  private _received(chunk: Buffer): void {
    if (this._tap !== null) this._tap.input(this, 'data', chunk);
    if (this._state === 'closed') return;
    this._chunks.push(chunk);
    this._buffered += chunk.length;
    if (this._buffered > RECV_HIGH_WATER && !this._paused && this._conn !== null) {
      this._paused = true;
      this._conn.pause();
    }
    this._notify();
  }

  /** Up to `n` bytes that have arrived; an empty Buffer at EOF; BlockingIOError if none yet. */
  recv(n: number): Buffer {
    this._checkNonBlocking('recv');
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`recv() needs a non-negative byte count, got ${n}`);
    if (this._state === 'closed') throw new OSError('EBADF', 'Bad file descriptor: the socket is closed');
    if (this._buffered > 0) {
      if (n === 0) return EMPTY;
      return this._take(n);
    }
    if (this._error !== null) throw this._error;
    if (this._state !== 'connected') {
      if (this._state === 'connecting') throw new BlockingIOError('EAGAIN', 'Resource temporarily unavailable');
      throw new OSError('ENOTCONN', 'Transport endpoint is not connected');
    }
    // recv(0) asks for nothing, so nothing is ever missing (Linux returns 0 at once).
    if (this._eof || n === 0) return EMPTY;
    throw new BlockingIOError('EAGAIN', 'Resource temporarily unavailable');
  }

  /** Sends what fits in the send buffer; returns the number of bytes accepted. */
  send(data: Uint8Array | string): number {
    this._checkNonBlocking('send');
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    if (this._state === 'closed') throw new OSError('EBADF', 'Bad file descriptor: the socket is closed');
    if (this._error !== null) throw this._error;
    if (this._state === 'connecting') throw new BlockingIOError('EAGAIN', 'Resource temporarily unavailable');
    if (this._state !== 'connected' || this._conn === null)
      throw new OSError('ENOTCONN', 'Transport endpoint is not connected');
    const conn = this._conn;
    if (conn.writableEnded || conn.destroyed) throw new OSError('EPIPE', 'Broken pipe');
    if (bytes.length === 0) return 0;
    const room = SEND_HIGH_WATER - conn.writableLength;
    if (room <= 0) throw new BlockingIOError('EAGAIN', 'Resource temporarily unavailable');
    const part = bytes.length <= room ? bytes : bytes.subarray(0, room);
    batchWrite(conn);
    conn.write(part);
    return part.length;
  }

  /** Half-closes the sending side (Python's shutdown(SHUT_WR)). */
  shutdownWrite(): void {
    if (this._conn !== null && this._state === 'connected') this._conn.end();
  }

  /** Closes the socket: pending sent bytes are still flushed; reads stop. */
  close(): void {
    if (this._state === 'closed') return;
    this._state = 'closed';
    untrackOpenSocket(this._fd, this);
    this._chunks = [];
    this._buffered = 0;
    const conn = this._conn;
    this._conn = null;
    if (conn !== null) {
      conn.removeAllListeners('data');
      conn.on('error', () => undefined);
      if (conn.writableLength > 0) conn.destroySoon();
      else conn.destroy();
    }
    this._notify();
    // A closed socket is never reported by a selector again: wake the coroutines waiting on it.
    const waits = this._waits;
    this._waits = null;
    if (waits !== null) for (const fut of waits) if (!fut.done()) fut.setResult(undefined);
  }

  /** Closes at once, discarding unsent bytes (a reset, for cancellation). */
  abort(): void {
    // A TCP reset; Node refuses it on TLS sockets, which are simply destroyed.
    const conn = this._conn;
    if (conn !== null && !(conn instanceof tls.TLSSocket)) {
      try {
        conn.resetAndDestroy();
      } catch {
        conn.destroy();
      }
    }
    this.close();
  }

  /** The failure of the connection, if any (Python's getsockopt(SO_ERROR)). */
  error(): OSError | null {
    return this._error;
  }

  isConnected(): boolean {
    return this._state === 'connected' && this._error === null;
  }

  isClosed(): boolean {
    return this._state === 'closed';
  }

  /** True for a TLS socket, which cannot half-close (shutdownWrite ends it entirely). */
  isTls(): boolean {
    return Boolean(this._tls);
  }

  /** [host, port] this socket connects to. */
  getpeername(): SocketAddress {
    if (this._peer === null) throw new OSError('ENOTCONN', 'Transport endpoint is not connected');
    return this._peer;
  }

  /** Bytes received and not taken by recv() yet. */
  bufferedBytes(): number {
    return this._buffered;
  }

  toString(): string {
    const peer = this._peer ? ` raddr=${this._peer[0]}:${this._peer[1]}` : '';
    return `<Socket fd=${this.fileno()} ${this._state}${peer}>`;
  }

  // --- Selectable ---------------------------------------------------------------------

  /** @internal */
  _readyMask(): number {
    if (this._state === 'closed') return 0;
    if (this._error !== null) return EVENT_READ | EVENT_WRITE;
    let mask = 0;
    if (this._buffered > 0 || this._eof) mask |= EVENT_READ;
    if (this._state === 'connected' && this._conn !== null && this._conn.writableLength < SEND_HIGH_WATER)
      mask |= EVENT_WRITE;
    return mask;
  }

  /**
   * @internal A coroutine waits for this socket through `fut`: it is settled when the socket
   * closes (at once if it is closed already). Returns the unregistration.
   */
  _addWaiter(fut: Future<void>): () => void {
    if (this._state === 'closed') {
      if (!fut.done()) fut.setResult(undefined);
      return () => undefined;
    }
    (this._waits ??= []).push(fut);
    return () => {
      const i = this._waits?.indexOf(fut) ?? -1;
      if (i >= 0) this._waits!.splice(i, 1);
    };
  }

  /** Inspection: the coroutines waiting for it to be ready; the network wakes them. */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'socket',
      wokenBy: 'outside',
      description: () => this.toString(),
      waiters: () => (this._waits ?? []).filter((f) => !f.done()),
      holders: () => [],
    };
  }

  /** @internal */
  _attachSelector(sel: DefaultSelector): void {
    if (!this._selectors.includes(sel)) this._selectors.push(sel);
  }

  /** @internal */
  _detachSelector(sel: DefaultSelector): void {
    const i = this._selectors.indexOf(sel);
    if (i >= 0) this._selectors.splice(i, 1);
  }

  private _notify(): void {
    const sels = this._selectors;
    for (let i = 0; i < sels.length; i++) sels[i]!._notify(this);
  }

  private _take(n: number): Buffer {
    const first = this._chunks[this._chunkHead]!;
    let out: Buffer;
    if (first.length <= n) {
      // Common case: hand over whole chunks without copying; join only when asked for more.
      if (first.length === n || this._chunkHead + 1 >= this._chunks.length) {
        out = first;
        this._chunks[this._chunkHead++] = EMPTY;
      } else {
        const parts: Buffer[] = [];
        let size = 0;
        while (this._chunkHead < this._chunks.length && size + this._chunks[this._chunkHead]!.length <= n) {
          const c = this._chunks[this._chunkHead]!;
          parts.push(c);
          size += c.length;
          this._chunks[this._chunkHead++] = EMPTY;
        }
        out = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
      }
    } else {
      out = first.subarray(0, n);
      this._chunks[this._chunkHead] = first.subarray(n);
    }
    this._buffered -= out.length;
    if (this._chunkHead === this._chunks.length) {
      this._chunks = [];
      this._chunkHead = 0;
    } else if (this._chunkHead > 64) {
      this._chunks = this._chunks.slice(this._chunkHead);
      this._chunkHead = 0;
    }
    if (this._paused && this._buffered < RECV_HIGH_WATER / 2 && this._conn !== null) {
      this._paused = false;
      this._conn.resume();
    }
    return out;
  }

  private _checkNonBlocking(op: string): void {
    if (this._blocking) {
      throw new RuntimeError(`${op}() on a blocking socket would freeze the event loop: call setBlocking(false) first`);
    }
  }
}
