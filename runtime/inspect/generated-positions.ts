// GeneratedPositions: the other direction of SourcePositionMapper, for line breakpoints:
// from a TypeScript file and line to the generated (bundled or transpiled) JavaScript
// positions a source map puts there, and the generated ranges a source file covers (so a
// debugger can tell the runtime's machinery from the user's code by position).
//
// Node's SourceMap only maps generated → original: the map's segments are read from its
// DecodedSourceMap (the one SourcePositionMapper loaded, else decoded here once), and indexed
// once per file.
//
// Conventions: source lines given and returned 1-based; generated line and column 0-based,
// as V8's Debugger domain counts them.

import { DecodedSourceMap } from './decoded-source-map';
import { resolveMapSource, type LoadedMap } from './source-positions';

export interface GeneratedPosition {
  readonly line0: number;
  readonly column0: number;
}

export class GeneratedPositions {
  private segments: DecodedSourceMap | null = null;
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

  private decoded(): DecodedSourceMap {
    const map = this.loaded.map;
    this.segments ??= map instanceof DecodedSourceMap ? map : new DecodedSourceMap(map.payload);
    return this.segments;
  }

  private linesOf(file: string): Map<number, GeneratedPosition> | null {
    const index = this.sourceIndex.get(file);
    if (index === undefined) return null;
    let byLine = this.lines.get(index);
    if (byLine === undefined) {
      byLine = new Map();
      const { source, srcLine, genLine, genCol } = this.decoded();
      for (let i = 0; i < source.length; i++) {
        if (source[i] !== index) continue;
        const line = srcLine[i]!;
        const known = byLine.get(line);
        const l = genLine[i]!;
        const c = genCol[i]!;
        if (known === undefined || l < known.line0 || (l === known.line0 && c < known.column0))
          byLine.set(line, { line0: l, column0: c });
      }
      this.lines.set(index, byLine);
    }
    return byLine;
  }
}
