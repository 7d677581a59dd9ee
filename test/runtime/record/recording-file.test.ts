import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { brotliDecompressSync } from 'node:zlib';
import { join } from 'node:path';
import {
  decodeRecording,
  encodeRecording,
  FORMAT_VERSION,
  readRecordingFile,
  readRecordingLog,
  unwritableRecordingPath,
  writeRecordingFile,
  type Recording,
} from '../../../runtime/record/recording-file';
import { RunLogWriter, readRunLog } from '../../../runtime/record/run-log';
import { RecordingError, RecordingFormatError } from '../../../runtime/record/recording-errors';
import { readRecordedProgram } from '../../../runtime/host/main-thread/launch-programs';
import {
  cutCopies,
  flipCopies,
  oddCopies,
  partsOf,
  recordDemoCrawl,
  sectionCopies,
  type CorruptCopy,
} from './corrupt-recordings';

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
    meta: {
      program: { kind: 'crawl', command: { roots: ['http://x/'] } },
      sources: [{ path: 'runtime/loop.ts', sha256: 'a'.repeat(64) }],
      ticks: 2,
      steps: 2,
      tasks: 1,
      sockets: 1,
      recordedAt: '2026-11-23T00:00:00.000Z',
    },
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
  assert.deepEqual(
    log.inputsBefore[0]!.map((i) => i.kind),
    ['connect'],
  );
  assert.deepEqual(
    log.inputsBefore[1]!.map((i) => i.kind),
    ['data', 'error'],
  );
  assert.equal((log.inputsBefore[1]![0]!.payload as Buffer).length, rec.payload.length);
  const e = log.inputsBefore[1]![1]!.payload as Error & { code?: string };
  assert.equal(e.message, 'connect ECONNREFUSED');
  assert.equal(e.code, 'ECONNREFUSED');
  assert.deepEqual(log.gapReadsBefore[1], [1.75]);
  assert.deepEqual(log.sockets, [['127.0.0.1', 8080]]);
  assert.equal(log.steps, 2);
});

test('the socket bytes are compressed with a window that finds a page repeated far apart (brotli, 16 MiB), the fast setting too', () => {
  // A page of 100 KiB that does not compress by itself, received twice: a 32 KiB window (gzip's) cannot see
  // the second is the first.
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
  const rec: Recording = {
    ...sampleRecording(),
    events: Buffer.from(w.events.bytes()),
    gaps: Buffer.alloc(0),
    payload: Buffer.concat(w.payloads),
  };
  for (const fast of [false, true]) {
    const bytes = encodeRecording(rec, fast);
    assert.ok(
      bytes.length < page.length * 1.1,
      `${fast ? 'fast' : 'kept'}: ${bytes.length} bytes for two copies of a ${page.length}-byte page`,
    );
    assert.ok(decodeRecording(bytes, 'x.corotrace').payload.equals(rec.payload));
  }
});

test('every truncation and every flipped byte is a RecordingFormatError naming the file', () => {
  const bytes = encodeRecording(sampleRecording());
  for (let n = 0; n < bytes.length; n++) {
    assert.throws(
      () => decodeRecording(bytes.subarray(0, n), 'cut.corotrace'),
      (e: unknown) => e instanceof RecordingFormatError && e.message.startsWith('cut.corotrace '),
      `cut at ${n}`,
    );
  }
  for (let i = 0; i < bytes.length; i++) {
    const bad = Buffer.from(bytes);
    bad[i] = bad[i]! ^ 0x5a;
    assert.throws(
      () => decodeRecording(bad, 'flip.corotrace'),
      (e: unknown) => e instanceof RecordingFormatError && e.message.startsWith('flip.corotrace '),
      `flip at ${i}`,
    );
  }
});

