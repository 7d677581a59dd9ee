// ClientResponse: a response whose head has arrived; the body is read on demand with
// `yield* response.read()` / `text()`, as aiohttp's. Invariants:
// - The body is read at most once (later reads return the same bytes) and never beyond
//   the session's maxBodyBytes: past it HttpTooLargeError, and the connection is dropped.
// - The connection goes back to the pool only when the body was read (or skipped) to its end
//   and the server allows keep-alive; release() without reading skips a small delimited
//   rest (body-remainder.ts), waiting briefly for it if needed, and drops it otherwise.
// - Content-Encoding gzip/deflate is undone, with the decoded size capped the same way.

import * as zlib from 'node:zlib';
import { coroutine } from '../coroutine';
import { CancelledError, IncompleteReadError, LimitOverrunError, TimeoutError } from '../errors';
import { getRunningLoop, runningLoopOrNull } from '../running-loop';
import { withTimeout } from '../timeout';
import type { Coroutine } from '../task';
import type { StreamReader } from '../streams';
import { BODY_INCOMPLETE, BODY_UNSKIPPABLE, DRAIN_LIMIT, DRAIN_TIMEOUT, measureBufferedBody } from './body-remainder';
import type { HttpConnection } from './connection';
import type { ConnectionPool } from './connection-pool';
import { HttpConnectionError, HttpProtocolError, HttpTimeoutError, HttpTooLargeError } from './errors';
import type { HttpHeaders } from './headers';
import { keepsAlive, parseChunkSize, type BodyFraming, type ResponseHead } from './response-head';

const EMPTY = Buffer.alloc(0);
const CRLF_OR_LF = ['\r\n', '\n'];

export interface ResponseLimits {
  maxBodyBytes: number;
  /** Seconds allowed for reading the body (null: none). */
  readTimeout: number | null;
  /** Loop time by which everything must be done (Infinity: none). */
  deadline: number;
}

export class ClientResponse {
  readonly method: string;
  /** The URL this response answers (after redirects, the last one). */
  readonly url: string;
  readonly status: number;
  readonly reason: string;
  readonly version: number;
  readonly headers: HttpHeaders;
  /** Responses of the redirects followed before this one. */
  readonly history: readonly ClientResponse[];
  /** The media type, lower-case, without parameters ('text/html'), or '' if none. */
  readonly contentType: string;
  /** The charset parameter of Content-Type, if any (lower-case). */
  readonly charset: string | null;
  private readonly _framing: BodyFraming;
  private _conn: HttpConnection | null;
  private readonly _pool: ConnectionPool;
  private readonly _limits: ResponseLimits;
  private _body: Buffer | null = null;
  private _released = false;

  constructor(
    method: string,
    url: string,
    head: ResponseHead,
    framing: BodyFraming,
    conn: HttpConnection,
    pool: ConnectionPool,
    limits: ResponseLimits,
    history: readonly ClientResponse[] = [],
  ) {
    this.method = method;
    this.url = url;
    this.status = head.status;
    this.reason = head.reason;
    this.version = head.version;
    this.headers = head.headers;
    this.history = history;
    this._framing = framing;
    this._conn = conn;
    this._pool = pool;
    this._limits = limits;
    const ct = head.headers.get('content-type') ?? '';
    const semi = ct.indexOf(';');
    this.contentType = (semi >= 0 ? ct.slice(0, semi) : ct).trim().toLowerCase();
    const cs = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(ct);
    this.charset = cs ? cs[1]!.toLowerCase() : null;
    if (framing.kind === 'none') this._finish(EMPTY);
  }

  /** The body as bytes (decoded from gzip/deflate). */
  read(): Coroutine<Buffer> {
    return responseRead(this);
  }

  /** The body as text, decoded with `encoding`, the charset of Content-Type, or UTF-8. */
  text(encoding?: string): Coroutine<string> {
    return responseText(this, encoding);
  }

  /** Declared Content-Length, if any (also for HEAD, 204 and 304, which carry no body). */
  contentLength(): number | null {
    if (this._framing.kind === 'length') return this._framing.length;
    if (this._framing.kind === 'none') {
      const v = this.headers.get('content-length')?.trim();
      if (v !== undefined && /^\d{1,15}$/.test(v)) return Number(v);
    }
    return null;
  }

  /** Whether the body has been read (or there is none). */
  bodyRead(): boolean {
    return this._body !== null;
  }

