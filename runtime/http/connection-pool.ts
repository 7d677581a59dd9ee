// ConnectionPool: keep-alive connections per origin (scheme://host:port), like aiohttp's
// TCPConnector. Invariants:
// - At most `limit` connections exist at once (0: no limit), at most `limitPerHost` per
//   origin; acquire() waits in arrival order for a free slot.
// - Idle connections are reused newest first; one idle longer than `keepAliveTimeout`
//   seconds, or that the server closed, is discarded instead of reused.
// - Every connection handed out comes back through release() or discard(); either frees
//   its slot and wakes the next waiter.

import { coroutine } from '../coroutine';
import type { Future } from '../future';
import { Fifo } from '../fifo';
import type { TimerHandle } from '../handle';
import { inspect, type Inspectable, type ResourceInspection } from '../inspection';
import { getRunningLoop } from '../running-loop';
import { openConnection } from '../streams';
import type { Coroutine } from '../task';
import { HttpConnection } from './connection';
import { HttpConnectionError } from './errors';

export interface ConnectionPoolOptions {
  /** Total connections at once (0: unlimited). Default 100, as aiohttp. */
  limit?: number;
  /** Connections per origin at once (0: unlimited). */
  limitPerHost?: number;
  /** Seconds an idle connection is kept for reuse. Default 15, as aiohttp. */
  keepAliveTimeout?: number;
  /** Largest header block / chunk-size line accepted (bytes). */
  maxLineBytes?: number;
  /** Verify TLS certificates (default true). */
  rejectUnauthorized?: boolean;
}

export interface Origin {
  key: string;
  host: string;
  port: number;
  tls: boolean;
}

export class ConnectionPool implements Inspectable {
  readonly limit: number;
  readonly limitPerHost: number;
  readonly keepAliveTimeout: number;
  readonly maxLineBytes: number;
  readonly rejectUnauthorized: boolean;
  private _idle = new Map<string, HttpConnection[]>();
  private _active = 0;
  private _activePerHost = new Map<string, number>();
  private _waiters = new Fifo<{ origin: string; fut: Future<void> }>();
  private _sweeper: TimerHandle | null = null;
  private _closed = false;
  private _opened = 0;

  constructor(options: ConnectionPoolOptions = {}) {
    this.limit = options.limit ?? 100;
    this.limitPerHost = options.limitPerHost ?? 0;
    this.keepAliveTimeout = options.keepAliveTimeout ?? 15;
    this.maxLineBytes = options.maxLineBytes ?? 1 << 16;
    this.rejectUnauthorized = options.rejectUnauthorized ?? true;
  }

  /** A connection to `origin`: an idle one if possible, else a new one once a slot is free. */
  acquire(origin: Origin): Coroutine<HttpConnection> {
    return poolAcquire(this, origin);
  }

  /** Returns a connection whose response was fully read, for reuse. */
  release(conn: HttpConnection): void {
    this._freeSlot(conn.origin);
    if (this._closed || conn.isClosed()) {
      conn.close();
      return;
    }
    const loop = getRunningLoop();
    conn.idleSince = loop.time();
    let list = this._idle.get(conn.origin);
    if (list === undefined) this._idle.set(conn.origin, (list = []));
    list.push(conn);
    if (this._sweeper === null && this.keepAliveTimeout > 0) {
      this._sweeper = loop.callLater(this.keepAliveTimeout, () => this._sweep());
    }
  }

  /** Closes a connection that must not be reused (error, partial body, Connection: close). */
  discard(conn: HttpConnection): void {
    conn.close();
    this._freeSlot(conn.origin);
  }