test('another version, another file type, bad metadata: each refused with its reason', () => {
  const bytes = encodeRecording(sampleRecording());
  const v2 = Buffer.from(bytes);
  v2[10] = FORMAT_VERSION + 1;
  assert.throws(
    () => decodeRecording(v2, 'new.corotrace'),
    /new\.corotrace is a recording in format version 6; this Coroscope reads versions 4 to 5/,
  );
  const v3 = Buffer.from(bytes);
  v3[10] = 3;
  assert.throws(
    () => decodeRecording(v3, 'old.corotrace'),
    /old\.corotrace is a recording in format version 3; this Coroscope reads versions 4 to 5/,
  );
  // Version 4 is version 5 without the cancel records: still read.
  const v4 = Buffer.from(bytes);
  v4[10] = 4;
  assert.equal(decodeRecording(v4, 'v4.corotrace').meta.ticks, sampleRecording().meta.ticks);
  assert.throws(
    () => decodeRecording(Buffer.from('{"json": true}'), 'j.corotrace'),
    /j\.corotrace is not a Coroscope recording/,
  );
  const noProgram = { ...sampleRecording(), meta: { ...sampleRecording().meta, program: 3 } } as unknown as Recording;
  assert.throws(
    () => decodeRecording(encodeRecording(noProgram), 'm.corotrace'),
    /m\.corotrace is corrupt: its metadata has no valid program/,
  );
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
    assert.throws(
      () => readRunLog(events, Buffer.alloc(0), Buffer.alloc(0), 'w.corotrace'),
      (e: unknown) => e instanceof RecordingFormatError && why.test(e.message) && /w\.corotrace/.test(e.message),
      why.source,
    );
  }
  assert.throws(
    () => readRunLog(rec.events, rec.gaps, rec.payload.subarray(1), 'w.corotrace'),
    /socket bytes are missing/,
  );
  assert.throws(
    () => readRunLog(rec.events, rec.gaps, Buffer.concat([rec.payload, Buffer.from('x')]), 'w.corotrace'),
    /belong to no input/,
  );
});

