import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteReader, ByteWriter } from '../../../runtime/record/byte-log';
import { RecordingFormatError } from '../../../runtime/record/recording-errors';

test('unsigned and signed varints, float64s and raw bytes read back as written', () => {
  const w = new ByteWriter(4);
  const uints = [0, 1, 127, 128, 300, 2 ** 31, 2 ** 53 - 1];
  const ints = [0, -1, 1, -64, 64, -(2 ** 40), 2 ** 40];
  for (const n of uints) w.uint(n);
  for (const n of ints) w.int(n);
  w.f64(Math.PI);
  w.raw(Buffer.from('abc'));
  w.byte(7);
  const r = new ByteReader(w.bytes(), 'test');
  for (const n of uints) assert.equal(r.uint(), n);
  for (const n of ints) assert.equal(r.int(), n);
  assert.equal(r.f64(), Math.PI);
  assert.equal(Buffer.from(r.raw(3)).toString(), 'abc');
  assert.equal(r.byte(), 7);
  assert.ok(r.done);
});

test('small values take one byte; truncate cuts back', () => {
  const w = new ByteWriter();
  w.uint(5);
  w.int(-3);
  assert.equal(w.length, 2);
  w.uint(1000);
  w.truncate(2);
  assert.equal(w.bytes().length, 2);
});

test('reading past the end or an overlong varint is a RecordingFormatError naming the stream', () => {
  const w = new ByteWriter();
  w.uint(2 ** 40);
  const cut = w.bytes().subarray(0, 2);
  assert.throws(
    () => new ByteReader(cut, 'the log of x.corotrace').uint(),
    (e: unknown) => e instanceof RecordingFormatError && /the log of x\.corotrace is truncated/.test(e.message),
  );
  assert.throws(() => new ByteReader(Buffer.alloc(3), 's').f64(), RecordingFormatError);
  assert.throws(() => new ByteReader(Buffer.alloc(3), 's').raw(4), RecordingFormatError);
  assert.throws(() => new ByteReader(Buffer.alloc(12, 0xff), 's').uint(), /too long/);
});
