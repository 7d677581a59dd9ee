// Tests of runtime/http/client-response.ts with a hand-fed StreamReader as the connection's
// reader, a pool that records what it is given back, and a VirtualClock where time matters:
// the body read once (a second read gives the same bytes) and never past maxBodyBytes; the
// connection released only after the whole body with keep-alive, discarded otherwise; release()
// skipping a small buffered rest, draining a late one for at most DRAIN_TIMEOUT, dropping a
// close-delimited one; Content-Encoding undone with the same cap; read errors mapped to the
// client's typed errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as zlib from 'node:zlib';
import { VirtualClock } from '../../../runtime/clock';
import { coroutine } from '../../../runtime/coroutine';
import { IncompleteReadError, LimitOverrunError, OSError, TimeoutError } from '../../../runtime/errors';
import { EventLoop } from '../../../runtime/loop';
import { Socket } from '../../../runtime/socket';
import { sleep } from '../../../runtime/sleep';
import { StreamReader, StreamWriter } from '../../../runtime/streams';
import type { Coroutine } from '../../../runtime/task';
import { DRAIN_TIMEOUT } from '../../../runtime/http/body-remainder';
import {
  ClientResponse,
  decodeContent,
  readResponseBody,
  translateReadError,
  type ResponseLimits,
} from '../../../runtime/http/client-response';
import { HttpConnection } from '../../../runtime/http/connection';
import { ConnectionPool } from '../../../runtime/http/connection-pool';
import {
  HttpConnectionError,
  HttpError,
  HttpProtocolError,
  HttpTimeoutError,
  HttpTooLargeError,
} from '../../../runtime/http/errors';
import { bodyFraming, parseResponseHead } from '../../../runtime/http/response-head';

const URL_ = 'http://shop.test/item';

/** A pool that only records what the response hands back to it, with the loop time. */
class RecordingPool extends ConnectionPool {
  readonly log: string[] = [];
  constructor(private readonly loop: EventLoop) {
    super();
  }
  override release(conn: HttpConnection): void {
    this.log.push(`release ${conn.origin} at ${this.loop.time()}`);
  }
  override discard(conn: HttpConnection): void {
    this.log.push(`discard ${conn.origin} at ${this.loop.time()}`);
  }
}

interface Fixture {
  loop: EventLoop;
  reader: StreamReader;
  pool: RecordingPool;
  /** A response to a GET whose head is `head` (status line and fields, no blank line). */
  respond(head: string, limits?: Partial<ResponseLimits>, method?: string): ClientResponse;
  /** Runs `body` on the fixture's loop to its end. */
  run<T>(body: () => Coroutine<T>): Promise<T>;
}

/** A virtual-clock loop, a hand-fed reader, a recording pool; all closed after the test. */
function fixture(t: { after(fn: () => void): void }): Fixture {
  const loop = new EventLoop({ clock: new VirtualClock() });
  const reader = new StreamReader();
  // The writer's socket is never connected: the recording pool neither reuses nor closes it.
  const sock = new Socket();
  const conn = new HttpConnection('http://shop.test', reader, new StreamWriter(sock, reader, loop));
  const pool = new RecordingPool(loop);
  t.after(() => {
    sock.close();
    loop.close();
  });
  return {
    loop,
    reader,
    pool,
    respond: (head, limits = {}, method = 'GET') => {
      const parsed = parseResponseHead(Buffer.from(`${head}\r\n\r\n`, 'latin1'), URL_);
      return new ClientResponse(method, URL_, parsed, bodyFraming(parsed, method, URL_), conn, pool, {
        maxBodyBytes: 1000,
        readTimeout: null,
        deadline: Infinity,
        ...limits,
      });
    },
    run: (body) => loop.runUntilComplete(coroutine(body)()),
  };
}

/** What `p` rejects with (it must reject). */
async function failureOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail('it did not fail');
}

/** An HttpError as data: its class name and message. */
function described(e: unknown): { error: string; message: string } {
  assert.ok(e instanceof HttpError, `an HttpError, not ${String(e)}`);
  return { error: e.constructor.name, message: e.message };
}

