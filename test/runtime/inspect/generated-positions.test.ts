// Tests of the reverse index of a source map (runtime/inspect/generated-positions.ts): a source line's first
// generated position (the earliest line, then column, wherever the segments come in the map), the files a map
// covers (its sources resolved through sourceRoot and the map's URL), segments naming no source left out,
// and the map's mappings decoded once, when first asked, from Node's map as from our decoding.

import assert from 'node:assert/strict';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { test } from 'node:test';
import { DecodedSourceMap } from '../../../runtime/inspect/decoded-source-map';
import { GeneratedPositions } from '../../../runtime/inspect/generated-positions';

const { encode } = require('@jridgewell/sourcemap-codec') as { encode(lines: number[][][]): string };

function payloadOf(sources: string[], lines: number[][][], sourceRoot = ''): SourceMapPayload {
  return { version: 3, file: 'x.js', sourceRoot, sources, sourcesContent: [], names: [], mappings: encode(lines) };
}

test('a source line maps to its first generated position: the earliest line, then column', () => {
  // a.ts line 1 at generated 0:0 and 0:8, line 2 at 1:4 and 1:2 (out of order), b.ts line 1 at 2:0.
  const payload: SourceMapPayload = {
    version: 3,
    file: 'x.js',
    sourceRoot: '',
    sources: ['a.ts', 'b.ts'],
    sourcesContent: [],
    names: [],
    mappings: 'AAAA,QAAA;IACA,FAAA;ACDA',
  };
  const positions = new GeneratedPositions({ map: new DecodedSourceMap(payload), base: 'file:///p/x.js.map' });
  assert.ok(positions.covers('/p/a.ts') && positions.covers('/p/b.ts'));
  assert.deepStrictEqual(positions.positionOf('/p/a.ts', 1), { line0: 0, column0: 0 });
  assert.deepStrictEqual(positions.positionOf('/p/a.ts', 2), { line0: 1, column0: 2 });
  assert.deepStrictEqual(positions.positionOf('/p/b.ts', 1), { line0: 2, column0: 0 });
  assert.equal(positions.positionOf('/p/a.ts', 3), null);
  // Node's own map (a module loaded with source maps on) gives the same index.
  const fromNode = new GeneratedPositions({ map: new SourceMap(payload), base: 'file:///p/x.js.map' });
  assert.deepStrictEqual(fromNode.positionOf('/p/a.ts', 2), { line0: 1, column0: 2 });
});

test('a later generated line at a smaller column is not first; segments naming no source are none', () => {
  const positions = new GeneratedPositions({
    map: new DecodedSourceMap(
      payloadOf(
        ['a.ts'],
        [
          [[0], [3, 0, 4, 0]],
          [[0], [9, 0, 0, 2]],
          [
            [0, 0, 0, 0],
            [6, 0, 4, 1],
          ],
        ],
      ),
    ),
    base: 'file:///p/x.js.map',
  });
  assert.deepStrictEqual(
    [1, 2, 5].map((line) => positions.positionOf('/p/a.ts', line)),
    [{ line0: 1, column0: 9 }, null, { line0: 0, column0: 3 }],
  );
});

test("the files covered: sources through the sourceRoot, against the map's URL; a file: URL as its path", () => {
  const positions = new GeneratedPositions({
    map: new DecodedSourceMap(
      payloadOf(
        ['a.ts', 'file:///q/c.ts', '../d.ts'],
        [
          [
            [0, 0, 0, 0],
            [4, 1, 0, 0],
            [6, 2, 0, 0],
          ],
        ],
        'src',
      ),
    ),
    base: 'file:///p/out/x.js.map',
  });
  assert.deepStrictEqual(
    ['/p/out/src/a.ts', '/q/c.ts', '/p/out/d.ts', '/p/out/a.ts', '/p/a.ts'].map((f) => positions.covers(f)),
    [true, true, true, false, false],
  );
  assert.deepStrictEqual(positions.positionOf('/q/c.ts', 1), { line0: 0, column0: 4 });
  assert.equal(positions.positionOf('/p/out/a.ts', 1), null);
});

test("Node's map is decoded once, when a position is first asked (or decode() asks ahead)", () => {
  const payload = payloadOf(['a.ts'], [[[0, 0, 0, 0]], [[0, 0, 1, 0]]]);
  let decodes = 0;
  /** The payload, counting the reads of its mappings (each a decoding). */
  const counted = (): SourceMapPayload =>
    Object.defineProperty({ ...payload }, 'mappings', {
      get: () => {
        decodes++;
        return payload.mappings;
      },
    });
  const nodes = { payload: counted(), findEntry: () => ({}) };
  const positions = new GeneratedPositions({ map: nodes, base: 'file:///p/x.js.map' });
  assert.equal(decodes, 0);
  assert.deepStrictEqual(positions.positionOf('/p/a.ts', 2), { line0: 1, column0: 0 });
  positions.decode();
  assert.deepStrictEqual(positions.positionOf('/p/a.ts', 1), { line0: 0, column0: 0 });
  assert.equal(decodes, 1);
  const ahead = new GeneratedPositions({
    map: { payload: counted(), findEntry: () => ({}) },
    base: 'file:///p/x.js.map',
  });
  ahead.decode();
  assert.equal(decodes, 2);
});
