// Streams: asyncio's openConnection, StreamReader and StreamWriter over a non-blocking Socket. The
// reader pulls (a read that needs bytes waits for the socket to be readable), so a task blocked
// on the network shows its whole chain down to the wait; a reader can also be fed by hand
// (feedData/feedEof). The errors of each read and write, as asyncio's, and the fairness rule
// (FAIR_SHARE, READ_COST) are in docs/design/socket-and-streams.md.
//
// Invariants: reads return Buffers, an empty one only at EOF; a read over `limit` leaves the bytes
// buffered (readline drops the overlong line: a catching loop makes progress). One coroutine at a
// time waits for incoming data (a second gets RuntimeError). Writes never throw for a lost
// connection: the next drain() does. A reader finding bytes always ready gives up the loop for
// a tick after FAIR_SHARE of work, so one connection cannot hold the loop.

import { coroutine } from './coroutine';
import {
  BlockingIOError,
  ConnectionResetError,
  IncompleteReadError,
  LimitOverrunError,
  RuntimeError,
  ValueError,
} from './errors';
import type { Future } from './future';
import { inspect, type Inspectable, type ResourceInspection } from './inspection';
import type { EventLoop } from './loop';
import { getRunningLoop } from './running-loop';
import { EVENT_READ } from './selector';
import { sleep } from './sleep';
import { Socket, type SocketOptions } from './socket';
import { sockConnect, waitReadable } from './socket-ops';
import type { Coroutine } from './task';

const EMPTY = Buffer.alloc(0);
const DEFAULT_LIMIT = 1 << 16;
const RECV_CHUNK = 1 << 16;
const WRITE_HIGH_WATER = 1 << 16;
const WRITE_LOW_WATER = 1 << 14;
/** Work (bytes, READ_COST per read) a socket reader serves without waiting before it yields a tick. */
const FAIR_SHARE = 1 << 16;
/** What one read costs beyond its bytes, in bytes: a read of a tiny chunk is not free. */
const READ_COST = 256;

export interface StreamReaderOptions {
  /** Largest line or separator-terminated chunk readuntil/readline accept (bytes). */
  limit?: number;
  /** The socket to pull from; without one the reader is fed with feedData/feedEof. */
  source?: Socket;
}

export class StreamReader implements Inspectable {
  readonly limit: number;
  /**
   * The buffer's store: bytes [_pos, _end) are unread; a store this reader allocated may have
   * room past _end, filled in place. Bytes before _pos may still be held by a caller (reads
   * return views, not copies), so a store is never compacted: growth moves the unread bytes
   * to a new one, twice their size, which keeps a long read linear.
   */
  private _buf: Buffer = EMPTY;
  private _pos = 0;
  private _end = 0;
  private _eof = false;
  private _exception: unknown = undefined;
  /** The hand-fed path's wake-up: set while a read waits for feedData/feedEof/setException. */
  private _waiter: Future<void> | null = null;
  /** A coroutine is waiting for incoming data (either path): a second one is refused. */
  private _waiting = false;
  private readonly _source: Socket | null;
  private _bytesRead = 0;
  /** Work served since this reader last waited or yielded (see FAIR_SHARE). */
  private _unwaitedWork = 0;

