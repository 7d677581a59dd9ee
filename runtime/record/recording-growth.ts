// A recording's growth: what a live run's recording gained since a mark, handed to a line
// replay host as one file and grown there in place, so a feed costs what was added, never the
// whole recording. File format: docs/design/recording-file.md.
//
// Invariants:
// - A growth is appended only to a recording that ends exactly at its `from` (else refused:
//   the whole recording is handed over again); bytes already written never change.
// - What is appended is checked first; a bad growth is a RecordingFormatError and leaves the
//   recording as it was, and every later growth is refused until it is made whole again.
// - The grown streams grow by doubling; a reader goes on from where it was.

import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { asTools } from '../outside-values';
import { ByteWriter } from './byte-log';
import { RecordingFormatError } from './recording-errors';
import { RunLogDecoder, type RecordingSoFar } from './run-log';
import type { RecordedStreams } from './run-recorder';

/** How far each stream of a recording goes: bytes of its event log, clock readings and socket bytes. */
export interface StreamMark {
  readonly events: number;
  readonly gaps: number;
  readonly payload: number;
}

/** The counts a recording's metadata says (RecordedStreams'). */
export interface StreamCounts {
  readonly ticks: number;
  readonly steps: number;
  readonly tasks: number;
  readonly sockets: number;
}

/** The new bytes of each stream. */
export interface StreamBytes {
  readonly events: Uint8Array;
  readonly gaps: Uint8Array;
  readonly payload: Uint8Array;
}

const MAGIC = Buffer.from('COROGROW\n', 'latin1');

/** Where `soFar` ends. */
export function markOf(soFar: RecordingSoFar, payloadBytes: number): StreamMark {
  return { events: soFar.events.length, gaps: soFar.gaps.length, payload: payloadBytes };
}

/**
 * What `soFar` holds beyond `from` (views, or one copy of the socket bytes' chunks), and where it ends; a
 * RangeError when `from` is not within it.
 */
export function bytesSince(soFar: RecordingSoFar, from: StreamMark): { bytes: StreamBytes; to: StreamMark } {
  if (from.events > soFar.events.length || from.gaps > soFar.gaps.length)
    throw new RangeError(
      `the recording has ${soFar.events.length} event bytes and ${soFar.gaps.length} clock bytes, not ${from.events} and ${from.gaps}`,
    );
  const chunks = soFar.payloadFrom(from.payload);
  const payload = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const bytes = { events: soFar.events.subarray(from.events), gaps: soFar.gaps.subarray(from.gaps), payload };
  return {
    bytes,
    to: { events: soFar.events.length, gaps: soFar.gaps.length, payload: from.payload + payload.length },
  };
}

/** Writes a growth file: `head` (JSON) and the new bytes; answers its size. */
export function writeGrowthFile(path: string, head: unknown, bytes: StreamBytes): number {
  return asTools(() => writeGrowth(path, head, bytes));
}

function writeGrowth(path: string, head: unknown, bytes: StreamBytes): number {
  const json = Buffer.from(JSON.stringify(head), 'utf8');
  const fd = openSync(path, 'w');
  let size = 0;
  try {
    const put = (b: Uint8Array): void => {
      for (let at = 0; at < b.length; ) at += writeSync(fd, b, at, b.length - at);
      size += b.length;
    };
    const section = (b: Uint8Array): void => {
      const n = Buffer.alloc(4);
      n.writeUInt32LE(b.length);
      put(n);
      put(b);
    };
    put(MAGIC);
    section(json);
    section(bytes.events);
    section(bytes.gaps);
    section(bytes.payload);
  } finally {
    closeSync(fd);
  }
  return size;
}

/**
 * Reads a growth file: its header (unchecked JSON: its reader narrows it) and its bytes; a
 * RecordingFormatError naming `what` when it is not one.
 */
