import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeRecording, encodeRecording, FORMAT_VERSION, readRecordingFile, writeRecordingFile, type Recording } from '../../../runtime/record/recording-file';
import { RunLogWriter, readRunLog } from '../../../runtime/record/run-log';
import { RecordingError, RecordingFormatError } from '../../../runtime/record/recording-errors';

function sampleRecording(): Recording {
  const w = new RunLogWriter();
  w.created(0, 'main', 7);
  w.socket('127.0.0.1', 8080);
  w.input(1, 'connect', null);
  w.tick(1.5);
  w.step(1);
  w.site('socket.read');
  w.tickEnd(1);
  w.input(1, 'data', Buffer.from('HTTP/1.1 200 OK\r\n\r\n' + 'hello '.repeat(200)));
  w.gapRead(1.75);
  const err = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  w.input(1, 'error', err);
  w.tick(2.000001);
  w.step(1);
  w.site('done');
  w.done(1, 0);
  w.tickEnd(2);
  return {
    meta: { program: { kind: 'crawl', command: { roots: ['http://x/'] } }, sources: [{ path: 'runtime/loop.ts', sha256: 'a'.repeat(64) }], ticks: 2, steps: 2, tasks: 1, sockets: 1, recordedAt: '2026-11-23T00:00:00.000Z' },
    events: Buffer.from(w.events.bytes()),
    gaps: Buffer.from(w.gaps.bytes()),
    payload: Buffer.concat(w.payloads),
  };
}

test('a recording reads back as written, and its log decodes to the inputs per tick', () => {
  const rec = sampleRecording();
  const bytes = encodeRecording(rec);
  assert.equal(bytes.subarray(0, 10).toString('latin1'), 'COROTRACE\n');
  assert.equal(bytes[10], FORMAT_VERSION);
  assert.ok(bytes.length < rec.payload.length, 'the socket bytes are stored compressed');
  const back = decodeRecording(bytes, 'x.corotrace');
  assert.deepEqual(back.meta, rec.meta);
  assert.ok(back.events.equals(rec.events) && back.gaps.equals(rec.gaps) && back.payload.equals(rec.payload));
  const log = readRunLog(back.events, back.gaps, back.payload, 'x.corotrace');
  assert.deepEqual([...log.times], [1.5, 2.000001]);
  assert.deepEqual(log.inputsBefore[0]!.map((i) => i.kind), ['connect']);
  assert.deepEqual(log.inputsBefore[1]!.map((i) => i.kind), ['data', 'error']);
  assert.equal((log.inputsBefore[1]![0]!.payload as Buffer).length, rec.payload.length);
  const e = log.inputsBefore[1]![1]!.payload as Error & { code?: string };
  assert.equal(e.message, 'connect ECONNREFUSED');
  assert.equal(e.code, 'ECONNREFUSED');
  assert.deepEqual(log.gapReadsBefore[1], [1.75]);
  assert.deepEqual(log.sockets, [['127.0.0.1', 8080]]);
  assert.equal(log.steps, 2);
});

