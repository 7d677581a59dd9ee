// Tests of runtime/selector.ts (selectors.DefaultSelector over the runtime's Sockets):
// register/modify/unregister by socket or fileno, key.data, level-triggered readiness,
// select() as an array when something is ready or with timeout 0 and as a Promise when it
// has to wait, a select() timeout, close(). Real loopback sockets; servers closed by the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import {
  Socket,
  DefaultSelector,
  EVENT_READ,
  EVENT_WRITE,
  BlockingIOError,
  OSError,
  KeyError,
  ValueError,
  type SelectorKey,
} from '../../runtime/index';
import { startServer } from './loopback-server';

/** Network tests fail after this long instead of hanging the run (their servers are still closed). */
const NET = { timeout: 20_000 };

/** A non-blocking socket connecting to the port (connect's BlockingIOError swallowed). */
function connecting(port: number): Socket {
  const sock = new Socket();
  sock.setBlocking(false);
  try {
    sock.connect(['127.0.0.1', port]);
  } catch (e) {
    if (!(e instanceof BlockingIOError)) throw e;
  }
  return sock;
}

/** Waits (through a selector of its own) until the socket is connected. */
async function connected(sock: Socket): Promise<void> {
  const sel = new DefaultSelector();
  sel.register(sock, EVENT_WRITE);
  while (!sock.isConnected()) await sel.select();
  sel.close();
}

test('register by fileno or by socket; the key carries fileobj, fd, events and data', NET, async (t) => {
  const port = await startServer(t, () => undefined);
  const sel = new DefaultSelector();
  const a = connecting(port);
  const b = connecting(port);
  const ka = sel.register(a.fileno(), EVENT_WRITE, 'data of a');
  const kb = sel.register(b, EVENT_READ | EVENT_WRITE, { tag: 'b' });
  assert.equal(ka.fileobj, a.fileno());
  assert.equal(ka.fd, a.fileno());
  assert.equal(ka.events, EVENT_WRITE);
  assert.equal(ka.data, 'data of a');
  assert.equal(kb.fileobj, b);
  assert.deepEqual(kb.data, { tag: 'b' });
  assert.equal(sel.getKey(a), ka);
  assert.equal(sel.getKey(b.fileno()), kb);
  assert.equal(sel.getMap().size, 2);
  // Both become writable once connected.
  const ready = new Set<unknown>();
  while (ready.size < 2) {
    for (const [key] of await sel.select()) {
      ready.add(key.data);
      sel.unregister(key.fileobj); // level-triggered: it would be reported again and again
    }
  }
  assert.deepEqual([...ready].sort(), [{ tag: 'b' }, 'data of a'].sort());
  a.close();
  b.close();
  sel.close();
});

test('select() gives [key, mask] pairs of the sockets that are ready', NET, async (t) => {
  const port = await startServer(t, () => undefined);
  const sel = new DefaultSelector();
  const sock = connecting(port);
  sel.register(sock.fileno(), EVENT_WRITE, 'cb');
  const pending = sel.select();
  assert.ok(pending instanceof Promise, 'nothing is ready yet: select() waits');
  const events = await pending;
  assert.equal(events.length, 1);
  const [key, mask] = events[0]!;
  assert.equal(mask, EVENT_WRITE);
  assert.equal(key.data, 'cb');
  // Ready now: the answer is an array, given at once.
  const again = sel.select();
  assert.ok(Array.isArray(again));
  sel.unregister(sock.fileno());
  sock.close();
  sel.close();
});

test('select(0) polls: an empty array at once when nothing is ready', NET, async (t) => {
  const port = await startServer(t, () => undefined);
  const sel = new DefaultSelector();
  const sock = connecting(port);
  await connected(sock);
  sel.register(sock, EVENT_READ);
  const r = sel.select(0);
  assert.ok(Array.isArray(r));
  assert.deepEqual(r, []);
  sock.close();
  sel.close();
});

test('select(timeout) resolves with [] when the timeout passes first', NET, async (t) => {
  const port = await startServer(t, () => undefined);
  const sel = new DefaultSelector();
  const sock = connecting(port);
  sel.register(sock, EVENT_WRITE);
  await sel.select();
  sel.modify(sock, EVENT_READ, 'now reading');
  assert.equal(sel.getKey(sock)!.events, EVENT_READ);
  assert.equal(sel.getKey(sock)!.data, 'now reading');
  const r = sel.select(0.01);
  assert.ok(r instanceof Promise);
  assert.deepEqual(await r, []);
  sock.close();
  sel.close();
});

