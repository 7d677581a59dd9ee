// Tests of the pure response-head parser (runtime/http/response-head.ts): status lines,
// line ends, obsolete folding, header names and values, Content-Length checks, the body
// framing rules of RFC 9112 §6.3, keep-alive rules and chunk-size lines. No sockets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bodyFraming,
  keepsAlive,
  parseChunkSize,
  parseResponseHead,
  type BodyFraming,
  type ResponseHead,
} from '../../../runtime/http/response-head';
import { HttpError, HttpProtocolError } from '../../../runtime/http/errors';

const URL_ = 'http://example.test/page';

function head(text: string): ResponseHead {
  return parseResponseHead(Buffer.from(text, 'latin1'), URL_);
}

/** Asserts that parsing `text` fails with an HttpProtocolError whose message matches `pattern` and names the URL. */
function rejects(text: string, pattern: RegExp): void {
  assert.throws(
    () => head(text),
    (e: unknown) => {
      assert.ok(e instanceof HttpProtocolError, `expected HttpProtocolError, got ${String(e)}`);
      assert.match(e.message, pattern);
      assert.ok(e.message.includes(URL_), `the message names the URL: ${e.message}`);
      assert.equal(e.url, URL_);
      return true;
    },
  );
}

function framing(text: string, method = 'GET'): BodyFraming {
  return bodyFraming(head(text), method, URL_);
}

// --- status lines ---------------------------------------------------------------------

test('status line: version, status and reason', () => {
  const h = head('HTTP/1.1 200 OK\r\n\r\n');
  assert.equal(h.version, 11);
  assert.equal(h.status, 200);
  assert.equal(h.reason, 'OK');
  assert.equal(h.headers.size, 0);
  const h10 = head('HTTP/1.0 404 Not Found Here\r\n\r\n');
  assert.equal(h10.version, 10);
  assert.equal(h10.status, 404);
  assert.equal(h10.reason, 'Not Found Here');
});

test('status line: a missing or empty reason phrase is accepted', () => {
  assert.equal(head('HTTP/1.1 204\r\n\r\n').reason, '');
  assert.equal(head('HTTP/1.1 204 \r\n\r\n').reason, '');
  assert.equal(head('HTTP/1.1 599 Whatever\r\n\r\n').status, 599);
});

test('status line: malformed ones are protocol errors naming the line', () => {
  rejects('ICY 200 OK\r\n\r\n', /invalid status line "ICY 200 OK"/);
  rejects('HTTP/1.1 20 OK\r\n\r\n', /invalid status line/);
  rejects('HTTP/1.1 2000 OK\r\n\r\n', /invalid status line/);
  rejects('HTTP/1.1  200 OK\r\n\r\n', /invalid status line/);
  rejects('HTTP/1.1 abc OK\r\n\r\n', /invalid status line/);
  rejects('HTTP/11 200 OK\r\n\r\n', /invalid status line/);
  rejects('http/1.1 200 OK\r\n\r\n', /invalid status line/);
  rejects('\r\n\r\n', /invalid status line ""/);
  rejects('HTTP/1.1 200 O\rK\r\n\r\n', /invalid status line/);
});

test('status line: versions other than 1.x and codes below 100 are refused', () => {
  rejects('HTTP/2.0 200 OK\r\n\r\n', /unsupported HTTP version 2\.0/);
  rejects('HTTP/0.9 200 OK\r\n\r\n', /unsupported HTTP version 0\.9/);
  rejects('HTTP/1.1 099 Low\r\n\r\n', /invalid status code 99/);
});

test('status line: a very long bad line is quoted only in part', () => {
  assert.throws(
    () => head('X'.repeat(10_000) + '\r\n\r\n'),
    (e: unknown) => e instanceof HttpProtocolError && e.message.length < 300,
  );
});

// --- line ends and folding ---------------------------------------------------------------

test('LF-only line ends are accepted, alone or mixed with CRLF', () => {
  const h = head('HTTP/1.1 200 OK\nContent-Type: text/html\nX-A: 1\n\n');
  assert.equal(h.status, 200);
  assert.equal(h.reason, 'OK');
  assert.equal(h.headers.get('content-type'), 'text/html');
  assert.equal(h.headers.get('x-a'), '1');
  const mixed = head('HTTP/1.1 200 OK\r\nContent-Type: text/plain\nX-B: 2\r\n\r\n');
  assert.equal(mixed.headers.get('content-type'), 'text/plain');
  assert.equal(mixed.headers.get('x-b'), '2');
  const lfThenCrlf = head('HTTP/1.1 200 OK\nX-C: 3\n\r\n');
  assert.equal(lfThenCrlf.headers.get('x-c'), '3');
});