  constructor(options: StreamReaderOptions = {}) {
    const limit = options.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit <= 0)
      throw new RangeError(`limit must be a positive integer, got ${String(limit)}`);
    this.limit = limit;
    this._source = options.source ?? null;
  }

  /** Bytes waiting in the buffer. */
  bufferedBytes(): number {
    return this._end - this._pos;
  }

  /** Total bytes received so far. */
  totalBytesRead(): number {
    return this._bytesRead;
  }

  /** True when the buffer is empty and EOF was reached. */
  atEof(): boolean {
    return this._eof && this._pos >= this._end;
  }

  /** Inspection: the read waiting for fed data (a read from a socket waits on the socket). */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'stream',
      wokenBy: 'outside',
      description: () => `<StreamReader buffered=${this._end - this._pos}${this._eof ? ' eof' : ''}>`,
      waiters: () => (this._waiter !== null && !this._waiter.done() ? [this._waiter] : []),
      holders: () => [],
    };
  }

  exception(): unknown {
    return this._exception;
  }

  /** Fails pending and future reads with `exc`. */
  setException(exc: unknown): void {
    this._exception = exc;
    this._wakeWaiter();
  }

  feedData(data: Uint8Array): void {
    if (this._eof) throw new RuntimeError('feedData after feedEof');
    if (data.length === 0) return;
    this._append(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.length));
    this._wakeWaiter();
  }

  feedEof(): void {
    this._eof = true;
    this._wakeWaiter();
  }

  /** Up to `n` bytes already buffered, without waiting (possibly none). */
  readNowait(n: number): Buffer {
    this._check();
    return this._take(Math.max(0, Math.min(n, this._available())));
  }

  /** Up to `n` bytes (at least one unless at EOF); n < 0 reads until EOF. */
  read(n = -1): Coroutine<Buffer> {
    return streamRead(this, n);
  }

  /** Exactly `n` bytes; IncompleteReadError if EOF comes first. */
  readexactly(n: number): Coroutine<Buffer> {
    return streamReadexactly(this, n);
  }

  /**
   * Bytes up to and including `separator`; given several separators (as Python 3.13
   * allows), up to the first one found.
   */
  readuntil(separator: Uint8Array | string | ReadonlyArray<Uint8Array | string> = '\n'): Coroutine<Buffer> {
    const seps = (Array.isArray(separator) ? separator : [separator]) as Array<Uint8Array | string>;
    return streamReaduntil(
      this,
      seps.map((s) => (typeof s === 'string' ? Buffer.from(s) : Buffer.from(s))),
    );
  }

  /** One line including its '\n'; at EOF the partial last line (or an empty Buffer). */
  readline(): Coroutine<Buffer> {
    return streamReadline(this);
  }

  // --- internals shared by the read coroutines ---------------------------------------

  /** @internal */
  _available(): number {
    return this._end - this._pos;
  }
  /** @internal */
  _isEof(): boolean {
    return this._eof;
  }
  /** @internal Throws the stored exception, if any. */
  _check(): void {
    if (this._exception !== undefined) throw this._exception;
  }
  /**
   * @internal Whether a read should give up the loop for one tick before it looks at the
   * buffer (see FAIR_SHARE); before, so that a cancel during that tick loses no bytes.
   */
  _owesTurn(): boolean {
    if (this._unwaitedWork <= FAIR_SHARE || this._source === null) return false;
    this._unwaitedWork = 0;
    return true;
  }
  /** @internal Removes and returns `n` buffered bytes (n ≤ available). */
  _take(n: number): Buffer {
    this._unwaitedWork += n + READ_COST;
    const start = this._pos;
    this._pos += n;
    const out = this._buf.subarray(start, start + n);
    if (this._pos >= this._end) {
      this._buf = EMPTY;
      this._pos = 0;
      this._end = 0;
    }
    return out;
  }
  /**
   * @internal Index of `sep` in the unread bytes starting at `from` (relative), or -1; with
   * `to`, only a match that ends by `to` (relative) counts, and nothing past it is scanned.
   */
  _indexOf(sep: Buffer, from: number, to = Infinity): number {
    const hay = this._buf.subarray(0, Math.min(this._end, this._pos + to));
    const i = hay.indexOf(sep, this._pos + from);
    return i < 0 ? -1 : i - this._pos;
  }
  /** @internal The unread bytes from `start` to `end` (relative), left in the buffer. */
  _peek(start: number, end: number): Buffer {
    return this._buf.subarray(this._pos + start, this._pos + end);
  }
  /**
   * @internal Takes into the buffer what the socket has received already, without waiting
   * (nothing for a hand-fed reader). False if the socket failed: the next read reports it.
   */
  _pullReady(): boolean {
    const source = this._source;
    if (source === null || this._eof || this._exception !== undefined || source.isClosed())
      return this._exception === undefined;
    if ((source._readyMask() & EVENT_READ) === 0) return true;
    try {
      const chunk = source.recv(RECV_CHUNK);
      if (chunk.length === 0) this._eof = true;
      else this._append(chunk);
      return true;
    } catch (e) {
      if (e instanceof BlockingIOError) return true;
      this._exception = e;
      return false;
    }
  }

  private _append(data: Buffer): void {
    this._bytesRead += data.length;
    if (this._pos >= this._end) {
      this._buf = data;
      this._pos = 0;
      this._end = data.length;
    } else if (this._end + data.length <= this._buf.length) {
      data.copy(this._buf, this._end);
      this._end += data.length;
    } else {
      const unread = this._end - this._pos;
      const store = Buffer.allocUnsafe(Math.max(unread + data.length, 2 * unread));
      this._buf.copy(store, 0, this._pos, this._end);
      data.copy(store, unread);
      this._buf = store;
      this._pos = 0;
      this._end = unread + data.length;
    }
  }

  /** @internal Our side is about to close the connection: keep what has arrived for the reads. */
  _sourceClosing(): void {
    const source = this._source;
    if (source === null || source.isClosed() || this._eof) return;
    const n = source.bufferedBytes();
    if (n > 0) this._append(source.recv(n));
  }

  private _wakeWaiter(): void {
    const w = this._waiter;
    if (w !== null) {
      this._waiter = null;
      if (!w.done()) w.setResult(undefined);
    }
  }

  /**
   * @internal Claims the right to wait for incoming data, as asyncio's _wait_for_data: a
   * second coroutine waiting at the same time could not know which of them gets the bytes.
   */
  private _beginWait(funcName: string): void {
    if (this._waiting)
      throw new RuntimeError(`${funcName}() called while another coroutine is already waiting for incoming data`);
    this._waiting = true;
  }

  /** @internal Waits until more bytes (or EOF, or an error) arrive; `funcName` names the read for errors. */
  *_fill(funcName: string): Coroutine<void> {
    this._check();
    if (this._eof) return;
    const source = this._source;
    if (source !== null) {
      for (;;) {
        if (source.isClosed()) {
          // Our side closed the connection (asyncio's connection_lost): reads see EOF.
          this._eof = true;
          return;
        }
        // Check readiness first: a recv() that throws BlockingIOError costs a stack capture.
        // Bytes that are ready are taken without a wait, even while another read waits (as
        // asyncio's buffer, filled by the protocol, would already hold them).
        if ((source._readyMask() & EVENT_READ) !== 0) {
          let chunk: Buffer | null = null;
          try {
            chunk = source.recv(RECV_CHUNK);
          } catch (e) {
            if (!(e instanceof BlockingIOError)) {
              this._exception = e;
              throw e;
            }
          }
          if (chunk !== null) {
            if (chunk.length === 0) this._eof = true;
            else this._append(chunk);
            return;
          }
        }
        this._unwaitedWork = 0;
        this._beginWait(funcName);
        try {
          yield* waitReadable(source);
        } finally {
          this._waiting = false;
        }
      }
    }
    this._beginWait(funcName);
    const loop: EventLoop = getRunningLoop();
    const w = loop.createFuture<void>();
    w._origin = { kind: 'stream.read', target: this };
    this._waiter = w;
    try {
      yield* w;
    } finally {
      if (this._waiter === w) this._waiter = null;
      this._waiting = false;
    }
    this._check();
  }
}
// Give the fill step a readable frame name in stacks.
StreamReader.prototype._fill = coroutine(StreamReader.prototype._fill);

