// Tests of runtime/socket.ts and runtime/socket-ops.ts against real loopback servers
// (node:net on 127.0.0.1, port 0; every server is closed by its test). First the chapter's
// shape with a bare DefaultSelector and no loop (connect throws BlockingIOError, register
// the fileno for EVENT_WRITE, select() is a Promise while waiting, recv gives bytes, then
// an empty Buffer at EOF); then failures (refused, reset), big transfers through the loop
// in both directions, and misuse.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  EventLoop,
  VirtualClock,
  Socket,
  DefaultSelector,
  EVENT_READ,
  EVENT_WRITE,
  BlockingIOError,
  ConnectionRefusedError,
  ConnectionResetError,
  OSError,
  RuntimeError,
  coroutine,
  gather,
  sleep,
  sockConnect,
  sockRecv,
  sockSendall,
  type Coroutine,
  type SelectorKey,
} from '../../runtime/index';
import { startLoopbackServer } from './loopback-server';

/** Network tests fail after this long instead of hanging the run (their servers are still closed). */
const NET = { timeout: 20_000 };

/** A port on which nothing listens: a server's port, after that server has closed. */
async function closedPort(): Promise<number> {
  const s = await startLoopbackServer(null, () => undefined);
  await s.close();
  return s.port;
}

/** Runs the selector's ready callbacks until `done()`, as the chapter's event loop does. */
async function selectLoop(sel: DefaultSelector, done: () => boolean): Promise<void> {
  while (!done()) {
    const events = await sel.select();
    for (const [key, mask] of events) (key.data as (key: SelectorKey, mask: number) => void)(key, mask);
  }
}

