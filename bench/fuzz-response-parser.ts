// Fuzzes the HTTP client's read path: random and mutated HTTP/1.x responses go through the
// same steps as ClientSession's (readResponseHead, bodyFraming, readResponseBody,
// decodeContent, keepsAlive, with the client's timeouts and error translation) on a
// StreamReader fed by hand, without sockets. Contract checked for every input:
//   - it ends in a response (status, framing, decoded body within maxBodyBytes, a
//     Content-Length body of exactly that length) or in a typed HttpError naming the URL;
//     never in an error of another type;
//   - it never hangs: with the whole input and EOF fed, the read must finish without its
//     timeout firing (the loop runs on a virtual clock, so a read stuck waiting shows up as
//     a timeout at once), within a tick cap (no busy loop of coroutine steps), and within a
//     wall-clock budget; a watchdog thread kills the process if one input blocks the thread.
// Inputs start from a corpus of valid responses (Content-Length, chunked with trailers,
// close-delimited, gzip and deflate, 1xx, 204/304, LF-only, folded headers) and get 0-4
// mutations: flipped or set bytes, inserted protocol tokens, deleted or duplicated ranges,
// truncation, duplicated header lines, numbers made huge or negative, long lines, splices,
// changed line ends; a few inputs are random bytes. Each input is generated from (seed,
// index) alone, so `--only INDEX` reproduces one. The input arrives in 1-4 parts on
// successive loop steps, and sometimes without EOF (then a timeout is a legal outcome).
// With `--loopback N`, N more inputs are served by a raw node:net server on 127.0.0.1 to a
// real ClientSession (keep-alive pool, ClientResponse, release), with the same contract.
//
//   node --import tsx bench/fuzz-response-parser.ts --count 100000 --seed 1 [--loopback 500]
//
// Prints inputs/s and outcome counts; exits 1 on a violation.

import { Worker } from 'node:worker_threads';
import * as net from 'node:net';
import * as zlib from 'node:zlib';
import {
  EventLoop,
  VirtualClock,
  coroutine,
  getRunningLoop,
  run,
  StreamReader,
  withTimeout,
  type Coroutine,
  type Task,
  type TimerHandle,
} from '../runtime/index';
import { ClientSession, readResponseHead } from '../runtime/http/client-session';
import { decodeContent, readResponseBody, translateReadError } from '../runtime/http/client-response';
import { bodyFraming, keepsAlive } from '../runtime/http/response-head';
import { HttpError, HttpTimeoutError } from '../runtime/http/errors';

export interface FuzzOptions {
  count: number;
  seed: number;
  /** Largest decoded body accepted (the client's maxBodyBytes). Default 256 KiB. */
  maxBodyBytes?: number;
  /** Largest head / chunk-size line (the client's maxHeaderBytes). Default 8 KiB. */
  maxHeaderBytes?: number;
  /** Wall-clock milliseconds one input may take before it counts as a hang. Default 2000. */
  budgetMs?: number;
  /**
   * Milliseconds after which the watchdog thread kills a process stuck in one input (0: no watchdog). Default
   * 20000.
   */
  watchdogMs?: number;
  /** Inputs also sent through a real ClientSession and a loopback server. Default 0. */
  loopback?: number;
  /** Only this input index (to reproduce a violation). */
  only?: number | null;
}

export interface Violation {
  index: number;
  reason: string;
  /** The input, latin1, cut to 300 characters. */
  input: string;
  length: number;
}

export interface FuzzReport {
  inputs: number;
  seconds: number;
  /** Outcome label → count ('response chunked', 'HttpProtocolError: invalid chunk size', ...). */
  outcomes: Map<string, number>;
  violations: Violation[];
  /** The slowest input: its index and wall-clock milliseconds. */
  slowest: { index: number; ms: number };
  loopback: { inputs: number; seconds: number; outcomes: Map<string, number> } | null;
}

const URL_ = 'http://fuzz.test/page';

// --- deterministic randomness ----------------------------------------------------------------

