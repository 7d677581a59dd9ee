// Tests of ClientSession / ClientResponse / ConnectionPool against real loopback servers:
// node:http for well-behaved ones, raw node:net for servers that break HTTP on purpose,
// node:https with a self-signed certificate made here (no openssl binary needed).
// Every server listens on 127.0.0.1 port 0 and is closed by its test (t.after); servers
// count their sockets so that tests can check that the client closes what it drops.
// Time limits are small (0.2 s). No assertion holds a wall-clock window (a loaded machine makes
// any upper bound flaky): a timeout is asserted by its order against the others (the error says
// which fired, before the longer ones) and by its due time (firedAfter: a loop timer never fires
// before it, on the loop's clock). The `total` tests run on a VirtualClock the server moves.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import * as zlib from 'node:zlib';
import {
  coroutine,
  EventLoop,
  getRunningLoop,
  run,
  sleep,
  VirtualClock,
  type Coroutine,
  type LoopObserver,
} from '../../../runtime/index';
import { ClientSession, type ClientSessionOptions } from '../../../runtime/http/client-session';
import type { ClientResponse } from '../../../runtime/http/client-response';
import {
  HttpConnectionError,
  HttpError,
  HttpProtocolError,
  HttpTimeoutError,
  HttpTooLargeError,
  InvalidUrlError,
  TooManyRedirectsError,
} from '../../../runtime/http/errors';

// --- loopback servers ------------------------------------------------------------------

interface TestServer {
  readonly port: number;
  url(path?: string, scheme?: string): string;
  /** Connections accepted so far. */
  accepted(): number;
  /** Connections still open on the server side. */
  open(): number;
  close(): Promise<void>;
}

