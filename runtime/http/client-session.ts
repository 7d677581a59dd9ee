// ClientSession: the keep-alive HTTP/1.1 client the crawler uses, shaped like aiohttp's
// (`yield* session.get(url)`, `yield* response.read()`), coroutines all the way down so the
// inspector sees every frame of a request.
//
// Invariants:
// - Every failure is a typed HttpError subclass with the URL in its message.
// - A request that fails on a reused connection before any response byte is retried once.
// - Timeouts (seconds): `connect`, `read` (request and head, then the body), `total`; no step of
//   an exchange waits outside a deadline.
// - Bounded: URLs up to MAX_URL_LENGTH, at most MAX_INTERIM_RESPONSES 1xx responses.

import { coroutine } from '../coroutine';
import { CancelledError, IncompleteReadError, OSError } from '../errors';
import { getRunningLoop } from '../running-loop';
import { withTimeout } from '../timeout';
import type { StreamReader } from '../streams';
import type { Coroutine } from '../task';
import { ClientResponse, translateReadError, type ResponseLimits } from './client-response';
import type { HttpConnection } from './connection';
import { ConnectionPool, type ConnectionPoolOptions, type Origin } from './connection-pool';
import {
  HttpConnectionError,
  HttpProtocolError,
  HttpTimeoutError,
  InvalidUrlError,
  TooManyRedirectsError,
} from './errors';
import { bodyFraming, parseResponseHead, type ResponseHead } from './response-head';
import { TimeoutError } from '../errors';
import { isRedirectStatus } from './redirect-statuses';

export interface ClientTimeout {
  /** Seconds to get a connection (including waiting for a pool slot). Default 10. */
  connect?: number | null;
  /** Seconds to read the response head, and again the body. Default 30. */
  read?: number | null;
  /** Seconds for the whole request, redirects included. Default 60. */
  total?: number | null;
}

export interface ClientSessionOptions extends ConnectionPoolOptions {
  timeout?: ClientTimeout;
  /** Largest body accepted, after decoding (bytes). Default 10 MiB. */
  maxBodyBytes?: number;
  /** Largest response head accepted (bytes). Default 64 KiB. */
  maxHeaderBytes?: number;
  /** Redirects followed when allowRedirects is on. Default 10. */
  maxRedirects?: number;
  /** Sent as User-Agent. */
  userAgent?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  /** Follow 3xx responses with a Location (default true, as aiohttp). */
  allowRedirects?: boolean;
  timeout?: ClientTimeout;
  headers?: Record<string, string>;
}

/** The history of a response that followed no redirect (shared: never modified). */
const NO_HISTORY: ClientResponse[] = [];
// The blank line ending the head: a line end followed by an empty line, CRLF or LF ('\n\r\n'
// also ends a CRLF head '\r\n\r\n' at the same byte, and covers an LF-ended last field
// followed by a CRLF blank line, which the parser accepts).
const HEAD_END = ['\n\r\n', '\n\n'];

/**
 * Longest URL the client requests (characters). Browsers stop near 2 MB and most servers
 * at 8 KB; 64 KiB keeps every real link and turns a pathological one into a clear error.
 */
export const MAX_URL_LENGTH = 1 << 16;
/** 1xx responses accepted before the final one (real servers send one or two). */
export const MAX_INTERIM_RESPONSES = 32;

