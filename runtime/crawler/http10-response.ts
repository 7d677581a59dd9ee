// HTTP/1.0 for the crawler's two teaching stages (the callback Fetcher and the hand-made
// generator coroutines): the request they send and the parser of the bytes they get back.
//
// The teaching stages speak the simplest HTTP there is: one `GET ... HTTP/1.0` with
// `Connection: close` per connection, then read until the server closes. The whole response
// is in memory when it is parsed, so the parser is a plain function over a Buffer: no
// streaming state to keep, and every failure is an exception with a precise message.
//
// Invariants:
// - `parseHttp10Response` never trusts its input: the header section is bounded
//   (MAX_HEAD_BYTES, MAX_HEADER_LINES), a malformed status line, header line, Content-Length
//   or chunk is a `MalformedResponseError`, a body shorter than announced is one too. It
//   never throws anything else.
// - Servers may answer an HTTP/1.0 request with an HTTP/1.1 response; a body that is
//   `Transfer-Encoding: chunked` anyway is de-chunked, one with Content-Length is cut to
//   that length, any other body is everything up to the close.
// - No compression is asked for (no Accept-Encoding), so bodies are taken as sent.

import { CoroscopeError } from '../errors';

/** Largest header section (status line and headers) accepted, in bytes. */
export const MAX_HEAD_BYTES = 64 * 1024;
/** Most header lines accepted in one response. */
export const MAX_HEADER_LINES = 200;
/** Longest request target (path and query) the teaching stages will send. */
export const MAX_REQUEST_TARGET = 8 * 1024;

const USER_AGENT = 'coroscope-teaching-crawler/0.1';

/** The server's answer could not be understood as HTTP. */
export class MalformedResponseError extends CoroscopeError {}

/** A response as the teaching stages see it. Header names are lowercased. */
export interface Http10Response {
  /** The version of the status line, e.g. `HTTP/1.1`. */
  readonly version: string;
  readonly status: number;
  readonly reason: string;
  /** Each header once, repeated fields joined with `, ` (as HTTP allows for lists). */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
}

/** The one request per connection of the teaching stages: GET, HTTP/1.0, `Connection: close`. */
export function buildHttp10Request(url: URL): Buffer {
  const target = `${url.pathname || '/'}${url.search}`;
  if (target.length > MAX_REQUEST_TARGET) {
    throw new RangeError(`request target longer than ${MAX_REQUEST_TARGET} characters: ${target.slice(0, 80)}...`);
  }
  // URL has already percent-encoded everything outside ASCII, so latin1 is exact here.
  const head =
    `GET ${target} HTTP/1.0\r\n` +
    `Host: ${url.host}\r\n` +
    `User-Agent: ${USER_AGENT}\r\n` +
    'Accept: */*\r\n' +
    'Connection: close\r\n' +
    '\r\n';
  return Buffer.from(head, 'latin1');
}

const STATUS_LINE = /^(HTTP\/\d\.\d) ([1-9]\d\d)(?: ([^\x00-\x08\x0a-\x1f\x7f]*))?$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const DIGITS = /^\d{1,15}$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/;

/** A short, printable excerpt of untrusted text for an error message. */
function excerpt(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

/**
 * Splits the header section off `raw`: the lines before the first empty line (CRLF or bare
 * LF line ends) and the offset where the body starts.
 */
function splitHead(raw: Buffer): { lines: string[]; bodyStart: number } {
  if (raw.length === 0) throw new MalformedResponseError('empty response: the server closed the connection without answering');
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const end = raw.indexOf(0x0a, start);
    if (end >= MAX_HEAD_BYTES || (end < 0 && raw.length > MAX_HEAD_BYTES)) {
      throw new MalformedResponseError(`header section larger than ${MAX_HEAD_BYTES} bytes`);
    }
    if (end < 0) throw new MalformedResponseError(`response ended inside its header section (${raw.length} bytes received)`);
    const lineEnd = end > start && raw[end - 1] === 0x0d ? end - 1 : end;
    const line = raw.toString('latin1', start, lineEnd);
    start = end + 1;
    if (line === '') {
      if (lines.length === 0) throw new MalformedResponseError('response starts with an empty line instead of a status line');
      return { lines, bodyStart: start };
    }
    if (lines.length > MAX_HEADER_LINES) throw new MalformedResponseError(`more than ${MAX_HEADER_LINES} header lines`);
    lines.push(line);
  }
}