test('the socket bytes are compressed with a window that finds a page repeated far apart (brotli, 16 MiB), the fast setting too', () => {
  // A page of 100 KiB that does not compress by itself, received twice: a 32 KiB window (gzip's) cannot see the second is the first.
  let seed = 7;
  const page = Buffer.alloc(100 * 1024);
  for (let i = 0; i < page.length; i++) page[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  const w = new RunLogWriter();
  w.created(0, 'main', 1);
  w.socket('127.0.0.1', 80);
  w.tick(1);
  w.tickEnd(0);
  w.input(1, 'data', page);
  w.input(1, 'data', Buffer.from(page));
  w.tick(2);
  w.tickEnd(0);
  const rec: Recording = { ...sampleRecording(), events: Buffer.from(w.events.bytes()), gaps: Buffer.alloc(0), payload: Buffer.concat(w.payloads) };
  for (const fast of [false, true]) {
    const bytes = encodeRecording(rec, fast);
    assert.ok(bytes.length < page.length * 1.1, `${fast ? 'fast' : 'kept'}: ${bytes.length} bytes for two copies of a ${page.length}-byte page`);
    assert.ok(decodeRecording(bytes, 'x.corotrace').payload.equals(rec.payload));
  }
});

test('every truncation and every flipped byte is a RecordingFormatError naming the file', () => {
  const bytes = encodeRecording(sampleRecording());
  for (let n = 0; n < bytes.length; n++) {
    assert.throws(() => decodeRecording(bytes.subarray(0, n), 'cut.corotrace'), (e: unknown) => e instanceof RecordingFormatError && e.message.startsWith('cut.corotrace '), `cut at ${n}`);
  }
  for (let i = 0; i < bytes.length; i++) {
    const bad = Buffer.from(bytes);
    bad[i] = bad[i]! ^ 0x5a;
    assert.throws(() => decodeRecording(bad, 'flip.corotrace'), (e: unknown) => e instanceof RecordingFormatError && e.message.startsWith('flip.corotrace '), `flip at ${i}`);
  }
});

test('another version, another file type, bad metadata: each refused with its reason', () => {
  const bytes = encodeRecording(sampleRecording());
  const v2 = Buffer.from(bytes);
  v2[10] = FORMAT_VERSION + 1;
  assert.throws(() => decodeRecording(v2, 'new.corotrace'), /new\.corotrace is a recording in format version 5; this Coroscope reads version 4/);
  const v3 = Buffer.from(bytes);
  v3[10] = 3;
  assert.throws(() => decodeRecording(v3, 'old.corotrace'), /old\.corotrace is a recording in format version 3; this Coroscope reads version 4/);
  assert.throws(() => decodeRecording(Buffer.from('{"json": true}'), 'j.corotrace'), /j\.corotrace is not a Coroscope recording/);
  const noProgram = { ...sampleRecording(), meta: { ...sampleRecording().meta, program: 3 } } as unknown as Recording;
  assert.throws(() => decodeRecording(encodeRecording(noProgram), 'm.corotrace'), /m\.corotrace is corrupt: its metadata has no valid program/);
  const badTicks = { ...sampleRecording(), meta: { ...sampleRecording().meta, ticks: -1 } };
  assert.throws(() => decodeRecording(encodeRecording(badTicks), 'm.corotrace'), /no valid ticks/);
});

test('an event log that is well compressed but wrong is refused by readRunLog, with the file named', () => {
  const rec = sampleRecording();
  const cases: Array<[Buffer, RegExp]> = [
    [Buffer.from([99]), /unknown record type 99/],
    [Buffer.from([5, 7]), /string #7 is used before it is defined/],
    [Buffer.from([4, 3]), /task #3 does not exist/],
    [Buffer.from([10, 1, 0]), /socket #1 was never opened/],
    [Buffer.from([1, 0]), /the last tick never ends/],
    [Buffer.from([3, 0]), /a tick ends that never started/],
    [Buffer.from([1]), /truncated or corrupt/],
  ];
  for (const [events, why] of cases) {
    assert.throws(() => readRunLog(events, Buffer.alloc(0), Buffer.alloc(0), 'w.corotrace'), (e: unknown) => e instanceof RecordingFormatError && why.test(e.message) && /w\.corotrace/.test(e.message), why.source);
  }
  assert.throws(() => readRunLog(rec.events, rec.gaps, rec.payload.subarray(1), 'w.corotrace'), /socket bytes are missing/);
  assert.throws(() => readRunLog(rec.events, rec.gaps, Buffer.concat([rec.payload, Buffer.from('x')]), 'w.corotrace'), /belong to no input/);
});

test('files: written and read back; a missing file is a RecordingError naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-rec-'));
  try {
    const path = join(dir, 'run.corotrace');
    const size = writeRecordingFile(path, sampleRecording());
    assert.ok(size > 11);
    assert.deepEqual(readRecordingFile(path).meta, sampleRecording().meta);
    assert.throws(() => readRecordingFile(join(dir, 'none.corotrace')), (e: unknown) => e instanceof RecordingError && /none\.corotrace: no such recording file/.test(e.message));
    writeFileSync(path, '');
    assert.throws(() => readRecordingFile(path), RecordingFormatError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