describe("the chapter's non-blocking socket with a selector, no event loop", () => {
  test('connect, send a request, read the response chunk by chunk until EOF', NET, async (t) => {
    const server = await startLoopbackServer(t, (conn) => {
      conn.once('data', (req) => {
        conn.write(`echo:${req.toString()}|`);
        conn.end('bye');
      });
    });
    const sel = new DefaultSelector();
    const sock = new Socket();
    sock.setBlocking(false);
    const log: string[] = [];
    assert.throws(
      () => sock.connect(['127.0.0.1', server.port]),
      (e) => e instanceof BlockingIOError && e.code === 'EINPROGRESS',
    );
    // Nothing has arrived yet: recv() would block.
    assert.throws(() => sock.recv(4096), BlockingIOError);
    const chunks: Buffer[] = [];
    let finished = false;
    const readResponse = (key: SelectorKey, mask: number): void => {
      assert.equal(mask, EVENT_READ);
      assert.equal(key.fd, sock.fileno());
      const chunk = sock.recv(4096);
      if (chunk.length > 0) {
        chunks.push(chunk);
      } else {
        log.push('EOF');
        sel.unregister(sock.fileno());
        finished = true;
      }
    };
    const connected = (_key: SelectorKey, mask: number): void => {
      assert.equal(mask, EVENT_WRITE);
      log.push('connected');
      sel.unregister(sock.fileno());
      assert.equal(sock.send('GET /'), 5);
      sel.register(sock.fileno(), EVENT_READ, readResponse);
    };
    sel.register(sock.fileno(), EVENT_WRITE, connected);
    const first = sel.select();
    assert.ok(first instanceof Promise, 'select() has to wait for the connection: it returns a Promise');
    const events = await first;
    assert.equal(events.length, 1);
    assert.equal(events[0]![0].data, connected);
    connected(events[0]![0], events[0]![1]);
    await selectLoop(sel, () => finished);
    assert.deepEqual(log, ['connected', 'EOF']);
    assert.equal(Buffer.concat(chunks).toString(), 'echo:GET /|bye');
    // At EOF recv keeps returning an empty Buffer.
    assert.equal(sock.recv(10).length, 0);
    sock.close();
    sel.close();
    await server.close();
  });

  test('recv(n) returns at most n bytes, the rest stays for the next recv', NET, async (t) => {
    const server = await startLoopbackServer(t, (conn) => conn.end('0123456789'));
    const sel = new DefaultSelector();
    const sock = new Socket();
    sock.setBlocking(false);
    assert.throws(() => sock.connect(['127.0.0.1', server.port]), BlockingIOError);
    sel.register(sock, EVENT_READ);
    // Readiness is level-triggered: wait until everything (and EOF) has arrived.
    while (sock.bufferedBytes() < 10) await sel.select();
    assert.equal(sock.recv(3).toString(), '012');
    assert.equal(sock.recv(0).length, 0);
    const ready = sel.select(0);
    assert.ok(Array.isArray(ready), 'with bytes unread the socket is still readable');
    assert.equal((ready as Array<[SelectorKey, number]>)[0]![1], EVENT_READ);
    assert.equal(sock.recv(100).toString(), '3456789');
    sel.unregister(sock);
    sock.close();
    sel.close();
    await server.close();
  });

  test(
    'recv(0) on a connected socket with nothing buffered returns empty bytes; recv(1) would block',
    NET,
    async (t) => {
      const server = await startLoopbackServer(t, () => undefined);
      const sel = new DefaultSelector();
      const sock = new Socket();
      sock.setBlocking(false);
      assert.throws(() => sock.connect(['127.0.0.1', server.port]), BlockingIOError);
      sel.register(sock, EVENT_WRITE);
      await sel.select();
      sel.unregister(sock);
      assert.equal(sock.recv(0).length, 0);
      assert.throws(() => sock.recv(1), BlockingIOError);
      sock.close();
      sel.close();
      await server.close();
    },
  );

  test(
    'connection refused: the socket turns ready and the next recv/send throws ConnectionRefusedError',
    NET,
    async () => {
      const port = await closedPort();
      const sel = new DefaultSelector();
      const sock = new Socket();
      sock.setBlocking(false);
      assert.throws(() => sock.connect(['127.0.0.1', port]), BlockingIOError);
      sel.register(sock.fileno(), EVENT_WRITE);
      const events = await sel.select();
      assert.equal(events.length, 1);
      assert.ok(sock.error() instanceof ConnectionRefusedError);
      assert.equal(sock.error()!.code, 'ECONNREFUSED');
      assert.throws(() => sock.recv(10), ConnectionRefusedError);
      assert.throws(() => sock.send('x'), ConnectionRefusedError);
      assert.equal(sock.isConnected(), false);
      sel.unregister(sock.fileno());
      sock.close();
      sel.close();
    },
  );
});