  /**
   * Gives the connection back. An unread body that is fully delimited and small (a
   * redirect's, a short page's) is skipped so the connection can be reused: at once when it
   * has arrived, else by a short drain task; a large or close-delimited one drops the
   * connection. Safe to call more than once.
   */
  release(): void {
    if (this._released) return;
    this._released = true;
    const conn = this._conn;
    this._conn = null;
    // From here a read() fails (the body was skipped, not read) instead of giving 0 bytes.
    if (conn === null) return;
    const keepAlive = keepsAlive(this, this._framing);
    const reader = conn.reader;
    const end = keepAlive && reader._pullReady() ? measureBufferedBody(reader, this._framing) : BODY_UNSKIPPABLE;
    if (end >= 0) {
      reader.readNowait(end);
      this._pool.release(conn);
      return;
    }
    const loop = end === BODY_INCOMPLETE ? runningLoopOrNull() : null;
    if (loop === null) {
      this._pool.discard(conn);
      return;
    }
    loop.createTask(drainRemainder(conn, this._framing, this.url, this._pool), { name: `drain ${this.url}` });
  }

  /** Drops the connection at once (cancels a body being read). */
  close(): void {
    const conn = this._conn;
    this._conn = null;
    this._released = true;
    if (conn !== null) this._pool.discard(conn);
  }

  toString(): string {
    return `<ClientResponse(${this.url}) [${this.status} ${this.reason}]>`;
  }

  // --- internals for the body coroutines ---------------------------------------------

  /** @internal */
  _state(): { body: Buffer | null; conn: HttpConnection | null; framing: BodyFraming; limits: ResponseLimits } {
    return { body: this._body, conn: this._conn, framing: this._framing, limits: this._limits };
  }

  /** @internal The body arrived whole: decode it and hand the connection back. */
  _finish(raw: Buffer): Buffer {
    const body = this._decode(raw);
    this._body = body;
    const conn = this._conn;
    this._conn = null;
    this._released = true;
    if (conn !== null) {
      if (keepsAlive(this, this._framing)) this._pool.release(conn);
      else this._pool.discard(conn);
    }
    return body;
  }

  private _decode(raw: Buffer): Buffer {
    return decodeContent(raw, this.headers.get('content-encoding'), this.url, this._limits.maxBodyBytes);
  }
}

/**
 * Undoes Content-Encoding (gzip, deflate zlib-wrapped or raw, br) with the decoded size
 * capped at `maxBytes`: HttpTooLargeError past it, HttpProtocolError for a corrupt body or
 * an unknown coding.
 */
export function decodeContent(raw: Buffer, contentEncoding: string | undefined, url: string, maxBytes: number): Buffer {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity' || raw.length === 0) return raw;
  const maxOutputLength = maxBytes;
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return zlib.gunzipSync(raw, { maxOutputLength });
    if (enc === 'deflate') {
      // Servers send both zlib-wrapped and raw deflate under this name.
      try {
        return zlib.inflateSync(raw, { maxOutputLength });
      } catch (e) {
        if (isTooLarge(e)) throw e;
        return zlib.inflateRawSync(raw, { maxOutputLength });
      }
    }
    if (enc === 'br') return zlib.brotliDecompressSync(raw, { maxOutputLength });
  } catch (e) {
    if (isTooLarge(e)) throw new HttpTooLargeError(url, `decoded body exceeds ${maxOutputLength} bytes`);
    throw new HttpProtocolError(url, `cannot decode ${enc} body: ${(e as Error).message}`, { cause: e });
  }
  throw new HttpProtocolError(url, `unsupported Content-Encoding ${JSON.stringify(enc)}`);
}

/** Whether `line` (ending in LF) is nothing but a line end: "\r\n" or "\n". */
function isLineEnd(line: Buffer): boolean {
  return line.length === 1 || (line.length === 2 && line[0] === 0x0d);
}

function isTooLarge(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 'ERR_BUFFER_TOO_LARGE';
}

/**
 * Reads the raw body bytes (not decoded) of one response from `reader`, according to
 * `framing`, never more than `maxBodyBytes`. Needs no connection: a reader fed by hand
 * (feedData/feedEof) works too, which is how the response fuzzer drives it.
 */
