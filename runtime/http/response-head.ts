// Parses an HTTP/1.x response head (status line and header fields) and decides how the
// body is framed (RFC 9112 §6.3). Pure and synchronous: the client reads the bytes up to
// the blank line, this turns them into data or an HttpProtocolError naming what is wrong.
// Lenient where real servers are sloppy (LF-only line ends, a missing reason phrase,
// obsolete line folding), strict where a mistake could desynchronise the connection
// (conflicting Content-Length values, a malformed length, control characters).

import { HttpHeaders } from './headers';
import { HttpProtocolError } from './errors';

export interface ResponseHead {
  /** 10 for HTTP/1.0, 11 for HTTP/1.1. */
  version: number;
  status: number;
  reason: string;
  headers: HttpHeaders;
}

export type BodyFraming =
  | { kind: 'none' }
  | { kind: 'length'; length: number }
  | { kind: 'chunked' }
  | { kind: 'close' };

const DIGITS = /^\d{1,15}$/;
const CHUNK_SIZE = /^[0-9a-fA-F]{1,12}$/;
const STATUS_LINE = /^HTTP\/(\d)\.(\d) (\d{3})(?: ([^\r\n]*))?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values may not contain NUL, CR or LF (other controls are tolerated, as browsers do).
const BAD_VALUE = /[\0\r\n]/;

/** Parses the head (bytes up to and including the blank line). */
export function parseResponseHead(head: Buffer, url: string): ResponseHead {
  const text = head.toString('latin1');
  const lines = text.split('\n');
  let statusLine = lines[0]!;
  if (statusLine.endsWith('\r')) statusLine = statusLine.slice(0, -1);
  const m = STATUS_LINE.exec(statusLine);
  if (m === null) throw new HttpProtocolError(url, `invalid status line ${JSON.stringify(statusLine.slice(0, 80))}`);
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major !== 1) throw new HttpProtocolError(url, `unsupported HTTP version ${major}.${minor}`);
  const status = Number(m[3]);
  if (status < 100) throw new HttpProtocolError(url, `invalid status code ${status}`);
  const headers = new HttpHeaders();
  let lastName: string | null = null;
  let lastValue = '';
  for (let i = 1; i < lines.length; i++) {
    let line = lines[i]!;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line === '') break;
    if (line[0] === ' ' || line[0] === '\t') {
      // Obsolete line folding: continues the previous field.
      if (lastName === null) throw new HttpProtocolError(url, 'header continuation line without a header');
      const more = line.trim();
      if (BAD_VALUE.test(more)) throw new HttpProtocolError(url, `invalid character in header ${lastName}`);
      lastValue += ' ' + more;
      continue;
    }
    if (lastName !== null) headers.append(lastName, lastValue);
    const colon = line.indexOf(':');
    if (colon <= 0) throw new HttpProtocolError(url, `invalid header line ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) throw new HttpProtocolError(url, `invalid header name ${JSON.stringify(name.slice(0, 80))}`);
    const value = line.slice(colon + 1).trim();
    if (BAD_VALUE.test(value)) throw new HttpProtocolError(url, `invalid character in header ${name}`);
    lastName = name;
    lastValue = value;
  }
  if (lastName !== null) headers.append(lastName, lastValue);
  return { version: major * 10 + minor, status, reason: m[4] ?? '', headers };
}

/** How the body of this response is delimited (RFC 9112 §6.3). */
export function bodyFraming(head: ResponseHead, method: string, url: string): BodyFraming {
  const { status, headers } = head;
  if (method === 'HEAD' || (status >= 100 && status < 200) || status === 204 || status === 304) return { kind: 'none' };
  const te = headers.get('transfer-encoding');
  if (te !== undefined) {
    const codings = te
      .split(',')
      .map((c) => c.trim().toLowerCase())
      .filter((c) => c !== '');
    if (codings[codings.length - 1] === 'chunked') return { kind: 'chunked' };
    // Not chunked last: the body runs until the connection closes.
    return { kind: 'close' };
  }
  const lengths = headers.getAll('content-length');
  if (lengths.length === 1 && DIGITS.test(lengths[0]!)) return { kind: 'length', length: Number(lengths[0]) };
  if (lengths.length > 0) {
    const values = new Set(lengths.flatMap((v) => v.split(',').map((x) => x.trim())));
    if (values.size !== 1)
      throw new HttpProtocolError(url, `conflicting Content-Length values ${JSON.stringify([...values])}`);
    const v = [...values][0]!;
    if (!/^\d{1,15}$/.test(v))
      throw new HttpProtocolError(url, `invalid Content-Length ${JSON.stringify(v.slice(0, 40))}`);
    return { kind: 'length', length: Number(v) };
  }
  return { kind: 'close' };
}

/** Whether the connection may carry another request after this response. */
export function keepsAlive(head: ResponseHead, framing: BodyFraming): boolean {
  if (framing.kind === 'close') return false;
  // 101 Switching Protocols (never asked for: the client sends no Upgrade): whatever follows
  // on the connection is not HTTP/1.1 any more.
  if (head.status === 101) return false;
  const conn = (head.headers.get('connection') ?? '').toLowerCase();
  const tokens = conn.split(',').map((t) => t.trim());
  if (tokens.includes('close')) return false;
  if (head.version >= 11) return true;
  return tokens.includes('keep-alive');
}

/** Parses a chunk-size line ("1a3;ext=1"); throws on anything else. */
export function parseChunkSize(line: Buffer, url: string): number {
  const size = chunkSizeOf(line);
  if (size < 0)
    throw new HttpProtocolError(
      url,
      `invalid chunk size ${JSON.stringify(
        line
          .toString('latin1')
          .replace(/\r?\n$/, '')
          .slice(0, 40),
      )}`,
    );
  return size;
}

/** The size a chunk-size line (with or without its line end) announces, or -1 if malformed. */
export function chunkSizeOf(line: Buffer): number {
  const text = line.toString('latin1').replace(/\r?\n$/, '');
  const semi = text.indexOf(';');
  const hex = (semi >= 0 ? text.slice(0, semi) : text).trim();
  return CHUNK_SIZE.test(hex) ? parseInt(hex, 16) : -1;
}
