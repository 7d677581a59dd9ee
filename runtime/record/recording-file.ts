// The .corotrace file: a recorded run as one compact, versioned file.
//
//   "COROTRACE\n"  (10 bytes, the magic)
//   version        (1 byte; this build writes and reads FORMAT_VERSION)
//   crc32          (4 bytes, little-endian: of every byte after it)
//   gzip of:       [u32 n][n bytes: metadata JSON]   what ran, the hashes of its sources, counts
//                  [u32 n][n bytes: event log]        (run-log.ts)
//                  [u32 n][n bytes: clock readings between ticks]
//                  [u32 n][n bytes: the bytes the sockets received]
//
// Invariants: the CRC covers everything after it (gzip's own covers only the uncompressed
// bytes, not its header), so a truncated or altered file is refused with a RecordingFormatError naming it (never another exception);
// the metadata is checked field by field before anything trusts it.

import { readFileSync, writeFileSync } from 'node:fs';
import { crc32, gunzipSync, gzipSync } from 'node:zlib';
import { RecordingError, RecordingFormatError } from './recording-errors';
import type { SourceHash } from './source-hashes';

export const FORMAT_VERSION = 3;
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
  /** What the inspector reported during the run (the host's lints, each with its tick); unchecked here: its reader narrows it. */
  readonly lints?: unknown;
  /** What each suspension awaited in the task table's words (await-details.ts), for the timeline; unchecked here. */
  readonly awaitDetails?: unknown;
  /** The last tick is open (RecordedStreams.openTick): the recording of a run stopped mid-tick, for a line replay; never a saved file. */
  readonly openTick?: boolean;
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

/** The file's bytes; `level`: gzip's (a file written only to be read at once by another process takes 1). */
export function encodeRecording(rec: Recording, level = 6): Buffer {
  const body = Buffer.concat([...section(Buffer.from(JSON.stringify(rec.meta), 'utf8')), ...section(rec.events), ...section(rec.gaps), ...section(rec.payload)]);
  const packed = gzipSync(body, { level });
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
    throw new RecordingFormatError(`${name} is not a Coroscope recording (it does not start with the .corotrace signature)`);
  }
  const version = buf[MAGIC.length]!;
  if (version !== FORMAT_VERSION) {
    throw new RecordingFormatError(`${name} is a recording in format version ${version}; this Coroscope reads version ${FORMAT_VERSION}`);
  }
  const packed = buf.subarray(MAGIC.length + 5);
  if (buf.length < MAGIC.length + 5 || buf.readUInt32LE(MAGIC.length + 1) !== crc32(packed)) {
    throw new RecordingFormatError(`${name} is truncated or corrupt (its checksum does not match its contents)`);
  }
  let body: Buffer;
  try {
    body = gunzipSync(packed);
  } catch (e) {
    throw new RecordingFormatError(`${name} is truncated or corrupt (${(e as Error).message})`);
  }
  let at = 0;
  const next = (what: string): Buffer => {
    if (at + 4 > body.length) throw new RecordingFormatError(`${name} is corrupt: its ${what} is missing`);
    const n = body.readUInt32LE(at);
    at += 4;
    if (at + n > body.length) throw new RecordingFormatError(`${name} is corrupt: its ${what} is cut short`);
    const out = body.subarray(at, at + n);
    at += n;
    return out;
  };
  const metaBytes = next('metadata');
  const events = next('event log');
  const gaps = next('clock readings');
  const payload = next('socket bytes');
  if (at !== body.length) throw new RecordingFormatError(`${name} is corrupt: ${body.length - at} bytes follow its last section`);
  let meta: unknown;
  try {
    meta = JSON.parse(metaBytes.toString('utf8'));
  } catch {
    throw new RecordingFormatError(`${name} is corrupt: its metadata is not valid JSON`);
  }
  return { meta: checkMeta(meta, name), events, gaps, payload };
}

function checkMeta(meta: unknown, name: string): RecordingMeta {
  const bad = (what: string): never => {
    throw new RecordingFormatError(`${name} is corrupt: its metadata has no valid ${what}`);
  };
  if (typeof meta !== 'object' || meta === null) return bad('object');
  const m = meta as Record<string, unknown>;
  const program = m.program;
  if (typeof program !== 'object' || program === null || typeof (program as Record<string, unknown>).kind !== 'string') bad('program');
  const sources = m.sources;
  if (!Array.isArray(sources) || !sources.every((s: unknown) => typeof s === 'object' && s !== null && typeof (s as SourceHash).path === 'string' && typeof (s as SourceHash).sha256 === 'string')) bad('source hashes');
  for (const key of ['ticks', 'steps', 'tasks', 'sockets'] as const) {
    if (!Number.isSafeInteger(m[key]) || (m[key] as number) < 0) bad(key);
  }
  if (typeof m.recordedAt !== 'string') bad('date');
  if (m.openTick !== undefined && typeof m.openTick !== 'boolean') bad('open tick flag');
  return meta as RecordingMeta;
}

export function writeRecordingFile(path: string, rec: Recording, level?: number): number {
  const bytes = encodeRecording(rec, level);
  writeFileSync(path, bytes);
  return bytes.length;
}

export function readRecordingFile(path: string): Recording {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new RecordingError(code === 'ENOENT' ? `${path}: no such recording file` : `cannot read ${path}: ${(e as Error).message}`);
  }
  return decodeRecording(bytes, path);
}