describe('ClientResponse head fields', () => {
  test('media type and charset come from Content-Type, lower-cased, without parameters', (t) => {
    const f = fixture(t);
    const r = f.respond('HTTP/1.1 200 OK\r\nContent-Type: Text/HTML; Charset="ISO-8859-1"\r\nContent-Length: 0');
    const bare = f.respond('HTTP/1.1 404 Not Found\r\nContent-Length: 0');
    assert.deepEqual(
      [r.status, r.reason, r.version, r.contentType, r.charset, r.toString()],
      [200, 'OK', 11, 'text/html', 'iso-8859-1', `<ClientResponse(${URL_}) [200 OK]>`],
    );
    assert.deepEqual([bare.contentType, bare.charset], ['', null]);
  });

  test('contentLength: the framing length, a HEAD/304 header, else null', (t) => {
    const f = fixture(t);
    assert.deepEqual(
      [
        f.respond('HTTP/1.1 200 OK\r\nContent-Length: 12').contentLength(),
        f.respond('HTTP/1.1 200 OK\r\nContent-Length: 99', {}, 'HEAD').contentLength(),
        f.respond('HTTP/1.1 304 Not Modified\r\nContent-Length: x9').contentLength(),
        f.respond('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked').contentLength(),
        f.respond('HTTP/1.1 200 OK').contentLength(),
      ],
      [12, 99, null, null, null],
    );
  });

  test('a response without a body is read at once and its connection given back', async (t) => {
    const f = fixture(t);
    const head = f.respond('HTTP/1.1 204 No Content');
    assert.equal(head.bodyRead(), true);
    assert.deepEqual(f.pool.log, ['release http://shop.test at 0']);
    assert.equal((await f.run(() => head.read())).length, 0);
    // Connection: close on a bodiless response: dropped, not kept.
    f.respond('HTTP/1.1 304 Not Modified\r\nConnection: close');
    assert.deepEqual(f.pool.log, ['release http://shop.test at 0', 'discard http://shop.test at 0']);
  });
});

