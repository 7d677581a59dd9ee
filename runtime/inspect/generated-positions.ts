// GeneratedPositions: the other direction of SourcePositionMapper, for line breakpoints:
// from a TypeScript file and line to the generated (bundled or transpiled) JavaScript
// positions a source map puts there, and the generated ranges a source file covers (so a
// debugger can tell the runtime's machinery from the user's code by position).
//
// Node's SourceMap only maps generated → original, so the `mappings` string is decoded here
// (base64 VLQ, the source map v3 format), once per map and file.
//
// Conventions: source lines given and returned 1-based; generated line and column 0-based,
// as V8's Debugger domain counts them.

import { resolveMapSource, type LoadedMap } from './source-positions';

export interface GeneratedPosition {
  readonly line0: number;
  readonly column0: number;
}

interface Segment {
  readonly genLine: number;
  readonly genCol: number;
  readonly source: number;
  readonly srcLine: number;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) DIGIT[BASE64.charCodeAt(i)] = i;

/** Decodes a v3 `mappings` string into segments that name a source (generated order). */
export function decodeMappings(mappings: string): Segment[] {
  const out: Segment[] = [];
  let genLine = 0;
  let genCol = 0;
  let source = 0;
  let srcLine = 0;
  let srcCol = 0;
  let name = 0;
  const fields: number[] = [];
  let i = 0;
  const n = mappings.length;
  while (i < n) {
    const c = mappings.charCodeAt(i);
    if (c === 59 /* ; */) {
      genLine++;
      genCol = 0;
      i++;
      continue;
    }
    if (c === 44 /* , */) {
      i++;
      continue;
    }
    fields.length = 0;
    while (i < n) {
      const ch = mappings.charCodeAt(i);
      if (ch === 44 || ch === 59) break;
      let value = 0;
      let shift = 0;
      for (;;) {
        const digit = DIGIT[mappings.charCodeAt(i++)] ?? -1;
        if (digit < 0) throw new Error(`bad base64 VLQ digit at ${i - 1}`);
        value += (digit & 31) << shift;
        shift += 5;
        if ((digit & 32) === 0) break;
      }
      fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
    }
    genCol += fields[0] ?? 0;
    if (fields.length >= 4) {
      source += fields[1]!;
      srcLine += fields[2]!;
      srcCol += fields[3]!;
      if (fields.length >= 5) name += fields[4]!;
      out.push({ genLine, genCol, source, srcLine });
    }
  }
  return out;
}

export class GeneratedPositions {
  private segments: Segment[] | null = null;
  private readonly sourceIndex = new Map<string, number>();
  private readonly lines = new Map<number, Map<number, GeneratedPosition>>();

  constructor(private readonly loaded: LoadedMap) {
    const sources = loaded.map.payload.sources;
    sources.forEach((s, i) => this.sourceIndex.set(resolveMapSource(s, loaded), i));
  }

  /** True when the map has code from `file` (an absolute path). */
  covers(file: string): boolean {
    return this.sourceIndex.has(file);
  }

  /** The first generated position of source line `line` (1-based) of `file`, or null. */
  positionOf(file: string, line: number): GeneratedPosition | null {
    return this.linesOf(file)?.get(line - 1) ?? null;
  }

  /** Decodes the map's mappings now, ahead of the first position asked (the decoding is most of the cost). */
  decode(): void {
    this.decoded();
  }

  private decoded(): Segment[] {
    this.segments ??= decodeMappings(this.loaded.map.payload.mappings);
    return this.segments;
  }

  private linesOf(file: string): Map<number, GeneratedPosition> | null {
    const index = this.sourceIndex.get(file);
    if (index === undefined) return null;
    let byLine = this.lines.get(index);
    if (byLine === undefined) {
      byLine = new Map();
      for (const s of this.decoded()) {
        if (s.source !== index) continue;
        const known = byLine.get(s.srcLine);
        if (known === undefined || s.genLine < known.line0 || (s.genLine === known.line0 && s.genCol < known.column0)) byLine.set(s.srcLine, { line0: s.genLine, column0: s.genCol });
      }
      this.lines.set(index, byLine);
    }
    return byLine;
  }
}
