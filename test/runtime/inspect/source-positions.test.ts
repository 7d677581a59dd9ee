// Tests of runtime/inspect/source-positions.ts: positions of suspended generators map back to
// the TypeScript line that suspended, both for .ts modules run through tsx (these tests) and
// for an esbuild bundle like dist/ (a fixture bundled into a temp dir and run by node with
// an external map, with an inline map, and with and without --enable-source-maps).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { SourcePositionMapper, sourceMappingUrlOf, generatorReader } from '../../../runtime/inspect/index';
import { type LoadedMap, resolveMapSource } from '../../../runtime/inspect/source-positions';

const FIXTURE = resolve(__dirname, 'fixtures/suspended-chain.ts');

/** The 1-based line of this file holding `marker`. */
function lineOf(file: string, marker: string): number {
  const i = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(marker));
  assert.ok(i >= 0, `marker ${marker} in ${file}`);
  return i + 1;
}

describe('tsx-transpiled modules', () => {
  test('a suspended generator maps to its .ts file and the line of its yield', () => {
    function* pausesHere(): Generator<number, void, unknown> {
      yield 1; // MARK:tsx-yield
    }
    const gen = pausesHere();
    gen.next();
    const frame = generatorReader().readGenerator(gen);
    assert.equal(frame.functionName, 'pausesHere');
    assert.equal(frame.state, 'suspended');
    const loc = frame.location!;
    assert.equal(loc.url, pathToFileURL(__filename).href);
    const pos = new SourcePositionMapper().map(loc.url, loc.line0, loc.column0, loc.sourceMapURL);
    assert.equal(pos.mapped, true);
    assert.equal(pos.file, __filename);
    assert.equal(pos.line, lineOf(__filename, 'MARK:tsx' + '-yield'));
    assert.ok(pos.column > 1);
  });

  test('the map comes from the sourceMappingURL V8 reported when Node has none cached', () => {
    const gen = (function* viaDataUrl(): Generator<number, void, unknown> {
      yield 2; // MARK:data-url
    })();
    gen.next();
    const loc = generatorReader().readGenerator(gen).location!;
    assert.match(loc.sourceMapURL ?? '', /^data:application\/json/);
    // A URL Node never loaded: only the data: URL can map it.
    const fakeUrl = pathToFileURL(join(tmpdir(), 'not-loaded-by-node.js')).href;
    const pos = new SourcePositionMapper().map(fakeUrl, loc.line0, loc.column0, loc.sourceMapURL);
    assert.equal(pos.mapped, true);
    assert.equal(pos.file, __filename);
    assert.equal(pos.line, lineOf(__filename, 'MARK:data' + '-url'));
  });

  test('a script without a map gives the generated position, 1-based, unmapped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coroscope-nomap-'));
    try {
      const file = join(dir, 'plain.js');
      writeFileSync(file, 'function* g() {\n  yield 1;\n}\n');
      const pos = new SourcePositionMapper().map(pathToFileURL(file).href, 1, 2);
      assert.deepEqual(pos, { file, line: 2, column: 3, mapped: false });
      assert.deepEqual(new SourcePositionMapper().map('node:internal/whatever', 0, 0), {
        file: 'node:internal/whatever',
        line: 1,
        column: 1,
        mapped: false,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('sourceMappingUrlOf finds the last annotation', () => {
    assert.equal(sourceMappingUrlOf('x\n//# sourceMappingURL=a.js.map\n'), 'a.js.map');
    assert.equal(
      sourceMappingUrlOf('//# sourceMappingURL=old.map\ny\n//# sourceMappingURL=data:application/json;base64,e30=\n'),
      'data:application/json;base64,e30=',
    );
    assert.equal(sourceMappingUrlOf('no map here'), null);
  });
});

describe('an esbuild bundle, as dist/ is built', () => {
  let dir: string;
  const expected = (): Array<[string, number]> => [
    ['root', lineOf(FIXTURE, 'MARK:root')],
    ['middle', lineOf(FIXTURE, 'MARK:middle')],
    ['leaf', lineOf(FIXTURE, 'MARK:leaf')],
  ];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'coroscope-bundle-'));
    const common = {
      entryPoints: [FIXTURE],
      bundle: true,
      platform: 'node' as const,
      format: 'cjs' as const,
      target: 'node20',
      keepNames: true,
      logLevel: 'silent' as const,
    };
    await build({ ...common, outfile: join(dir, 'external.js'), sourcemap: true });
    await build({ ...common, outfile: join(dir, 'inline.js'), sourcemap: 'inline' });
    await build({ ...common, outfile: join(dir, 'minified.js'), sourcemap: true, minify: true });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  interface FixtureFrame {
    functionName: string;
    file: string;
    line: number;
    mapped: boolean;
    locals: Array<[string, string]>;
  }

  function runBundle(name: string, nodeArgs: string[]): FixtureFrame[] {
    const out = execFileSync(process.execPath, [...nodeArgs, join(dir, name)], { encoding: 'utf8', timeout: 60_000 });
    return JSON.parse(out) as FixtureFrame[];
  }

  for (const [name, nodeArgs] of [
    ['external.js', []],
    ['external.js', ['--enable-source-maps']],
    ['inline.js', []],
    ['inline.js', ['--enable-source-maps']],
    ['minified.js', []],
  ] as Array<[string, string[]]>) {
    test(`${name}${nodeArgs.length > 0 ? ` with ${nodeArgs.join(' ')}` : ''}: frames map to the fixture's TypeScript lines`, () => {
      const frames = runBundle(name, nodeArgs);
      assert.deepEqual(
        frames.map((f) => [f.functionName, f.line]),
        expected(),
      );
      for (const f of frames) {
        assert.equal(f.mapped, true);
        assert.equal(f.file, FIXTURE);
      }
      // A minifier renames locals (and may inline constants): names are only checked unminified.
      if (name === 'minified.js') return;
      const leaf = frames[2]!;
      assert.deepEqual(
        leaf.locals.find(([n]) => n === 'label'),
        ['label', '"in the leaf"'],
      );
      assert.ok(leaf.locals.some(([n, v]) => n === 'fut' && v.startsWith('<Future pending')));
    });
  }
});

describe("a map's source names as paths (resolveMapSource)", () => {
  /** A map loaded from file:///p/out/app.js.map with `sourceRoot`. */
  const mapWithRoot = (sourceRoot: string): LoadedMap =>
    ({ map: { payload: { sourceRoot } }, base: 'file:///p/out/app.js.map' }) as unknown as LoadedMap;

  test('the root is joined to relative names only: an absolute path or a URL already names its file', () => {
    const src = mapWithRoot('src');
    assert.deepEqual(
      ['b.ts', '../lib/c.ts', '/abs/d.ts', 'file:///abs/e.ts'].map((s) => resolveMapSource(s, src)),
      ['/p/out/src/b.ts', '/p/out/lib/c.ts', '/abs/d.ts', '/abs/e.ts'],
    );
    assert.equal(resolveMapSource('b.ts', mapWithRoot('')), '/p/out/b.ts');
  });
});
