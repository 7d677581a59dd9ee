// Tests of runtime/inspect/decoded-source-map.ts: the one decoding of a source map that serves
// both directions answers every generated position exactly as Node's own SourceMap does (the
// runtime host's bundle, built here as esbuild.mjs builds it; segments naming no source; names;
// segments out of column order, which Node sorts). Its reverse index: generated-positions.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { DecodedSourceMap } from '../../../runtime/inspect/decoded-source-map';

const ROOT = join(__dirname, '..', '..', '..');

/** Every segment's position, a column either side, the start of each line and past the end, answered alike. */
function assertAnswersAsNode(payload: SourceMapPayload): DecodedSourceMap {
  const ours = new DecodedSourceMap(payload);
  const node = new SourceMap(payload);
  const lines = ours.length === 0 ? 0 : ours.genLine[ours.length - 1]! + 2;
  const asked: Array<[number, number]> = [];
  for (let i = 0; i < ours.length; i++) for (const d of [-1, 0, 1]) asked.push([ours.genLine[i]!, ours.genCol[i]! + d]);
  for (let l = 0; l < lines; l++) asked.push([l, 0], [l, 1_000_000]);
  asked.push([-1, 0]);
  for (const [line, col] of asked)
    assert.deepStrictEqual(ours.findEntry(line, col), node.findEntry(line, col), `at ${line}:${col}`);
  return ours;
}

test("the runtime host's bundle map: every position answered as Node's SourceMap answers it", async () => {
  const out = await build({
    entryPoints: [join(ROOT, 'runtime', 'host', 'main-thread', 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: true,
    keepNames: true,
    write: false,
    outfile: join(ROOT, 'dist', 'runtime-host.js'),
    logLevel: 'silent',
    absWorkingDir: ROOT,
  });
  const map = out.outputFiles.find((f) => f.path.endsWith('.map'))!;
  const decoded = assertAnswersAsNode(JSON.parse(map.text) as SourceMapPayload);
  assert.ok(decoded.length > 10_000, `${decoded.length} segments`);
});

test('segments naming no source, names, and segments out of column order (sorted as Node sorts them)', () => {
  // Line 0: a source segment with a name, a column-only one, one more with a name; line 2: columns 10, then 4
  // three times (out of order, and equal: the last of them is found), the string's last segment without a
  // name (Node reads it one anyway).
  const payload: SourceMapPayload = {
    version: 3,
    file: 'x.js',
    sourceRoot: '',
    sources: ['a.ts', 'b.ts'],
    sourcesContent: [],
    names: ['first', 'second'],
    mappings: 'AAAAA,E,ECCCC;;UDCA,NAAA,AAEA,ACAA',
  };
  const decoded = assertAnswersAsNode(payload);
  assert.deepEqual([...decoded.genCol], [0, 2, 4, 4, 4, 4, 10]);
  assert.deepEqual([...decoded.source], [0, -1, 1, 0, 0, 1, 0]);
  assert.deepStrictEqual(new DecodedSourceMap({ ...payload, mappings: '' }).findEntry(0, 0), {});
});
