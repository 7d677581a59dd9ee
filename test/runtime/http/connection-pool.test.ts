// Tests of ConnectionPool (runtime/http/connection-pool.ts) against loopback servers, on a loop
// with a VirtualClock (keep-alive expiry is asserted by moving the clock, not by waiting): the
// total and per-origin limits, waiters woken in arrival order, idle connections reused newest
// first and dropped once older than keepAliveTimeout, a failed connect giving its slot back, and
// close() failing the waiters with a typed error. Logs of who got which connection, compared whole.

import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket as NetSocket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { VirtualClock } from '../../../runtime/clock';
import { coroutine } from '../../../runtime/coroutine';
import { EventLoop } from '../../../runtime/loop';
import { getRunningLoop } from '../../../runtime/running-loop';
import type { Coroutine } from '../../../runtime/task';
import type { HttpConnection } from '../../../runtime/http/connection';
import { ConnectionPool, type Origin } from '../../../runtime/http/connection-pool';
import { HttpConnectionError } from '../../../runtime/http/errors';

/** A loopback server that accepts and holds connections (closed by the test); its origin. */
async function origin(t: TestContext): Promise<Origin> {
  const sockets = new Set<NetSocket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return { key: `http://127.0.0.1:${port}`, host: '127.0.0.1', port, tls: false };
}

/** Runs `body` on a fresh loop with a VirtualClock (closed afterwards). */
async function onLoop<T>(body: (clock: VirtualClock) => Coroutine<T>): Promise<T> {
  const clock = new VirtualClock();
  const loop = new EventLoop({ clock });
  try {
    return await loop.runUntilComplete(body(clock));
  } finally {
    loop.close();
  }
}

/** Lets the loop run its ready callbacks (a tick or two) before going on. */
const settle = coroutine(function* settle(): Coroutine<void> {
  for (let i = 0; i < 3; i++) {
    const fut = getRunningLoop().createFuture<void>();
    getRunningLoop().callSoon(() => fut.setResult(undefined));
    yield* fut;
  }
});

test('limitPerHost: a second acquire for the origin waits, another origin does not; release wakes it', async (t) => {
  const a = await origin(t);
  const b = await origin(t);
  const log = await onLoop(function* () {
    const loop = getRunningLoop();
    const pool = new ConnectionPool({ limitPerHost: 1 });
    const log: string[] = [];
    const first = yield* pool.acquire(a);
    log.push('a1 got');
    const waiting = loop.createTask(
      coroutine(function* second(): Coroutine<HttpConnection> {
        const c = yield* pool.acquire(a);
        log.push('a2 got');
        return c;
      })(),
    );
    yield* settle();
    log.push(`waiting ${pool.stats().waiting}`);
    yield* pool.acquire(b);
    log.push('b1 got');
    pool.release(first);
    log.push('a1 released');
    const second = yield* waiting;
    log.push(`a2 is a1: ${second === first}, opened ${pool.openedCount()}`);
    pool.close();
    return log;
  });
  assert.deepEqual(log, ['a1 got', 'waiting 1', 'b1 got', 'a1 released', 'a2 got', 'a2 is a1: true, opened 2']);
});

test('limit: waiters get the freed slots in arrival order', async (t) => {
  const a = await origin(t);
  const log = await onLoop(function* () {
    const loop = getRunningLoop();
    const pool = new ConnectionPool({ limit: 1 });
    const log: string[] = [];
    const held = yield* pool.acquire(a);
    const waiters = [1, 2, 3].map((n) =>
      loop.createTask(
        coroutine(function* waiter(): Coroutine<void> {
          const c = yield* pool.acquire(a);
          log.push(`waiter ${n}`);
          pool.discard(c);
        })(),
      ),
    );
    yield* settle();
    log.push(`waiting ${pool.stats().waiting}`);
    pool.discard(held);
    for (const w of waiters) yield* w;
    log.push(`active ${pool.stats().active}, opened ${pool.openedCount()}`);
    pool.close();
    return log;
  });
  assert.deepEqual(log, ['waiting 3', 'waiter 1', 'waiter 2', 'waiter 3', 'active 0, opened 4']);
});

test('idle connections are reused newest first, and dropped once older than keepAliveTimeout', async (t) => {
  const a = await origin(t);
  const got = await onLoop(function* (clock) {
    const pool = new ConnectionPool({ keepAliveTimeout: 10 });
    const c1 = yield* pool.acquire(a);
    const c2 = yield* pool.acquire(a);
    pool.release(c1);
    clock.advance(1);
    pool.release(c2);
    const newest = yield* pool.acquire(a);
    const next = yield* pool.acquire(a);
    const reused = [newest === c2, next === c1, pool.openedCount()];
    pool.release(newest);
    clock.advance(10.5); // c2 idle 10.5 s: over the limit
    const fresh = yield* pool.acquire(a);
    const expired = [fresh !== c2, c2.isClosed(), pool.openedCount()];
    pool.discard(fresh);
    pool.discard(next);
    pool.close();
    return { reused, expired, stats: pool.stats() };
  });
  assert.deepEqual(got.reused, [true, true, 2]);
  assert.deepEqual(got.expired, [true, true, 3]);
  assert.deepEqual(got.stats, { active: 0, idle: 0, waiting: 0 });
});

test('a failed connect gives its slot back', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const closed: Origin = { key: `http://127.0.0.1:${port}`, host: '127.0.0.1', port, tls: false };
  const got = await onLoop(function* () {
    const pool = new ConnectionPool({ limit: 1 });
    let failed = false;
    try {
      yield* pool.acquire(closed);
    } catch {
      failed = true;
    }
    return { failed, stats: pool.stats(), opened: pool.openedCount() };
  });
  assert.deepEqual(got, { failed: true, stats: { active: 0, idle: 0, waiting: 0 }, opened: 0 });
});

test('close(): waiters fail with HttpConnectionError, idle connections and later releases are closed', async (t) => {
  const a = await origin(t);
  const got = await onLoop(function* () {
    const loop = getRunningLoop();
    const pool = new ConnectionPool({ limit: 2 });
    const idle = yield* pool.acquire(a);
    const held = yield* pool.acquire(a);
    pool.release(idle);
    // The idle one is taken again, so the next acquire must wait.
    const again = yield* pool.acquire(a);
    const waiter = loop.createTask(pool.acquire(a));
    yield* settle();
    pool.close();
    let error: unknown = null;
    try {
      yield* waiter;
    } catch (e) {
      error = e;
    }
    pool.release(held);
    pool.release(again);
    return { error, heldClosed: held.isClosed(), againClosed: again.isClosed(), stats: pool.stats() };
  });
  assert.ok(got.error instanceof HttpConnectionError, `got ${String(got.error)}`);
  assert.equal(got.error.url, a.key);
  assert.deepEqual(
    { heldClosed: got.heldClosed, againClosed: got.againClosed, stats: got.stats },
    { heldClosed: true, againClosed: true, stats: { active: 0, idle: 0, waiting: 0 } },
  );
});