function track(server: net.Server, sockets: Set<net.Socket>, counter: { accepted: number }, event: string): void {
  server.on(event, (socket: net.Socket) => {
    counter.accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
}

function listen(
  server: net.Server,
  sockets: Set<net.Socket>,
  counter: { accepted: number },
  scheme: string,
): Promise<TestServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      resolve({
        port,
        url: (path = '/', s = scheme) => `${s}://127.0.0.1:${port}${path}`,
        accepted: () => counter.accepted,
        open: () => sockets.size,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A node:http server; `setup` may tune it (keepAliveTimeout, ...). */
async function httpServer(
  t: TestContext,
  handler: http.RequestListener,
  setup?: (server: http.Server) => void,
): Promise<TestServer> {
  const server = http.createServer(handler);
  setup?.(server);
  return serveTracked(t, server);
}

/** Listens with `server` on loopback, counting its connections; the test closes it. */
async function serveTracked(t: TestContext, server: net.Server): Promise<TestServer> {
  const sockets = new Set<net.Socket>();
  const counter = { accepted: 0 };
  track(server, sockets, counter, 'connection');
  const s = await listen(server, sockets, counter, 'http');
  t.after(() => s.close());
  return s;
}

/** A raw TCP server: `onRequest` gets each request head (path, index on its connection) and the socket. */
async function rawServer(
  t: TestContext,
  onRequest: (path: string, socket: net.Socket, nth: number) => void,
  onConnect?: (socket: net.Socket) => void,
): Promise<TestServer> {
  const server = net.createServer((socket) => {
    onConnect?.(socket);
    let pending = Buffer.alloc(0);
    let nth = 0;
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.subarray(0, end).toString('latin1');
        pending = pending.subarray(end + 4);
        const path = head.split(' ')[1] ?? '/';
        onRequest(path, socket, nth++);
      }
    });
  });
  const sockets = new Set<net.Socket>();
  const counter = { accepted: 0 };
  track(server, sockets, counter, 'connection');
  const s = await listen(server, sockets, counter, 'http');
  t.after(() => s.close());
  return s;
}

/** A port on 127.0.0.1 where nothing listens (it was just freed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Waits (in real time, outside the runtime) until the server has no open socket; fails after `ms`.
 * A hang catcher, not a window: a socket the client closed is seen closed within milliseconds, one it
 * left open never is, so the deadline is generous enough for a loaded machine.
 */
async function allClosed(server: TestServer, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (server.open() > 0) {
    if (Date.now() > end) assert.fail(`${server.open()} server-side socket(s) still open ${ms} ms later`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// --- driving the client ------------------------------------------------------------------

/** Runs `body` with a fresh session (closed afterwards) on a fresh loop, with run(). */
function withSession<T>(options: ClientSessionOptions, body: (session: ClientSession) => Coroutine<T>): Promise<T> {
  return run(
    coroutine(function* main(): Coroutine<T> {
      const session = new ClientSession(options);
      try {
        return yield* body(session);
      } finally {
        session.close();
      }
    })(),
  );
}

/** GET and read the body as text. */
const fetchText = coroutine(function* fetchText(
  session: ClientSession,
  url: string,
): Coroutine<{ response: ClientResponse; text: string }> {
  const response = yield* session.get(url);
  const text = yield* response.text();
  return { response, text };
});

const readBodyOf = coroutine(function* readBodyOf(session: ClientSession, url: string): Coroutine<Buffer> {
  const response = yield* session.get(url);
  return yield* response.read();
});

/** Runs a coroutine and returns what it threw (fails if it did not throw). */
const caught = coroutine(function* caught(coro: Coroutine<unknown>): Coroutine<unknown> {
  try {
    yield* coro;
  } catch (e) {
    return e;
  }
  assert.fail('expected an error');
});

/** Asserts `e` is an instance of `cls`, names `url` and matches `pattern`. */
function assertHttpError(e: unknown, cls: new (...args: never[]) => HttpError, url: string, pattern: RegExp): void {
  assert.ok(
    e instanceof cls,
    `expected ${cls.name}, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
  );
  assert.ok(e instanceof HttpError);
  assert.equal(e.url, url);
  assert.ok(e.message.includes(url), `the message names the URL: ${e.message}`);
  assert.match(e.message, pattern);
  assert.equal(e.name, cls.name);
}

function elapsedSince(t0: number): number {
  return getRunningLoop().time() - t0;
}

/** The loop's seconds from before a call to its timeout error are at least the timeout's (never early). */
function firedAfter(seconds: number, timeout: number): void {
  assert.ok(seconds >= timeout - 1e-9, `the ${timeout} s timeout fired after ${seconds} s`);
}

const SHORT = { connect: 2, read: 2, total: 5 };

/** The content codings an Accept-Encoding header lists, in order (RFC 9110: comma-separated, no weights here). */
function codingsOf(header: string | string[] | undefined): string[] {
  return String(header ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

// --- bodies and framing -------------------------------------------------------------------

test('Content-Length body: status, headers, content type and charset', async (t) => {
  const server = await httpServer(t, (req, res) => {
    const body = Buffer.from(`hello ${req.url}`);
    res.writeHead(200, 'Fine', {
      'Content-Type': 'Text/Plain; Charset="ISO-8859-1"',
      'Content-Length': body.length,
      'X-Multi': ['a', 'b'],
    });
    res.end(body);
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const response = yield* session.get(server.url('/x?q=1'));
    assert.equal(response.contentLength(), 12);
    assert.equal(response.bodyRead(), false);
    const text = yield* response.text();
    return { response, text, again: yield* response.read() };
  });
  assert.equal(got.response.status, 200);
  assert.equal(got.response.reason, 'Fine');
  assert.equal(got.response.version, 11);
  assert.equal(got.response.url, server.url('/x?q=1'));
  assert.equal(got.response.contentType, 'text/plain');
  assert.equal(got.response.charset, 'iso-8859-1');
  assert.equal(got.response.headers.get('x-multi'), 'a, b');
  assert.deepEqual(got.response.history, []);
  assert.equal(got.text, 'hello /x?q=1');
  assert.equal(got.again.toString(), 'hello /x?q=1', 'a second read returns the same bytes');
  assert.equal(got.response.bodyRead(), true);
  assert.match(String(got.response), /\[200 Fine\]/);
});

test('the request carries Host, User-Agent, Accept-Encoding and extra headers', async (t) => {
  let seen: http.IncomingHttpHeaders = {};
  let seenPath = '';
  const server = await httpServer(t, (req, res) => {
    seen = req.headers;
    seenPath = req.url ?? '';
    res.end('ok');
  });
  await withSession({ timeout: SHORT, userAgent: 'test-agent/1', headers: { 'X-Session': 's' } }, function* (session) {
    const response = yield* session.get(server.url('/p/a%20b?x=1#frag'), { headers: { 'X-Request': 'r' } });
    yield* response.read();
  });
  assert.equal(seen.host, `127.0.0.1:${server.port}`);
  assert.equal(seen['user-agent'], 'test-agent/1');
  assert.deepEqual(codingsOf(seen['accept-encoding']), ['gzip', 'deflate']);
  assert.equal(seen['x-session'], 's');
  assert.equal(seen['x-request'], 'r');
  assert.equal(seenPath, '/p/a%20b?x=1', 'the fragment is never sent');
});

test('chunked body with trailers is read whole and the connection is reused after it', async (t) => {
  const server = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', Trailer: 'X-Checksum' });
    res.write('hello ');
    res.write('chunked ');
    res.write('world');
    res.addTrailers({ 'X-Checksum': 'abc123' });
    res.end();
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const first = yield* fetchText(session, server.url('/1'));
    const second = yield* fetchText(session, server.url('/2'));
    return { first, second, opened: session.pool.openedCount() };
  });
  assert.equal(got.first.response.headers.get('transfer-encoding'), 'chunked');
  assert.equal(got.first.response.contentLength(), null);
  assert.equal(got.first.text, 'hello chunked world');
  assert.equal(got.second.text, 'hello chunked world');
  assert.equal(got.opened, 1, 'the trailers were consumed, so the connection stayed usable');
  assert.equal(server.accepted(), 1);
});

test('raw chunked body with extensions, LF-only lines and several trailers', async (t) => {
  const server = await rawServer(t, (_path, socket) => {
    socket.write(
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
        '5;name=value\r\nhello\r\n' +
        '1\nX\n' +
        'A\r\n0123456789\r\n' +
        '0\r\nX-T1: 1\r\nX-T2: 2\n\r\n',
    );
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const a = yield* fetchText(session, server.url('/a'));
    const b = yield* fetchText(session, server.url('/b'));
    return { a: a.text, b: b.text, opened: session.pool.openedCount() };
  });
  assert.equal(got.a, 'helloX0123456789');
  assert.equal(got.b, 'helloX0123456789');
  assert.equal(got.opened, 1);
});

test('chunk data followed by something other than a line end is a protocol error', async (t) => {
  const server = await rawServer(t, (_path, socket) => {
    socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\n0\r\n\r\n');
  });
  const url = server.url('/extra');
  const e = await withSession({ timeout: SHORT }, function* (session) {
    const response = yield* session.get(url);
    return yield* caught(response.read());
  });
  assertHttpError(e, HttpProtocolError, url, /chunk data longer than its size/);
  await allClosed(server);
});

test('close-delimited body is read to EOF and the connection is not reused', async (t) => {
  const body = 'x'.repeat(200_000);
  const server = await rawServer(t, (_path, socket) => {
    socket.end(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n${body}`);
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const a = yield* fetchText(session, server.url('/a'));
    const b = yield* fetchText(session, server.url('/b'));
    return { a: a.text, b: b.text, opened: session.pool.openedCount() };
  });
  assert.equal(got.a.length, body.length);
  assert.equal(got.b, body);
  assert.equal(got.opened, 2);
  await allClosed(server);
});

test('HTTP/1.0 with Content-Length and no keep-alive is not reused; with keep-alive it is', async (t) => {
  const server = await rawServer(t, (path, socket) => {
    const keep = path.startsWith('/keep');
    socket.write(`HTTP/1.0 200 OK\r\nContent-Length: 2\r\n${keep ? 'Connection: keep-alive\r\n' : ''}\r\nok`);
    if (!keep) socket.end();
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    yield* fetchText(session, server.url('/close-1'));
    yield* fetchText(session, server.url('/close-2'));
    const afterClose = session.pool.openedCount();
    yield* fetchText(session, server.url('/keep-1'));
    yield* fetchText(session, server.url('/keep-2'));
    return { afterClose, afterKeep: session.pool.openedCount() };
  });
  assert.equal(got.afterClose, 2);
  assert.equal(got.afterKeep, 3);
});

test('HEAD, 204 and 304 have no body; the connection stays in sync for the next request', async (t) => {
  const server = await httpServer(t, (req, res) => {
    if (req.url === '/204') {
      res.writeHead(204);
      res.end();
    } else if (req.url === '/304') {
      res.writeHead(304, { ETag: '"v1"' });
      res.end();
    } else {
      const body = 'z'.repeat(1000);
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
    }
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const head = yield* session.head(server.url('/page'));
    const headBody = yield* head.read();
    const r204 = yield* session.get(server.url('/204'));
    const r304 = yield* session.get(server.url('/304'));
    const page = yield* fetchText(session, server.url('/page'));
    return {
      head: [head.status, head.method, head.contentLength(), headBody.length, head.bodyRead()],
      r204: [r204.status, (yield* r204.read()).length, r204.bodyRead()],
      r304: [r304.status, (yield* r304.read()).length, r304.headers.get('etag')],
      page: page.text.length,
      opened: session.pool.openedCount(),
    };
  });
  assert.deepEqual(got.head, [200, 'HEAD', 1000, 0, true]);
  assert.deepEqual(got.r204, [204, 0, true]);
  assert.deepEqual(got.r304, [304, 0, '"v1"']);
  assert.equal(got.page, 1000);
  assert.equal(got.opened, 1, 'no body was waited for after HEAD/204/304');
});

test('a sloppy server: LF-only lines, interim 1xx responses, mixed line ends', async (t) => {
  const server = await rawServer(t, (path, socket) => {
    if (path === '/lf') socket.write('HTTP/1.1 200 OK\nContent-Length: 3\nX-A: 1\n\nabc');
    else if (path === '/interim')
      socket.write(
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ndef',
      );
    else socket.write('HTTP/1.1 200 OK\nContent-Length: 3\n\r\nghi');
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const lf = yield* fetchText(session, server.url('/lf'));
    const interim = yield* fetchText(session, server.url('/interim'));
    const mixed = yield* fetchText(session, server.url('/mixed'));
    return {
      lf: lf.text,
      a: lf.response.headers.get('x-a'),
      interim: [interim.response.status, interim.text],
      mixed: mixed.text,
      opened: session.pool.openedCount(),
    };
  });
  assert.equal(got.lf, 'abc');
  assert.equal(got.a, '1');
  assert.deepEqual(got.interim, [200, 'def']);
  assert.equal(got.mixed, 'ghi');
  assert.equal(got.opened, 1);
});

// --- content encodings ------------------------------------------------------------------------

const PLAIN = 'Coroscope says hello. '.repeat(200);

test('gzip, x-gzip, deflate (zlib-wrapped and raw) and br bodies are decoded', async (t) => {
  let acceptEncoding = '';
  const server = await httpServer(t, (req, res) => {
    acceptEncoding = String(req.headers['accept-encoding']);
    const plain = Buffer.from(PLAIN);
    const encoded: Record<string, [string, Buffer]> = {
      '/gzip': ['gzip', zlib.gzipSync(plain)],
      '/x-gzip': ['x-gzip', zlib.gzipSync(plain)],
      '/deflate-zlib': ['deflate', zlib.deflateSync(plain)],
      '/deflate-raw': ['deflate', zlib.deflateRawSync(plain)],
      '/br': ['br', zlib.brotliCompressSync(plain)],
      '/identity': ['identity', plain],
      '/GZIP-upper': ['GZIP', zlib.gzipSync(plain)],
    };
    const [enc, body] = encoded[req.url ?? '']!;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': enc, 'Content-Length': body.length });
    res.end(body);
  });
  const paths = ['/gzip', '/x-gzip', '/deflate-zlib', '/deflate-raw', '/br', '/identity', '/GZIP-upper'];
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const texts: string[] = [];
    for (const p of paths) texts.push((yield* fetchText(session, server.url(p))).text);
    return { texts, opened: session.pool.openedCount() };
  });
  for (const [i, text] of got.texts.entries()) assert.equal(text, PLAIN, `${paths[i]} decodes`);
  assert.equal(got.opened, 1);
  assert.deepEqual(codingsOf(acceptEncoding), ['gzip', 'deflate']);
});