function parseHeaders(lines: readonly string[]): Map<string, string> {
  const headers = new Map<string, string>();
  let last: string | null = null;
  for (const line of lines) {
    if (line[0] === ' ' || line[0] === '\t') {
      // Obsolete line folding: the line continues the previous field's value.
      if (last === null) throw new MalformedResponseError(`header continuation line without a header: ${excerpt(line)}`);
      headers.set(last, `${headers.get(last) ?? ''} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!HEADER_NAME.test(name)) throw new MalformedResponseError(`malformed header line: ${excerpt(line)}`);
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    const previous = headers.get(key);
    headers.set(key, previous === undefined ? value : `${previous}, ${value}`);
    last = key;
  }
  return headers;
}

/** The Content-Length, or null without one. Repeated equal values are allowed (RFC 9110). */
function contentLengthOf(headers: ReadonlyMap<string, string>): number | null {
  const field = headers.get('content-length');
  if (field === undefined) return null;
  const values = field.split(',').map((v) => v.trim());
  if (!values.every((v) => DIGITS.test(v)) || values.some((v) => v !== values[0])) {
    throw new MalformedResponseError(`malformed Content-Length: ${excerpt(field)}`);
  }
  return Number(values[0]);
}

/** Decodes a chunked body that runs to the end of `raw`. */
function dechunk(raw: Buffer, start: number): Buffer {
  const parts: Buffer[] = [];
  let size = 0;
  let pos = start;
  for (;;) {
    const end = raw.indexOf(0x0a, pos);
    if (end < 0) throw new MalformedResponseError(`chunked body ended early, after ${size} bytes`);
    const line = raw.toString('latin1', pos, end > pos && raw[end - 1] === 0x0d ? end - 1 : end);
    const match = CHUNK_SIZE.exec(line);
    if (match === null) throw new MalformedResponseError(`malformed chunk-size line: ${excerpt(line)}`);
    const chunkSize = parseInt(match[1]!, 16);
    pos = end + 1;
    if (chunkSize === 0) return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size); // trailers ignored
    if (pos + chunkSize > raw.length) throw new MalformedResponseError(`chunked body ended early, inside a chunk of ${chunkSize} bytes`);
    parts.push(raw.subarray(pos, pos + chunkSize));
    size += chunkSize;
    pos += chunkSize;
    // Each chunk's data is followed by a line end.
    if (raw[pos] === 0x0d && raw[pos + 1] === 0x0a) pos += 2;
    else if (raw[pos] === 0x0a) pos += 1;
    else if (pos >= raw.length) throw new MalformedResponseError(`chunked body ended early, after ${size} bytes`);
    else throw new MalformedResponseError(`chunk of ${chunkSize} bytes not followed by a line end`);
  }
}

/** Parses a complete response: every byte the server sent before it closed the connection. */
export function parseHttp10Response(raw: Buffer): Http10Response {
  const { lines, bodyStart } = splitHead(raw);
  const statusLine = lines[0]!;
  const match = STATUS_LINE.exec(statusLine);
  if (match === null) throw new MalformedResponseError(`malformed status line: ${excerpt(statusLine)}`);
  const status = Number(match[2]);
  if (status < 200) throw new MalformedResponseError(`unexpected interim response ${status} to an HTTP/1.0 request`);
  const headers = parseHeaders(lines.slice(1));

  let body: Buffer;
  const transferEncoding = headers.get('transfer-encoding');
  const chunked = transferEncoding !== undefined && /(?:^|,)\s*chunked\s*$/i.test(transferEncoding);
  if (status === 204 || status === 304) {
    body = Buffer.alloc(0);
  } else if (chunked) {
    body = dechunk(raw, bodyStart);
  } else {
    const length = transferEncoding === undefined ? contentLengthOf(headers) : null;
    const available = raw.length - bodyStart;
    if (length === null) {
      body = raw.subarray(bodyStart);
    } else if (available < length) {
      throw new MalformedResponseError(`body ended after ${available} of the ${length} bytes of its Content-Length`);
    } else {
      body = raw.subarray(bodyStart, bodyStart + length);
    }
  }
  return { version: match[1]!, status, reason: match[3] ?? '', headers, body };
}
