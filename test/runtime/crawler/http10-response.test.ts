// The HTTP/1.0 request and response parser of the crawler's teaching stages: every malformed
// input is a MalformedResponseError with a useful message, never another exception.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  MAX_HEAD_BYTES,
  MAX_HEADER_LINES,
  MalformedResponseError,
  buildHttp10Request,
  parseHttp10Response,
} from '../../../runtime/crawler/http10-response';

const parse = (text: string) => parseHttp10Response(Buffer.from(text, 'latin1'));

function rejects(text: string | Buffer, message: RegExp): void {
  const raw = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  assert.throws(
    () => parseHttp10Response(raw),
    (error: unknown) => {
      assert.ok(error instanceof MalformedResponseError, `MalformedResponseError, got ${String(error)}`);
      assert.match(error.message, message);
      return true;
    },
  );
}

describe('buildHttp10Request', () => {
  test('GET of the path and query, Host with the port, Connection: close, no fragment', () => {
    const request = buildHttp10Request(new URL('http://127.0.0.1:8080/a/b?x=1&y=%20#frag')).toString('latin1');
    assert.equal(
      request,
      'GET /a/b?x=1&y=%20 HTTP/1.0\r\nHost: 127.0.0.1:8080\r\nUser-Agent: coroscope-teaching-crawler/0.1\r\nAccept: */*\r\nConnection: close\r\n\r\n',
    );
    assert.match(
      buildHttp10Request(new URL('https://example.com/é')).toString('latin1'),
      /^GET \/%C3%A9 HTTP\/1\.0\r\nHost: example\.com\r\n/,
    );
  });

  test('refuses absurdly long targets', () => {
    assert.throws(() => buildHttp10Request(new URL(`http://h/${'a'.repeat(9000)}`)), RangeError);
  });
});

describe('parseHttp10Response', () => {
  test('status line, headers (lowercased, repeated ones joined), body to the end', () => {
    const response = parse('HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nX-A: 1\r\nx-a: 2\r\n\r\n<p>gone</p>');
    assert.equal(response.version, 'HTTP/1.1');
    assert.equal(response.status, 404);
    assert.equal(response.reason, 'Not Found');
    assert.equal(response.headers.get('content-type'), 'text/html');
    assert.equal(response.headers.get('x-a'), '1, 2');
    assert.equal(response.body.toString(), '<p>gone</p>');
  });

  test('bare LF line ends, no reason phrase, folded header lines', () => {
    const response = parse('HTTP/1.0 200\nX-Long: a\n  b\n\nbody');
    assert.equal(response.status, 200);
    assert.equal(response.reason, '');
    assert.equal(response.headers.get('x-long'), 'a b');
    assert.equal(response.body.toString(), 'body');
  });

  test('Content-Length cuts the body; a shorter body is an error', () => {
    assert.equal(parse('HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabcdef').body.toString(), 'abc');
    assert.equal(parse('HTTP/1.0 200 OK\r\nContent-Length: 3, 3\r\n\r\nabc').body.toString(), 'abc');
    rejects('HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nabc', /body ended after 3 of the 10 bytes/);
    rejects('HTTP/1.0 200 OK\r\nContent-Length: 3, 4\r\n\r\nabcd', /malformed Content-Length/);
    rejects('HTTP/1.0 200 OK\r\nContent-Length: -1\r\n\r\n', /malformed Content-Length/);
  });

  test('204 and 304 have no body', () => {
    assert.equal(parse('HTTP/1.1 204 No Content\r\n\r\njunk').body.length, 0);
    assert.equal(parse('HTTP/1.1 304 Not Modified\r\n\r\n').body.length, 0);
  });

  test('chunked bodies are decoded (extensions and trailers ignored)', () => {
    const response = parse(
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n',
    );
    assert.equal(response.body.toString(), 'abc0123456789');
    rejects('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /malformed chunk-size line: "zz"/);
    rejects(
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc',
      /ended early, inside a chunk of 16 bytes/,
    );
    rejects('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n', /ended early, after 3 bytes/);
    rejects('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX', /not followed by a line end/);
  });

  test('malformed heads', () => {
    rejects('', /empty response/);
    rejects('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n', /ended inside its header section/);
    rejects('\r\n\r\n', /empty line instead of a status line/);
    rejects('ICY 200 OK\r\n\r\n', /malformed status line: "ICY 200 OK"/);
    rejects('HTTP/1.1 99 Odd\r\n\r\n', /malformed status line/);
    rejects('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n', /interim response 100/);
    rejects('HTTP/1.1 200 OK\r\nno colon\r\n\r\n', /malformed header line: "no colon"/);
    rejects('HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n', /malformed header line/);
    rejects('HTTP/1.1 200 OK\r\n folded first\r\n\r\n', /continuation line without a header/);
  });

  test('the header section is bounded in bytes and in lines', () => {
    rejects(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`, /header section larger than/);
    rejects(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEAD_BYTES)}`, /header section larger than/);
    rejects(`HTTP/1.1 200 OK\r\n${'X: y\r\n'.repeat(MAX_HEADER_LINES + 1)}\r\n`, /more than \d+ header lines/);
    const many = parse(`HTTP/1.1 200 OK\r\n${'X: y\r\n'.repeat(MAX_HEADER_LINES)}\r\nok`);
    assert.equal(many.body.toString(), 'ok');
  });
});