test('gzip sent chunked is decoded; text() uses the charset of Content-Type', async (t) => {
  const server = await httpServer(t, (_req, res) => {
    const gz = zlib.gzipSync(Buffer.from('caf\u00e9 cr\u00e8me', 'latin1'));
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=iso-8859-1', 'Content-Encoding': 'gzip' });
    res.write(gz.subarray(0, 10));
    res.end(gz.subarray(10));
  });
  const text = await withSession({ timeout: SHORT }, function* (session) {
    return (yield* fetchText(session, server.url('/'))).text;
  });
  assert.equal(text, 'caf\u00e9 cr\u00e8me');
});

test('a corrupt or unsupported encoding is a protocol error; an unknown charset too', async (t) => {
  const server = await httpServer(t, (req, res) => {
    if (req.url === '/corrupt') {
      const gz = zlib.gzipSync(Buffer.from(PLAIN));
      gz[20] = gz[20]! ^ 0xff;
      res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': gz.length });
      res.end(gz);
    } else if (req.url === '/truncated') {
      const gz = zlib.gzipSync(Buffer.from(PLAIN)).subarray(0, 30);
      res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': gz.length });
      res.end(gz);
    } else if (req.url === '/compress') {
      res.writeHead(200, { 'Content-Encoding': 'compress', 'Content-Length': 3 });
      res.end('abc');
    } else {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=no-such-charset', 'Content-Length': 3 });
      res.end('abc');
    }
  });
  const errors = await withSession({ timeout: SHORT }, function* (session) {
    const out: unknown[] = [];
    for (const p of ['/corrupt', '/truncated', '/compress', '/charset']) {
      const response = yield* session.get(server.url(p));
      out.push(yield* caught(response.text()));
    }
    return out;
  });
  assertHttpError(errors[0], HttpProtocolError, server.url('/corrupt'), /cannot decode gzip body/);
  assertHttpError(errors[1], HttpProtocolError, server.url('/truncated'), /cannot decode gzip body/);
  assertHttpError(errors[2], HttpProtocolError, server.url('/compress'), /unsupported Content-Encoding "compress"/);
  assertHttpError(errors[3], HttpProtocolError, server.url('/charset'), /unknown charset "no-such-charset"/);
});

test('a compression bomb stops at maxBodyBytes: gzip, and deflate zlib-wrapped or raw', async (t) => {
  const big = Buffer.alloc(4 << 20, 0x61);
  const bodies: Record<string, [string, Buffer]> = {
    '/gzip': ['gzip', zlib.gzipSync(big)],
    '/deflate-zlib': ['deflate', zlib.deflateSync(big)],
    '/deflate-raw': ['deflate', zlib.deflateRawSync(big)],
    '/br': ['br', zlib.brotliCompressSync(big)],
  };
  const server = await httpServer(t, (req, res) => {
    const [enc, body] = bodies[req.url ?? '']!;
    res.writeHead(200, { 'Content-Encoding': enc, 'Content-Length': body.length });
    res.end(body);
  });
  const errors = await withSession({ timeout: SHORT, maxBodyBytes: 1 << 20 }, function* (session) {
    const out: unknown[] = [];
    for (const p of Object.keys(bodies)) {
      const response = yield* session.get(server.url(p));
      out.push(yield* caught(response.read()));
    }
    return out;
  });
  for (const [i, p] of Object.keys(bodies).entries()) {
    assertHttpError(errors[i], HttpTooLargeError, server.url(p), /decoded body exceeds 1048576 bytes/);
  }
});

// --- keep-alive and the pool -------------------------------------------------------------------

test('keep-alive: sequential requests reuse one connection (openedCount stays 1)', async (t) => {
  const server = await httpServer(t, (req, res) => {
    if (req.url === '/chunked') {
      res.write('part1 ');
      res.end('part2');
    } else res.end(`page ${req.url}`);
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const texts: string[] = [];
    const opened: number[] = [];
    for (const p of ['/a', '/chunked', '/b', '/chunked', '/c']) {
      texts.push((yield* fetchText(session, server.url(p))).text);
      opened.push(session.pool.openedCount());
    }
    return { texts, opened, stats: session.pool.stats() };
  });
  assert.deepEqual(got.texts, ['page /a', 'part1 part2', 'page /b', 'part1 part2', 'page /c']);
  assert.deepEqual(got.opened, [1, 1, 1, 1, 1]);
  assert.deepEqual(got.stats, { active: 0, idle: 1, waiting: 0 });
  assert.equal(server.accepted(), 1);
  await allClosed(server); // session.close() closed the idle connection
});

test('a connection the server closed while idle is not reused: the next request opens a fresh one', async (t) => {
  const server = await httpServer(
    t,
    (req, res) => res.end(`page ${req.url}`),
    (s) => {
      s.keepAliveTimeout = 100; // ms: the server drops idle connections quickly
    },
  );
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const a = (yield* fetchText(session, server.url('/a'))).text;
    // Wait until the server has really closed the idle connection.
    for (let i = 0; i < 200 && server.open() > 0; i++) yield* sleep(0.02);
    const b = (yield* fetchText(session, server.url('/b'))).text;
    return { a, b, opened: session.pool.openedCount() };
  });
  assert.equal(got.a, 'page /a');
  assert.equal(got.b, 'page /b');
  assert.equal(got.opened, 2);
});

test('a reused connection that the server closes on the next request is retried once on a fresh one', async (t) => {
  const server = await rawServer(t, (path, socket, nth) => {
    // The second request on any connection: close without answering (a keep-alive race).
    if (nth >= 1) {
      socket.destroy();
      return;
    }
    socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${path.length}\r\n\r\n${path}`);
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const a = (yield* fetchText(session, server.url('/a'))).text;
    const b = (yield* fetchText(session, server.url('/bb'))).text;
    const c = (yield* fetchText(session, server.url('/ccc'))).text;
    return { a, b, c, opened: session.pool.openedCount() };
  });
  assert.deepEqual([got.a, got.b, got.c], ['/a', '/bb', '/ccc']);
  assert.equal(got.opened, 3);
  assert.equal(server.accepted(), 3);
});

test('a fresh connection closed before any response is not retried: protocol error', async (t) => {
  const server = await rawServer(t, (_path, socket) => socket.destroy());
  const url = server.url('/gone');
  const e = await withSession({ timeout: SHORT }, function* (session) {
    const e = yield* caught(session.get(url));
    return { e, opened: session.pool.openedCount() };
  });
  assertHttpError(e.e, HttpProtocolError, url, /connection closed reading the response head/);
  assert.equal(e.opened, 1);
});

test('release() without reading: a body already here keeps the connection, a big one drops it', async (t) => {
  const big = Buffer.alloc(1 << 20, 0x62);
  const server = await rawServer(t, (path, socket) => {
    if (path === '/small') socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nsmall');
    else if (path === '/big')
      socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n`), big]));
    else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const small = yield* session.get(server.url('/small'));
    small.release();
    small.release(); // twice is harmless
    const readSkipped = yield* caught(small.read());
    const afterSmall = session.pool.openedCount();
    yield* fetchText(session, server.url('/next'));
    const afterNext = session.pool.openedCount();
    const bigResponse = yield* session.get(server.url('/big'));
    bigResponse.release();
    const readAfterRelease = yield* caught(bigResponse.read());
    const statsAfterBig = session.pool.stats();
    const last = (yield* fetchText(session, server.url('/last'))).text;
    return {
      afterSmall,
      afterNext,
      statsAfterBig,
      readSkipped,
      readAfterRelease,
      last,
      opened: session.pool.openedCount(),
    };
  });
  assert.equal(got.afterSmall, 1);
  assert.equal(got.afterNext, 1, 'the small body was skipped and the connection reused');
  assertHttpError(got.readSkipped, HttpConnectionError, server.url('/small'), /released before its body was read/);
  assert.deepEqual(got.statsAfterBig, { active: 0, idle: 0, waiting: 0 }, 'the big response dropped its connection');
  assertHttpError(got.readAfterRelease, HttpConnectionError, server.url('/big'), /released before its body was read/);
  assert.equal(got.last, 'ok');
  assert.equal(got.opened, 2);
  await allClosed(server);
});

