// Byte-level encoding of a recording's streams: an append-only writer and a bounds-checked
// reader of unsigned varints (LEB128), zigzag signed varints, float64s and raw bytes.
//
// Invariants:
// - The writer grows by doubling; `bytes()` is a view of exactly what was written.
// - The reader never reads past its end: running out (a truncated stream) or a varint longer
//   than a safe integer throws RecordingFormatError, never returns garbage or loops.

import { RecordingFormatError } from './recording-errors';

export class ByteWriter {
  private buf: Buffer;
  private len = 0;

  constructor(initial = 4096) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  get length(): number {
    return this.len;
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  byte(b: number): void {
    if (this.len === this.buf.length) this.room(1);
    this.buf[this.len++] = b;
  }

  /** An unsigned integer up to 2^53. */
  uint(n: number): void {
    this.room(8);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
  }

  /** A signed integer (zigzag). */
  int(n: number): void {
    this.uint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  f64(x: number): void {
    this.room(8);
    this.buf.writeDoubleLE(x, this.len);
    this.len += 8;
  }

  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  /** Drops everything after `length` (to cut a stream back to a known point). */
  truncate(length: number): void {
    if (length < this.len) this.len = length;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

export class ByteReader {
  pos = 0;

  constructor(
    private readonly buf: Uint8Array,
    /** What the bytes are, for error messages ("the event stream of run.corotrace"). */
    private readonly what: string,
  ) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  private truncated(): never {
    throw new RecordingFormatError(
      `${this.what} is truncated or corrupt (it ends at byte ${this.buf.length} in the middle of a record)`,
    );
  }

  byte(): number {
    if (this.pos >= this.buf.length) this.truncated();
    return this.buf[this.pos++]!;
  }

  uint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.buf.length) this.truncated();
      const b = this.buf[this.pos++]!;
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
      if (scale > 2 ** 53)
        throw new RecordingFormatError(`${this.what} is corrupt (a number at byte ${this.pos} is too long)`);
    }
  }

  int(): number {
    const z = this.uint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  f64(): number {
    if (this.pos + 8 > this.buf.length) this.truncated();
    const x = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, 8).readDoubleLE(0);
    this.pos += 8;
    return x;
  }

  raw(n: number): Uint8Array {
    if (n < 0 || this.pos + n > this.buf.length) this.truncated();
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}