test('obsolete line folding continues the previous field with one space', () => {
  const h = head('HTTP/1.1 200 OK\r\nX-Long: first\r\n   second\r\n\tthird\r\nX-Next: n\r\n\r\n');
  assert.equal(h.headers.get('x-long'), 'first second third');
  assert.equal(h.headers.get('x-next'), 'n');
  assert.equal(h.headers.size, 2);
  // The last field can be folded too.
  assert.equal(head('HTTP/1.1 200 OK\r\nX-Last: a\r\n b\r\n\r\n').headers.get('x-last'), 'a b');
});

test('a continuation line before any header is refused', () => {
  rejects('HTTP/1.1 200 OK\r\n folded: nothing\r\n\r\n', /continuation line without a header/);
});

test('a forbidden character in a folded continuation is refused like one in the first line', () => {
  rejects('HTTP/1.1 200 OK\r\nX-A: ok\r\n bad\0value\r\n\r\n', /invalid character in header X-A/);
});

// --- header names and values -------------------------------------------------------------

test('header values are trimmed; names keep their case; lookup ignores it', () => {
  const h = head('HTTP/1.1 200 OK\r\nContent-TYPE:   text/html; charset=utf-8   \r\nX-Empty:\r\n\r\n');
  assert.equal(h.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(h.headers.get('CONTENT-TYPE'), 'text/html; charset=utf-8');
  assert.equal(h.headers.get('x-empty'), '');
  assert.deepEqual(
    [...h.headers].map(([k]) => k),
    ['Content-TYPE', 'X-Empty'],
  );
});

test('repeated fields are all kept, in order, and joined by get()', () => {
  const h = head('HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX-A: x\r\nSet-Cookie: b=2\r\n\r\n');
  assert.deepEqual(h.headers.getAll('set-cookie'), ['a=1', 'b=2']);
  assert.equal(h.headers.get('Set-Cookie'), 'a=1, b=2');
  assert.equal(h.headers.size, 3);
  assert.deepEqual(h.headers.toJSON(), { 'set-cookie': 'a=1, b=2', 'x-a': 'x' });
});

test('bad header names are refused', () => {
  rejects('HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n', /invalid header name "Bad Name"/);
  rejects('HTTP/1.1 200 OK\r\nName : x\r\n\r\n', /invalid header name "Name "/);
  rejects('HTTP/1.1 200 OK\r\nNa(me): x\r\n\r\n', /invalid header name/);
  rejects('HTTP/1.1 200 OK\r\nN\u00e4me: x\r\n\r\n', /invalid header name/);
  rejects('HTTP/1.1 200 OK\r\n: no name\r\n\r\n', /invalid header line/);
  rejects('HTTP/1.1 200 OK\r\nno colon at all\r\n\r\n', /invalid header line "no colon at all"/);
});

test('NUL and bare CR in a value are refused; other bytes are kept as latin1', () => {
  rejects('HTTP/1.1 200 OK\r\nX-A: a\0b\r\n\r\n', /invalid character in header X-A/);
  rejects('HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n', /invalid character in header X-A/);
  const h = head('HTTP/1.1 200 OK\r\nX-Latin: caf\u00e9\tok\r\n\r\n');
  assert.equal(h.headers.get('x-latin'), 'caf\u00e9\tok');
});

test('the parser stops at the blank line', () => {
  const h = head('HTTP/1.1 200 OK\r\nX-A: 1\r\n\r\nnot: a header\r\n');
  assert.equal(h.headers.size, 1);
});

// --- Content-Length ---------------------------------------------------------------------

test('Content-Length gives length framing; equal repeats are one value', () => {
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n'), { kind: 'length', length: 42 });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'), { kind: 'length', length: 0 });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\n'), {
    kind: 'length',
    length: 7,
  });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nContent-Length: 7, 7\r\n\r\n'), { kind: 'length', length: 7 });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nContent-Length: 999999999999999\r\n\r\n'), {
    kind: 'length',
    length: 999999999999999,
  });
});

function framingRejects(text: string, pattern: RegExp, method = 'GET'): void {
  assert.throws(
    () => framing(text, method),
    (e: unknown) => e instanceof HttpProtocolError && pattern.test(e.message) && e.message.includes(URL_),
  );
}

test('conflicting Content-Length values are refused', () => {
  framingRejects(
    'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n',
    /conflicting Content-Length values \["5","6"\]/,
  );
  framingRejects('HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n', /conflicting Content-Length/);
});

test('malformed Content-Length values are refused', () => {
  for (const bad of ['-1', '+5', '1e3', '0x10', '5.0', 'five', '', '1 2', '9999999999999999', '18446744073709551617']) {
    framingRejects(`HTTP/1.1 200 OK\r\nContent-Length: ${bad}\r\n\r\n`, /invalid Content-Length/);
  }
});

// --- framing rules ------------------------------------------------------------------------

