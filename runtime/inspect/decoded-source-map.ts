// DecodedSourceMap: a source map (v3, not an index map) decoded once into flat typed arrays that
// serve both directions: generated → original (`findEntry`, as Node's SourceMap.findEntry) and
// original → generated (GeneratedPositions, for line breakpoints). Why: docs/design/inspection.md.
//
// Invariants: segments are kept in generated order (line, then column); unordered `mappings` are
// sorted stably as Node sorts its own, so `findEntry` answers exactly what Node's does
// (decoded-source-map.test.ts compares them on the host's bundle). Lines and columns are 0-based.

import type { SourceMapPayload, SourceMapping } from 'node:module';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) DIGIT[BASE64.charCodeAt(i)] = i;

/** What a generated position maps to, as Node's `SourceMap.findEntry` answers it (`{}`: nothing). */
export type SourceMapEntry = SourceMapping | Record<string, never>;

/** A map of generated positions to original ones: Node's SourceMap or a DecodedSourceMap. */
export interface PositionMap {
  readonly payload: SourceMapPayload;
  findEntry(line0: number, column0: number): SourceMapping | object;
}

export class DecodedSourceMap implements PositionMap {
  /**
   * Segments, generated order: generated line and column; source index (-1: a segment naming no source), its
   * line and column; name index (-1: none).
   */
  readonly genLine: Int32Array;
  readonly genCol: Int32Array;
  readonly source: Int32Array;
  readonly srcLine: Int32Array;
  readonly srcCol: Int32Array;
  private readonly name: Int32Array;

  constructor(readonly payload: SourceMapPayload) {
    const mappings = payload.mappings;
    // At most one segment per two characters (a one-digit column and a separator).
    const room = (mappings.length >> 1) + 1;
    const genLine = new Int32Array(room);
    const genCol = new Int32Array(room);
    const source = new Int32Array(room);
    const srcLine = new Int32Array(room);
    const srcCol = new Int32Array(room);
    const name = new Int32Array(room);
    let n = 0;
    let line = 0;
    let col = 0;
    let src = 0;
    let sLine = 0;
    let sCol = 0;
    let nm = 0;
    let sorted = true;
    let i = 0;
    const end = mappings.length;
    // Past the end a field reads 0, and the end is no separator: Node's own reading gives the
    // string's last segment every field so (a last name, a source), and so does this one.
    const vlq = (): number => {
      if (i >= end) return 0;
      let value = 0;
      let shift = 0;
      for (;;) {
        const c = mappings.charCodeAt(i++);
        const digit = c < 128 ? DIGIT[c]! : -1;
        if (digit < 0) throw new Error(`source map: bad base64 VLQ digit at ${i - 1}`);
        value += (digit & 31) << shift;
        shift += 5;
        if ((digit & 32) === 0) break;
      }
      return value & 1 ? -(value >>> 1) : value >>> 1;
    };
    const separator = (): boolean =>
      i < end && (mappings.charCodeAt(i) === 44 /* , */ || mappings.charCodeAt(i) === 59); /* ; */
    while (i < end) {
      const c = mappings.charCodeAt(i);
      if (c === 59 /* ; */) {
        line++;
        col = 0;
        i++;
        continue;
      }
      if (c === 44 /* , */) {
        i++;
        continue;
      }
      const before = n === 0 ? -1 : genCol[n - 1]!;
      col += vlq();
      if (n > 0 && genLine[n - 1] === line && col < before) sorted = false;
      genLine[n] = line;
      genCol[n] = col;
      if (separator()) {
        source[n] = -1;
        name[n] = -1;
      } else {
        src += vlq();
        sLine += vlq();
        sCol += vlq();
        source[n] = src;
        srcLine[n] = sLine;
        srcCol[n] = sCol;
        if (separator()) name[n] = -1;
        else {
          nm += vlq();
          name[n] = nm;
        }
      }
      n++;
    }
    const order = sorted ? null : stableOrder(genLine, genCol, n);
    const keep = (a: Int32Array): Int32Array => (order === null ? a.slice(0, n) : Int32Array.from(order, (k) => a[k]!));
    this.genLine = keep(genLine);
    this.genCol = keep(genCol);
    this.source = keep(source);
    this.srcLine = keep(srcLine);
    this.srcCol = keep(srcCol);
    this.name = keep(name);
  }

  get length(): number {
    return this.genLine.length;
  }

  /** The segment at or before a generated position (the last of equal ones), as Node's SourceMap finds it. */
  findEntry(line0: number, column0: number): SourceMapEntry {
    const n = this.genLine.length;
    if (n === 0) return {};
    let first = 0;
    let count = n;
    while (count > 1) {
      const step = count >> 1;
      const middle = first + step;
      const l = this.genLine[middle]!;
      if (line0 < l || (line0 === l && column0 < this.genCol[middle]!)) count = step;
      else {
        first = middle;
        count -= step;
      }
    }
    const l = this.genLine[first]!;
    if (first === 0 && (line0 < l || (line0 === l && column0 < this.genCol[0]!))) return {};
    const s = this.source[first]!;
    const nameIndex = this.name[first]!;
    // A segment naming no source: Node's answer has its generated position only.
    if (s < 0)
      return {
        generatedLine: l,
        generatedColumn: this.genCol[first]!,
        originalSource: undefined,
        originalLine: undefined,
        originalColumn: undefined,
        name: undefined,
      } as unknown as SourceMapping;
    return {
      generatedLine: l,
      generatedColumn: this.genCol[first]!,
      originalSource: this.payload.sources[s]!,
      originalLine: this.srcLine[first]!,
      originalColumn: this.srcCol[first]!,
      name: nameIndex < 0 ? undefined : this.payload.names?.[nameIndex],
    } as SourceMapping;
  }
}

/** The indices 0..n-1 ordered by (line, column), equal ones kept in their order. */
function stableOrder(line: Int32Array, col: Int32Array, n: number): number[] {
  const order = Array.from({ length: n }, (_, k) => k);
  order.sort((a, b) => line[a]! - line[b]! || col[a]! - col[b]! || a - b);
  return order;
}