/** Parses and checks a URL for the client: http or https with a host. */
export function parseHttpUrl(url: string): URL {
  checkUrlLength(url);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InvalidUrlError(String(url), 'invalid URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new InvalidUrlError(url, `unsupported scheme ${JSON.stringify(u.protocol.slice(0, -1))}`);
  if (u.hostname === '') throw new InvalidUrlError(url, 'URL has no host');
  return u;
}

/** Where a request goes: the connection's origin, the Host header and the request target. */
export interface RequestTarget {
  origin: Origin;
  hostHeader: string;
  path: string;
}

function targetOfUrl(u: URL): RequestTarget {
  const tls = u.protocol === 'https:';
  const port = u.port === '' ? (tls ? 443 : 80) : Number(u.port);
  // WHATWG URL keeps IPv6 literals in brackets; sockets want them bare.
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return {
    origin: { key: `${u.protocol}//${host}:${port}`, host, port, tls },
    hostHeader: u.host,
    path: (u.pathname || '/') + u.search,
  };
}

// An absolute URL already in WHATWG's normal form (what a crawler's links are): lower-case
// host name, explicit non-default port or none, a path of unreserved and percent-encoded
// characters without dot segments. Such a URL needs no `new URL` (about a tenth of a
// request's cost); anything else goes through it.
const NORMAL_URL =
  /^(https?):\/\/([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::([1-9]\d{0,4}))?(\/(?:[A-Za-z0-9\-._~!$&()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)$/;

function checkUrlLength(url: string): void {
  if (url.length > MAX_URL_LENGTH)
    throw new InvalidUrlError(url, `URL of ${url.length} characters is longer than the limit of ${MAX_URL_LENGTH}`);
}

/** The request target of a URL, checking it as parseHttpUrl does. */
export function requestTargetOf(url: string): RequestTarget {
  checkUrlLength(url);
  const m = NORMAL_URL.exec(url);
  if (m !== null && !m[4]!.includes('/.')) {
    const tls = m[1] === 'https';
    const defaultPort = tls ? 443 : 80;
    const explicit = m[3] === undefined ? null : Number(m[3]);
    // WHATWG drops a default port: one written out is not the normal form.
    if (explicit === null || (explicit !== defaultPort && explicit <= 65535)) {
      const host = m[2]!;
      const port = explicit ?? defaultPort;
      return {
        origin: { key: `${m[1]}://${host}:${port}`, host, port, tls },
        hostHeader: explicit === null ? host : `${host}:${port}`,
        path: m[4]!,
      };
    }
  }
  return targetOfUrl(parseHttpUrl(url));
}

export class ClientSession {
  readonly pool: ConnectionPool;
  readonly timeout: Required<ClientTimeout>;
  readonly maxBodyBytes: number;
  readonly maxRedirects: number;
  private readonly _baseHeaders: string;
  private _closed = false;

  constructor(options: ClientSessionOptions = {}) {
    this.pool = new ConnectionPool({ ...options, maxLineBytes: options.maxHeaderBytes ?? 1 << 16 });
    this.timeout = { connect: 10, read: 30, total: 60, ...options.timeout };
    this.maxBodyBytes = options.maxBodyBytes ?? 10 << 20;
    this.maxRedirects = options.maxRedirects ?? 10;
    const headers: Record<string, string> = {
      'User-Agent': options.userAgent ?? 'coroscope/0.1 (+https://github.com/coroscope)',
      Accept: '*/*',
      'Accept-Encoding': 'gzip, deflate',
      ...options.headers,
    };
    this._baseHeaders = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
  }

  /** GET `url`; see RequestOptions. */
  get(url: string, options: RequestOptions = {}): Coroutine<ClientResponse> {
    return sessionRequest(this, 'GET', url, options);
  }

  /** HEAD `url`. */
  head(url: string, options: RequestOptions = {}): Coroutine<ClientResponse> {
    return sessionRequest(this, 'HEAD', url, options);
  }

  request(method: string, url: string, options: RequestOptions = {}): Coroutine<ClientResponse> {
    return sessionRequest(this, method.toUpperCase(), url, options);
  }

  /** Closes idle connections; responses still being read keep theirs until released. */
  close(): void {
    this._closed = true;
    this.pool.close();
  }

  isClosed(): boolean {
    return this._closed;
  }

  /** @internal */
  _requestHead(method: string, target: RequestTarget, extra: Record<string, string> | undefined): Buffer {
    let head = `${method} ${target.path} HTTP/1.1\r\nHost: ${target.hostHeader}\r\n${this._baseHeaders}`;
    if (extra !== undefined) for (const [k, v] of Object.entries(extra)) head += `${k}: ${v}\r\n`;
    return Buffer.from(head + '\r\n', 'latin1');
  }
}

const sessionRequest = coroutine(function* request(
  session: ClientSession,
  method: string,
  url: string,
  options: RequestOptions,
): Coroutine<ClientResponse> {
  if (session.isClosed()) throw new HttpConnectionError(url, 'the session is closed');
  const timeout = options.timeout === undefined ? session.timeout : { ...session.timeout, ...options.timeout };
  const loop = getRunningLoop();
  const deadline = timeout.total === null ? Infinity : loop.time() + timeout.total;
  const history: ClientResponse[] = [];
  let current = url;
  for (;;) {
    const target = requestTargetOf(current);
    const limits: ResponseLimits = { maxBodyBytes: session.maxBodyBytes, readTimeout: timeout.read, deadline };
    const response = yield* send(
      session,
      method,
      target,
      current,
      options.headers,
      timeout,
      limits,
      history.length === 0 ? NO_HISTORY : history.slice(),
    );
    const location = response.headers.get('location');
    if (options.allowRedirects === false || !isRedirectStatus(response.status) || location === undefined)
      return response;
    response.release();
    if (history.length >= session.maxRedirects)
      throw new TooManyRedirectsError(url, `more than ${session.maxRedirects} redirects`);
    history.push(response);
    try {
      current = new URL(location, current).href;
    } catch {
      throw new InvalidUrlError(current, `invalid Location ${JSON.stringify(location.slice(0, 100))}`);
    }
    if (response.status === 303 && method !== 'HEAD') method = 'GET';
  }
});

/** One request on one connection (retried once if a reused connection turns out dead). */
const send = coroutine(function* send(
  session: ClientSession,
  method: string,
  target: RequestTarget,
  url: string,
  headers: Record<string, string> | undefined,
  timeout: Required<ClientTimeout>,
  limits: ResponseLimits,
  history: ClientResponse[],
): Coroutine<ClientResponse> {
  const loop = getRunningLoop();
  const origin = target.origin;
  const requestBytes = session._requestHead(method, target, headers);
  for (let attempt = 0; ; attempt++) {
    const left = limits.deadline - loop.time();
    let conn: HttpConnection;
    try {
      // An idle keep-alive connection needs no waiting, hence no connect timer.
      conn =
        session.pool._takeIdle(origin.key, loop.time()) ??
        (yield* withTimeout(minTimeout(timeout.connect, left), session.pool.acquire(origin)));
    } catch (e) {
      // The pool closed under a request waiting for a slot: say so, typed.
      if (session.isClosed() && !(e instanceof CancelledError))
        throw new HttpConnectionError(url, 'the session is closed', { cause: e });
      throw connectError(e, url);
    }
    const reused = conn.requests > 0;
    conn.requests++;
    let head: ResponseHead;
    try {
      conn.writer.write(requestBytes);
      // A request the socket did not take whole (huge, or a server that does not read) is
      // still being sent: that wait is under the same deadline as the head. The usual small
      // request is gone already and costs no extra coroutine.
      const exchange =
        conn.writer.bufferedBytes() === 0 ? readResponseHead(conn.reader, url) : sendRestThenReadHead(conn, url);
      head = yield* withTimeout(minTimeout(timeout.read, limits.deadline - loop.time()), exchange);
    } catch (e) {
      session.pool.discard(conn);
      if (reused && attempt === 0 && isStaleConnectionError(e)) continue;
      throw translateReadError(e, url, 'reading the response head');
    }
    let framing;
    try {
      framing = bodyFraming(head, method, url);
    } catch (e) {
      session.pool.discard(conn);
      throw e;
    }
    return new ClientResponse(method, url, head, framing, conn, session.pool, limits, history);
  }
});

/**
 * Reads the status line and headers from `reader`, skipping 1xx interim responses. Needs no
 * connection (a reader fed by hand works), which is how the response fuzzer drives it.
 */
export const readResponseHead = coroutine(function* readHead(
  reader: StreamReader,
  url: string,
): Coroutine<ResponseHead> {
  for (let interim = 0; ; interim++) {
    if (interim > MAX_INTERIM_RESPONSES)
      throw new HttpProtocolError(url, `more than ${MAX_INTERIM_RESPONSES} interim (1xx) responses`);
    const bytes = yield* reader.readuntil(HEAD_END);
    const head = parseResponseHead(bytes, url);
    if (head.status >= 100 && head.status < 200 && head.status !== 101) continue;
    return head;
  }
});

/** Waits until the rest of the request is sent, then reads the response head. */
const sendRestThenReadHead = coroutine(function* sendRestThenReadHead(
  conn: HttpConnection,
  url: string,
): Coroutine<ResponseHead> {
  yield* conn.writer.drain();
  return yield* readResponseHead(conn.reader, url);
});

function minTimeout(t: number | null, left: number): number | null {
  const v = Math.min(t ?? Infinity, left);
  return v === Infinity ? null : Math.max(0, v);
}

/** A reused connection the server had closed: nothing of a response arrived. */
function isStaleConnectionError(e: unknown): boolean {
  if (e instanceof IncompleteReadError) return e.partial.length === 0;
  if (e instanceof OSError) return e.code === 'ECONNRESET' || e.code === 'EPIPE' || e.code === 'ECONNABORTED';
  return false;
}

function connectError(e: unknown, url: string): unknown {
  if (e instanceof CancelledError) return e;
  if (e instanceof TimeoutError) return new HttpTimeoutError(url, 'timed out connecting', { cause: e });
  if (e instanceof OSError) return new HttpConnectionError(url, `cannot connect: ${e.message}`, { cause: e });
  return e;
}