const streamRead = coroutine(function* read(reader: StreamReader, n: number): Coroutine<Buffer> {
  if (reader._owesTurn()) yield;
  reader._check();
  if (n === 0) return EMPTY;
  if (n < 0) {
    const parts: Buffer[] = [];
    for (;;) {
      if (reader._available() > 0) parts.push(reader._take(reader._available()));
      if (reader._isEof()) break;
      yield* reader._fill('read');
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }
  while (reader._available() === 0 && !reader._isEof()) yield* reader._fill('read');
  return reader._take(Math.min(n, reader._available()));
});

const streamReadexactly = coroutine(function* readexactly(reader: StreamReader, n: number): Coroutine<Buffer> {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`readexactly() needs a non-negative size, got ${String(n)}`);
  if (reader._owesTurn()) yield;
  reader._check();
  if (n === 0) return EMPTY;
  while (reader._available() < n) {
    if (reader._isEof()) {
      const partial = Buffer.from(reader._take(reader._available()));
      throw new IncompleteReadError(partial, n);
    }
    yield* reader._fill('readexactly');
  }
  return reader._take(n);
});

const streamReaduntil = coroutine(function* readuntil(reader: StreamReader, seps: Buffer[]): Coroutine<Buffer> {
  if (seps.length === 0 || seps.some((s) => s.length === 0))
    throw new RangeError('a separator must be at least one byte');
  const longest = Math.max(...seps.map((s) => s.length));
  if (reader._owesTurn()) yield;
  reader._check();
  let from = 0;
  for (;;) {
    let i = -1;
    let end = -1;
    const avail = reader._available();
    // Scanned first: what a match within the limit can span; past a match, only up to its end.
    // So a buffer holding many small messages is not scanned whole for each one (quadratic
    // for the separator that is absent). Only if nothing is found there is the rest searched,
    // to tell "found, but too long" from "not found" as asyncio does.
    for (let window = Math.min(avail, reader.limit + longest); ; window = avail) {
      // As Python 3.13: the match that ends first wins (the shortest separator on a tie).
      for (const sep of seps) {
        const j = reader._indexOf(sep, from, end < 0 ? window : end);
        if (j >= 0 && (end < 0 || j + sep.length < end || (j + sep.length === end && j > i))) {
          i = j;
          end = j + sep.length;
        }
      }
      if (i >= 0 || window >= avail) break;
    }
    // asyncio's bounds: at most `limit` bytes before the separator (which may end past it).
    if (i >= 0) {
      if (i > reader.limit)
        throw new LimitOverrunError(
          `the separator was found, but the chunk (${i} bytes before it) is longer than the limit (${reader.limit})`,
          i,
        );
      return reader._take(end);
    }
    // The next search starts here: no separator begins before it.
    from = Math.max(0, avail - longest + 1);
    if (from > reader.limit)
      throw new LimitOverrunError(
        `the separator was not found and the chunk exceeds the limit (${reader.limit} bytes)`,
        from,
      );
    if (reader._isEof()) {
      const partial = Buffer.from(reader._take(avail));
      throw new IncompleteReadError(partial, null);
    }
    yield* reader._fill('readuntil');
  }
});

