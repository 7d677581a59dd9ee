// Tests of runtime/socket-ops.ts against real loopback servers (node:net on 127.0.0.1, closed
// by each test): the future each wait suspends on names what it waits for (socket.connect,
// socket.write, socket.read, or the caller's kind) with the socket as its target; a finished or
// cancelled wait leaves no reader, writer or waiter behind; a close ends a wait (at once if the
// socket is closed already); sockConnect throws the connection's own failure; sockSendall
// delivers every byte in order through a peer that stops reading for a while.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type * as net from 'node:net';
import { CancelledError, ConnectionRefusedError, OSError } from '../../runtime/errors';
import { coroutine } from '../../runtime/coroutine';
import { EventLoop } from '../../runtime/loop';
import { Socket } from '../../runtime/socket';
import { sleep } from '../../runtime/sleep';
import { sockConnect, sockRecv, sockSendall, waitReadable, waitWritable } from '../../runtime/socket-ops';
import type { Coroutine, Task } from '../../runtime/task';
import { startLoopbackServer } from './loopback-server';

/** Network tests fail after this long instead of hanging the run (their servers are still closed). */
const NET = { timeout: 20_000 };

/** Runs the loop step by step until `cond` holds (at most ~5000 steps). */
async function runUntil(loop: EventLoop, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 5000 && !cond(); i++) await loop.runOnce();
  assert.ok(cond(), 'the condition held before the step limit');
}

/** Resolves once `cond` holds, checked on node's own event loop (the server's side), within ~5 s. */
async function serverSees(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 5000 && !cond(); i++) await new Promise((r) => setTimeout(r, 1));
  assert.ok(cond(), 'the server saw it in time');
}

/** A non-blocking socket whose waits are logged as `kind | target is the socket | detail`. */
function loggedSocket(): { sock: Socket; waits: string[] } {
  const sock = new Socket();
  sock.setBlocking(false);
  const waits: string[] = [];
  const addWaiter = sock._addWaiter.bind(sock);
  sock._addWaiter = (fut) => {
    const origin = fut._origin;
    waits.push(`${origin?.kind} | ${origin?.target === sock} | ${origin?.detail}`);
    return addWaiter(fut);
  };
  return { sock, waits };
}

/** `log` without runs of the same entry (a wait may repeat while a buffer drains). */
function runs(log: readonly string[]): string[] {
  return log.filter((entry, i) => i === 0 || log[i - 1] !== entry);
}

/** The kind of the future `task` is suspended on, or null. */
function awaitedKind(task: Task<unknown>): string | null {
  return task.awaiting()?._origin?.kind ?? null;
}