describe('ClientResponse.read', () => {
  test('a buffered body is read once; a second read gives the same bytes and touches no connection', async (t) => {
    const f = fixture(t);
    f.reader.feedData(Buffer.from('hello world and the next response'));
    const r = f.respond('HTTP/1.1 200 OK\r\nContent-Length: 11');
    assert.equal(r.bodyRead(), false);
    const [first, second] = await f.run(function* (): Coroutine<[Buffer, Buffer]> {
      return [yield* r.read(), yield* r.read()];
    });
    assert.equal(first.toString(), 'hello world');
    assert.equal(second, first);
    assert.equal(r.bodyRead(), true);
    assert.deepEqual(f.pool.log, ['release http://shop.test at 0']);
    // Only the body was taken: the next response's bytes stay for it.
    assert.equal(f.reader.bufferedBytes(), ' and the next response'.length);
  });

  test('a chunked body arriving over time is joined, its trailers skipped, then the connection released', async (t) => {
    const f = fixture(t);
    const r = f.respond('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked');
    const body = await f.run(function* (): Coroutine<string> {
      const feed = f.loop.createTask(
        coroutine(function* feed(): Coroutine<void> {
          for (const part of ['5\r\nhel', 'lo\r\n6;ext=1\r\n world\r\n', '0\r\nX-Trailer: 1\r\n', '\r\n']) {
            yield* sleep(0.5);
            f.reader.feedData(Buffer.from(part));
          }
        })(),
      );
      const text = yield* r.text();
      yield* feed;
      return text;
    });
    assert.equal(body, 'hello world');
    assert.deepEqual(f.pool.log, ['release http://shop.test at 2']);
  });

  test('without keep-alive (Connection: close, HTTP/1.0) the connection is discarded after the body', async (t) => {
    const f = fixture(t);
    f.reader.feedData(Buffer.from('abab'));
    const closing = f.respond('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2');
    const old = f.respond('HTTP/1.0 200 OK\r\nContent-Length: 2');
    await f.run(function* (): Coroutine<void> {
      yield* closing.read();
      yield* old.read();
    });
    assert.deepEqual(f.pool.log, ['discard http://shop.test at 0', 'discard http://shop.test at 0']);
  });

  test('a body over maxBodyBytes fails with HttpTooLargeError and drops the connection', async (t) => {
    const f = fixture(t);
    const announced = f.respond('HTTP/1.1 200 OK\r\nContent-Length: 11', { maxBodyBytes: 10 });
    assert.deepEqual(described(await failureOf(f.run(() => announced.read()))), {
      error: 'HttpTooLargeError',
      message: `body of 11 bytes exceeds the limit of 10 (${URL_})`,
    });
    const chunked = f.respond('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked', { maxBodyBytes: 10 });
    f.reader.feedData(Buffer.from('6\r\nabcdef\r\n6\r\nghijkl\r\n0\r\n\r\n'));
    assert.deepEqual(described(await failureOf(f.run(() => chunked.read()))), {
      error: 'HttpTooLargeError',
      message: `chunked body exceeds the limit of 10 bytes (${URL_})`,
    });
    assert.deepEqual(f.pool.log, ['discard http://shop.test at 0', 'discard http://shop.test at 0']);
    // The failed response has no connection left: reading again says so.
    assert.deepEqual(described(await failureOf(f.run(() => announced.read()))), {
      error: 'HttpConnectionError',
      message: `the response was released before its body was read (${URL_})`,
    });
  });

  test('a body ending before its Content-Length is an HttpProtocolError', async (t) => {
    const f = fixture(t);
    const r = f.respond('HTTP/1.1 200 OK\r\nContent-Length: 10');
    f.reader.feedData(Buffer.from('abc'));
    f.reader.feedEof();
    assert.deepEqual(described(await failureOf(f.run(() => r.read()))), {
      error: 'HttpProtocolError',
      message: `body ended after 3 of 10 bytes (${URL_})`,
    });
    assert.deepEqual(f.pool.log, ['discard http://shop.test at 0']);
  });

  test('a body that does not come times out at readTimeout, or at the deadline if that is earlier', async (t) => {
    const f = fixture(t);
    const slow = f.respond('HTTP/1.1 200 OK\r\nContent-Length: 5', { readTimeout: 3 });
    assert.deepEqual(described(await failureOf(f.run(() => slow.read()))), {
      error: 'HttpTimeoutError',
      message: `timed out reading the body (${URL_})`,
    });
    const bounded = f.respond('HTTP/1.1 200 OK\r\nContent-Length: 5', { readTimeout: 30, deadline: 5 });
    assert.ok((await failureOf(f.run(() => bounded.read()))) instanceof HttpTimeoutError);
    assert.deepEqual(f.pool.log, ['discard http://shop.test at 3', 'discard http://shop.test at 5']);
  });

  test('a gzip body is decoded; decoded past maxBodyBytes it fails and drops the connection', async (t) => {
    const f = fixture(t);
    const small = zlib.gzipSync(Buffer.from('tiny page'));
    const bomb = zlib.gzipSync(Buffer.alloc(5000, 0x61));
    f.reader.feedData(Buffer.concat([small, bomb]));
    const ok = f.respond(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${small.length}`);
    const big = f.respond(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${bomb.length}`);
    assert.equal(await f.run(() => ok.text()), 'tiny page');
    assert.deepEqual(described(await failureOf(f.run(() => big.read()))), {
      error: 'HttpTooLargeError',
      message: `decoded body exceeds 1000 bytes (${URL_})`,
    });
    assert.deepEqual(f.pool.log, ['release http://shop.test at 0', 'discard http://shop.test at 0']);
  });
});