test('release() of node:http redirects (chunked, empty body) keeps the connection, followed or not', async (t) => {
  const server = await httpServer(t, (req, res) => {
    if (req.url?.startsWith('/r/')) {
      // What a hand-written node:http app sends: no Content-Length, so an empty chunked body.
      res.writeHead(301, { Location: `/p/${req.url.slice(3)}` });
      res.end();
    } else res.end(`page ${req.url}`);
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const texts: string[] = [];
    for (let i = 0; i < 5; i++) {
      const redirect = yield* session.get(server.url(`/r/${i}`), { allowRedirects: false });
      assert.equal(redirect.headers.get('transfer-encoding'), 'chunked');
      redirect.release();
      texts.push((yield* fetchText(session, server.url(`/r/${i}`))).text);
    }
    return { texts, opened: session.pool.openedCount(), stats: session.pool.stats() };
  });
  assert.deepEqual(got.texts, ['page /p/0', 'page /p/1', 'page /p/2', 'page /p/3', 'page /p/4']);
  assert.equal(got.opened, 1, 'every released chunked redirect gave its connection back');
  assert.equal(server.accepted(), 1);
});

test('release() before a small body has arrived drains it in a task and reuses the connection', async (t) => {
  const server = await rawServer(t, (path, socket) => {
    if (path === '/slow-chunked') {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel');
      setTimeout(() => socket.write('lo\r\n0\r\n\r\n'), 50);
    } else if (path === '/slow-length') {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello');
      setTimeout(() => socket.write('world'), 50);
    } else if (path === '/never-ends') {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel');
    } else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const out: Array<{ active: number; idle: number }> = [];
    for (const path of ['/slow-chunked', '/slow-length']) {
      const response = yield* session.get(server.url(path));
      response.release();
      const during = session.pool.stats();
      yield* sleep(0.3);
      const after = session.pool.stats();
      out.push({ active: during.active, idle: during.idle }, { active: after.active, idle: after.idle });
      assert.equal((yield* fetchText(session, server.url('/next'))).text, 'ok');
    }
    const openedBefore = session.pool.openedCount();
    const stuck = yield* session.get(server.url('/never-ends'));
    const t0 = getRunningLoop().time();
    stuck.release();
    while (session.pool.stats().active > 0) yield* sleep(0.05);
    const drainGaveUpAfter = elapsedSince(t0);
    const last = (yield* fetchText(session, server.url('/last'))).text;
    return {
      out,
      openedBefore,
      drainGaveUpAfter,
      last,
      opened: session.pool.openedCount(),
      stats: session.pool.stats(),
    };
  });
  // While the rest is on its way the connection keeps its slot; then it is idle in the pool.
  assert.deepEqual(got.out, [
    { active: 1, idle: 0 },
    { active: 0, idle: 1 },
    { active: 1, idle: 0 },
    { active: 0, idle: 1 },
  ]);
  assert.equal(got.openedBefore, 1, 'both slow bodies were drained and their connection reused');
  assert.ok(
    got.drainGaveUpAfter >= 0.9 && got.drainGaveUpAfter < 5,
    `a body that never ends is given up after about a second: ${got.drainGaveUpAfter}`,
  );
  assert.equal(got.last, 'ok');
  assert.equal(got.opened, 2, 'the never-ending response dropped its connection');
  await allClosed(server);
});

test('the pool limit makes requests wait for a slot, in order', async (t) => {
  const server = await httpServer(t, (req, res) => setTimeout(() => res.end(`page ${req.url}`), 50));
  const got = await withSession({ timeout: SHORT, limit: 1 }, function* (session) {
    const loop = getRunningLoop();
    const order: string[] = [];
    const one = coroutine(function* one(p: string): Coroutine<void> {
      const { text } = yield* fetchText(session, server.url(p));
      order.push(text);
    });
    const tasks = ['/1', '/2', '/3'].map((p) => loop.createTask(one(p)));
    yield* sleep(0); // one step each: the first takes the slot, the others queue
    const waiting = session.pool.stats().waiting;
    for (const task of tasks) yield* task;
    return { order, waiting, opened: session.pool.openedCount() };
  });
  assert.deepEqual(got.order, ['page /1', 'page /2', 'page /3']);
  assert.equal(got.waiting, 2);
  assert.equal(got.opened, 1);
});

test('closing the session fails requests waiting for a slot with a typed error', async (t) => {
  const server = await httpServer(t, (_req, res) => res.end('ok'));
  const url = server.url('/waits');
  const got = await withSession({ timeout: SHORT, limit: 1 }, function* (session) {
    const loop = getRunningLoop();
    const holder = yield* session.get(server.url('/holder')); // keeps the only slot
    const waiter = loop.createTask(caught(session.get(url)));
    yield* sleep(0.05);
    session.close();
    const e = yield* waiter;
    holder.release();
    const afterClose = yield* caught(session.get(url));
    return { e, afterClose, waiterCancelled: waiter.cancelled() };
  });
  assert.equal(got.waiterCancelled, false);
  assertHttpError(got.e, HttpConnectionError, url, /session is closed/);
  assertHttpError(got.afterClose, HttpConnectionError, url, /session is closed/);
  await allClosed(server);
});

// --- redirects ------------------------------------------------------------------------------

test('allowRedirects (default): follows 300/301/302/303/307/308 (the set the crawlers use), keeps the history, reuses the connection', async (t) => {
  const server = await httpServer(t, (req, res) => {
    const hops: Record<string, [number, string]> = {
      '/r0': [300, '/r1'],
      '/r1': [302, '/r2'],
      '/r2': [301, 'r3'],
      '/r3': [303, '/r4?x=1'],
      '/r4?x=1': [307, '/r5'],
      '/r5': [308, `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}/final`],
    };
    const hop = hops[req.url ?? ''];
    if (hop !== undefined) {
      res.writeHead(hop[0], { Location: hop[1], 'Content-Length': 0 });
      res.end();
    } else res.end(`final ${req.url}`);
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const { response, text } = yield* fetchText(session, server.url('/r0'));
    return { response, text, opened: session.pool.openedCount() };
  });
  assert.equal(got.text, 'final /final');
  assert.equal(got.response.status, 200);
  assert.equal(got.response.url, server.url('/final'));
  assert.deepEqual(
    got.response.history.map((r) => [r.status, r.url]),
    [
      [300, server.url('/r0')],
      [302, server.url('/r1')],
      [301, server.url('/r2')],
      [303, server.url('/r3')],
      [307, server.url('/r4?x=1')],
      [308, server.url('/r5')],
    ],
  );
  assert.equal(got.opened, 1, 'released redirect responses (Content-Length: 0) give their connection back');
});

