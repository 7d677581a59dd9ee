// Coroutines that wait on a non-blocking Socket through the running loop's selector, as
// asyncio's loop.sock_connect / sock_recv / sock_sendall. Each suspends on a future whose
// origin says what it waits for (socket.connect, socket.read, socket.write), so the
// inspector can tell a task blocked on the network from one blocked on a queue.
// A wait ends when the socket becomes ready or when it is closed (a closed socket is never
// ready again); the caller's next recv/send then reports the closed socket.

import { coroutine } from './coroutine';
import { BlockingIOError } from './errors';
import type { Future } from './future';
import type { EventLoop } from './loop';
import { getRunningLoop } from './running-loop';
import type { Socket, SocketAddress } from './socket';
import type { Coroutine } from './task';

function settle(fut: Future<void>): void {
  if (!fut.done()) fut.setResult(undefined);
}

/** Waits until `sock` is readable (or writable). */
export const waitReadable = coroutine(function* waitReadable(
  sock: Socket,
  kind: string = 'socket.read',
): Coroutine<void> {
  const loop: EventLoop = getRunningLoop();
  const fut = loop.createFuture<void>();
  fut._origin = { kind, target: sock, detail: sock.toString() };
  loop.addReader(sock, settle, fut);
  const offClose = sock._addWaiter(fut);
  try {
    yield* fut;
  } finally {
    offClose();
    loop.removeReader(sock);
  }
});

export const waitWritable = coroutine(function* waitWritable(
  sock: Socket,
  kind: string = 'socket.write',
): Coroutine<void> {
  const loop: EventLoop = getRunningLoop();
  const fut = loop.createFuture<void>();
  fut._origin = { kind, target: sock, detail: sock.toString() };
  loop.addWriter(sock, settle, fut);
  const offClose = sock._addWaiter(fut);
  try {
    yield* fut;
  } finally {
    offClose();
    loop.removeWriter(sock);
  }
});

/** Connects a non-blocking socket; throws the connection's failure (refused, lookup, ...). */
export const sockConnect = coroutine(function* sockConnect(sock: Socket, address: SocketAddress): Coroutine<void> {
  try {
    sock.connect(address);
    return;
  } catch (e) {
    if (!(e instanceof BlockingIOError)) throw e;
  }
  while (!sock.isConnected()) {
    const err = sock.error();
    if (err !== null) throw err;
    yield* waitWritable(sock, 'socket.connect');
  }
});

/** Receives up to `n` bytes, waiting until some arrive; an empty Buffer means EOF. */
export const sockRecv = coroutine(function* sockRecv(sock: Socket, n: number): Coroutine<Buffer> {
  for (;;) {
    try {
      return sock.recv(n);
    } catch (e) {
      if (!(e instanceof BlockingIOError)) throw e;
    }
    yield* waitReadable(sock);
  }
});

/** Sends all of `data`, waiting for room in the send buffer as needed. */
export const sockSendall = coroutine(function* sockSendall(sock: Socket, data: Uint8Array): Coroutine<void> {
  let offset = 0;
  while (offset < data.length) {
    try {
      offset += sock.send(offset === 0 ? data : data.subarray(offset));
      continue;
    } catch (e) {
      if (!(e instanceof BlockingIOError)) throw e;
    }
    yield* waitWritable(sock);
  }
});
