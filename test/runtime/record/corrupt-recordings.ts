// Corrupt copies of a real recording, for the tests of every reader of a .corotrace (the
// decoder, recording-file.ts; the host's openRecording; `coroscope replay`): cut short at many
// points, a byte changed at many offsets with the file's CRC intact or made again (so the
// gzip and brotli parts behind it get the garbage), garbage inside the compressed sections
// (compressed again, so the metadata check and the event log decoder get it), and the odd
// files: empty, another format version, no tick, huge bogus lengths, a compression bomb.
//
// Invariants: every copy is made from the bytes given (nothing random: a failure names the
// copy, and the same copy fails again); the recording itself is written by the bundled CLI.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib, crc32, gzipSync } from 'node:zlib';
import { decodeRecording, encodeRecording, type Recording } from '../../../runtime/record/recording-file';
import { RunLogWriter } from '../../../runtime/record/run-log';

const ROOT = join(__dirname, '..', '..', '..');
/** The signature, the version byte and the CRC: what the CRC covers starts here. */
const HEAD = 15;

export interface CorruptCopy {
  /** What was done to it ('cut at 1234', 'byte 99 ^ 0x01, CRC made again'). */
  readonly label: string;
  readonly bytes: Buffer;
}

/** A demo crawl recorded by the bundled CLI (npm test builds it first) to `file`; its bytes. */
export function recordDemoCrawl(file: string): void {
  const r = spawnSync(
    process.execPath,
    [
      join(ROOT, 'bin', 'coroscope.js'),
      'crawl',
      '--demo',
      '--pages',
      '20',
      '--instant',
      '--max-tasks',
      '3',
      '--quiet',
      '--record',
      file,
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  if (r.status !== 0) throw new Error(`the recording crawl failed (${r.status}): ${r.stderr}`);
}

/** The file's CRC made again over what follows it. */
export function withCrcAgain(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  out.writeUInt32LE(crc32(out.subarray(HEAD)), HEAD - 4);
  return out;
}

/** Where the gzipped part (metadata, event log, clock readings) and the brotli part (socket bytes) start. */
export function partsOf(bytes: Buffer): { gzipAt: number; brotliAt: number } {
  const gzipAt = HEAD + 4;
  return { gzipAt, brotliAt: gzipAt + bytes.readUInt32LE(HEAD) };
}

/** A file of this format from its parts as given (the gzipped body, the brotli bytes), its CRC right. */
export function packFile(gzipped: Buffer, brotli: Buffer, version: number): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32LE(gzipped.length, 0);
  const head = Buffer.alloc(HEAD);
  head.write('COROTRACE\n', 0, 'latin1');
  head[10] = version;
  return withCrcAgain(Buffer.concat([head, len, gzipped, brotli]));
}

/** The gzipped body of a file: each section its u32 length and its bytes. */
export function gzippedSections(sections: readonly Buffer[]): Buffer {
  return gzipSync(
    Buffer.concat(
      sections.flatMap((s) => {
        const len = Buffer.alloc(4);
        len.writeUInt32LE(s.length, 0);
        return [len, s];
      }),
    ),
  );
}

/** Cut short every `every` bytes over the whole file, and at each part's first bytes. */
export function cutCopies(bytes: Buffer, every: number): CorruptCopy[] {
  const { gzipAt, brotliAt } = partsOf(bytes);
  const at = new Set<number>([
    0,
    1,
    10,
    11,
    14,
    15,
    18,
    gzipAt,
    gzipAt + 10,
    brotliAt - 8,
    brotliAt - 1,
    brotliAt,
    brotliAt + 1,
    bytes.length - 1,
  ]);
  for (let n = 0; n < bytes.length; n += every) at.add(n);
  return [...at]
    .sort((a, b) => a - b)
    .map((n) => ({ label: `cut at ${n} of ${bytes.length}`, bytes: bytes.subarray(0, n) }));
}

/** A byte changed every `every` bytes (two ways), with the CRC left as it was or made again. */
export function flipCopies(bytes: Buffer, every: number, crcAgain: boolean): CorruptCopy[] {
  const out: CorruptCopy[] = [];
  for (let i = crcAgain ? HEAD : 0; i < bytes.length; i += every) {
    for (const mask of [0x01, 0xff]) {
      const bad = Buffer.from(bytes);
      bad[i] = bad[i]! ^ mask;
      out.push({
        label: `byte ${i} ^ 0x${mask.toString(16)}${crcAgain ? ', CRC made again' : ''}`,
        bytes: crcAgain ? withCrcAgain(bad) : bad,
      });
    }
  }
  return out;
}

/**
 * A byte changed inside the event log, the clock readings or the metadata's JSON, every `every` bytes, the
 * file compressed again around it.
 */
export function sectionCopies(rec: Recording, every: number): CorruptCopy[] {
  const out: CorruptCopy[] = [];
  const meta = Buffer.from(JSON.stringify(rec.meta), 'utf8');
  const parts: Array<['events' | 'gaps' | 'meta', Buffer]> = [
    ['events', rec.events],
    ['gaps', rec.gaps],
    ['meta', meta],
  ];
  const payload = brotliCompressSync(rec.payload, { params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } });
  const check = { bytes: rec.payload.length, crc32: crc32(rec.payload) };
  for (const [part, src] of parts) {
    for (let i = 0; i < src.length; i += part === 'meta' ? every * 5 : every) {
      const bad = Buffer.from(src);
      bad[i] = bad[i]! ^ 0x01;
      // The metadata as its bytes are (valid JSON or not), with the payload's check as the encoder writes it
      // when it is an object.
      let metaBytes = bad;
      if (part === 'meta') {
        try {
          const m: unknown = JSON.parse(bad.toString('utf8'));
          if (typeof m === 'object' && m !== null && !Array.isArray(m))
            metaBytes = Buffer.from(JSON.stringify({ ...m, payload: check }), 'utf8');
        } catch {
          // Not JSON: as it is.
        }
      } else metaBytes = Buffer.from(JSON.stringify({ ...rec.meta, payload: check }), 'utf8');
      const events = part === 'events' ? bad : rec.events;
      const gaps = part === 'gaps' ? bad : rec.gaps;
      out.push({
        label: `${part} byte ${i} ^ 0x01, compressed again`,
        bytes: packFile(gzippedSections([metaBytes, events, gaps]), payload, 4),
      });
    }
  }
  return out;
}