test('allowRedirects false returns the redirect itself; a 3xx without Location is returned as is', async (t) => {
  const server = await httpServer(t, (req, res) => {
    if (req.url === '/moved') {
      res.writeHead(302, { Location: '/target' });
      res.end('moved');
    } else if (req.url === '/nowhere') {
      res.writeHead(301, { 'Content-Type': 'text/html' });
      res.end('<p>moved, but where?</p>');
    } else res.end('target');
  });
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const r = yield* session.get(server.url('/moved'), { allowRedirects: false });
    const body = yield* r.text();
    const nowhere = yield* fetchText(session, server.url('/nowhere'));
    return {
      status: r.status,
      location: r.headers.get('location'),
      body,
      history: r.history.length,
      nowhere: [nowhere.response.status, nowhere.text],
    };
  });
  assert.deepEqual(got, {
    status: 302,
    location: '/target',
    body: 'moved',
    history: 0,
    nowhere: [301, '<p>moved, but where?</p>'],
  });
});

test('too many redirects: TooManyRedirectsError after maxRedirects, no connection left behind', async (t) => {
  let requests = 0;
  const server = await httpServer(t, (_req, res) => {
    requests++;
    res.writeHead(302, { Location: '/loop', 'Content-Length': 0 });
    res.end();
  });
  const url = server.url('/loop');
  const got = await withSession({ timeout: SHORT, maxRedirects: 3 }, function* (session) {
    const e = yield* caught(session.get(url));
    return { e, stats: session.pool.stats() };
  });
  assertHttpError(got.e, TooManyRedirectsError, url, /more than 3 redirects/);
  assert.equal(requests, 4);
  assert.equal(got.stats.active, 0);
});

test('an invalid Location or one with another scheme is an InvalidUrlError', async (t) => {
  const server = await httpServer(t, (req, res) => {
    res.writeHead(302, { Location: req.url === '/bad' ? 'http://[' : 'ftp://127.0.0.1/file', 'Content-Length': 0 });
    res.end();
  });
  const errors = await withSession({ timeout: SHORT }, function* (session) {
    return [yield* caught(session.get(server.url('/bad'))), yield* caught(session.get(server.url('/ftp')))];
  });
  assertHttpError(errors[0], InvalidUrlError, server.url('/bad'), /invalid Location "http:\/\/\["/);
  assertHttpError(errors[1], InvalidUrlError, 'ftp://127.0.0.1/file', /unsupported scheme "ftp"/);
});

// --- size limits ----------------------------------------------------------------------------------

