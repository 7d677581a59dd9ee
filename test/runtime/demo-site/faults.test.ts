// Tests of runtime/demo-site/faults.ts: respondWithFault behind a real node:http server on
// loopback, read by a raw TCP client so the broken exchange is seen byte for byte: how each fault
// ends (a reset, a FIN, never), the declared and the sent lengths, the raw framings (bad-chunk,
// wrong-length) exactly, delays going through the context's schedule, and the endless body
// stopping while the client does not read (backpressure) and when the connection goes.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import * as net from 'node:net';
import {
  ENDLESS_CHUNK_BYTES,
  FAULT_DECLARED_LENGTH,
  respondWithFault,
  type FaultContext,
} from '../../../runtime/demo-site/faults';
import { HTML_CONTENT_TYPE, type StreamFault } from '../../../runtime/demo-site/site-model';

const NET = { timeout: 20_000 };

interface FaultServer {
  port: number;
  /** The delays asked of the context's schedule, in ms, in order. */
  scheduled: number[];
  /** The response of the last request, once it came. */
  lastResponse(): ServerResponse | null;
}

/** A node:http server answering every request with `fault`; closed (with its pending delays) after the test. */
async function faultServer(t: TestContext, fault: StreamFault): Promise<FaultServer> {
  const scheduled: number[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const context: FaultContext = {
    schedule: (ms, fn) => {
      scheduled.push(ms);
      const timer = setTimeout(() => {
        timers.delete(timer);
        fn();
      }, ms);
      timers.add(timer);
    },
  };
  let last: ServerResponse | null = null;
  const server = createServer((req, res) => {
    last = res;
    respondWithFault(fault, req, res, context);
  });
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, scheduled, lastResponse: () => last };
}

/** What a raw client received, and how the connection ended within the wait. */
interface Exchange {
  head: string;
  body: Buffer;
  ending: 'end' | 'reset' | 'still open';
}

/** Sends one raw request and collects the answer until the connection ends or `waitMs` passes. */
function exchange(port: number, method = 'GET', waitMs = 2000): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const conn = net.connect(port, '127.0.0.1', () => {
      conn.write(`${method} /fault HTTP/1.1\r\nHost: demo.test\r\n\r\n`);
    });
    const finish = (ending: Exchange['ending']): void => {
      clearTimeout(timer);
      conn.destroy();
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      resolve({
        head: end < 0 ? all.toString('latin1') : all.subarray(0, end + 4).toString('latin1'),
        body: end < 0 ? Buffer.alloc(0) : all.subarray(end + 4),
        ending,
      });
    };
    const timer = setTimeout(() => finish('still open'), waitMs);
    conn.on('data', (d: Buffer) => chunks.push(d));
    conn.on('end', () => finish('end'));
    conn.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNRESET') finish('reset');
      else {
        clearTimeout(timer);
        reject(e);
      }
    });
  });
}

/** The status line and the header fields of a raw head, names lower-cased. */
function parsed(head: string): { status: string; fields: Record<string, string> } {
  const [status = '', ...lines] = head.split('\r\n').filter((l) => l !== '');
  return {
    status,
    fields: Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    ),
  };
}

const filler = (label: string): string =>
  `<p>${label}: this body is part of a fault route of the Coroscope demo site.</p>\n`;

