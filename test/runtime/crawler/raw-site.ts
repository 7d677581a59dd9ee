// A raw HTTP server for crawler tests: node:net on 127.0.0.1 port 0, no HTTP library in the
// way, so a test can answer each request with whatever bytes it wants (malformed, stalled,
// huge). It counts requests by path; the test that starts it closes it (t.after).
import type { TestContext } from 'node:test';
import net from 'node:net';

export interface RawSite {
  url(path: string): string;
  /** Requests received, by path. */
  readonly hits: Map<string, number>;
}

/** Starts a raw site: `answer` writes what it likes on the socket for each request's path. */
export async function rawSite(t: TestContext, answer: (path: string, socket: net.Socket) => void): Promise<RawSite> {
  const sockets = new Set<net.Socket>();
  const hits = new Map<string, number>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = '';
    socket.on('data', (data: Buffer) => {
      pending += data.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const path = pending.slice(0, end).split(' ')[1] ?? '/';
        pending = pending.slice(end + 4);
        hits.set(path, (hits.get(path) ?? 0) + 1);
        answer(path, socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: (path) => `http://127.0.0.1:${port}${path}`, hits };
}

/**
 * Answers with a complete response and closes the connection (the teaching stages read an
 * HTTP/1.0 response to the end of the connection; stage 3 then opens a new one).
 */
export function page(socket: net.Socket, body: string | Buffer, status = '200 OK', type = 'text/html'): void {
  const bytes = Buffer.from(body);
  socket.write(
    `HTTP/1.1 ${status}\r\nContent-Type: ${type}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.end(bytes);
}