test('files: written and read back; a missing file is a RecordingError naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-rec-'));
  try {
    const path = join(dir, 'run.corotrace');
    const size = writeRecordingFile(path, sampleRecording());
    assert.equal(size.bytes, readFileSync(path).length);
    // The socket bytes' part is the brotli of the recording's payload, at the end of the file.
    const payload = sampleRecording().payload;
    assert.ok(size.socketBytes > 0 && size.socketBytes < size.bytes);
    assert.deepEqual(brotliDecompressSync(readFileSync(path).subarray(size.bytes - size.socketBytes)), payload);
    assert.deepEqual(readRecordingFile(path).meta, sampleRecording().meta);
    assert.throws(
      () => readRecordingFile(join(dir, 'none.corotrace')),
      (e: unknown) => e instanceof RecordingError && /none\.corotrace: no such recording file/.test(e.message),
    );
    writeFileSync(path, '');
    assert.throws(() => readRecordingFile(path), RecordingFormatError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('files are written whole or not at all: no partial file is left beside, and a path that cannot hold one is refused before anything is written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-rec-'));
  try {
    const path = join(dir, 'run.corotrace');
    writeRecordingFile(path, sampleRecording());
    // Written again over the first: still one file, whole.
    writeRecordingFile(path, sampleRecording());
    assert.deepEqual(readdirSync(dir), ['run.corotrace']);
    assert.deepEqual(readRecordingFile(path).meta, sampleRecording().meta);
    assert.equal(unwritableRecordingPath(path), null);
    assert.equal(unwritableRecordingPath(join(dir, 'new.corotrace')), null);
    const missing = join(dir, 'gone', 'run.corotrace');
    assert.equal(unwritableRecordingPath(missing), `the folder ${join(dir, 'gone')} does not exist`);
    assert.throws(
      () => writeRecordingFile(missing, sampleRecording()),
      (e: unknown) =>
        e instanceof RecordingError &&
        e.message === `cannot write the recording: the folder ${join(dir, 'gone')} does not exist`,
    );
    assert.equal(unwritableRecordingPath(dir), `${dir} is a folder, not a file`);
    assert.equal(unwritableRecordingPath(join(path, 'x.corotrace')), `${path} is not a folder`);
    assert.deepEqual(readdirSync(dir), ['run.corotrace']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a symbolic link keeps naming the recording written through it; a named pipe is written into, never replaced by a file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-rec-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const rec = sampleRecording();
  // A link to a file in another folder: the file is replaced, the link stays a link to it.
  const store = join(dir, 'store');
  execFileSync('mkdir', [store]);
  writeFileSync(join(store, 'run.corotrace'), 'old');
  const link = join(dir, 'latest.corotrace');
  symlinkSync(join(store, 'run.corotrace'), link);
  writeRecordingFile(link, rec);
  assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
  assert.equal(readlinkSync(link), join(store, 'run.corotrace'));
  assert.deepEqual(readRecordingFile(join(store, 'run.corotrace')).meta, rec.meta);
  assert.deepEqual(readdirSync(dir).sort(), ['latest.corotrace', 'store']);
  assert.deepEqual(readdirSync(store), ['run.corotrace']);
  // A named pipe (as /dev/stdout or a device would be): its reader gets the file's bytes, and
  // it is still a pipe after (renamed over, a device node itself would be gone).
  const pipe = join(dir, 'pipe.corotrace');
  execFileSync('mkfifo', [pipe]);
  const reader = spawn('cat', [pipe], { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  reader.stdout.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve) => reader.on('close', () => resolve()));
  const stuck = setTimeout(() => reader.kill(), 10_000); // without the fix cat waits on a pipe nobody opens
  writeRecordingFile(pipe, rec);
  await ended;
  clearTimeout(stuck);
  assert.ok(lstatSync(pipe).isFIFO(), 'the pipe is still a pipe');
  assert.deepEqual(Buffer.concat(chunks), encodeRecording(rec));
  assert.equal(unwritableRecordingPath(pipe), null);
});

describe("a real recording (the CLI's) corrupted every way: a RecordingError naming the file, never another exception, never a hang", () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-corrupt-'));
  const file = join(dir, 'real.corotrace');
  let bytes: Buffer;
  let original: Recording;
  before(() => {
    recordDemoCrawl(file);
    bytes = readFileSync(file);
    original = decodeRecording(bytes, file);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * Reads a copy as the host and the CLI do before replaying it (its program and its whole log too);
   * 'refused' or what it read, in bounded time.
   */
  function readCopy(copy: CorruptCopy): Recording | 'refused' {
    const name = `copy (${copy.label}).corotrace`;
    const t0 = performance.now();
    try {
      const rec = decodeRecording(copy.bytes, name);
      readRecordedProgram(rec.meta.program, name);
      readRecordingLog(rec, name);
      return rec;
    } catch (e) {
      assert.ok(
        e instanceof RecordingError,
        `${copy.label}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
      );
      assert.ok(e.message.includes(name) && !e.message.includes('\n'), `${copy.label}: ${e.message}`);
      return 'refused';
    } finally {
      assert.ok(performance.now() - t0 < 5000, `${copy.label}: read in ${Math.round(performance.now() - t0)} ms`);
    }
  }

  function assertSame(rec: Recording, label: string): void {
    assert.ok(
      rec.events.equals(original.events) && rec.gaps.equals(original.gaps) && rec.payload.equals(original.payload),
      `${label}: read as another recording`,
    );
    assert.deepEqual(rec.meta, original.meta, label);
  }

  test("cut short anywhere (every 97 bytes and at each part's edges, inside the gzip and the brotli parts): refused", () => {
    const { gzipAt, brotliAt } = partsOf(bytes);
    assert.ok(gzipAt < brotliAt && brotliAt < bytes.length - 1000, 'a recording with both parts');
    for (const copy of cutCopies(bytes, 97)) assert.equal(readCopy(copy), 'refused', copy.label);
  });

  test('a byte changed anywhere, its CRC left: refused by the CRC', () => {
    for (const copy of flipCopies(bytes, 29, false)) assert.equal(readCopy(copy), 'refused', copy.label);
  });

  test("a byte changed anywhere with the CRC made again: gzip and the socket bytes' own length and CRC refuse it (or it reads the same: a gzip header byte)", () => {
    let refused = 0;
    for (const copy of flipCopies(bytes, 7, true)) {
      const rec = readCopy(copy);
      if (rec === 'refused') refused++;
      else assertSame(rec, copy.label);
    }
    assert.ok(refused > 0);
  });

  test('garbage inside the sections, compressed again (the metadata check and the log decoder get it): refused, or a log consistent in itself', () => {
    // Each part's garbage reaches its reader: some of it is refused there (what the format cannot tell, a
    // time a microsecond off, a hash's letter, reads).
    const refused = new Map<string, number>();
    for (const copy of sectionCopies(original, 3)) {
      const part = copy.label.split(' ')[0]!;
      refused.set(part, (refused.get(part) ?? 0) + (readCopy(copy) === 'refused' ? 1 : 0));
    }
    assert.deepEqual([...refused.keys()], ['events', 'gaps', 'meta']);
    for (const [part, n] of refused) assert.ok(n > 0, `${part}: none refused`);
  });

  test('odd files: empty, another version, no tick, huge bogus lengths, a compression bomb: each refused with its reason', () => {
    const reasons = new Map<string, RegExp>([
      ['an empty file', /is not a Coroscope recording/],
      ['the signature alone', /is not a Coroscope recording/],
      ['format version 3', /is a recording in format version 3; this Coroscope reads versions 4 to 5/],
      ['format version 6', /is a recording in format version 6; this Coroscope reads versions 4 to 5/],
      ['no tick', /records no tick of its run: there is nothing to replay/],
      ['a metadata tick count the log does not hold', /its metadata says \d+ ticks, its event log holds \d+/],
      ["the log part's length 2^32 - 1, CRC made again", /its log is cut short/],
      ["the metadata section's length 2^32 - 16", /its metadata is cut short/],
      ['a string of 2^50 bytes in the event log', /truncated or corrupt/],
      ['a data input of 2^52 bytes in the event log', /socket bytes are missing/],
      [
        'socket bytes said to be 2^31 - 1 long',
        /its socket bytes do not match the length and checksum its metadata gives/,
      ],
      [
        'socket bytes that inflate to 64 MiB, said to be 1,000',
        /its socket bytes: it inflates to more than it can hold/,
      ],
      ['a root no crawl starts from', /is corrupt: a crawl cannot start from the root it records/],
    ]);
    const copies = oddCopies(bytes);
    assert.deepEqual(
      copies.map((c) => c.label),
      [...reasons.keys()],
    );
    for (const copy of copies) {
      const name = `copy (${copy.label}).corotrace`;
      assert.equal(readCopy(copy), 'refused', copy.label);
      assert.throws(
        () => {
          const rec = decodeRecording(copy.bytes, name);
          readRecordedProgram(rec.meta.program, name);
          readRecordingLog(rec, name);
        },
        (e: unknown) => e instanceof RecordingError && reasons.get(copy.label)!.test(e.message),
        copy.label,
      );
    }
  });

  test('a directory, and a file this user may not read: refused naming them', (t) => {
    assert.throws(
      () => readRecordingFile(dir),
      (e: unknown) => e instanceof RecordingError && e.message === `${dir} is a directory, not a recording file`,
    );
    const locked = join(dir, 'locked.corotrace');
    writeFileSync(locked, bytes);
    chmodSync(locked, 0o000);
    if (process.getuid?.() === 0) {
      t.diagnostic('running as root: a file without permission can still be read');
      assert.deepEqual(readRecordingFile(locked).meta, original.meta);
      return;
    }
    assert.throws(
      () => readRecordingFile(locked),
      (e: unknown) => e instanceof RecordingError && e.message === `cannot read ${locked}: permission denied`,
    );
  });
});