describe('respondWithFault', () => {
  test('reset: headers and half the declared body, then a TCP reset after the scheduled delay', NET, async (t) => {
    const server = await faultServer(t, 'reset');
    const got = await exchange(server.port);
    const head = parsed(got.head);
    assert.deepEqual(
      [head.status, head.fields['content-type'], head.fields['content-length'], got.body.length, got.ending],
      ['HTTP/1.1 200 OK', HTML_CONTENT_TYPE, String(FAULT_DECLARED_LENGTH), FAULT_DECLARED_LENGTH / 2, 'reset'],
    );
    assert.equal(got.body.subarray(0, filler('reset').length).toString('latin1'), filler('reset'));
    assert.deepEqual(server.scheduled, [25]);
  });

  test('stall: headers promising a body, then nothing; the connection stays open', NET, async (t) => {
    const server = await faultServer(t, 'stall');
    const got = await exchange(server.port, 'GET', 300);
    assert.deepEqual(
      [parsed(got.head).status, parsed(got.head).fields['content-length'], got.body.length, got.ending],
      ['HTTP/1.1 200 OK', String(FAULT_DECLARED_LENGTH), 0, 'still open'],
    );
    assert.deepEqual(server.scheduled, []);
  });

  test(
    'bad-chunk: exactly one good chunk, then a chunk-size line that is not hexadecimal, then FIN',
    NET,
    async (t) => {
      const server = await faultServer(t, 'bad-chunk');
      const got = await exchange(server.port);
      const first = '<!DOCTYPE html>\n<p>The next chunk-size line is not hexadecimal.</p>\n';
      assert.equal(
        got.head,
        `HTTP/1.1 200 OK\r\nContent-Type: ${HTML_CONTENT_TYPE}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(
        got.body.toString('latin1'),
        `${first.length.toString(16)}\r\n${first}\r\nzz-not-a-chunk-size\r\n<p>garbage</p>\r\n0\r\n\r\n`,
      );
      assert.equal(got.ending, 'end');
    },
  );

  test('wrong-length: a Content-Length twice what arrives before the FIN', NET, async (t) => {
    const server = await faultServer(t, 'wrong-length');
    const got = await exchange(server.port);
    assert.equal(
      got.head,
      `HTTP/1.1 200 OK\r\nContent-Type: ${HTML_CONTENT_TYPE}\r\nContent-Length: ${FAULT_DECLARED_LENGTH}\r\nConnection: close\r\n\r\n`,
    );
    assert.deepEqual([got.body.length, got.ending], [FAULT_DECLARED_LENGTH / 2, 'end']);
    assert.equal(got.body.subarray(0, filler('wrong-length').length).toString('latin1'), filler('wrong-length'));
  });

  test('no-location: a complete 301 whose head has no Location', NET, async (t) => {
    const server = await faultServer(t, 'no-location');
    const got = await exchange(server.port, 'GET', 300);
    const head = parsed(got.head);
    const body = '<!DOCTYPE html>\n<p>Moved Permanently, but the server forgot where.</p>\n';
    assert.deepEqual(
      [head.status, head.fields.location, head.fields['content-length'], got.body.toString('latin1')],
      ['HTTP/1.1 301 Moved Permanently', undefined, String(body.length), body],
    );
  });

  test(
    'endless: chunks keep coming while read, stop while the client does not read, end with the connection',
    NET,
    async (t) => {
      const server = await faultServer(t, 'endless');
      let received = 0;
      const conn = net.connect(server.port, '127.0.0.1', () =>
        conn.write('GET /fault HTTP/1.1\r\nHost: demo.test\r\n\r\n'),
      );
      t.after(() => conn.destroy());
      conn.on('data', (d: Buffer) => (received += d.length));
      await waitFor(() => received > 4 * ENDLESS_CHUNK_BYTES);
      const res = server.lastResponse();
      assert.ok(res !== null);
      // The client stops reading: once the kernel's buffers are full, the server stops writing and its own
      // buffer holds at most what one write past the high-water mark left there.
      conn.pause();
      const written = (): number => res.socket?.bytesWritten ?? -1;
      let sample = -2;
      await waitFor(() => {
        const now = written();
        const stable = now === sample && res.writableNeedDrain;
        sample = now;
        return stable;
      }, 50);
      const whenFull = written();
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(written(), whenFull, 'nothing written while the client does not read');
      assert.ok(
        res.writableLength <= res.writableHighWaterMark + ENDLESS_CHUNK_BYTES,
        `${res.writableLength} bytes queued in the response`,
      );
      conn.resume();
      const resumedAt = received;
      await waitFor(() => received > resumedAt + 8 * ENDLESS_CHUNK_BYTES);
      conn.destroy();
      await waitFor(() => res.destroyed);
      const afterClose = res.writableLength;
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(res.writableLength, afterClose, 'nothing queued after the connection went');
    },
  );

  test('endless to a HEAD: the head only, and the response ends', NET, async (t) => {
    const server = await faultServer(t, 'endless');
    const got = await exchange(server.port, 'HEAD', 300);
    assert.deepEqual(
      [parsed(got.head).status, parsed(got.head).fields['content-type'], got.body.length],
      ['HTTP/1.1 200 OK', HTML_CONTENT_TYPE, 0],
    );
    assert.equal(server.lastResponse()?.writableEnded, true);
  });
});

/** Resolves once `cond` holds, checked every `everyMs` (at most ~5 s). */
async function waitFor(cond: () => boolean, everyMs = 5): Promise<void> {
  for (let i = 0; i < 5000 / everyMs && !cond(); i++) await new Promise((r) => setTimeout(r, everyMs));
  assert.ok(cond(), 'the condition held in time');
}
