// Tests of runtime/http/body-remainder.ts: where an unread body ends in a reader's buffer,
// on hand-fed readers (no sockets): Content-Length, chunked with extensions, LF-only lines and
// trailers, bodies not arrived whole, too long, malformed and close-delimited ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamReader } from '../../../runtime/streams';
import {
  BODY_INCOMPLETE,
  BODY_UNSKIPPABLE,
  DRAIN_LIMIT,
  measureBufferedBody,
} from '../../../runtime/http/body-remainder';
import type { BodyFraming } from '../../../runtime/http/response-head';

const CHUNKED: BodyFraming = { kind: 'chunked' };

function fed(text: string | Buffer): StreamReader {
  const reader = new StreamReader();
  reader.feedData(typeof text === 'string' ? Buffer.from(text, 'latin1') : text);
  return reader;
}

test('an empty chunked body ends after its last chunk and blank line; what follows is not counted', () => {
  assert.equal(measureBufferedBody(fed('0\r\n\r\n'), CHUNKED), 5);
  assert.equal(measureBufferedBody(fed('0\r\n\r\nHTTP/1.1 200 OK\r\n'), CHUNKED), 5);
  assert.equal(measureBufferedBody(fed('0\n\n'), CHUNKED), 3);
});

test('chunks with extensions, LF-only line ends and trailer fields', () => {
  const body = '5;name=v\r\nhello\r\na\nabcdefghij\n0\r\nX-Trailer: 1\r\nY: 2\n\r\n';
  assert.equal(measureBufferedBody(fed(body + 'next'), CHUNKED), body.length);
});

test('measuring consumes nothing', () => {
  const reader = fed('3\r\nabc\r\n0\r\n\r\n');
  assert.equal(measureBufferedBody(reader, CHUNKED), 13);
  assert.equal(reader.bufferedBytes(), 13);
});

test('a chunked body cut anywhere before its blank line has not arrived whole', () => {
  const body = '3\r\nabc\r\n0\r\nT: 1\r\n\r\n';
  for (let cut = 1; cut < body.length; cut++)
    assert.equal(measureBufferedBody(fed(body.slice(0, cut)), CHUNKED), BODY_INCOMPLETE, `cut at ${cut}`);
});

test('a malformed chunked body is not skipped', () => {
  assert.equal(measureBufferedBody(fed('zz\r\n\r\n'), CHUNKED), BODY_UNSKIPPABLE);
  assert.equal(measureBufferedBody(fed('3\r\nabcX\r\n0\r\n\r\n'), CHUNKED), BODY_UNSKIPPABLE);
  assert.equal(measureBufferedBody(fed('3\r\nabc\rX0\r\n\r\n'), CHUNKED), BODY_UNSKIPPABLE);
});

test('a chunked body longer than DRAIN_LIMIT is not skipped, even whole', () => {
  const size = DRAIN_LIMIT + 1;
  const whole = Buffer.concat([
    Buffer.from(`${size.toString(16)}\r\n`),
    Buffer.alloc(size, 0x61),
    Buffer.from('\r\n0\r\n\r\n'),
  ]);
  assert.equal(measureBufferedBody(fed(whole), CHUNKED), BODY_UNSKIPPABLE);
  // Announced but not here yet: known too long at once.
  assert.equal(measureBufferedBody(fed(`${size.toString(16)}\r\nabc`), CHUNKED), BODY_UNSKIPPABLE);
  // Endless trailers.
  assert.equal(
    measureBufferedBody(fed(Buffer.concat([Buffer.from('0\r\n'), Buffer.alloc(DRAIN_LIMIT + 10, 0x61)])), CHUNKED),
    BODY_UNSKIPPABLE,
  );
});

test('Content-Length: here already (whatever its size), small and still coming, or too long to wait for', () => {
  assert.equal(measureBufferedBody(fed('hello world'), { kind: 'length', length: 5 }), 5);
  assert.equal(
    measureBufferedBody(fed(Buffer.alloc(DRAIN_LIMIT * 2)), { kind: 'length', length: DRAIN_LIMIT * 2 }),
    DRAIN_LIMIT * 2,
  );
  assert.equal(measureBufferedBody(fed('hel'), { kind: 'length', length: 5 }), BODY_INCOMPLETE);
  assert.equal(measureBufferedBody(fed('hel'), { kind: 'length', length: DRAIN_LIMIT + 1 }), BODY_UNSKIPPABLE);
});

test('no body ends at once; a close-delimited one is never skipped', () => {
  assert.equal(measureBufferedBody(new StreamReader(), { kind: 'none' }), 0);
  assert.equal(measureBufferedBody(fed('abc'), { kind: 'close' }), BODY_UNSKIPPABLE);
});