const NEWLINE = Buffer.from('\n');
const streamReadline = coroutine(function* readline(reader: StreamReader): Coroutine<Buffer> {
  try {
    return yield* streamReaduntil(reader, [NEWLINE]);
  } catch (e) {
    if (e instanceof IncompleteReadError) return e.partial;
    if (e instanceof LimitOverrunError) {
      // As asyncio: drop the overlong line with its newline when it is in the buffer, else
      // everything buffered, so the next readline starts past it instead of failing again.
      if (reader._indexOf(NEWLINE, e.consumed) === e.consumed) reader._take(e.consumed + NEWLINE.length);
      else reader._take(reader._available());
      const err = new ValueError(e.message);
      err.cause = e;
      throw err;
    }
    throw e;
  }
});

/** The writing half of a connection: buffers what the socket cannot take yet. */
export class StreamWriter implements Inspectable {
  private readonly _sock: Socket;
  private readonly _reader: StreamReader | null;
  private _pending: Buffer[] = [];
  private _pendingBytes = 0;
  private _writerRegistered = false;
  private _closing = false;
  /** writeEof() was called: the write side shuts down once the buffered bytes are sent. */
  private _eofWritten = false;
  private _error: unknown = undefined;
  private _drainWaiters: Future<void>[] = [];
  private _closedWaiters: Future<void>[] = [];
  private readonly _loop: EventLoop;