test('HEAD, 1xx, 204 and 304 responses have no body whatever their headers say', () => {
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n', 'HEAD'), { kind: 'none' });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', 'HEAD'), { kind: 'none' });
  assert.deepEqual(framing('HTTP/1.1 204 No Content\r\nContent-Length: 100\r\n\r\n'), { kind: 'none' });
  assert.deepEqual(framing('HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n'), { kind: 'none' });
  assert.deepEqual(framing('HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n'), { kind: 'none' });
  assert.deepEqual(framing('HTTP/1.1 101 Switching Protocols\r\n\r\n'), { kind: 'none' });
  assert.deepEqual(framing('HTTP/1.1 103 Early Hints\r\n\r\n'), { kind: 'none' });
  // Even a bad Content-Length does not matter when there is no body.
  assert.deepEqual(framing('HTTP/1.1 204 No Content\r\nContent-Length: nope\r\n\r\n'), { kind: 'none' });
});

test('chunked when chunked is the last transfer coding; it wins over Content-Length', () => {
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'), { kind: 'chunked' });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n'), { kind: 'chunked' });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n'), { kind: 'chunked' });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n'), {
    kind: 'chunked',
  });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n'), {
    kind: 'chunked',
  });
  // Transfer-Encoding makes even a conflicting Content-Length irrelevant.
  assert.deepEqual(
    framing('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n'),
    { kind: 'chunked' },
  );
});

test('a transfer coding other than chunked last, or no length at all, reads until close', () => {
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n'), { kind: 'close' });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n'), { kind: 'close' });
  assert.deepEqual(framing('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n'), { kind: 'close' });
  assert.deepEqual(framing('HTTP/1.0 200 OK\r\n\r\n'), { kind: 'close' });
});

// --- keep-alive -----------------------------------------------------------------------------

function alive(text: string, method = 'GET'): boolean {
  const h = head(text);
  return keepsAlive(h, bodyFraming(h, method, URL_));
}

test('keep-alive: HTTP/1.1 by default, HTTP/1.0 only when asked for', () => {
  assert.equal(alive('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'), true);
  assert.equal(alive('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'), true);
  assert.equal(alive('HTTP/1.1 204 No Content\r\n\r\n'), true);
  assert.equal(alive('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n'), false);
  assert.equal(alive('HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n'), true);
  assert.equal(alive('HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: Keep-Alive\r\n\r\n'), true);
});

test('keep-alive: never after Connection: close, a close-delimited body, or a 101', () => {
  assert.equal(alive('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'), false);
  assert.equal(alive('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: Keep-Alive, Close\r\n\r\n'), false);
  assert.equal(
    alive('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: upgrade\r\nConnection: close\r\n\r\n'),
    false,
  );
  assert.equal(alive('HTTP/1.1 200 OK\r\n\r\n'), false);
  assert.equal(alive('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n'), false);
  assert.equal(alive('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n'), false);
});

// --- chunk-size lines -------------------------------------------------------------------------

function chunk(line: string): number {
  return parseChunkSize(Buffer.from(line, 'latin1'), URL_);
}

test('chunk-size lines: hex, either case, with extensions, CRLF or LF', () => {
  assert.equal(chunk('0\r\n'), 0);
  assert.equal(chunk('1a\r\n'), 26);
  assert.equal(chunk('1A\r\n'), 26);
  assert.equal(chunk('ff;name=value\r\n'), 255);
  assert.equal(chunk('10 ; ext\r\n'), 16);
  assert.equal(chunk('5\n'), 5);
  assert.equal(chunk('000000000010\r\n'), 16);
  assert.equal(chunk('ffffffffffff\r\n'), 0xffffffffffff);
});

test('bad chunk-size lines are protocol errors quoting the line', () => {
  for (const bad of [
    'zz\r\n',
    '\r\n',
    '-1\r\n',
    '0x10\r\n',
    '1 2\r\n',
    ';ext\r\n',
    '1000000000000\r\n',
    'g\r\n',
    '+5\r\n',
  ]) {
    assert.throws(
      () => chunk(bad),
      (e: unknown) =>
        e instanceof HttpProtocolError && /invalid chunk size/.test(e.message) && e.message.includes(URL_),
      `expected ${JSON.stringify(bad)} to be refused`,
    );
  }
  assert.throws(() => chunk('zz-not-a-chunk-size\r\n'), /invalid chunk size "zz-not-a-chunk-size"/);
});

test('every parser failure is an HttpError with the URL', () => {
  const inputs = ['garbage', 'HTTP/1.1 200 OK\r\nx y: z\r\n\r\n', 'HTTP/3.0 200 OK\r\n\r\n'];
  for (const input of inputs) {
    assert.throws(
      () => head(input),
      (e: unknown) => e instanceof HttpError && e.url === URL_,
    );
  }
});