function sha(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('socket-ops waits', () => {
  test('connect, sendall and recv each wait on a future naming its kind, the socket its target', NET, async (t) => {
    const SIZE = 3 * 1024 * 1024;
    const upload = Buffer.alloc(SIZE);
    for (let i = 0; i < SIZE; i++) upload[i] = (i * 31 + (i >> 11)) & 0xff;
    let serverConn: net.Socket | null = null;
    const received: Buffer[] = [];
    const server = await startLoopbackServer(t, (conn) => {
      serverConn = conn;
      // The server does not read until the test resumes it: the client's send buffer fills.
      conn.pause();
      conn.on('data', (d: Buffer) => received.push(d));
    });
    const loop = new EventLoop();
    const { sock, waits } = loggedSocket();
    const client = loop.createTask(
      coroutine(function* client(): Coroutine<string> {
        yield* sockConnect(sock, ['127.0.0.1', server.port]);
        yield* sockSendall(sock, upload);
        return (yield* sockRecv(sock, 100)).toString();
      })(),
    );
    await runUntil(loop, () => awaitedKind(client) === 'socket.write');
    serverConn!.resume();
    await runUntil(loop, () => awaitedKind(client) === 'socket.read');
    await serverSees(() => Buffer.concat(received).length === SIZE);
    serverConn!.write('all here');
    await runUntil(loop, () => client.done());
    const fd = sock.fileno();
    const peer = `raddr=127.0.0.1:${server.port}`;
    assert.deepEqual(runs(waits), [
      `socket.connect | true | <Socket fd=${fd} connecting ${peer}>`,
      `socket.write | true | <Socket fd=${fd} connected ${peer}>`,
      `socket.read | true | <Socket fd=${fd} connected ${peer}>`,
    ]);
    assert.equal(client.result(), 'all here');
    assert.equal(sha(Buffer.concat(received)), sha(upload), 'every byte arrived, in order');
    // Every wait is over: the loop watches nothing and the socket has no waiter.
    assert.equal(loop._selector.getMap().size, 0);
    assert.equal(loop._selector.getKey(sock), undefined);
    sock.close();
    loop.close();
  });

  test('a cancelled recv stops watching the socket and leaves it open and usable', NET, async (t) => {
    let serverConn: net.Socket | null = null;
    const server = await startLoopbackServer(t, (conn) => {
      serverConn = conn;
    });
    const loop = new EventLoop();
    const { sock } = loggedSocket();
    await loop.runUntilComplete(sockConnect(sock, ['127.0.0.1', server.port]));
    const reader = loop.createTask(sockRecv(sock, 10));
    await runUntil(loop, () => awaitedKind(reader) === 'socket.read');
    assert.equal(loop._selector.getKey(sock)?.fileobj, sock);
    reader.cancel();
    await runUntil(loop, () => reader.done());
    assert.throws(() => reader.result(), CancelledError);
    assert.equal(loop._selector.getKey(sock), undefined, 'the reader was removed');
    assert.equal(sock.isClosed(), false);
    serverConn!.write('later');
    assert.equal((await loop.runUntilComplete(sockRecv(sock, 10))).toString(), 'later');
    sock.close();
    loop.close();
  });

  test('a close ends a pending wait normally; the next recv reports the closed socket', NET, async (t) => {
    const server = await startLoopbackServer(t, () => undefined);
    const loop = new EventLoop();
    const { sock, waits } = loggedSocket();
    await loop.runUntilComplete(sockConnect(sock, ['127.0.0.1', server.port]));
    const fd = sock.fileno();
    const log: string[] = [];
    const main = coroutine(function* main(): Coroutine<void> {
      const waiter = loop.createTask(
        coroutine(function* waiter(): Coroutine<void> {
          yield* waitReadable(sock, 'socket.accept');
          log.push('wait ended');
          try {
            sock.recv(1);
          } catch (e) {
            log.push(e instanceof OSError ? `recv: ${e.code}` : String(e));
          }
        })(),
      );
      yield* sleep(0.005);
      log.push('closing');
      sock.close();
      yield* waiter;
    });
    await loop.runUntilComplete(main());
    assert.deepEqual(log, ['closing', 'wait ended', 'recv: EBADF']);
    assert.deepEqual(runs(waits).slice(-1), [
      `socket.accept | true | <Socket fd=${fd} connected raddr=127.0.0.1:${server.port}>`,
    ]);
    assert.equal(sock.fileno(), -1);
    assert.equal(loop._selector.getMap().size, 0);
    loop.close();
  });

  test('waiting on a socket closed already throws its EBADF and watches nothing', async () => {
    const loop = new EventLoop();
    const sock = new Socket();
    sock.setBlocking(false);
    sock.close();
    const codes: string[] = [];
    await loop.runUntilComplete(
      coroutine(function* both(): Coroutine<void> {
        for (const wait of [waitReadable, waitWritable]) {
          try {
            yield* wait(sock);
            codes.push('returned');
          } catch (e) {
            codes.push(e instanceof OSError ? e.code : String(e));
          }
        }
      })(),
    );
    assert.deepEqual(codes, ['EBADF', 'EBADF']);
    assert.equal(loop._selector.getMap().size, 0);
    loop.close();
  });
});

describe('sockConnect', () => {
  test("throws the connection's failure, the same error the socket reports", NET, async () => {
    const closed = await startLoopbackServer(null, () => undefined);
    await closed.close();
    const loop = new EventLoop();
    const { sock, waits } = loggedSocket();
    const fd = sock.fileno();
    let thrown: unknown = null;
    await loop.runUntilComplete(
      coroutine(function* connect(): Coroutine<void> {
        try {
          yield* sockConnect(sock, ['127.0.0.1', closed.port]);
        } catch (e) {
          thrown = e;
        }
      })(),
    );
    assert.ok(thrown instanceof ConnectionRefusedError);
    assert.equal(thrown, sock.error());
    assert.deepEqual(runs(waits), [
      `socket.connect | true | <Socket fd=${fd} connecting raddr=127.0.0.1:${closed.port}>`,
    ]);
    assert.equal(loop._selector.getMap().size, 0);
    sock.close();
    loop.close();
  });

  test('an address the socket refuses outright is thrown before any wait', async () => {
    const loop = new EventLoop();
    const { sock, waits } = loggedSocket();
    let thrown: unknown = null;
    await loop.runUntilComplete(
      coroutine(function* connect(): Coroutine<void> {
        try {
          yield* sockConnect(sock, ['127.0.0.1', 70000]);
        } catch (e) {
          thrown = e;
        }
      })(),
    );
    assert.ok(thrown instanceof RangeError);
    assert.deepEqual(waits, []);
    sock.close();
    loop.close();
  });
});

describe('sockRecv and sockSendall', () => {
  test('sockRecv returns at most n bytes as they arrive, then an empty Buffer at EOF', NET, async (t) => {
    const server = await startLoopbackServer(t, (conn) => conn.end('hello world'));
    const loop = new EventLoop();
    const { sock } = loggedSocket();
    const chunks = await loop.runUntilComplete(
      coroutine(function* read(): Coroutine<string[]> {
        yield* sockConnect(sock, ['127.0.0.1', server.port]);
        const out: string[] = [];
        for (;;) {
          const chunk = yield* sockRecv(sock, 5);
          out.push(chunk.toString());
          if (chunk.length === 0) return out;
        }
      })(),
    );
    assert.deepEqual(chunks, ['hello', ' worl', 'd', '']);
    sock.close();
    loop.close();
  });

  test('sockSendall of nothing sends nothing and does not wait', NET, async (t) => {
    const received: Buffer[] = [];
    const server = await startLoopbackServer(t, (conn) => conn.on('data', (d: Buffer) => received.push(d)));
    const loop = new EventLoop();
    const { sock, waits } = loggedSocket();
    await loop.runUntilComplete(sockConnect(sock, ['127.0.0.1', server.port]));
    const before = waits.length;
    await loop.runUntilComplete(sockSendall(sock, new Uint8Array(0)));
    assert.deepEqual(waits.slice(before), []);
    await loop.runUntilComplete(sockSendall(sock, Buffer.from('end')));
    await serverSees(() => received.length > 0);
    assert.equal(Buffer.concat(received).toString(), 'end');
    sock.close();
    loop.close();
  });
});
