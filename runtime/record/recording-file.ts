// The .corotrace file: a recorded run as one compact, versioned file: the magic, a version byte,
// a CRC32 of everything after it, then gzip of the metadata, event log and clock readings, then
// brotli of the bytes the sockets received. The layout and the choice of settings (brotli's
// window and quality, the `fast` setting for a line replay's copy) are in
// docs/design/recording-file.md.
//
// Invariants: a truncated or altered file is refused with a RecordingFormatError naming it (never
// another exception): the CRC covers the framing, and each part refuses garbage by itself too
// (gzip's check, the payload's length and CRC, every section length). Nothing is inflated past
// a bound, so a bogus length or a compression bomb never allocates gigabytes; the metadata is
// checked field by field before anything trusts it; a file of another version is refused naming both.

import {
  accessSync,
  constants as fsConstants,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants as zlib, crc32, gunzipSync, gzipSync } from 'node:zlib';
import { RecordingError, RecordingFormatError } from './recording-errors';
import { readRunLog, type RunLog } from './run-log';
import type { SourceHash } from './source-hashes';
import { asTools, LAST_OUTSIDE_VALUE } from '../outside-values';

/**
 * 5: the log may hold UNCANCEL and CANCEL_EFFECT records (who cancelled a task is the cancel in
 * effect); 4: the socket bytes compressed apart, by brotli (3: one gzip of every section).
 */
export const FORMAT_VERSION = 5;
/**
 * A version-4 file is a version-5 file without the two cancel records: its readers take the oldest cancel not
 * taken back.
 */
export const OLDEST_READABLE_VERSION = 4;
/**
 * The most the gzipped part (metadata, event log, clock readings) may inflate to: a log takes about 15 bytes
 * a task step.
 */
const MAX_LOG_BYTES = 1 << 30;
/**
 * The most the socket bytes of a file whose metadata does not say their length (written before it did) may
 * inflate to.
 */
const MAX_PAYLOAD_BYTES = 2 ** 31 - 1;
const MAGIC = Buffer.from('COROTRACE\n', 'latin1');

export interface RecordingMeta {
  /** What ran, in the words of the tool that recorded it (the CLI: the crawl's options). */
  readonly program: { readonly kind: string; readonly [key: string]: unknown };
  /** The sources the run executed, with their hashes (source-hashes.ts). */
  readonly sources: readonly SourceHash[];
  readonly ticks: number;
  readonly steps: number;
  readonly tasks: number;
  readonly sockets: number;
  /** ISO date of the recording. */
  readonly recordedAt: string;
  /**
   * What the inspector reported during the run (the host's lints, each with its tick); unchecked here: its
   * reader narrows it.
   */
  readonly lints?: unknown;
  /** What each suspension awaited in the task table's words (await-details.ts), for the timeline; unchecked here. */
  readonly awaitDetails?: unknown;
  /**
   * The ids of the tasks each suspension awaited, and how each task ended (await-details.ts TableNotes), for
   * the task table of a past tick; unchecked here.
   */
  readonly awaitTasks?: unknown;
  readonly outcomes?: unknown;
  /** Who asked each cancel by no task (asked-cancels.ts, packed by await-details.ts); unchecked here. */
  readonly askedCancels?: unknown;
  /**
   * The URLs a crawl recorded as failed, each with its tick and task
   * (runtime/host/main-thread/url-failures.ts); unchecked here.
   */
  readonly urlFailures?: unknown;
  /**
   * The last tick is open (RecordedStreams.openTick): the recording of a run stopped mid-tick, for a line
   * replay; never a saved file.
   */
  readonly openTick?: boolean;
  /** With openTick: RecordedStreams.openTickTasks. */
  readonly openTickTasks?: { readonly nextId: number; readonly unnamed: number; readonly reads?: readonly number[] };
}

/**
 * The socket bytes' length and CRC32, as the file's metadata holds them (its `payload`; encodeRecording
 * writes it, decodeRecording checks it).
 */
interface PayloadCheck {
  readonly bytes: number;
  readonly crc32: number;
}

export interface Recording {
  readonly meta: RecordingMeta;
  readonly events: Buffer;
  readonly gaps: Buffer;
  readonly payload: Buffer;
}