describe('ClientResponse.text', () => {
  test('decodes with the given encoding, else the charset, else UTF-8; an unknown label is an error', async (t) => {
    const f = fixture(t);
    f.reader.feedData(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    f.reader.feedData(Buffer.from('café', 'utf8'));
    f.reader.feedData(Buffer.from([0xe9]));
    const latin = f.respond('HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Length: 4');
    const plain = f.respond('HTTP/1.1 200 OK\r\nContent-Length: 5');
    const asked = f.respond('HTTP/1.1 200 OK\r\nContent-Length: 1');
    const texts = await f.run(function* (): Coroutine<string[]> {
      return [yield* latin.text(), yield* plain.text(), yield* asked.text('windows-1252')];
    });
    assert.deepEqual(texts, ['café', 'café', 'é']);
    f.reader.feedData(Buffer.from('x'));
    const odd = f.respond('HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=klingon\r\nContent-Length: 1');
    assert.deepEqual(described(await failureOf(f.run(() => odd.text()))), {
      error: 'HttpProtocolError',
      message: `unknown charset "klingon" (${URL_})`,
    });
  });
});

describe('ClientResponse.release', () => {
  test('an unread body already buffered whole is skipped and the connection released at once', async (t) => {
    const f = fixture(t);
    f.reader.feedData(Buffer.from('0123456789NEXT'));
    const r = f.respond('HTTP/1.1 301 Moved\r\nLocation: /x\r\nContent-Length: 10');
    r.release();
    r.release();
    assert.deepEqual(f.pool.log, ['release http://shop.test at 0']);
    assert.equal(f.reader.readNowait(100).toString(), 'NEXT');
    // Skipped, not read: a read now fails instead of giving no bytes.
    assert.ok((await failureOf(f.run(() => r.read()))) instanceof HttpConnectionError);
  });

  test('a small rest still on its way is drained by a task, then the connection released', async (t) => {
    const f = fixture(t);
    f.reader.feedData(Buffer.from('3\r\nab'));
    const r = f.respond('HTTP/1.1 302 Found\r\nTransfer-Encoding: chunked');
    await f.run(function* (): Coroutine<void> {
      r.release();
      assert.deepEqual(f.pool.log, []);
      yield* sleep(0.25);
      f.reader.feedData(Buffer.from('c\r\n0\r\n\r\n'));
      yield* sleep(0.01);
    });
    assert.deepEqual(f.pool.log, ['release http://shop.test at 0.25']);
    assert.equal(f.reader.bufferedBytes(), 0);
  });

  test('a rest that does not arrive within DRAIN_TIMEOUT drops the connection then', async (t) => {
    const f = fixture(t);
    const r = f.respond('HTTP/1.1 200 OK\r\nContent-Length: 50');
    await f.run(function* (): Coroutine<void> {
      r.release();
      yield* sleep(DRAIN_TIMEOUT + 1);
    });
    assert.deepEqual(f.pool.log, [`discard http://shop.test at ${DRAIN_TIMEOUT}`]);
  });

  test('outside a running loop, or with a close-delimited body, the connection is dropped at once', async (t) => {
    const f = fixture(t);
    f.respond('HTTP/1.1 200 OK\r\nContent-Length: 50').release();
    f.reader.feedData(Buffer.from('all of it'));
    const closeDelimited = f.respond('HTTP/1.1 200 OK');
    await f.run(function* (): Coroutine<void> {
      closeDelimited.release();
    });
    assert.deepEqual(f.pool.log, ['discard http://shop.test at 0', 'discard http://shop.test at 0']);
  });

  test('close() drops the connection; a later release() does nothing more', (t) => {
    const f = fixture(t);
    const r = f.respond('HTTP/1.1 200 OK\r\nContent-Length: 5');
    r.close();
    r.release();
    assert.deepEqual(f.pool.log, ['discard http://shop.test at 0']);
  });
});

describe('decodeContent', () => {
  const page = Buffer.from('<html>a page</html>');

  test('identity and an empty body pass through; gzip, both deflates and br are undone', () => {
    assert.deepEqual(
      [
        decodeContent(page, undefined, URL_, 100),
        decodeContent(page, ' Identity ', URL_, 100),
        decodeContent(Buffer.alloc(0), 'gzip', URL_, 100),
        decodeContent(zlib.gzipSync(page), 'x-gzip', URL_, 100),
        decodeContent(zlib.deflateSync(page), 'deflate', URL_, 100),
        decodeContent(zlib.deflateRawSync(page), 'DEFLATE', URL_, 100),
        decodeContent(zlib.brotliCompressSync(page), 'br', URL_, 100),
      ].map((b) => b.toString()),
      ['<html>a page</html>', '<html>a page</html>', '', ...Array(4).fill('<html>a page</html>')],
    );
  });

  test('too large, corrupt and unknown codings are typed errors', () => {
    const failures = [
      () => decodeContent(zlib.gzipSync(page), 'gzip', URL_, 10),
      () => decodeContent(zlib.deflateSync(page), 'deflate', URL_, 10),
      () => decodeContent(Buffer.from('not gzip at all'), 'gzip', URL_, 100),
      () => decodeContent(page, 'compress', URL_, 100),
    ].map((decode) => {
      try {
        decode();
      } catch (e) {
        const d = described(e);
        return { error: d.error, message: d.message.replace(/: .*\(/, ': … (') };
      }
      return null;
    });
    assert.deepEqual(failures, [
      { error: 'HttpTooLargeError', message: `decoded body exceeds 10 bytes (${URL_})` },
      { error: 'HttpTooLargeError', message: `decoded body exceeds 10 bytes (${URL_})` },
      { error: 'HttpProtocolError', message: `cannot decode gzip body: … (${URL_})` },
      { error: 'HttpProtocolError', message: `unsupported Content-Encoding "compress" (${URL_})` },
    ]);
  });
});

describe('readResponseBody', () => {
  /** Reads one body of `framing` from a reader fed `wire` then EOF. */
  async function readFed(
    t: { after(fn: () => void): void },
    wire: string,
    framing: Parameters<typeof readResponseBody>[1],
    max = 100,
  ): Promise<string> {
    const f = fixture(t);
    f.reader.feedData(Buffer.from(wire));
    f.reader.feedEof();
    return (await f.run(() => readResponseBody(f.reader, framing, URL_, max))).toString();
  }

  test('each framing: none, length, chunked with LF-only lines, close-delimited', async (t) => {
    assert.deepEqual(
      [
        await readFed(t, 'ignored', { kind: 'none' }),
        await readFed(t, 'abcdef', { kind: 'length', length: 4 }),
        await readFed(t, '2\nab\n1\nc\n0\n\n', { kind: 'chunked' }),
        await readFed(t, 'to the end', { kind: 'close' }),
      ],
      ['', 'abcd', 'abc', 'to the end'],
    );
  });

  test('chunk data longer than its size, and a close-delimited body past the limit, fail', async (t) => {
    assert.deepEqual(described(await failureOf(readFed(t, '2\r\nabc\r\n0\r\n\r\n', { kind: 'chunked' }))), {
      error: 'HttpProtocolError',
      message: `chunk data longer than its size (${URL_})`,
    });
    assert.deepEqual(described(await failureOf(readFed(t, 'x'.repeat(11), { kind: 'close' }, 10))), {
      error: 'HttpTooLargeError',
      message: `body exceeds the limit of 10 bytes (${URL_})`,
    });
  });
});

describe('translateReadError', () => {
  test("maps stream and socket failures to the client's typed errors, keeping the cause", () => {
    const timeout = new TimeoutError();
    const overrun = new LimitOverrunError('no separator', 70000);
    const incomplete = new IncompleteReadError(Buffer.from('ab'), 5);
    const reset = new OSError('ECONNRESET', 'Connection reset by peer');
    const mapped = [timeout, overrun, incomplete, reset].map((e) => {
      const out = translateReadError(e, URL_, 'reading the head');
      assert.ok(out instanceof HttpError);
      return { error: out.constructor.name, message: out.message, causeKept: out.cause === e };
    });
    assert.deepEqual(mapped, [
      { error: 'HttpTimeoutError', message: `timed out reading the head (${URL_})`, causeKept: true },
      { error: 'HttpTooLargeError', message: `line too long reading the head (${URL_})`, causeKept: true },
      { error: 'HttpProtocolError', message: `connection closed reading the head (${URL_})`, causeKept: true },
      {
        error: 'HttpConnectionError',
        message: `${reset.message} (reading the head) (${URL_})`,
        causeKept: true,
      },
    ]);
  });

  test('the client’s own errors and anything else pass through unchanged', () => {
    const own = [
      new HttpProtocolError(URL_, 'p'),
      new HttpTooLargeError(URL_, 'l'),
      new HttpTimeoutError(URL_, 't'),
      new HttpConnectionError(URL_, 'c'),
    ];
    const other = new TypeError('a bug');
    for (const e of [...own, other, 'a string']) assert.equal(translateReadError(e, URL_, 'x'), e);
  });
});