  constructor(sock: Socket, reader: StreamReader | null = null, loop: EventLoop = getRunningLoop()) {
    this._sock = sock;
    this._reader = reader;
    this._loop = loop;
  }

  /** The socket underneath. */
  get socket(): Socket {
    return this._sock;
  }

  /** Queues `data` for sending; never waits. Follow with `yield* writer.drain()`. */
  write(data: Uint8Array | string): void {
    if (this._closing) throw new RuntimeError('write() after close()');
    if (this._eofWritten) throw new RuntimeError('Cannot call write() after write_eof()');
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (bytes.length === 0 || this._error !== undefined) return;
    let offset = 0;
    if (this._pendingBytes === 0) {
      try {
        while (offset < bytes.length) offset += this._sock.send(offset === 0 ? bytes : bytes.subarray(offset));
        return;
      } catch (e) {
        if (!(e instanceof BlockingIOError)) {
          this._fail(e);
          return;
        }
      }
    }
    const rest = offset === 0 ? bytes : bytes.subarray(offset);
    this._pending.push(rest);
    this._pendingBytes += rest.length;
    this._registerWriter();
  }

  /** Bytes written but not yet handed to the socket. */
  bufferedBytes(): number {
    return this._pendingBytes;
  }

  /** Waits while the write buffer is above the high-water mark; throws a lost connection. */
  /** Inspection: the coroutines waiting in drain() and waitClosed(). */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'stream',
      wokenBy: 'outside',
      description: () =>
        `<StreamWriter pending=${this._pendingBytes}${this._closing ? ' closing' : ''} ${this._sock.toString()}>`,
      waiters: () => [...this._drainWaiters, ...this._closedWaiters].filter((f) => !f.done()),
      holders: () => [],
    };
  }

  drain(): Coroutine<void> {
    return writerDrain(this);
  }

  /**
   * Half-closes the connection (asyncio's write_eof): after the buffered bytes are sent the
   * peer reads EOF, while we can still read what it sends. Later writes throw RuntimeError.
   * A no-op once closing or after an earlier writeEof(); TLS has no half-close (see canWriteEof).
   */
  writeEof(): void {
    if (!this.canWriteEof()) throw new RuntimeError("TLS doesn't support half-closes: writeEof() needs a TCP socket");
    if (this._closing || this._eofWritten) return;
    this._eofWritten = true;
    if (this._pendingBytes === 0 && this._error === undefined) this._sock.shutdownWrite();
  }

  /** True when writeEof() can half-close this connection: TCP yes, TLS no (as asyncio's SSL transport). */
  canWriteEof(): boolean {
    return !this._sock.isTls();
  }

  /** Closes after the buffered bytes are sent. */
  close(): void {
    if (this._closing) return;
    this._closing = true;
    if (this._pendingBytes === 0) this._finishClose();
  }

  /** Closes at once, discarding buffered bytes. */
  abort(): void {
    this._closing = true;
    this._pending = [];
    this._pendingBytes = 0;
    this._sock.abort();
    this._finishClose();
  }

  isClosing(): boolean {
    return this._closing;
  }

  /** Waits until the connection is closed. */
  waitClosed(): Coroutine<void> {
    return writerWaitClosed(this);
  }

  getExtraInfo(name: 'peername' | 'socket'): unknown {
    if (name === 'socket') return this._sock;
    if (name === 'peername') return this._sock.getpeername();
    return undefined;
  }

  /** @internal A failure the reader has seen (asyncio's drain() raises it first). */
  _readerException(): unknown {
    return this._reader?.exception();
  }
  /** @internal */
  _state(): { error: unknown; pendingBytes: number; closed: boolean } {
    // As asyncio's drain(): a failure the reader has seen (a reset) is the writer's too.
    const error = this._error !== undefined ? this._error : this._reader?.exception();
    return { error, pendingBytes: this._pendingBytes, closed: this._sock.isClosed() };
  }
  /** @internal */
  _addDrainWaiter(fut: Future<void>): void {
    this._drainWaiters.push(fut);
  }
  /** @internal */
  _addClosedWaiter(fut: Future<void>): void {
    if (this._sock.isClosed()) fut.setResult(undefined);
    else this._closedWaiters.push(fut);
  }

  private _registerWriter(): void {
    if (this._writerRegistered || this._sock.isClosed()) return;
    this._writerRegistered = true;
    this._loop.addWriter(this._sock, () => this._onWritable());
  }

  private _onWritable(): void {
    try {
      while (this._pending.length > 0) {
        const head = this._pending[0]!;
        const n = this._sock.send(head);
        this._pendingBytes -= n;
        if (n === head.length) this._pending.shift();
        else this._pending[0] = head.subarray(n);
      }
    } catch (e) {
      if (!(e instanceof BlockingIOError)) this._fail(e);
    }
    if (this._pendingBytes <= WRITE_LOW_WATER) this._releaseDrainWaiters();
    if (this._pendingBytes === 0) {
      this._unregisterWriter();
      if (this._closing) this._finishClose();
      else if (this._eofWritten && this._error === undefined) this._sock.shutdownWrite();
    }
  }

  private _unregisterWriter(): void {
    if (!this._writerRegistered) return;
    this._writerRegistered = false;
    if (!this._loop.isClosed()) this._loop.removeWriter(this._sock);
  }

  private _fail(e: unknown): void {
    this._error = e;
    this._pending = [];
    this._pendingBytes = 0;
    this._unregisterWriter();
    this._releaseDrainWaiters();
    this._reader?.setException(e);
  }

  private _releaseDrainWaiters(): void {
    const ws = this._drainWaiters;
    this._drainWaiters = [];
    for (const w of ws) if (!w.done()) w.setResult(undefined);
  }

  private _finishClose(): void {
    this._unregisterWriter();
    this._reader?._sourceClosing();
    this._sock.close();
    this._releaseDrainWaiters();
    const ws = this._closedWaiters;
    this._closedWaiters = [];
    for (const w of ws) if (!w.done()) w.setResult(undefined);
  }

  static readonly highWater = WRITE_HIGH_WATER;
}