describe('sockets through the event loop', () => {
  test('sockConnect / sockSendall / sockRecv: a request and its response', NET, async (t) => {
    const server = await startLoopbackServer(t, (conn) => {
      conn.on('data', (d) => conn.write(d.toString().toUpperCase()));
    });
    const loop = new EventLoop();
    const main = coroutine(function* main(): Coroutine<string> {
      const sock = new Socket();
      sock.setBlocking(false);
      yield* sockConnect(sock, ['127.0.0.1', server.port]);
      assert.equal(sock.isConnected(), true);
      assert.deepEqual(sock.getpeername(), ['127.0.0.1', server.port]);
      yield* sockSendall(sock, Buffer.from('hello'));
      let got = '';
      while (got.length < 5) got += (yield* sockRecv(sock, 1024)).toString();
      sock.close();
      return got;
    });
    assert.equal(await loop.runUntilComplete(main()), 'HELLO');
    loop.close();
    await server.close();
  });

  test('sockConnect to a closed port throws ConnectionRefusedError in the coroutine', NET, async () => {
    const port = await closedPort();
    const loop = new EventLoop();
    const main = coroutine(function* main(): Coroutine<string> {
      const sock = new Socket();
      sock.setBlocking(false);
      try {
        yield* sockConnect(sock, ['127.0.0.1', port]);
        return 'connected?';
      } catch (e) {
        return e instanceof ConnectionRefusedError ? 'refused' : String(e);
      } finally {
        sock.close();
      }
    });
    assert.equal(await loop.runUntilComplete(main()), 'refused');
    loop.close();
  });

  test('EOF: recv gives the bytes sent, then an empty Buffer', NET, async (t) => {
    const server = await startLoopbackServer(t, (conn) => conn.end('last words'));
    const loop = new EventLoop();
    const main = coroutine(function* main(): Coroutine<string[]> {
      const sock = new Socket();
      sock.setBlocking(false);
      yield* sockConnect(sock, ['127.0.0.1', server.port]);
      const out: string[] = [];
      for (;;) {
        const chunk = yield* sockRecv(sock, 4);
        out.push(chunk.toString());
        if (chunk.length === 0) break;
      }
      sock.close();
      return out;
    });
    assert.deepEqual(await loop.runUntilComplete(main()), ['last', ' wor', 'ds', '']);
    loop.close();
    await server.close();
  });

  test("the peer's half-close only ends our reading: after EOF we can still send", NET, async (t) => {
    let serverGot: Promise<string> | null = null;
    const server = await startLoopbackServer(t, (conn) => {
      serverGot = new Promise((resolve) => {
        let text = '';
        conn.on('data', (d) => (text += d.toString()));
        conn.on('end', () => resolve(text));
      });
      conn.end('request done?');
    });
    const loop = new EventLoop();
    const main = coroutine(function* main(): Coroutine<string> {
      const sock = new Socket();
      sock.setBlocking(false);
      yield* sockConnect(sock, ['127.0.0.1', server.port]);
      let got = '';
      for (;;) {
        const chunk = yield* sockRecv(sock, 100);
        if (chunk.length === 0) break;
        got += chunk.toString();
      }
      yield* sockSendall(sock, Buffer.from('answer after EOF'));
      sock.shutdownWrite();
      sock.close();
      return got;
    });
    assert.equal(await loop.runUntilComplete(main()), 'request done?');
    assert.equal(await serverGot!, 'answer after EOF');
    loop.close();
  });

  test('a reset in the middle of the stream: bytes already received, then ConnectionResetError', NET, async (t) => {
    const server = await startLoopbackServer(t, (conn) => {
      conn.write('part one');
      // Reset once the client confirms it has read the first part.
      conn.once('data', () => conn.resetAndDestroy());
    });
    const loop = new EventLoop();
    const log: string[] = [];
    const main = coroutine(function* main(): Coroutine<void> {
      const sock = new Socket();
      sock.setBlocking(false);
      yield* sockConnect(sock, ['127.0.0.1', server.port]);
      let got = '';
      while (got.length < 8) got += (yield* sockRecv(sock, 100)).toString();
      log.push(got);
      yield* sockSendall(sock, Buffer.from('ack'));
      try {
        const more = yield* sockRecv(sock, 100);
        log.push(`unexpected ${JSON.stringify(more.toString())}`);
      } catch (e) {
        log.push(e instanceof ConnectionResetError ? `ConnectionResetError ${e.code}` : String(e));
      }
      sock.close();
    });
    await loop.runUntilComplete(main());
    assert.deepEqual(log, ['part one', 'ConnectionResetError ECONNRESET']);
    loop.close();
    await server.close();
  });

  test('a recv pending when another coroutine closes the socket ends with EBADF instead of hanging', NET, async (t) => {
    const server = await startLoopbackServer(t, () => undefined);
    const loop = new EventLoop();
    const main = coroutine(function* main(): Coroutine<string> {
      const sock = new Socket();
      sock.setBlocking(false);
      yield* sockConnect(sock, ['127.0.0.1', server.port]);
      const pending = loop.createTask(sockRecv(sock, 100));
      yield* sleep(0.005);
      sock.close();
      try {
        yield* pending;
        return 'no error';
      } catch (e) {
        return e instanceof OSError ? e.code : String(e);
      }
    });
    assert.equal(await loop.runUntilComplete(main()), 'EBADF');
    assert.equal(loop._selector.getMap().size, 0, 'the closed socket was unregistered');
    loop.close();
  });

  test('several MB both ways at once, intact', NET, async (t) => {
    const SIZE = 6 * 1024 * 1024;
    const upload = Buffer.alloc(SIZE);
    const download = Buffer.alloc(SIZE);
    for (let i = 0; i < SIZE; i++) {
      upload[i] = (i * 7 + 3) & 0xff;
      download[i] = (i * 13 + 5) & 0xff;
    }
    const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
    let serverReceived: Promise<string> | null = null;
    const server = await startLoopbackServer(t, (conn) => {
      serverReceived = new Promise((resolve) => {
        const hash = createHash('sha256');
        let n = 0;
        conn.on('data', (d: Buffer) => {
          hash.update(d);
          n += d.length;
        });
        conn.on('end', () => resolve(`${n}:${hash.digest('hex')}`));
      });
      // Send everything and half-close right away, while the client is still uploading.
      conn.end(download);
    });
    const loop = new EventLoop();
    const sendAll = coroutine(function* sendAll(sock: Socket): Coroutine<void> {
      // Several calls, so the upload goes on after the server's half-close has arrived.
      for (let off = 0; off < SIZE; off += 1 << 20) {
        yield* sockSendall(sock, upload.subarray(off, off + (1 << 20)));
        yield* sleep(0);
      }
      sock.shutdownWrite();
    });
    const recvAll = coroutine(function* recvAll(sock: Socket): Coroutine<Buffer> {
      const parts: Buffer[] = [];
      for (;;) {
        const chunk = yield* sockRecv(sock, 65536);
        if (chunk.length === 0) return Buffer.concat(parts);
        parts.push(chunk);
      }
    });
    const main = coroutine(function* main(): Coroutine<Buffer> {
      const sock = new Socket();
      sock.setBlocking(false);
      yield* sockConnect(sock, ['127.0.0.1', server.port]);
      const [, received] = yield* gather(sendAll(sock), recvAll(sock));
      sock.close();
      return received;
    });
    const received = await loop.runUntilComplete(main());
    assert.equal(received.length, SIZE);
    assert.equal(sha(received), sha(download));
    assert.equal(await serverReceived!, `${SIZE}:${sha(upload)}`);
    loop.close();
    await server.close();
  });

  test('the virtual clock does not jump past timers while a socket is in flight', NET, async (t) => {
    const server = await startLoopbackServer(t, (conn) => {
      const t = setTimeout(() => conn.end('late reply'), 20);
      conn.on('close', () => clearTimeout(t));
    });
    const loop = new EventLoop({ clock: new VirtualClock() });
    const log: string[] = [];
    const sleeper = coroutine(function* sleeper(): Coroutine<void> {
      yield* sleep(5);
      log.push(`sleeper woke@${loop.time()}`);
    });
    const reader = coroutine(function* reader(): Coroutine<void> {
      const sock = new Socket();
      sock.setBlocking(false);
      yield* sockConnect(sock, ['127.0.0.1', server.port]);
      const data = yield* sockRecv(sock, 100);
      log.push(`reader got ${data.toString()}@${loop.time()}`);
      sock.close();
    });
    const s = loop.createTask(sleeper());
    await loop.runUntilComplete(reader());
    await loop.runUntilComplete(s);
    assert.deepEqual(log, ['reader got late reply@0', 'sleeper woke@5']);
    loop.close();
    await server.close();
  });
});