test('maxBodyBytes: Content-Length, chunked and close-delimited bodies over the limit', async (t) => {
  const server = await rawServer(t, (path, socket) => {
    const body = 'y'.repeat(5000);
    const chunk = '400\r\n' + 'c'.repeat(1024) + '\r\n'; // 5 chunks of 1 KiB: over 4 KiB at the 4th
    if (path === '/length') socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    else if (path === '/chunked')
      socket.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.repeat(5)}0\r\n\r\n`);
    else socket.end(`HTTP/1.1 200 OK\r\n\r\n${body}`);
  });
  const errors = await withSession({ timeout: SHORT, maxBodyBytes: 4096 }, function* (session) {
    const out: unknown[] = [];
    for (const p of ['/length', '/chunked', '/close']) {
      const response = yield* session.get(server.url(p));
      out.push(yield* caught(response.read()));
    }
    return out;
  });
  assertHttpError(errors[0], HttpTooLargeError, server.url('/length'), /body of 5000 bytes exceeds the limit of 4096/);
  assertHttpError(errors[1], HttpTooLargeError, server.url('/chunked'), /chunked body exceeds the limit of 4096 bytes/);
  assertHttpError(errors[2], HttpTooLargeError, server.url('/close'), /body exceeds the limit of 4096 bytes/);
  await allClosed(server);
});

test('an endless body is stopped by maxBodyBytes (chunked and close-delimited)', async (t) => {
  const chunk = Buffer.alloc(16 * 1024, 0x65);
  const chunked = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    let closed = false;
    res.once('close', () => (closed = true));
    const pump = (): void => {
      while (!closed && !res.destroyed) {
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  const closeDelimited = await rawServer(t, (_path, socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n');
    const pump = (): void => {
      while (!socket.destroyed) {
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  const got = await withSession({ timeout: SHORT, maxBodyBytes: 1 << 20 }, function* (session) {
    const t0 = getRunningLoop().time();
    const response = yield* session.get(chunked.url('/endless'));
    const e1 = yield* caught(response.read());
    const e2 = yield* caught(readBodyOf(session, closeDelimited.url('/endless')));
    return { e1, e2, seconds: elapsedSince(t0), framing: response.headers.get('transfer-encoding') };
  });
  assert.equal(got.framing, 'chunked');
  assertHttpError(
    got.e1,
    HttpTooLargeError,
    chunked.url('/endless'),
    /^chunked body exceeds the limit of 1048576 bytes/,
  );
  assertHttpError(
    got.e2,
    HttpTooLargeError,
    closeDelimited.url('/endless'),
    /^body exceeds the limit of 1048576 bytes/,
  );
  // Refused as it came (a limit, not a timeout: before `read`, 30 s, could fire).
  await allClosed(chunked);
  await allClosed(closeDelimited);
});

test('a 1 MB response header is HttpTooLargeError at once (no hang), and the socket is closed', async (t) => {
  const server = await rawServer(t, (_path, socket) => {
    socket.write('HTTP/1.1 200 OK\r\nX-Big: ');
    socket.write('a'.repeat(1 << 20));
    socket.write('\r\nContent-Length: 0\r\n\r\n');
  });
  const url = server.url('/big-header');
  const got = await withSession({ timeout: { connect: 5, read: 30, total: 60 } }, function* (session) {
    const t0 = getRunningLoop().time();
    const e = yield* caught(session.get(url));
    return { e, seconds: elapsedSince(t0) };
  });
  assertHttpError(got.e, HttpTooLargeError, url, /line too long reading the response head/);
  // Refused as it came (a limit, not a timeout: before `read`, 30 s, could fire).
  await allClosed(server);
});

test('maxHeaderBytes is configurable: a 10 kB head fails at 4 kB and passes at the default', async (t) => {
  const server = await rawServer(t, (_path, socket) => {
    socket.write(`HTTP/1.1 200 OK\r\nX-Mid: ${'m'.repeat(10_000)}\r\nContent-Length: 2\r\n\r\nok`);
  });
  const url = server.url('/mid');
  const small = await withSession({ timeout: SHORT, maxHeaderBytes: 4096 }, function* (session) {
    return yield* caught(session.get(url));
  });
  assertHttpError(small, HttpTooLargeError, url, /line too long/);
  const text = await withSession({ timeout: SHORT }, function* (session) {
    return (yield* fetchText(session, url)).text;
  });
  assert.equal(text, 'ok');
});

// --- broken servers -----------------------------------------------------------------------------

test('a bad chunk size is an HttpProtocolError', async (t) => {
  const server = await rawServer(t, (_path, socket) => {
    socket.end(
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\nzz-not-a-chunk-size\r\ngarbage\r\n0\r\n\r\n',
    );
  });
  const url = server.url('/bad-chunk');
  const e = await withSession({ timeout: SHORT }, function* (session) {
    const response = yield* session.get(url);
    return yield* caught(response.read());
  });
  assertHttpError(e, HttpProtocolError, url, /invalid chunk size "zz-not-a-chunk-size"/);
  await allClosed(server);
});

test('a chunked body cut short by the server is an HttpProtocolError', async (t) => {
  const server = await rawServer(t, (_path, socket) => {
    socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\nonly a few bytes');
  });
  const url = server.url('/cut');
  const e = await withSession({ timeout: SHORT }, function* (session) {
    const response = yield* session.get(url);
    return yield* caught(response.read());
  });
  assertHttpError(e, HttpProtocolError, url, /connection closed reading the body/);
});

test('a bad status line, header or Content-Length is an HttpProtocolError and drops the connection', async (t) => {
  const server = await rawServer(t, (path, socket) => {
    if (path === '/status') socket.write('HTTP/1.1 OK\r\n\r\n');
    else if (path === '/header') socket.write('HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n');
    else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!');
  });
  const errors = await withSession({ timeout: SHORT }, function* (session) {
    const out: unknown[] = [];
    for (const p of ['/status', '/header', '/length']) out.push(yield* caught(session.get(server.url(p))));
    return { out, stats: session.pool.stats(), opened: session.pool.openedCount() };
  });
  assertHttpError(errors.out[0], HttpProtocolError, server.url('/status'), /invalid status line "HTTP\/1.1 OK"/);
  assertHttpError(errors.out[1], HttpProtocolError, server.url('/header'), /invalid header name "Bad Header"/);
  assertHttpError(errors.out[2], HttpProtocolError, server.url('/length'), /conflicting Content-Length/);
  assert.deepEqual(errors.stats, { active: 0, idle: 0, waiting: 0 });
  assert.equal(errors.opened, 3);
  await allClosed(server);
});

test('a connection reset mid-body is an HttpConnectionError', async (t) => {
  const server = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': 100_000 });
    res.write(Buffer.alloc(50_000, 0x72), () => {
      setTimeout(() => {
        if (!res.socket?.destroyed) res.socket?.resetAndDestroy();
      }, 25);
    });
  });
  const url = server.url('/reset');
  const e = await withSession({ timeout: SHORT }, function* (session) {
    const response = yield* session.get(url);
    return yield* caught(response.read());
  });
  // Usually ECONNRESET; but a reset that arrives while the received bytes are still unread
  // (a busy loop) is reported by libuv as a plain EOF (POLLHUP after a partial read).
  if (e instanceof HttpProtocolError)
    assertHttpError(e, HttpProtocolError, url, /body ended after 50000 of 100000 bytes/);
  else assertHttpError(e, HttpConnectionError, url, /ECONNRESET.*reading the body/);
  await allClosed(server);
});

test('a wrong Content-Length then close is an HttpProtocolError naming the byte counts', async (t) => {
  const server = await rawServer(t, (_path, socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 4096\r\nConnection: close\r\n\r\n');
    socket.end(Buffer.alloc(2048, 0x77));
  });
  const url = server.url('/wrong-length');
  const e = await withSession({ timeout: SHORT }, function* (session) {
    const response = yield* session.get(url);
    return yield* caught(response.read());
  });
  assertHttpError(e, HttpProtocolError, url, /body ended after 2048 of 4096 bytes/);
});

// --- timeouts ------------------------------------------------------------------------------------

test('connect timeout: waiting for a pool slot longer than `connect` seconds', async (t) => {
  const server = await httpServer(t, (_req, res) => res.end('ok'));
  const url = server.url('/second');
  const got = await withSession({ timeout: { connect: 0.2, read: 5, total: 10 }, limit: 1 }, function* (session) {
    const first = yield* session.get(server.url('/first')); // holds the only slot, unread
    const t0 = getRunningLoop().time();
    const e = yield* caught(session.get(url));
    const seconds = elapsedSince(t0);
    first.release();
    return { e, seconds, stats: session.pool.stats() };
  });
  assertHttpError(got.e, HttpTimeoutError, url, /timed out connecting/);
  firedAfter(got.seconds, 0.2);
  assert.equal(got.stats.waiting, 0);
});

test('connect timeout: a TLS handshake that never completes', async (t) => {
  const server = await rawServer(t, () => undefined); // accepts TCP, never speaks TLS
  const url = server.url('/', 'https');
  const got = await withSession({ timeout: { connect: 0.2, read: 5, total: 10 } }, function* (session) {
    const t0 = getRunningLoop().time();
    const e = yield* caught(session.get(url));
    return { e, seconds: elapsedSince(t0) };
  });
  assertHttpError(got.e, HttpTimeoutError, url, /timed out connecting/);
  firedAfter(got.seconds, 0.2);
  await allClosed(server);
});

test('read timeout on the head: a server that never answers', async (t) => {
  const server = await rawServer(t, () => undefined);
  const url = server.url('/silent');
  const got = await withSession({ timeout: { connect: 5, read: 0.2, total: 10 } }, function* (session) {
    const t0 = getRunningLoop().time();
    const e = yield* caught(session.get(url));
    return { e, seconds: elapsedSince(t0) };
  });
  assertHttpError(got.e, HttpTimeoutError, url, /timed out reading the response head/);
  firedAfter(got.seconds, 0.2);
  await allClosed(server);
});

test('read timeout on the body: a body that stalls', async (t) => {
  const server = await rawServer(t, (_path, socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten..');
  });
  const url = server.url('/stall');
  const got = await withSession({ timeout: { connect: 5, read: 0.2, total: 10 } }, function* (session) {
    const response = yield* session.get(url);
    const t0 = getRunningLoop().time();
    const e = yield* caught(response.read());
    return { e, seconds: elapsedSince(t0) };
  });
  assertHttpError(got.e, HttpTimeoutError, url, /timed out reading the body/);
  firedAfter(got.seconds, 0.2);
  await allClosed(server);
});

// --- total timeouts on the virtual clock ----------------------------------------------------------
// The server side moves the loop's VirtualClock by hand before each thing it sends, so the timeout
// is asserted on exact virtual times in an ordered log, whatever the machine's load. The loop does
// not jump a virtual clock while a socket is in flight: only these steps move it.

/** Runs `body` with a fresh session on a fresh loop whose clock is `clock` (loop closed afterwards). */
async function withVirtualSession<T>(
  clock: VirtualClock,
  options: ClientSessionOptions,
  body: (session: ClientSession, loop: EventLoop) => Coroutine<T>,
  observer?: (loop: EventLoop) => LoopObserver,
): Promise<T> {
  const loop = new EventLoop({ clock });
  if (observer !== undefined) loop.addObserver(observer(loop));
  try {
    return await loop.runUntilComplete(
      coroutine(function* main(): Coroutine<T> {
        const session = new ClientSession(options);
        try {
          return yield* body(session, loop);
        } finally {
          session.close();
        }
      })(),
    );
  } finally {
    loop.close();
  }
}

test('total timeout: a head dripping one byte a step beats `read` but not `total` (virtual clock)', async (t) => {
  const STEP = 1 / 16; // exact in binary: the virtual times below compare with equal
  const HEAD = 'HTTP/1.1 200 OK\r\nX-Slow: ' + 's'.repeat(40) + '\r\n\r\n';
  const clock = new VirtualClock();
  const log: string[] = [];
  let dripping: net.Socket | null = null;
  let sent = 0;
  let clientDone = false;
  /** One byte, one step of the clock later; the next waits until the loop has taken this one. */
  const drip = (): void => {
    if (dripping === null || dripping.destroyed || clientDone || sent >= HEAD.length) return;
    clock.advance(STEP);
    dripping.write(HEAD[sent++]!);
    log.push(`sent byte ${sent} @${clock.now()}`);
  };
  const server = await rawServer(t, (_path, socket) => {
    dripping = socket;
    drip();
  });
  const url = server.url('/drip');
  const got = await withVirtualSession(
    clock,
    { timeout: { connect: 5, read: 30, total: 0.25 } },
    function* (session, loop) {
      const e = yield* caught(session.get(url));
      clientDone = true;
      log.push(`client failed @${loop.time()}`);
      return e;
    },
    // The loop is idle (its step done, nothing ready): the next byte may go.
    (loop) => ({ tickEnd: () => void (loop.readyCount() === 0 && setImmediate(drip)) }),
  );
  // `total` (0.25 s) fired at the byte that took the clock there; `read` (30 s) alone would
  // have let the whole head arrive by 4.3 s.
  assertHttpError(got, HttpTimeoutError, url, /timed out reading the response head/);
  assert.deepEqual(log, [
    'sent byte 1 @0.0625',
    'sent byte 2 @0.125',
    'sent byte 3 @0.1875',
    'sent byte 4 @0.25',
    'client failed @0.25',
  ]);
  await allClosed(server);
});

test('total timeout spans redirects; a per-request timeout overrides the session one (virtual clock)', async (t) => {
  const HOP = 0.25; // virtual seconds each answer costs
  const clock = new VirtualClock();
  const log: string[] = [];
  const server = await httpServer(t, (req, res) => {
    const n = Number((req.url ?? '').split('/')[2] ?? '0');
    clock.advance(HOP);
    log.push(`hop ${n} answered @${clock.now()}`);
    res.writeHead(302, { Location: `/hop/${n + 1}`, 'Content-Length': 0 });
    res.end();
  });
  const url = server.url('/hop/0');
  const got = await withVirtualSession(
    clock,
    { timeout: { connect: 5, read: 5, total: 30 }, maxRedirects: 100 },
    function* (session, loop) {
      const e = yield* caught(session.get(url, { timeout: { total: 1 } }));
      log.push(`client failed @${loop.time()}`);
      return e;
    },
  );
  // The request's own `total` (1 s) ends the chain at the fourth answer, across hops on one
  // keep-alive connection; the session's 30 s would have run into maxRedirects first.
  assertHttpError(got, HttpTimeoutError, server.url('/hop/3'), /timed out reading the response head/);
  assert.deepEqual(log, [
    'hop 0 answered @0.25',
    'hop 1 answered @0.5',
    'hop 2 answered @0.75',
    'hop 3 answered @1',
    'client failed @1',
  ]);
});

// --- connection failures and bad URLs ---------------------------------------------------------------

test('connection refused is an HttpConnectionError with the URL in its message', async () => {
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}/nothing-here`;
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const e = yield* caught(session.get(url));
    return { e, stats: session.pool.stats() };
  });
  assertHttpError(got.e, HttpConnectionError, url, /cannot connect: .*ECONNREFUSED/);
  assert.deepEqual(got.stats, { active: 0, idle: 0, waiting: 0 }, 'the failed connect gave its slot back');
});