const writerDrain = coroutine(function* drain(writer: StreamWriter): Coroutine<void> {
  const readerError = writer._readerException();
  if (readerError !== undefined) throw readerError;
  // As asyncio 3.11: when closing, give up the loop one step so the close can complete;
  // a write+drain loop after close() then sees the lost connection instead of spinning.
  if (writer.isClosing()) yield* sleep(0);
  let state = writer._state();
  if (state.error !== undefined) throw state.error;
  if (state.closed) throw new ConnectionResetError('ECONNRESET', 'Connection lost');
  // A wait that ends because the connection closed returns normally (asyncio wakes its
  // drain waiters with no error on a clean connection_lost); only a failure is thrown.
  while (state.pendingBytes > StreamWriter.highWater) {
    const fut = getRunningLoop().createFuture<void>();
    fut._origin = { kind: 'socket.drain', target: writer, detail: `${state.pendingBytes} bytes buffered` };
    writer._addDrainWaiter(fut);
    yield* fut;
    state = writer._state();
    if (state.error !== undefined) throw state.error;
  }
});

const writerWaitClosed = coroutine(function* waitClosed(writer: StreamWriter): Coroutine<void> {
  const fut = getRunningLoop().createFuture<void>();
  fut._origin = { kind: 'socket.close', target: writer };
  writer._addClosedWaiter(fut);
  yield* fut;
});

export interface OpenConnectionOptions extends SocketOptions {
  limit?: number;
}

/** Connects to host:port and returns [reader, writer]; throws the connection's failure. */
export const openConnection = coroutine(function* openConnection(
  host: string,
  port: number,
  options: OpenConnectionOptions = {},
): Coroutine<[StreamReader, StreamWriter]> {
  const sock = new Socket({ tls: options.tls });
  sock.setBlocking(false);
  try {
    yield* sockConnect(sock, [host, port]);
  } catch (e) {
    sock.close();
    throw e;
  }
  const reader = new StreamReader({ limit: options.limit, source: sock });
  const writer = new StreamWriter(sock, reader);
  return [reader, writer];
});