/** mulberry32: a small, fast, seedable PRNG giving floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number, index: number) {
    // Mix seed and index so that every input has its own stream.
    this.next = mulberry32(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  }
  float(): number {
    return this.next();
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

// --- corpus -----------------------------------------------------------------------------------

const PAGE = '<!DOCTYPE html><title>fuzz</title><a href="/a">a</a> <a href="b">b</a>\n'.repeat(8);

function withLength(head: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(head.replace('{LEN}', String(body.length)), 'latin1'), body]);
}

function chunked(body: Buffer, sizes: number[], trailers = ''): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < body.length; i++) {
    const n = Math.min(sizes[i % sizes.length]!, body.length - at);
    parts.push(
      Buffer.from(`${n.toString(16)}${i % 3 === 1 ? ';ext=1' : ''}\r\n`, 'latin1'),
      body.subarray(at, at + n),
      Buffer.from('\r\n'),
    );
    at += n;
  }
  parts.push(Buffer.from(`0\r\n${trailers}\r\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** Valid responses the mutations start from. */
export function buildCorpus(): Buffer[] {
  const page = Buffer.from(PAGE);
  const gz = zlib.gzipSync(page);
  return [
    withLength('HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {LEN}\r\n\r\n', page),
    Buffer.concat([
      Buffer.from(
        'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\n',
      ),
      chunked(page, [100, 7, 300], 'X-Checksum: 1234\r\nX-Other: two\r\n'),
    ]),
    Buffer.concat([Buffer.from('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n'), page]),
    Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n'), page]),
    withLength(
      'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: {LEN}\r\n\r\n',
      gz,
    ),
    Buffer.concat([
      Buffer.from('HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n'),
      chunked(gz, [64, 200]),
    ]),
    withLength('HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: {LEN}\r\n\r\n', zlib.deflateSync(page)),
    withLength(
      'HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: {LEN}\r\n\r\n',
      zlib.deflateRawSync(page),
    ),
    withLength(
      'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: {LEN}\r\n\r\n',
      zlib.gzipSync(Buffer.alloc(300_000, 0x61)),
    ),
    Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello'),
    Buffer.from('HTTP/1.1 204 No Content\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\n'),
    Buffer.from('HTTP/1.1 304 Not Modified\r\nETag: "abc"\r\nContent-Length: 1234\r\n\r\n'),
    Buffer.from('HTTP/1.1 301 Moved Permanently\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n'),
    Buffer.from('HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 3\n\nabc'),
    Buffer.from(
      'HTTP/1.1 200 OK\r\nX-Folded: first\r\n  second\r\n\tthird\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 2\r\n\r\nok',
    ),
    Buffer.from('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nkeep'),
    Buffer.from(
      'HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nTransfer-Encoding: gzip, chunked\r\n\r\n4\r\nnope\r\n0\r\n\r\n',
    ),
  ];
}

// --- mutations --------------------------------------------------------------------------------

const TOKENS = [
  '\r\n',
  '\n',
  '\r',
  '\r\n\r\n',
  '\n\n',
  ' ',
  '\t',
  ':',
  ';',
  ',',
  '\0',
  '0',
  'f',
  '-',
  '"',
  'HTTP/1.1 ',
  'HTTP/1.1 200 OK\r\n',
  'HTTP/1.1 100 Continue\r\n\r\n',
  'Transfer-Encoding: chunked\r\n',
  'Transfer-Encoding: gzip\r\n',
  'Content-Length: 0\r\n',
  'Content-Length: 5\r\n',
  'Content-Length: 18446744073709551616\r\n',
  'Content-Length: -1\r\n',
  'Content-Encoding: gzip\r\n',
  'Content-Encoding: deflate\r\n',
  'Content-Encoding: br\r\n',
  'Content-Encoding: compress\r\n',
  'Connection: close\r\n',
  'Connection: keep-alive\r\n',
  'Content-Type: text/html; charset=bogus\r\n',
  'ffffffffffff\r\n',
  'fffffffffffff\r\n',
  '0\r\n\r\n',
  '1;a=b\r\nx\r\n',
  ' folded continuation\r\n',
  '\x1f\x8b\x08\x00',
  '\xff\xfe',
];
const NUMBERS = [
  '0',
  '1',
  '-1',
  '00',
  '4294967296',
  '9007199254740993',
  '999999999999999',
  '99999999999999999999',
  'ffff',
  '1e3',
  ' 7 ',
  '',
];

