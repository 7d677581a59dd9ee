// Runs on a runtime host's main thread, in the transpiler's bundle (bundled-transpiler.ts). Sucrase's map
// gives every generated line a segment at its column 0, pointing at the same source line, code there or not;
// so a breakpoint on a blank or comment line would bind there instead of moving to the next line with code (as
// it does under tsx and for a plain script). The segments on a source line without code (blank, whitespace, a
// `//` comment, a block comment's lines) are made ones that name no source.
//
// Invariants: a line with any code keeps every segment (a block comment counts as code-free only when it opens
// its line and nothing but a comment follows its end); segment order and generated positions are unchanged; a
// map with names (which Sucrase never writes) is returned as it is.

import type { SourceMapPayload } from 'node:module';
import { DecodedSourceMap } from '../../inspect/decoded-source-map';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function vlq(value: number): string {
  let v = value < 0 ? (-value << 1) | 1 : value << 1;
  let out = '';
  do {
    let digit = v & 31;
    v >>>= 5;
    if (v > 0) digit |= 32;
    out += BASE64[digit];
  } while (v > 0);
  return out;
}

/** For each line of `source` (0-based), whether it holds no code: blank, or comments alone. */
function codelessLines(source: string): boolean[] {
  let inComment = false;
  return source.split('\n').map((text) => {
    let rest = text.trimStart();
    for (;;) {
      if (inComment) {
        const end = rest.indexOf('*/');
        if (end < 0) return true;
        inComment = false;
        rest = rest.slice(end + 2).trimStart();
      }
      if (rest === '' || rest.startsWith('//')) return true;
      if (!rest.startsWith('/*')) return false;
      inComment = true;
      rest = rest.slice(2);
    }
  });
}

/** `payload`'s mappings with the segments on source lines without code naming no source. */
export function withoutCodelessLineStarts(payload: SourceMapPayload, source: string): string {
  if (payload.names.length > 0) return payload.mappings;
  const codeless = codelessLines(source);
  const map = new DecodedSourceMap(payload);
  let out = '';
  let line = 0;
  let col = 0;
  let first = true;
  let src = 0;
  let srcLine = 0;
  let srcCol = 0;
  for (let i = 0; i < map.length; i++) {
    const l = map.genLine[i]!;
    while (line < l) {
      out += ';';
      line++;
      col = 0;
      first = true;
    }
    if (!first) out += ',';
    first = false;
    const c = map.genCol[i]!;
    out += vlq(c - col);
    col = c;
    const s = map.source[i]!;
    const sl = map.srcLine[i]!;
    const sc = map.srcCol[i]!;
    if (s < 0 || codeless[sl] === true) continue;
    out += vlq(s - src) + vlq(sl - srcLine) + vlq(sc - srcCol);
    src = s;
    srcLine = sl;
    srcCol = sc;
  }
  return out;
}
