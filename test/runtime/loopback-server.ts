// A raw TCP server on 127.0.0.1 for the runtime's socket tests (selector, inspection): one
// place for the listen-and-clean-up dance.
//
// Invariant: the server and every connection it accepted are closed when the test ends
// (t.after), whether the test passed or not.

import * as net from 'node:net';
import type { TestContext } from 'node:test';

/** A loopback server on an ephemeral port, closed (with its connections) after the test. */
export function startServer(t: TestContext, onConnection: (conn: net.Socket) => void): Promise<number> {
  const conns = new Set<net.Socket>();
  const server = net.createServer((conn) => {
    conns.add(conn);
    conn.on('close', () => conns.delete(conn));
    conn.on('error', () => undefined);
    onConnection(conn);
  });
  t.after(
    () =>
      new Promise<void>((done) => {
        for (const c of conns) c.destroy();
        server.close(() => done());
      }),
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });
}