type Mutation = (input: Buffer, rng: Rng, corpus: readonly Buffer[]) => Buffer;

function at(input: Buffer, rng: Rng): number {
  return rng.int(input.length + 1);
}

function insert(input: Buffer, pos: number, bytes: Buffer): Buffer {
  return Buffer.concat([input.subarray(0, pos), bytes, input.subarray(pos)]);
}

const MUTATIONS: Array<[string, Mutation]> = [
  [
    'flip a bit',
    (input, rng) => {
      if (input.length === 0) return input;
      const out = Buffer.from(input);
      out[rng.int(out.length)]! ^= 1 << rng.int(8);
      return out;
    },
  ],
  [
    'set a byte',
    (input, rng) => {
      if (input.length === 0) return input;
      const out = Buffer.from(input);
      out[rng.int(out.length)] = rng.chance(0.5)
        ? rng.int(256)
        : rng.pick([0x0d, 0x0a, 0x20, 0x3a, 0x30, 0x3b, 0x00, 0x09, 0x7f, 0xff]);
      return out;
    },
  ],
  ['insert a token', (input, rng) => insert(input, at(input, rng), Buffer.from(rng.pick(TOKENS), 'latin1'))],
  [
    'overwrite with a token',
    (input, rng) => {
      const token = Buffer.from(rng.pick(TOKENS), 'latin1');
      const pos = at(input, rng);
      return Buffer.concat([input.subarray(0, pos), token, input.subarray(Math.min(input.length, pos + token.length))]);
    },
  ],
  [
    'delete a range',
    (input, rng) => {
      const pos = at(input, rng);
      const n = rng.chance(0.8) ? 1 + rng.int(16) : rng.int(input.length + 1);
      return Buffer.concat([input.subarray(0, pos), input.subarray(pos + n)]);
    },
  ],
  ['truncate', (input, rng) => input.subarray(0, at(input, rng))],
  [
    'duplicate a header line',
    (input, rng) => {
      const headEnd =
        input.indexOf('\n\n') >= 0
          ? Math.min(input.indexOf('\r\n\r\n') >= 0 ? input.indexOf('\r\n\r\n') : Infinity, input.indexOf('\n\n'))
          : input.indexOf('\r\n\r\n');
      const limit = headEnd < 0 ? input.length : headEnd;
      const starts: number[] = [];
      for (let i = input.indexOf('\n'); i >= 0 && i < limit; i = input.indexOf('\n', i + 1)) starts.push(i + 1);
      if (starts.length === 0) return input;
      const start = rng.pick(starts);
      const end = input.indexOf('\n', start);
      if (end < 0) return input;
      const line = input.subarray(start, end + 1);
      const copies = rng.chance(0.9) ? 1 : 1 + rng.int(2000);
      return insert(input, start, Buffer.concat(Array.from({ length: copies }, () => line)));
    },
  ],
  [
    'duplicate a range',
    (input, rng) => {
      const pos = rng.int(input.length);
      const n = 1 + rng.int(32);
      const piece = input.subarray(pos, pos + n);
      return insert(
        input,
        pos,
        Buffer.concat(Array.from({ length: 1 + rng.int(rng.chance(0.9) ? 4 : 3000) }, () => piece)),
      );
    },
  ],
  [
    'change a number',
    (input, rng) => {
      const text = input.toString('latin1');
      // Decimal numbers, and hex runs ending a line (chunk sizes). One linear pass: a lookahead
      // after a greedy run would make this quadratic on long runs.
      const runs = [...text.matchAll(/[0-9a-fA-F]+/g)].filter(
        (m) => /^\d+$/.test(m[0]) || text[m.index! + m[0].length] === '\r' || text[m.index! + m[0].length] === '\n',
      );
      if (runs.length === 0) return input;
      const m = rng.pick(runs);
      const replacement = rng.chance(0.7) ? rng.pick(NUMBERS) : String(rng.int(1 << 30)).repeat(1 + rng.int(3));
      return Buffer.from(text.slice(0, m.index) + replacement + text.slice(m.index! + m[0].length), 'latin1');
    },
  ],
  [
    'insert a long line',
    (input, rng) => {
      const n = rng.pick([100, 1000, 8191, 8192, 8193, 20_000, 70_000]);
      return insert(input, at(input, rng), Buffer.alloc(n, rng.pick([0x41, 0x20, 0x30, 0x66])));
    },
  ],
  [
    'splice another response',
    (input, rng, corpus) => {
      const other = rng.pick(corpus);
      return rng.chance(0.5)
        ? Buffer.concat([input, other])
        : Buffer.concat([input.subarray(0, at(input, rng)), other.subarray(rng.int(other.length))]);
    },
  ],
  [
    'change line ends',
    (input, rng) => {
      const text = input.toString('latin1');
      return Buffer.from(rng.chance(0.5) ? text.replace(/\r\n/g, '\n') : text.replace(/(?<!\r)\n/g, '\r\n'), 'latin1');
    },
  ],
  [
    'change case',
    (input, rng) => {
      const text = input.toString('latin1');
      return Buffer.from(rng.chance(0.5) ? text.toUpperCase() : text.toLowerCase(), 'latin1');
    },
  ],
];