describe('misuse and closed sockets', () => {
  test('operations on a blocking socket throw a clear RuntimeError', NET, () => {
    const sock = new Socket();
    assert.equal(sock.getBlocking(), true);
    assert.throws(
      () => sock.connect(['127.0.0.1', 1]),
      (e) => e instanceof RuntimeError && /setBlocking\(false\)/.test(e.message),
    );
    assert.throws(
      () => sock.recv(1),
      (e) => e instanceof RuntimeError && /blocking socket/.test(e.message),
    );
    assert.throws(
      () => sock.send('x'),
      (e) => e instanceof RuntimeError && /blocking socket/.test(e.message),
    );
    sock.close();
  });

  test('a socket not connected: recv and send throw ENOTCONN, connect checks its address', NET, () => {
    const sock = new Socket();
    sock.setBlocking(false);
    assert.throws(
      () => sock.recv(1),
      (e) => e instanceof OSError && e.code === 'ENOTCONN',
    );
    assert.throws(
      () => sock.send('x'),
      (e) => e instanceof OSError && e.code === 'ENOTCONN',
    );
    assert.throws(() => sock.connect(['127.0.0.1'] as unknown as [string, number]), TypeError);
    assert.throws(() => sock.connect(['127.0.0.1', 70000]), RangeError);
    assert.throws(() => sock.getpeername(), OSError);
    sock.close();
  });

  test('while connecting, send() and a second connect() throw BlockingIOError', NET, async (t) => {
    const server = await startLoopbackServer(t, () => undefined);
    const sock = new Socket();
    sock.setBlocking(false);
    assert.throws(() => sock.connect(['127.0.0.1', server.port]), BlockingIOError);
    assert.throws(() => sock.send('x'), BlockingIOError);
    assert.throws(
      () => sock.connect(['127.0.0.1', server.port]),
      (e) => e instanceof BlockingIOError && e.code === 'EINPROGRESS',
    );
    sock.close();
    await server.close();
  });

  test('a closed socket: fileno() is -1 and every operation throws EBADF', NET, () => {
    const sock = new Socket();
    sock.setBlocking(false);
    assert.ok(sock.fileno() >= 3);
    sock.close();
    sock.close(); // twice is harmless
    assert.equal(sock.isClosed(), true);
    assert.equal(sock.fileno(), -1);
    assert.throws(
      () => sock.recv(1),
      (e) => e instanceof OSError && e.code === 'EBADF',
    );
    assert.throws(
      () => sock.send('x'),
      (e) => e instanceof OSError && e.code === 'EBADF',
    );
    assert.throws(
      () => sock.connect(['127.0.0.1', 1]),
      (e) => e instanceof OSError && e.code === 'EBADF',
    );
    assert.throws(
      () => new DefaultSelector().register(sock, EVENT_READ),
      (e) => e instanceof OSError && e.code === 'EBADF',
    );
  });
});