  /**
   * Inspection: the coroutines waiting for a connection slot. Counted as woken from outside:
   * a slot frees when a response has been read from the network.
   */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'http.pool',
      wokenBy: 'outside',
      description: () => `<ConnectionPool active=${this._active} waiting=${this._waiters.length}>`,
      waiters: () => Array.from(this._waiters, (w) => w.fut).filter((f) => !f.done()),
      holders: () => [],
    };
  }

  /** Connections opened since the pool was made. */
  openedCount(): number {
    return this._opened;
  }

  /** Connections lent out now, and idle ones kept. */
  stats(): { active: number; idle: number; waiting: number } {
    let idle = 0;
    for (const list of this._idle.values()) idle += list.length;
    return { active: this._active, idle, waiting: this._waiters.length };
  }

  /** Closes every idle connection and refuses reuse from now on. */
  close(): void {
    this._closed = true;
    for (const list of this._idle.values()) for (const c of list) c.close();
    this._idle.clear();
    this._sweeper?.cancel();
    this._sweeper = null;
    // Wake the waiters (not cancel them: their tasks were not cancelled); acquire() then
    // finds the pool closed and fails with a typed error.
    for (const w of this._waiters) if (!w.fut.done()) w.fut.setResult(undefined);
    this._waiters.clear();
  }

  /** @internal */
  _takeIdle(origin: string, now: number): HttpConnection | null {
    const list = this._idle.get(origin);
    if (list === undefined) return null;
    while (list.length > 0) {
      const conn = list.pop()!;
      if (now - conn.idleSince <= this.keepAliveTimeout && conn.isReusable()) {
        this._take(origin);
        return conn;
      }
      conn.close();
    }
    this._idle.delete(origin);
    return null;
  }

  /** @internal */
  _hasSlot(origin: string): boolean {
    if (this.limit > 0 && this._active >= this.limit) return false;
    if (this.limitPerHost > 0 && (this._activePerHost.get(origin) ?? 0) >= this.limitPerHost) return false;
    return true;
  }

  /** @internal */
  _take(origin: string): void {
    this._active++;
    this._activePerHost.set(origin, (this._activePerHost.get(origin) ?? 0) + 1);
  }

  /** @internal Counts a connection opened. */
  _countOpened(): void {
    this._opened++;
  }

  /** @internal */
  _enqueueWaiter(origin: string, fut: Future<void>): void {
    this._waiters.push({ origin, fut });
  }

  /** @internal */
  _removeWaiter(fut: Future<void>): void {
    for (const w of this._waiters) {
      if (w.fut === fut) {
        this._waiters.remove(w);
        return;
      }
    }
  }

  /** @internal */
  _isClosed(): boolean {
    return this._closed;
  }

  /** @internal Frees the slot taken for `origin` and wakes the next waiter. */
  _freeSlot(origin: string): void {
    this._active--;
    const n = (this._activePerHost.get(origin) ?? 1) - 1;
    if (n <= 0) this._activePerHost.delete(origin);
    else this._activePerHost.set(origin, n);
    this._wakeWaiter();
  }

  private _wakeWaiter(): void {
    // Wake the first waiter that can proceed (a slot for its origin, or an idle connection).
    for (const w of this._waiters) {
      if (w.fut.done()) continue;
      if (this._hasSlot(w.origin)) {
        this._waiters.remove(w);
        w.fut.setResult(undefined);
        return;
      }
    }
  }

  private _sweep(): void {
    this._sweeper = null;
    const now = getRunningLoop().time();
    let left = 0;
    for (const [origin, list] of this._idle) {
      const keep = list.filter((c) => {
        if (now - c.idleSince <= this.keepAliveTimeout && !c.isClosed()) return true;
        c.close();
        return false;
      });
      if (keep.length === 0) this._idle.delete(origin);
      else {
        this._idle.set(origin, keep);
        left += keep.length;
      }
    }
    if (left > 0 && !this._closed)
      this._sweeper = getRunningLoop().callLater(this.keepAliveTimeout, () => this._sweep());
  }
}

const poolAcquire = coroutine(function* acquire(pool: ConnectionPool, origin: Origin): Coroutine<HttpConnection> {
  const loop = getRunningLoop();
  for (;;) {
    if (pool._isClosed()) throw new HttpConnectionError(origin.key, 'the connection pool is closed');
    const idle = pool._takeIdle(origin.key, loop.time());
    if (idle !== null) return idle;
    if (pool._hasSlot(origin.key)) break;
    const fut = loop.createFuture<void>();
    fut._origin = { kind: 'http.pool', target: pool, detail: origin.key };
    pool._enqueueWaiter(origin.key, fut);
    try {
      yield* fut;
    } finally {
      pool._removeWaiter(fut);
    }
  }
  pool._take(origin.key);
  try {
    const [reader, writer] = yield* openConnection(origin.host, origin.port, {
      tls: origin.tls ? { rejectUnauthorized: pool.rejectUnauthorized } : undefined,
      limit: pool.maxLineBytes,
    });
    pool._countOpened();
    return new HttpConnection(origin.key, reader, writer);
  } catch (e) {
    pool._freeSlot(origin.key); // no connection came of it
    throw e;
  }
});