/**
 * The odd files: empty, another version, no tick, huge bogus lengths, a compression bomb, a root no crawl
 * starts from.
 */
export function oddCopies(bytes: Buffer): CorruptCopy[] {
  const rec = decodeRecording(bytes, 'the recording');
  const check = (payload: Buffer): { bytes: number; crc32: number } => ({
    bytes: payload.length,
    crc32: crc32(payload),
  });
  const metaWith = (extra: Record<string, unknown>): Buffer =>
    Buffer.from(JSON.stringify({ ...rec.meta, payload: check(rec.payload), ...extra }), 'utf8');
  const brotli = brotliCompressSync(rec.payload, { params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } });
  const version = (v: number): Buffer => {
    const b = Buffer.from(bytes);
    b[10] = v;
    return b;
  };
  // A log that names a string of 2^50 bytes, and one whose data input says 2^52 bytes.
  const hugeString = new RunLogWriter();
  hugeString.events.byte(11);
  hugeString.events.uint(2 ** 50);
  const hugeInput = new RunLogWriter();
  hugeInput.socket('127.0.0.1', 80);
  hugeInput.tick(1);
  hugeInput.events.byte(10);
  hugeInput.events.uint(1);
  hugeInput.events.byte(1);
  hugeInput.events.uint(2 ** 52);
  hugeInput.tickEnd(0);
  const outer = Buffer.from(bytes);
  outer.writeUInt32LE(0xffffffff, HEAD);
  // 64 MiB of zeros brotli makes a few hundred bytes of: the metadata says 1,000.
  const bomb = brotliCompressSync(Buffer.alloc(64 << 20), { params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } });
  return [
    { label: 'an empty file', bytes: Buffer.alloc(0) },
    { label: 'the signature alone', bytes: bytes.subarray(0, 10) },
    { label: 'format version 3', bytes: version(3) },
    { label: 'format version 6', bytes: version(6) },
    {
      label: 'no tick',
      bytes: encodeRecording({
        meta: { ...rec.meta, ticks: 0, steps: 0, tasks: 0, sockets: 0 },
        events: Buffer.alloc(0),
        gaps: Buffer.alloc(0),
        payload: Buffer.alloc(0),
      }),
    },
    {
      label: 'a metadata tick count the log does not hold',
      bytes: encodeRecording({ ...rec, meta: { ...rec.meta, ticks: rec.meta.ticks + 1000 } }),
    },
    { label: "the log part's length 2^32 - 1, CRC made again", bytes: withCrcAgain(outer) },
    {
      label: "the metadata section's length 2^32 - 16",
      bytes: packFile(gzipSync(Buffer.from([0xf0, 0xff, 0xff, 0xff, 1, 2, 3])), brotli, 4),
    },
    {
      label: 'a string of 2^50 bytes in the event log',
      bytes: packFile(
        gzippedSections([metaWith({}), Buffer.from(hugeString.events.bytes()), Buffer.alloc(0)]),
        brotli,
        4,
      ),
    },
    {
      label: 'a data input of 2^52 bytes in the event log',
      bytes: packFile(
        gzippedSections([metaWith({ ticks: 1 }), Buffer.from(hugeInput.events.bytes()), Buffer.alloc(0)]),
        brotli,
        4,
      ),
    },
    {
      label: 'socket bytes said to be 2^31 - 1 long',
      bytes: packFile(
        gzippedSections([metaWith({ payload: { bytes: 2 ** 31 - 1, crc32: 0 } }), rec.events, rec.gaps]),
        brotli,
        4,
      ),
    },
    {
      label: 'socket bytes that inflate to 64 MiB, said to be 1,000',
      bytes: packFile(
        gzippedSections([metaWith({ payload: { bytes: 1000, crc32: 0 } }), rec.events, rec.gaps]),
        bomb,
        4,
      ),
    },
    {
      label: 'a root no crawl starts from',
      bytes: packFile(
        gzippedSections([
          metaWith({ program: { ...rec.meta.program, siteUrl: 'http:/\u0001127.0.0.1:1/' } }),
          rec.events,
          rec.gaps,
        ]),
        brotli,
        4,
      ),
    },
  ];
}

/** `n` of `copies`, spread evenly over them (the first and the last among them). */
export function spread<T>(copies: readonly T[], n: number): T[] {
  if (copies.length <= n) return [...copies];
  return Array.from({ length: n }, (_, k) => copies[Math.round((k * (copies.length - 1)) / (n - 1))]!);
}
