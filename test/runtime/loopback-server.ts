// A raw TCP server on 127.0.0.1 for the runtime's socket tests (selector, inspection, sockets,
// streams): one place for the listen-and-clean-up dance.
//
// Invariant: the server and every connection it accepted are closed when the test ends
// (t.after), whether the test passed or not; close() may also be called earlier (once: later
// calls wait for the same close). A server started without a test is closed by its caller.

import * as net from 'node:net';
import type { TestContext } from 'node:test';

export interface LoopbackServer {
  readonly port: number;
  /** Destroys every connection and closes the server. */
  close(): Promise<void>;
}

/**
 * A loopback server on an ephemeral port running `onConnection` for each client; closed after test `t` even
 * if it fails.
 */
export function startLoopbackServer(
  t: TestContext | null,
  onConnection: (conn: net.Socket) => void,
): Promise<LoopbackServer> {
  const conns = new Set<net.Socket>();
  const server = net.createServer((conn) => {
    conns.add(conn);
    conn.on('close', () => conns.delete(conn));
    conn.on('error', () => undefined);
    onConnection(conn);
  });
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((done) => {
      for (const c of conns) c.destroy();
      server.close(() => done());
    }));
  t?.after(close);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as net.AddressInfo).port, close }));
  });
}

/** The port of a loopback server closed after test `t` (for tests that only connect). */
export async function startServer(t: TestContext, onConnection: (conn: net.Socket) => void): Promise<number> {
  return (await startLoopbackServer(t, onConnection)).port;
}