test("file numbers are counted per loop, from 3, by the loop whose tick makes the socket (a replay numbers its sockets as the run did); a number names the running loop's socket", async () => {
  const made = (loop: EventLoop, n: number): Promise<Socket[]> =>
    loop.runUntilComplete(
      coroutine(function* make(): Coroutine<Socket[]> {
        yield* sleep(0);
        return Array.from({ length: n }, () => new Socket());
      })(),
    );
  const a = new EventLoop({ clock: new VirtualClock() });
  const b = new EventLoop({ clock: new VirtualClock() });
  const inA = await made(a, 2);
  const inB = await made(b, 1);
  assert.deepEqual(
    inA.map((s) => s.fileno()),
    [3, 4],
  );
  assert.deepEqual(
    inB.map((s) => s.fileno()),
    [3],
  );
  // Number 3 in each loop's tick is that loop's socket.
  const registered = (loop: EventLoop, sel: DefaultSelector): Promise<void> =>
    loop.runUntilComplete(
      coroutine(function* register(): Coroutine<void> {
        yield* sleep(0);
        sel.register(3, EVENT_READ);
      })(),
    );
  const selA = new DefaultSelector();
  const selB = new DefaultSelector();
  await registered(a, selA);
  await registered(b, selB);
  inB[0]!.close();
  // Closing B's socket 3 leaves A's open and registered.
  assert.equal(selA.getKey(3)?.fd, 3);
  assert.equal(inA[0]!.isClosed(), false);
  for (const s of inA) s.close();
  selA.close();
  selB.close();
  a.close();
  b.close();
});