test('a select() timeout of weeks does not end early (Node timers hold at most 24.8 days)', NET, async (t) => {
  const port = await startServer(t, () => undefined);
  const sel = new DefaultSelector();
  const sock = connecting(port);
  await connected(sock);
  sel.register(sock, EVENT_READ);
  let settled = false;
  const waiting = sel.select(40 * 24 * 3600);
  assert.ok(waiting instanceof Promise);
  void waiting.then(() => (settled = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(settled, false, 'still waiting');
  sel.close();
  assert.deepEqual(await waiting, []);
  sock.close();
});

test('readiness is level-triggered: unread bytes keep a socket readable', NET, async (t) => {
  const port = await startServer(t, (conn) => conn.write('abc'));
  const sel = new DefaultSelector();
  const sock = connecting(port);
  sel.register(sock, EVENT_READ, 'r');
  const first = await sel.select();
  assert.equal(first[0]![1], EVENT_READ);
  // Not read: still ready at the next select, and the one after.
  for (let i = 0; i < 2; i++) {
    const r = sel.select(0) as Array<[SelectorKey, number]>;
    assert.equal(r.length, 1);
    assert.equal(r[0]![1], EVENT_READ);
  }
  let text = '';
  while (text.length < 3) {
    await sel.select();
    text += sock.recv(10).toString();
  }
  assert.equal(text, 'abc');
  assert.deepEqual(sel.select(0), [], 'drained: no longer readable');
  sock.close();
  sel.close();
});

test('a select() that is waiting wakes when data arrives', NET, async (t) => {
  let serverConn: net.Socket | null = null;
  const port = await startServer(t, (conn) => {
    serverConn = conn;
  });
  const sel = new DefaultSelector();
  const sock = connecting(port);
  sel.register(sock, EVENT_WRITE);
  await sel.select();
  sel.modify(sock, EVENT_READ);
  while (serverConn === null) await new Promise((r) => setImmediate(r));
  const waiting = sel.select();
  assert.ok(waiting instanceof Promise);
  (serverConn as net.Socket).write('ping');
  const events = await waiting;
  assert.equal(events.length, 1);
  assert.equal(sock.recv(10).toString(), 'ping');
  sock.close();
  sel.close();
});

test('misuse: double register, unknown fileno, bad events, unregistering what is not registered', NET, async (t) => {
  const port = await startServer(t, () => undefined);
  const sel = new DefaultSelector();
  const sock = connecting(port);
  sel.register(sock, EVENT_READ);
  assert.throws(
    () => sel.register(sock.fileno(), EVENT_WRITE),
    (e) => e instanceof KeyError && /already registered/.test(e.message),
  );
  assert.throws(
    () => sel.register(999999, EVENT_READ),
    (e) => e instanceof OSError && e.code === 'EBADF',
  );
  const other = connecting(port);
  assert.throws(() => sel.register(other, 0), ValueError);
  assert.throws(() => sel.register(other, 4), RangeError, 'a ValueError is a RangeError too');
  assert.throws(
    () => sel.unregister(other),
    (e) => e instanceof KeyError && /not registered/.test(e.message),
  );
  assert.throws(() => sel.modify(other, EVENT_READ), KeyError);
  assert.equal(sel.getKey(other), undefined);
  const key = sel.unregister(sock);
  assert.equal(key.fileobj, sock);
  assert.equal(sel.getMap().size, 0);
  sock.close();
  other.close();
  sel.close();
});

test('with nothing registered, select() without a timeout returns [] instead of waiting forever', NET, () => {
  const sel = new DefaultSelector();
  assert.deepEqual(sel.select(), []);
  sel.close();
});

test('close() releases a pending select() with [] and refuses further use', NET, async (t) => {
  const port = await startServer(t, () => undefined);
  const sel = new DefaultSelector();
  const sock = connecting(port);
  await connected(sock);
  sel.register(sock, EVENT_READ);
  const waiting = sel.select();
  assert.ok(waiting instanceof Promise);
  sel.close();
  assert.deepEqual(await waiting, []);
  assert.throws(() => sel.select(), /closed/);
  assert.throws(() => sel.register(sock, EVENT_READ), /closed/);
  sock.close();
});

test('an unregistered socket is no longer reported', NET, async (t) => {
  const port = await startServer(t, (conn) => conn.write('data'));
  const sel = new DefaultSelector();
  const sock = connecting(port);
  sel.register(sock, EVENT_READ);
  await sel.select();
  sel.unregister(sock);
  assert.deepEqual(sel.select(0), []);
  sock.close();
  sel.close();
});