test('invalid URLs are InvalidUrlError before any connection', async () => {
  const cases: Array<[string, RegExp]> = [
    ['not a url', /invalid URL/],
    ['http://[', /invalid URL/],
    ['http://exa mple.com/', /invalid URL/],
    ['', /invalid URL/],
    ['ftp://127.0.0.1/', /unsupported scheme "ftp"/],
    ['javascript:alert(1)', /unsupported scheme "javascript"/],
    ['mailto:someone@example.com', /unsupported scheme "mailto"/],
    ['file:///etc/passwd', /unsupported scheme "file"/],
  ];
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const out: unknown[] = [];
    for (const [url] of cases) out.push(yield* caught(session.get(url)));
    return { out, opened: session.pool.openedCount() };
  });
  for (const [i, [url, pattern]] of cases.entries()) assertHttpError(got.out[i], InvalidUrlError, url, pattern);
  assert.equal(got.opened, 0);
});

test('a request on a closed session is an HttpConnectionError', async () => {
  const e = await run(
    coroutine(function* main(): Coroutine<unknown> {
      const session = new ClientSession();
      session.close();
      assert.equal(session.isClosed(), true);
      return yield* caught(session.get('http://127.0.0.1:9/'));
    })(),
  );
  assertHttpError(e, HttpConnectionError, 'http://127.0.0.1:9/', /the session is closed/);
});

// --- https -------------------------------------------------------------------------------------------

/** DER encoding of one ASN.1 element. */
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [40 * parts[0]! + parts[1]!];
  for (const part of parts.slice(2)) {
    const enc = [part & 0x7f];
    for (let v = part >>> 7; v > 0; v >>>= 7) enc.unshift(0x80 | (v & 0x7f));
    bytes.push(...enc);
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(d: Date): Buffer {
  const s = d.toISOString(); // 2024-01-02T03:04:05.678Z
  return der(
    0x17,
    Buffer.from(
      `${s.slice(2, 4)}${s.slice(5, 7)}${s.slice(8, 10)}${s.slice(11, 13)}${s.slice(14, 16)}${s.slice(17, 19)}Z`,
    ),
  );
}

/** A self-signed P-256 certificate for 127.0.0.1 / localhost, made with node:crypto alone. */
function selfSignedCertificate(): { key: string; cert: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const seq = (...c: Buffer[]): Buffer => der(0x30, ...c);
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from('coroscope test')))));
  const now = Date.now();
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))), // v3
    der(0x02, Buffer.concat([Buffer.from([0x01]), crypto.randomBytes(8)])), // positive serial
    ecdsaSha256,
    name,
    seq(utcTime(new Date(now - 3600_000)), utcTime(new Date(now + 24 * 3600_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(
      0xa3,
      seq(
        seq(
          oid('2.5.29.17'),
          der(0x04, seq(der(0x87, Buffer.from([127, 0, 0, 1])), der(0x82, Buffer.from('localhost')))),
        ),
      ),
    ),
  );
  const signature = crypto.sign('sha256', tbs, privateKey);
  const certDer = seq(tbs, ecdsaSha256, der(0x03, Buffer.from([0]), signature));
  const cert = `-----BEGIN CERTIFICATE-----\n${certDer.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), cert };
}

async function httpsServer(t: TestContext, handler: http.RequestListener): Promise<TestServer> {
  const { key, cert } = selfSignedCertificate();
  assert.ok(new crypto.X509Certificate(cert).checkIP('127.0.0.1'), 'the generated certificate is well-formed');
  const server = https.createServer({ key, cert }, handler);
  const sockets = new Set<net.Socket>();
  const counter = { accepted: 0 };
  track(server, sockets, counter, 'connection');
  const s = await listen(server, sockets, counter, 'https');
  t.after(() => s.close());
  return s;
}

test('https against a self-signed local server: works with rejectUnauthorized false, keep-alive too', async (t) => {
  const server = await httpsServer(t, (req, res) => {
    const body = zlib.gzipSync(Buffer.from(`secure ${req.url}`));
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip', 'Content-Length': body.length });
    res.end(body);
  });
  const got = await withSession({ timeout: SHORT, rejectUnauthorized: false }, function* (session) {
    const a = yield* fetchText(session, server.url('/a'));
    const b = yield* fetchText(session, server.url('/b'));
    return { a: a.text, b: b.text, url: a.response.url, opened: session.pool.openedCount() };
  });
  assert.equal(got.a, 'secure /a');
  assert.equal(got.b, 'secure /b');
  assert.equal(got.url, server.url('/a'));
  assert.equal(got.opened, 1);
  await allClosed(server);
});

test('https with certificate verification on refuses the self-signed certificate', async (t) => {
  const server = await httpsServer(t, (_req, res) => res.end('should not be read'));
  const url = server.url('/verify');
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const e = yield* caught(session.get(url));
    return { e, stats: session.pool.stats() };
  });
  assertHttpError(got.e, HttpConnectionError, url, /cannot connect: .*self[- ]signed/i);
  assert.deepEqual(got.stats, { active: 0, idle: 0, waiting: 0 });
  await allClosed(server);
});

test('plain http to an https server is a typed error, not a hang', async (t) => {
  const server = await httpsServer(t, (_req, res) => res.end('x'));
  const url = server.url('/', 'http');
  const e = await withSession({ timeout: { connect: 2, read: 2, total: 5 } }, function* (session) {
    return yield* caught(session.get(url));
  });
  assert.ok(e instanceof HttpError, `got ${String(e)}`);
  assert.ok(e.message.includes(url));
});

test('the request target of a normal-form URL is read without new URL, and agrees with it', async () => {
  const { requestTargetOf } = await import('../../../runtime/http/client-session');
  const urls = [
    'http://127.0.0.1:8080/p/1',
    'http://example.com/',
    'https://example.com/a/b?c=d&e=%20f',
    'http://www.example.com:8081/x/y/z.html?q',
    'http://EXAMPLE.com/upper',
    'http://example.com:80/default-port',
    'https://example.com:443/',
    'http://example.com/a/../b',
    'http://example.com/.well-known/x',
    "http://example.com/it's",
    'http://[::1]:9000/v6',
    'http://user:pw@example.com/auth',
    'http://example.com/a b',
    'http://xn--nxasmq6b.com/idn',
  ];
  for (const url of urls) {
    const t = requestTargetOf(url);
    const u = new URL(url);
    const tls = u.protocol === 'https:';
    const port = u.port === '' ? (tls ? 443 : 80) : Number(u.port);
    const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
    assert.deepEqual(
      t,
      {
        origin: { key: `${u.protocol}//${host}:${port}`, host, port, tls },
        hostHeader: u.host,
        path: u.pathname + u.search,
      },
      url,
    );
  }
  assert.throws(() => requestTargetOf('ftp://example.com/'), /unsupported scheme/);
  assert.throws(() => requestTargetOf('not a url'), /invalid URL/);
});