/** The input number `index` of a run seeded with `seed` (deterministic). */
export function generateInput(
  corpus: readonly Buffer[],
  seed: number,
  index: number,
): { bytes: Buffer; method: string; parts: number[]; eof: boolean } {
  const rng = new Rng(seed, index);
  let bytes: Buffer;
  if (rng.chance(0.03)) {
    bytes = Buffer.alloc(rng.int(200));
    for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(256);
    if (rng.chance(0.5)) bytes = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\n'), bytes]);
  } else {
    bytes = rng.pick(corpus);
    const n = rng.chance(0.08) ? 0 : 1 + rng.int(4);
    for (let i = 0; i < n; i++) bytes = rng.pick(MUTATIONS)[1](bytes, rng, corpus);
  }
  // Arrival in 1-4 parts, cut at random places.
  const cuts = new Set<number>();
  const nParts = 1 + rng.int(4);
  for (let i = 1; i < nParts; i++) cuts.add(rng.int(bytes.length + 1));
  const parts = [...cuts].sort((a, b) => a - b);
  return { bytes, method: rng.chance(0.1) ? 'HEAD' : 'GET', parts, eof: rng.chance(0.85) };
}

// --- the read path under test -----------------------------------------------------------------

interface ReadResult {
  status: number;
  framing: string;
  raw: number;
  body: number;
  keepAlive: boolean;
  declaredLength: number | null;
}

/** What ClientSession does with a connection's reader, in the same order and with the same translations. */
const readResponse = coroutine(function* readResponse(
  reader: StreamReader,
  method: string,
  maxBodyBytes: number,
  readTimeout: number,
): Coroutine<ReadResult> {
  let head;
  try {
    head = yield* withTimeout(readTimeout, readResponseHead(reader, URL_));
  } catch (e) {
    throw translateReadError(e, URL_, 'reading the response head');
  }
  const framing = bodyFraming(head, method, URL_);
  let raw: Buffer;
  try {
    raw = yield* withTimeout(readTimeout, readResponseBody(reader, framing, URL_, maxBodyBytes));
  } catch (e) {
    throw translateReadError(e, URL_, 'reading the body');
  }
  const body = decodeContent(raw, head.headers.get('content-encoding'), URL_, maxBodyBytes);
  return {
    status: head.status,
    framing: framing.kind,
    raw: raw.length,
    body: body.length,
    keepAlive: keepsAlive(head, framing),
    declaredLength: framing.kind === 'length' ? framing.length : null,
  };
});