function section(bytes: Uint8Array): Buffer[] {
  const len = Buffer.allocUnsafe(4);
  len.writeUInt32LE(bytes.length, 0);
  return [len, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)];
}

/** How the socket bytes are compressed: to keep (small), or to be read at once by another process (fast). */
function payloadParams(fast: boolean, size: number): Record<number, number> {
  return {
    [zlib.BROTLI_PARAM_QUALITY]: fast ? 1 : 8,
    [zlib.BROTLI_PARAM_LGWIN]: fast ? 22 : 24,
    [zlib.BROTLI_PARAM_SIZE_HINT]: size,
  };
}

/**
 * The file's bytes; `fast`: a file written only to be read at once by another process (larger, written in a
 * fraction of the time).
 */
export function encodeRecording(rec: Recording, fast = false): Buffer {
  const check: PayloadCheck = { bytes: rec.payload.length, crc32: crc32(rec.payload) };
  const meta = JSON.stringify({ ...rec.meta, payload: check });
  const log = gzipSync(
    Buffer.concat([...section(Buffer.from(meta, 'utf8')), ...section(rec.events), ...section(rec.gaps)]),
    { level: fast ? 1 : 6 },
  );
  const payload = brotliCompressSync(rec.payload, { params: payloadParams(fast, rec.payload.length) });
  const packed = Buffer.concat([...section(log), payload]);
  const head = Buffer.alloc(MAGIC.length + 5);
  MAGIC.copy(head, 0);
  head[MAGIC.length] = FORMAT_VERSION;
  head.writeUInt32LE(crc32(packed), MAGIC.length + 1);
  return Buffer.concat([head, packed]);
}

/** Reads a recording's bytes; `name` (the file) is named in every error. */
export function decodeRecording(bytes: Uint8Array, name: string): Recording {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (buf.length < MAGIC.length + 1 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new RecordingFormatError(
      `${name} is not a Coroscope recording (it does not start with the .corotrace signature)`,
    );
  }
  const version = buf[MAGIC.length]!;
  if (version < OLDEST_READABLE_VERSION || version > FORMAT_VERSION) {
    throw new RecordingFormatError(
      `${name} is a recording in format version ${version}; this Coroscope reads versions ${OLDEST_READABLE_VERSION} to ${FORMAT_VERSION}`,
    );
  }
  const packed = buf.subarray(MAGIC.length + 5);
  if (buf.length < MAGIC.length + 5 || buf.readUInt32LE(MAGIC.length + 1) !== crc32(packed)) {
    throw new RecordingFormatError(`${name} is truncated or corrupt (its checksum does not match its contents)`);
  }
  const unpack = (what: string, bytes: Buffer, inflate: (b: Buffer) => Buffer): Buffer => {
    try {
      return inflate(bytes);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ERR_BUFFER_TOO_LARGE' ? 'it inflates to more than it can hold' : (e as Error).message;
      throw new RecordingFormatError(`${name} is truncated or corrupt (its ${what}: ${why})`);
    }
  };
  /** The sections of `body` in turn, each its u32 length and its bytes. */
  const sections = (body: Buffer): { next(what: string): Buffer; left(): number } => {
    let at = 0;
    return {
      next: (what) => {
        if (at + 4 > body.length) throw new RecordingFormatError(`${name} is corrupt: its ${what} is missing`);
        const n = body.readUInt32LE(at);
        at += 4;
        if (at + n > body.length) throw new RecordingFormatError(`${name} is corrupt: its ${what} is cut short`);
        const out = body.subarray(at, at + n);
        at += n;
        return out;
      },
      left: () => body.length - at,
    };
  };
  const file = sections(packed);
  const log = sections(unpack('log', file.next('log'), (b) => gunzipSync(b, { maxOutputLength: MAX_LOG_BYTES })));
  const metaBytes = log.next('metadata');
  const events = log.next('event log');
  const gaps = log.next('clock readings');
  if (log.left() !== 0)
    throw new RecordingFormatError(`${name} is corrupt: ${log.left()} bytes follow its last section`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(metaBytes.toString('utf8'));
  } catch {
    throw new RecordingFormatError(`${name} is corrupt: its metadata is not valid JSON`);
  }
  const { meta, payloadCheck } = checkMeta(parsed, name);
  const limit = payloadCheck === null ? MAX_PAYLOAD_BYTES : payloadCheck.bytes;
  const payload = unpack('socket bytes', packed.subarray(packed.length - file.left()), (b) =>
    brotliDecompressSync(b, { maxOutputLength: Math.max(1, limit) }),
  );
  if (payloadCheck !== null && (payload.length !== payloadCheck.bytes || crc32(payload) !== payloadCheck.crc32)) {
    throw new RecordingFormatError(
      `${name} is truncated or corrupt (its socket bytes do not match the length and checksum its metadata gives)`,
    );
  }
  return { meta, events, gaps, payload };
}