export function readGrowthFile(path: string, what: string): { head: unknown; bytes: StreamBytes } {
  const buf = readFileSync(path);
  if (buf.length < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC))
    throw new RecordingFormatError(`${what} is not a recording's growth`);
  let at = MAGIC.length;
  const section = (name: string): Buffer => {
    if (at + 4 > buf.length) throw new RecordingFormatError(`${what} is cut short before its ${name}`);
    const n = buf.readUInt32LE(at);
    at += 4;
    if (at + n > buf.length) throw new RecordingFormatError(`${what} is cut short in its ${name}`);
    at += n;
    return buf.subarray(at - n, at);
  };
  let head: unknown;
  const json = section('header');
  try {
    head = JSON.parse(json.toString('utf8'));
  } catch {
    throw new RecordingFormatError(`${what} is corrupt: its header is not JSON`);
  }
  const bytes = { events: section('event log'), gaps: section('clock readings'), payload: section('socket bytes') };
  if (at !== buf.length)
    throw new RecordingFormatError(`${what} is corrupt: ${buf.length - at} bytes after its sections`);
  return { head, bytes };
}

/** A recording that grows in place: made once of a recording's streams (copied), then given its growths. */
export class GrowingRecording {
  private readonly events = new ByteWriter(1 << 16);
  private readonly gaps = new ByteWriter(1024);
  private readonly payload = new ByteWriter(1 << 16);
  private readonly decoder: RunLogDecoder;
  private counts: StreamCounts;
  private broken: string | null = null;

  constructor(
    streams: RecordedStreams,
    /** The recording, for messages. */
    private readonly what: string,
  ) {
    if (streams.openTick === true) throw new RangeError(`${what} ends in an open tick: it cannot grow`);
    this.events.raw(streams.events);
    this.gaps.raw(streams.gaps);
    this.payload.raw(streams.payload);
    this.counts = { ticks: streams.ticks, steps: streams.steps, tasks: streams.tasks, sockets: streams.sockets };
    // Read once through, so that a growth's records are checked against what came before (strings, tasks, sockets).
    this.decoder = new RunLogDecoder({}, what);
    this.decoder.decode(this.events.bytes(), null);
  }

  /** Where the recording ends now. */
  mark(): StreamMark {
    return { events: this.events.length, gaps: this.gaps.length, payload: this.payload.length };
  }

  /**
   * Appends a growth from `from` (this recording's mark) with the counts it brings the recording to; refused
   * (RecordingFormatError) when it does not fit or is not a valid continuation.
   */
  append(from: StreamMark, bytes: StreamBytes, counts: StreamCounts): void {
    if (this.broken !== null)
      throw new RecordingFormatError(`${this.what} refused a growth before (${this.broken}): it is given whole again`);
    const at = this.mark();
    if (from.events !== at.events || from.gaps !== at.gaps || from.payload !== at.payload) {
      throw new RecordingFormatError(
        `${this.what}: a growth from ${JSON.stringify(from)} does not fit a recording that ends at ${JSON.stringify(at)}`,
      );
    }
    this.events.raw(bytes.events);
    this.gaps.raw(bytes.gaps);
    this.payload.raw(bytes.payload);
    try {
      this.decoder.decode(this.events.bytes(), null);
      this.decoder.finish(this.payload.length);
      if (this.decoder.tickCount !== counts.ticks)
        throw new RecordingFormatError(
          `${this.what} is corrupt: a growth says ${counts.ticks} ticks, its event log ${this.decoder.tickCount}`,
        );
    } catch (e) {
      this.events.truncate(at.events);
      this.gaps.truncate(at.gaps);
      this.payload.truncate(at.payload);
      this.broken = e instanceof Error ? e.message : String(e);
      throw e instanceof RecordingFormatError ? e : new RecordingFormatError(this.broken);
    }
    this.counts = counts;
  }

  /** The streams as grown so far (views: valid as they are while it grows). */
  streams(): RecordedStreams {
    return { events: this.events.bytes(), gaps: this.gaps.bytes(), payload: this.payload.bytes(), ...this.counts };
  }
}