/** An error message without the URL and with numbers as N, quotes cut: an outcome label. */
function errorLabel(e: Error): string {
  let message = e.message.replace(/ \(http:\/\/\S+\)$/, '').replace(/^(invalid character in header) .*/, '$1 <name>');
  const quote = message.search(/["(]/);
  if (quote > 0) message = message.slice(0, quote);
  return `${e.name}: ${message.replace(/\d+/g, 'N').trim()}`;
}

const READ_TIMEOUT = 30; // virtual seconds
const MAX_TICKS = 100_000;

interface Checked {
  label: string;
  violation: string | null;
}

/** Runs one input through the read path on `loop`, synchronously (virtual clock, no sockets). */
function checkOne(
  loop: EventLoop,
  input: ReturnType<typeof generateInput>,
  maxBodyBytes: number,
  maxHeaderBytes: number,
): Checked {
  const reader = new StreamReader({ limit: maxHeaderBytes });
  const { bytes, parts, eof } = input;
  // Deliver the parts on successive virtual milliseconds, then EOF (if this input has one).
  const bounds = [0, ...parts, bytes.length];
  const feeds: TimerHandle[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const piece = bytes.subarray(bounds[i]!, bounds[i + 1]!);
    if (i === 0) reader.feedData(piece);
    else feeds.push(loop.callLater(i * 0.001, () => reader.feedData(piece)));
  }
  if (eof) feeds.push(loop.callLater(bounds.length * 0.001, () => reader.feedEof()));
  const task: Task<ReadResult> = loop.createTask(readResponse(reader, input.method, maxBodyBytes, READ_TIMEOUT));
  let ticks = 0;
  while (!task.done()) {
    if (++ticks > MAX_TICKS) {
      task.cancel();
      for (let i = 0; i < 100 && !task.done(); i++) void loop.runOnce();
      return { label: 'hang', violation: `no result after ${MAX_TICKS} loop ticks` };
    }
    void loop.runOnce();
  }
  // Drop the feeds a read that failed early left behind.
  for (const feed of feeds) feed.cancel();
  if (task.cancelled()) return { label: 'cancelled', violation: 'the read was cancelled' };
  const error = task.exception();
  if (error === undefined) {
    const r = task.result();
    const problems: string[] = [];
    if (!Number.isInteger(r.status) || r.status < 100 || r.status > 999) problems.push(`status ${r.status}`);
    if (r.body > maxBodyBytes) problems.push(`decoded body of ${r.body} bytes over the limit`);
    if (r.raw > maxBodyBytes) problems.push(`raw body of ${r.raw} bytes over the limit`);
    if (r.declaredLength !== null && r.raw !== r.declaredLength)
      problems.push(`body of ${r.raw} bytes for a Content-Length of ${r.declaredLength}`);
    if (r.framing === 'none' && r.raw !== 0) problems.push('a body where none is allowed');
    if (r.framing === 'close' && r.keepAlive) problems.push('keep-alive after a close-delimited body');
    return { label: `response (${r.framing})`, violation: problems.length > 0 ? problems.join('; ') : null };
  }
  if (!(error instanceof HttpError)) {
    return {
      label: `untyped ${error instanceof Error ? error.name : typeof error}`,
      violation: `untyped error: ${error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error)}`,
    };
  }
  if (!error.message.includes(URL_) || error.url !== URL_)
    return { label: errorLabel(error), violation: `the error does not name the URL: ${error.message}` };
  if (error instanceof HttpTimeoutError && eof)
    return {
      label: errorLabel(error),
      violation: 'timed out although the whole input and EOF were there (a read waiting forever)',
    };
  return { label: errorLabel(error), violation: null };
}

// --- watchdog -------------------------------------------------------------------------------------

// Runs in a worker thread: if one input has been running longer than the limit, the main
// thread is stuck in synchronous code (a timer could never fire there): say which input and
// kill the process.
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const beat = new Float64Array(workerData.shared);
setInterval(() => {
  const started = beat[1];
  if (started > 0 && Date.now() - started > workerData.limitMs) {
    fs.writeSync(2, 'fuzz-response-parser: VIOLATION: input #' + beat[0] + ' (seed ' + workerData.seed + ') blocked the thread for more than ' + workerData.limitMs + ' ms; reproduce with --seed ' + workerData.seed + ' --only ' + beat[0] + '\\n');
    process.kill(process.pid, 'SIGKILL');
  }
}, 50);
`;

function startWatchdog(seed: number, limitMs: number): { beat: Float64Array; stop(): Promise<number> } {
  const shared = new SharedArrayBuffer(16);
  const beat = new Float64Array(shared);
  const worker = new Worker(WATCHDOG_SOURCE, { eval: true, workerData: { shared, seed, limitMs } });
  worker.unref();
  return { beat, stop: () => worker.terminate() };
}

// --- loopback mode: a real ClientSession against a raw server -------------------------------------

const readOverSocket = coroutine(function* readOverSocket(
  session: ClientSession,
  url: string,
  method: string,
): Coroutine<string> {
  const response = yield* session.request(method, url, { allowRedirects: false });
  try {
    yield* response.text(); // decodes the charset of Content-Type too
    const body = yield* response.read();
    if (body.length > session.maxBodyBytes) throw new Error(`decoded body of ${body.length} bytes over the limit`);
    if (!(response.status >= 100 && response.status < 1000)) throw new Error(`status ${response.status}`);
    return 'response';
  } finally {
    response.release();
  }
});

async function runLoopback(
  corpus: readonly Buffer[],
  options: Required<Omit<FuzzOptions, 'only'>>,
  violations: Violation[],
): Promise<NonNullable<FuzzReport['loopback']>> {
  const inputs = Array.from({ length: options.loopback }, (_, i) =>
    generateInput(corpus, options.seed ^ 0x5bd1e995, i),
  );
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = '';
    let idle: NodeJS.Timeout | null = null;
    socket.on('data', (data: Buffer) => {
      pending += data.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const index = Number(/^\w+ \/fuzz\/(\d+)/.exec(pending)?.[1] ?? -1);
        pending = pending.slice(end + 4);
        const input = inputs[index];
        if (input === undefined) {
          socket.destroy();
          return;
        }
        socket.write(input.bytes);
        // Inputs without EOF keep the connection open a little (the client may reuse it).
        if (input.eof) socket.end();
        else {
          if (idle !== null) clearTimeout(idle);
          idle = setTimeout(() => socket.end(), 30);
        }
      }
    });
    socket.on('close', () => {
      if (idle !== null) clearTimeout(idle);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const outcomes = new Map<string, number>();
  const t0 = performance.now();
  try {
    await run(
      coroutine(function* loopbackMain(): Coroutine<void> {
        const session = new ClientSession({
          maxBodyBytes: options.maxBodyBytes,
          maxHeaderBytes: options.maxHeaderBytes,
          timeout: { connect: 2, read: 1, total: 3 },
        });
        try {
          for (let i = 0; i < inputs.length; i++) {
            const url = `http://127.0.0.1:${port}/fuzz/${i}`;
            const started = getRunningLoop().time();
            let label: string;
            try {
              label = yield* readOverSocket(session, url, inputs[i]!.method);
            } catch (e) {
              if (!(e instanceof HttpError)) {
                label = `untyped ${e instanceof Error ? e.name : typeof e}`;
                violations.push({
                  index: i,
                  reason: `loopback: untyped error ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
                  input: inputs[i]!.bytes.toString('latin1').slice(0, 300),
                  length: inputs[i]!.bytes.length,
                });
              } else label = errorLabel(e);
            }
            if (getRunningLoop().time() - started > 5) {
              violations.push({
                index: i,
                reason: 'loopback: took more than 5 s with a total timeout of 3 s',
                input: inputs[i]!.bytes.toString('latin1').slice(0, 300),
                length: inputs[i]!.bytes.length,
              });
            }
            outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
          }
        } finally {
          session.close();
        }
      })(),
    );
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return { inputs: inputs.length, seconds: (performance.now() - t0) / 1000, outcomes };
}

// --- driver -----------------------------------------------------------------------------------------

/** Runs the fuzzer; never throws for a bad input (that is a violation in the report). */
export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const options = {
    maxBodyBytes: 256 * 1024,
    maxHeaderBytes: 8 * 1024,
    budgetMs: 2000,
    watchdogMs: 20_000,
    loopback: 0,
    only: null,
    ...opts,
  };
  const corpus = buildCorpus();
  const loop = new EventLoop({ clock: new VirtualClock() });
  const outcomes = new Map<string, number>();
  const violations: Violation[] = [];
  const watchdog = options.watchdogMs > 0 ? startWatchdog(options.seed, options.watchdogMs) : null;
  const t0 = performance.now();
  let inputs = 0;
  const slowest = { index: -1, ms: 0 };
  try {
    const first = options.only ?? 0;
    const last = options.only ?? options.count - 1;
    for (let index = first; index <= last; index++) {
      const input = generateInput(corpus, options.seed, index);
      if (watchdog !== null) {
        watchdog.beat[0] = index;
        watchdog.beat[1] = Date.now();
      }
      const started = performance.now();
      const { label, violation } = checkOne(loop, input, options.maxBodyBytes, options.maxHeaderBytes);
      const ms = performance.now() - started;
      if (watchdog !== null) watchdog.beat[1] = 0;
      inputs++;
      if (ms > slowest.ms) {
        slowest.index = index;
        slowest.ms = ms;
      }
      outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
      const reason =
        violation ?? (ms > options.budgetMs ? `took ${ms.toFixed(0)} ms (budget ${options.budgetMs} ms)` : null);
      if (reason !== null)
        violations.push({
          index,
          reason,
          input: input.bytes.toString('latin1').slice(0, 300),
          length: input.bytes.length,
        });
      // Let Node breathe now and then (the watchdog's messages, signals).
      if ((index & 0xfff) === 0xfff) await new Promise((r) => setImmediate(r));
    }
  } finally {
    loop.close();
    await watchdog?.stop();
  }
  const seconds = (performance.now() - t0) / 1000;
  const loopback =
    options.loopback > 0 && options.only === null ? await runLoopback(corpus, options, violations) : null;
  return { inputs, seconds, outcomes, violations, slowest, loopback };
}

function formatOutcomes(outcomes: Map<string, number>): string {
  const rows = [...outcomes].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const width = Math.max(...rows.map(([k]) => k.length), 10);
  return rows.map(([k, n]) => `  ${k.padEnd(width)}  ${String(n).padStart(7)}`).join('\n');
}

export function formatReport(report: FuzzReport, seed: number): string {
  const lines = [
    `fuzz-response-parser: ${report.inputs} inputs (seed ${seed}) in ${report.seconds.toFixed(2)} s: ${Math.round(report.inputs / Math.max(report.seconds, 1e-9))} inputs/s; slowest input #${report.slowest.index}: ${report.slowest.ms.toFixed(1)} ms`,
    'outcomes:',
    formatOutcomes(report.outcomes),
  ];
  if (report.loopback !== null) {
    const lb = report.loopback;
    lines.push(
      `loopback (real ClientSession, 127.0.0.1): ${lb.inputs} inputs in ${lb.seconds.toFixed(2)} s: ${Math.round(lb.inputs / Math.max(lb.seconds, 1e-9))} inputs/s`,
      formatOutcomes(lb.outcomes),
    );
  }
  lines.push(`violations: ${report.violations.length}`);
  for (const v of report.violations.slice(0, 20)) {
    lines.push(
      `  #${v.index}: ${v.reason}\n    input (${v.length} bytes): ${JSON.stringify(v.input)}\n    reproduce: --seed ${seed} --only ${v.index}`,
    );
  }
  return lines.join('\n');
}

function parseArgs(argv: readonly string[]): FuzzOptions {
  const options: FuzzOptions = { count: 10_000, seed: 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v)) throw new Error(`${arg} needs a number`);
      return v;
    };
    if (arg === '--count') options.count = value();
    else if (arg === '--seed') options.seed = value();
    else if (arg === '--loopback') options.loopback = value();
    else if (arg === '--only') options.only = value();
    else if (arg === '--budget-ms') options.budgetMs = value();
    else if (arg === '--watchdog-ms') options.watchdogMs = value();
    else if (arg === '--max-body') options.maxBodyBytes = value();
    else if (arg === '--max-header') options.maxHeaderBytes = value();
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: node --import tsx bench/fuzz-response-parser.ts [--count N] [--seed S] [--loopback N] [--only INDEX] [--budget-ms MS] [--watchdog-ms MS] [--max-body BYTES] [--max-header BYTES]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

if (require.main === module) {
  const options = parseArgs(process.argv.slice(2));
  runFuzz(options).then(
    (report) => {
      process.stdout.write(formatReport(report, options.seed) + '\n');
      process.exitCode = report.violations.length > 0 ? 1 : 0;
    },
    (e: unknown) => {
      process.stderr.write(`fuzz-response-parser: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 2;
    },
  );
}