/** The metadata checked field by field, without its payload check (taken off: encodeRecording writes it afresh). */
function checkMeta(raw: unknown, name: string): { meta: RecordingMeta; payloadCheck: PayloadCheck | null } {
  const bad = (what: string): never => {
    throw new RecordingFormatError(`${name} is corrupt: its metadata has no valid ${what}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad('object');
  const { payload, ...m } = raw as Record<string, unknown>;
  const program = m.program;
  if (typeof program !== 'object' || program === null || typeof (program as Record<string, unknown>).kind !== 'string')
    bad('program');
  const sources = m.sources;
  if (
    !Array.isArray(sources) ||
    !sources.every(
      (s: unknown) =>
        typeof s === 'object' &&
        s !== null &&
        typeof (s as SourceHash).path === 'string' &&
        typeof (s as SourceHash).sha256 === 'string',
    )
  )
    bad('source hashes');
  for (const key of ['ticks', 'steps', 'tasks', 'sockets'] as const) {
    if (!Number.isSafeInteger(m[key]) || (m[key] as number) < 0) bad(key);
  }
  if (typeof m.recordedAt !== 'string') bad('date');
  if (m.openTick !== undefined && typeof m.openTick !== 'boolean') bad('open tick flag');
  if (m.openTickTasks !== undefined) {
    const c = m.openTickTasks as Record<string, unknown> | null;
    if (
      typeof c !== 'object' ||
      c === null ||
      !Number.isSafeInteger(c.nextId) ||
      (c.nextId as number) < 1 ||
      !Number.isSafeInteger(c.unnamed) ||
      (c.unnamed as number) < 0
    )
      bad("open tick's task counters");
    // The values its program read so far: kind (0-3), value, ...
    const reads = c?.reads;
    if (
      reads !== undefined &&
      (!Array.isArray(reads) ||
        reads.length % 2 !== 0 ||
        !reads.every((x, i) =>
          i % 2 === 0 ? Number.isInteger(x) && x >= 0 && x <= LAST_OUTSIDE_VALUE : typeof x === 'number',
        ))
    )
      bad("open tick's reads");
  }
  let payloadCheck: PayloadCheck | null = null;
  if (payload !== undefined) {
    const p = payload as Record<string, unknown> | null;
    if (
      typeof p !== 'object' ||
      p === null ||
      !Number.isSafeInteger(p.bytes) ||
      (p.bytes as number) < 0 ||
      (p.bytes as number) > MAX_PAYLOAD_BYTES ||
      !Number.isInteger(p.crc32) ||
      (p.crc32 as number) < 0 ||
      (p.crc32 as number) > 0xffffffff
    )
      bad('socket bytes check');
    payloadCheck = { bytes: p!.bytes as number, crc32: p!.crc32 as number };
  }
  return { meta: m as unknown as RecordingMeta, payloadCheck };
}

/**
 * A recording's event log, decoded and checked whole (run-log.ts), holding the ticks its metadata says (what
 * a seek trusts), one at least (a run recorded before its first tick has nothing to replay).
 */
export function readRecordingLog(rec: Recording, name: string): RunLog {
  const log = readRunLog(rec.events, rec.gaps, rec.payload, name, rec.meta.openTick === true, rec.meta.openTickTasks);
  if (log.times.length === 0)
    throw new RecordingFormatError(`${name} records no tick of its run: there is nothing to replay`);
  if (log.times.length !== rec.meta.ticks)
    throw new RecordingFormatError(
      `${name} is corrupt: its metadata says ${rec.meta.ticks} ticks, its event log holds ${log.times.length}`,
    );
  return log;
}

/**
 * Why a recording cannot be written to `path`, in a user's words (null: it can, as far as
 * can be told before writing). Asked before a run is recorded (`coroscope crawl --record`),
 * so a path that cannot hold the file is refused before the crawl, not after it.
 */
export function unwritableRecordingPath(path: string): string | null {
  const target = destinationOf(path);
  if (target.special) return null; // a device or a pipe named on purpose (/dev/stdout): written into as it is
  const folder = dirname(target.file);
  try {
    if (!statSync(folder).isDirectory()) return `${folder} is not a folder`;
  } catch {
    return `the folder ${folder} does not exist`;
  }
  try {
    if (statSync(target.file).isDirectory()) return `${path} is a folder, not a file`;
    accessSync(target.file, fsConstants.W_OK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return `${path} cannot be written (permission denied)`;
  }
  try {
    accessSync(folder, fsConstants.W_OK);
  } catch {
    return `nothing can be written in ${folder} (permission denied)`;
  }
  return null;
}

/**
 * Where the bytes for `path` go. A symbolic link is followed, so the file it names is replaced
 * and the link kept (renaming over the link would cut it off from its file). Something that is
 * not a regular file (a device like /dev/stdout or /dev/null, a named pipe) is `special`: it is
 * written into, since renaming a file over it would replace the device itself.
 */
function destinationOf(path: string): { readonly file: string; readonly special: boolean } {
  let file = path;
  try {
    file = realpathSync(path);
  } catch {
    // Not there yet (or a link to nothing): the file is made at the path as named.
  }
  try {
    const stat = statSync(file);
    return { file, special: !stat.isFile() && !stat.isDirectory() };
  } catch {
    return { file, special: false };
  }
}

/**
 * Writes the recording to `path`: whole or not at all. The bytes go to a file beside it,
 * renamed over `path` once complete, so a failed write (a full disk) or a crash mid-write
 * never leaves a truncated recording, nor destroys the one `path` held. A symbolic link's
 * file is the one replaced; a device or a named pipe is written into (nothing to rename over).
 * A failure is a RecordingError that says why in a user's words.
 */
export function writeRecordingFile(path: string, rec: Recording, fast = false): RecordingSize {
  return asTools(() => writeRecording(path, rec, fast));
}

function writeRecording(path: string, rec: Recording, fast: boolean): RecordingSize {
  const bytes = encodeRecording(rec, fast);
  const unwritable = unwritableRecordingPath(path);
  if (unwritable !== null) throw new RecordingError(`cannot write the recording: ${unwritable}`);
  const target = destinationOf(path);
  const partial = `${target.file}.${process.pid}.partial`;
  try {
    if (target.special) {
      writeFileSync(target.file, bytes);
    } else {
      writeFileSync(partial, bytes);
      renameSync(partial, target.file);
    }
  } catch (e) {
    if (!target.special) rmSync(partial, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    throw new RecordingError(
      `cannot write the recording to ${path}: ${code === 'ENOSPC' ? 'the disk is full' : code === 'EDQUOT' ? 'the disk quota is used up' : (e as Error).message}`,
    );
  }
  return recordingSize(bytes);
}

/**
 * A recording file's size, and the part of it that is the socket bytes (compressed): the rest is the run's
 * own record (metadata, event log, clock readings).
 */
export interface RecordingSize {
  readonly bytes: number;
  readonly socketBytes: number;
}

/** The size of an encoded recording (encodeRecording's bytes) and of its socket bytes' part. */
export function recordingSize(file: Buffer): RecordingSize {
  const packed = file.subarray(MAGIC.length + 5);
  return { bytes: file.length, socketBytes: packed.length - 4 - packed.readUInt32LE(0) };
}

export function readRecordingFile(path: string): Recording {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new RecordingError(
      code === 'ENOENT'
        ? `${path}: no such recording file`
        : code === 'EISDIR'
          ? `${path} is a directory, not a recording file`
          : code === 'EACCES'
            ? `cannot read ${path}: permission denied`
            : `cannot read ${path}: ${(e as Error).message}`,
    );
  }
  return decodeRecording(bytes, path);
}