// --- hostile servers: the deadline covers the whole exchange, 1xx storms, huge URLs ------------

test('sending a request is under the deadline: a 16 MB request to a server that stops reading times out (virtual clock)', {
  timeout: 30_000,
}, async (t) => {
  // The loop does not jump a virtual clock while a socket is in flight: the test moves it one
  // step at a time while the loop is idle, once the server has the request's first bytes (the
  // send began at virtual 0: the clock stood still while connecting), waking the loop with a
  // callSoon. Past LIMIT it stops and drops the server's sockets, so a send under no deadline
  // ends too (with the wrong log) rather than hang.
  const STEP = 1 / 8;
  const LIMIT = 8;
  const clock = new VirtualClock();
  const deafSockets = new Set<net.Socket>();
  const server = await serveTracked(
    t,
    // It reads the first chunk, then never again: its receive buffer fills up.
    net.createServer((socket) => {
      deafSockets.add(socket);
      socket.once('data', () => {
        socket.pause();
        if (stepping !== null) stepping.sending = true;
        queueStep();
      });
    }),
  );
  const url = server.url('/deaf');
  const log: string[] = [];
  let clientDone = false;
  let stepping: { loop: EventLoop; sending: boolean } | null = null;
  let stepQueued = false;
  const step = (): void => {
    stepQueued = false;
    if (stepping === null || !stepping.sending || clientDone || stepping.loop.isClosed()) return;
    if (clock.now() >= LIMIT) {
      log.push(`no deadline fired by @${clock.now()}`);
      stepping = null;
      for (const socket of deafSockets) socket.destroy();
      return;
    }
    clock.advance(STEP);
    stepping.loop.callSoon(() => undefined);
  };
  /** One step at a time: the next waits for a tick of the loop on this one. */
  function queueStep(): void {
    if (stepQueued) return;
    stepQueued = true;
    setImmediate(step);
  }
  const got = await withVirtualSession(
    clock,
    { timeout: { connect: 2, read: 0.5, total: 5 } },
    function* (session, loop) {
      stepping = { loop, sending: false };
      // Far more than loopback's socket buffers take: most of it waits in the writer.
      const e = yield* caught(session.get(url, { headers: { 'X-Fill': 'x'.repeat(16 << 20) } }));
      clientDone = true;
      log.push(`client failed @${loop.time()}`);
      return { e, stats: session.pool.stats() };
    },
    (loop) => ({ tickEnd: () => void (loop.readyCount() === 0 && queueStep()) }),
  );
  assertHttpError(got.e, HttpTimeoutError, url, /timed out/);
  // `read` (0.5 s) fired, not `total` (5 s): the deadline of the send's wait for the writer.
  assert.deepEqual(log, ['client failed @0.5']);
  // The server does not read, so it cannot see the reset: the client's side is what is checked.
  assert.deepEqual(got.stats, { active: 0, idle: 0, waiting: 0 }, 'the connection was dropped');
});

test('an endless stream of 100 Continue is a protocol error, and another server is served meanwhile', {
  timeout: 30_000,
}, async (t) => {
  const interim = Buffer.from('HTTP/1.1 100 Continue\r\n\r\n'.repeat(1000));
  const storm = await rawServer(t, (_path, socket) => {
    // As fast as the client takes them, until it goes away.
    const pump = (): void => {
      while (!socket.destroyed && socket.write(interim));
      if (!socket.destroyed) socket.once('drain', pump);
    };
    pump();
  });
  const calm = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 });
    res.end('ok');
  });
  const got = await withSession({ timeout: { connect: 2, read: 10, total: 20 } }, function* (session) {
    const loop = getRunningLoop();
    const stormTask = loop.createTask(caught(session.get(storm.url('/storm'))));
    // Wait until the storm is arriving, then ask the calm server.
    for (let i = 0; i < 200 && storm.accepted() === 0; i++) yield* sleep(0.005);
    yield* sleep(0.05);
    const answers: string[] = [];
    for (let i = 0; i < 10; i++) answers.push((yield* fetchText(session, calm.url(`/calm/${i}`))).text);
    const e = yield* stormTask;
    return { e, answers };
  });
  // Cut by the count of interim responses (a protocol error), not by a deadline: `total` (20 s)
  // would have ended an endless storm with an HttpTimeoutError. No wall-clock window: a loaded
  // machine makes any bound flaky, and the kind of the error is the behaviour.
  assertHttpError(got.e, HttpProtocolError, storm.url('/storm'), /more than \d+ interim \(1xx\) responses/);
  assert.deepEqual(got.answers, Array(10).fill('ok'), 'the calm server answered every request');
  await allClosed(storm);
});

test('an 8 MB URL is an InvalidUrlError naming the limit, not a stack overflow; the message stays short', async () => {
  const { MAX_URL_LENGTH } = await import('../../../runtime/http/client-session');
  const huge = `http://127.0.0.1:9/${'a'.repeat(8 << 20)}`;
  const atLimit = `http://127.0.0.1:9/${'b'.repeat(MAX_URL_LENGTH - 'http://127.0.0.1:9/'.length)}`;
  const got = await withSession({ timeout: SHORT }, function* (session) {
    const e = yield* caught(session.get(huge));
    // A URL at the limit goes on to connect (and is refused: nothing listens on port 9).
    const e2 = yield* caught(session.get(atLimit));
    return { e, e2, opened: session.pool.openedCount() };
  });
  assert.ok(got.e instanceof InvalidUrlError, `got ${String(got.e)}`);
  assert.equal(got.e.url, huge);
  assert.match(
    got.e.message,
    new RegExp(`URL of ${huge.length} characters is longer than the limit of ${MAX_URL_LENGTH}`),
  );
  assert.ok(got.e.message.length < 2200, `the message is ${got.e.message.length} characters`);
  assert.ok(got.e2 instanceof HttpConnectionError, `a URL at the limit is fetched: ${String(got.e2)}`);
});