export const readResponseBody = coroutine(function* readBody(
  reader: StreamReader,
  framing: BodyFraming,
  url: string,
  maxBodyBytes: number,
): Coroutine<Buffer> {
  const max = maxBodyBytes;
  switch (framing.kind) {
    case 'none':
      return EMPTY;
    case 'length': {
      if (framing.length > max)
        throw new HttpTooLargeError(url, `body of ${framing.length} bytes exceeds the limit of ${max}`);
      try {
        return yield* reader.readexactly(framing.length);
      } catch (e) {
        if (e instanceof IncompleteReadError)
          throw new HttpProtocolError(url, `body ended after ${e.partial.length} of ${framing.length} bytes`, {
            cause: e,
          });
        throw e;
      }
    }
    case 'chunked': {
      const parts: Buffer[] = [];
      let total = 0;
      for (;;) {
        const size = parseChunkSize(yield* reader.readuntil(CRLF_OR_LF), url);
        if (size === 0) break;
        total += size;
        if (total > max) throw new HttpTooLargeError(url, `chunked body exceeds the limit of ${max} bytes`);
        parts.push(yield* reader.readexactly(size));
        if (!isLineEnd(yield* reader.readuntil(CRLF_OR_LF)))
          throw new HttpProtocolError(url, 'chunk data longer than its size');
      }
      // Trailer fields, up to the blank line; ignored.
      for (;;) {
        const line = yield* reader.readuntil(CRLF_OR_LF);
        if (isLineEnd(line)) break;
      }
      return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
    }
    case 'close': {
      const parts: Buffer[] = [];
      let total = 0;
      for (;;) {
        const chunk = yield* reader.read(1 << 16);
        if (chunk.length === 0) break;
        total += chunk.length;
        if (total > max) throw new HttpTooLargeError(url, `body exceeds the limit of ${max} bytes`);
        parts.push(chunk);
      }
      return Buffer.concat(parts, total);
    }
  }
});

/**
 * Reads and drops the rest of a body that had not fully arrived at release(), then hands the
 * connection back to the pool; discards it if the rest is late, too long or malformed.
 * Runs as a task of its own (nobody awaits it); the pool slot stays taken until it ends.
 */
const drainRemainder = coroutine(function* drainRemainder(
  conn: HttpConnection,
  framing: BodyFraming,
  url: string,
  pool: ConnectionPool,
): Coroutine<void> {
  try {
    yield* withTimeout(DRAIN_TIMEOUT, readResponseBody(conn.reader, framing, url, DRAIN_LIMIT));
  } catch (e) {
    pool.discard(conn);
    if (e instanceof CancelledError) throw e;
    return;
  }
  pool.release(conn);
});

const responseRead = coroutine(function* read(response: ClientResponse): Coroutine<Buffer> {
  const state = response._state();
  if (state.body !== null) return state.body;
  const { conn, framing, limits } = state;
  if (conn === null) throw new HttpConnectionError(response.url, 'the response was released before its body was read');
  const left = limits.deadline - getRunningLoop().time();
  const timeout = Math.min(limits.readTimeout ?? Infinity, left);
  let raw: Buffer;
  try {
    if (
      framing.kind === 'length' &&
      framing.length <= limits.maxBodyBytes &&
      conn.reader.bufferedBytes() >= framing.length
    ) {
      // The whole body is here already (the usual case for a page): nothing to wait for,
      // so no deadline timer either.
      raw = conn.reader.readNowait(framing.length);
    } else {
      raw = yield* withTimeout(
        timeout === Infinity ? null : Math.max(0, timeout),
        readResponseBody(conn.reader, framing, response.url, limits.maxBodyBytes),
      );
    }
  } catch (e) {
    response.close();
    throw translateReadError(e, response.url, 'reading the body');
  }
  try {
    return response._finish(raw);
  } catch (e) {
    response.close();
    throw e;
  }
});

const responseText = coroutine(function* text(response: ClientResponse, encoding?: string): Coroutine<string> {
  const body = yield* responseRead(response);
  const label = encoding ?? response.charset ?? 'utf-8';
  let decoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    throw new HttpProtocolError(response.url, `unknown charset ${JSON.stringify(label)}`);
  }
  return decoder.decode(body);
});

/** Maps stream and socket failures to the client's typed errors. */
export function translateReadError(e: unknown, url: string, what: string): unknown {
  if (
    e instanceof HttpProtocolError ||
    e instanceof HttpTooLargeError ||
    e instanceof HttpTimeoutError ||
    e instanceof HttpConnectionError
  )
    return e;
  if (e instanceof TimeoutError) return new HttpTimeoutError(url, `timed out ${what}`, { cause: e });
  if (e instanceof LimitOverrunError) return new HttpTooLargeError(url, `line too long ${what}`, { cause: e });
  if (e instanceof IncompleteReadError) return new HttpProtocolError(url, `connection closed ${what}`, { cause: e });
  if (e instanceof Error && 'code' in e && typeof (e as { code: unknown }).code === 'string') {
    return new HttpConnectionError(url, `${e.message} (${what})`, { cause: e });
  }
  return e;
}
