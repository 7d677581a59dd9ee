// Tests of the transpiler Coroscope brings (runtime/host/main-thread/bundled-transpiler.ts), from its source:
// which JavaScript programs are ES modules made CommonJS (.mjs, under a "type": "module" package, or with module
// syntax; else left to Node), what CommonJS cannot hold refused with its lines, a module's syntax error said
// with its place, a .tsx file's JSX, the map naming the file by URL, and the lines without code mapped nowhere.
// (Which compiler a .ts program gets, and the TypeScript transform itself: program-transpiler.test.ts.)

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  EsModuleError,
  programModuleToCommonJs,
  TranspileError,
  transpileTypeScript,
  withoutCodelessLines,
} from '../../../../runtime/host/main-thread/bundled-transpiler';

const { decode, encode } = require('@jridgewell/sourcemap-codec') as {
  decode(mappings: string): number[][][];
  encode(lines: number[][][]): string;
};

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures');
/** A folder under this project's package.json, which has no "type": CommonJS unless the file says otherwise. */
const PLAIN = join(FIXTURES, 'program.js');
/** A folder whose package.json says "type": "module". */
const MODULE_PACKAGE = join(FIXTURES, 'esm-package', 'program.js');

/** Runs CommonJS `code` as a module with `require` answering `modules`; its exports. */
function load(code: string, modules: Record<string, unknown> = {}, globals: Record<string, unknown> = {}): unknown {
  const exports = {};
  const names = Object.keys(globals);
  new Function('exports', 'require', ...names, code)(
    exports,
    (id: string) => modules[id],
    ...names.map((n) => globals[n]),
  );
  return exports;
}

/** The inline source map's payload. */
function mapOf(out: string): { sources: string[]; mappings: string } {
  const data = /sourceMappingURL=data:application\/json;charset=utf-8;base64,(\S+)/.exec(out)?.[1];
  assert.ok(data !== undefined, out);
  return JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { sources: string[]; mappings: string };
}

describe('programModuleToCommonJs', () => {
  const MODULE = ["import { a } from './a';", '// the answer', 'export const main = () => a + 1;', ''].join('\n');

  test('a .js file with module syntax: CommonJS on the same lines, the map naming the file by URL', () => {
    const out = programModuleToCommonJs(MODULE, PLAIN);
    assert.ok(out !== null);
    const exported = load(out, { './a': { a: 41 } }) as { main: () => number };
    assert.equal(exported.main(), 42);
    // `main` is defined on line 3, as in the source; line 2 (a comment) maps nowhere, the others to themselves.
    assert.equal(out.split('\n')[2]?.includes('const main = () =>'), true, out);
    const map = mapOf(out);
    assert.deepStrictEqual(map.sources, [pathToFileURL(PLAIN).href]);
    assert.deepStrictEqual(
      decode(map.mappings).map((line) => [...new Set(line.map((s) => s[2] ?? 'nowhere'))]),
      [[0], ['nowhere'], [2]],
    );
  });

  test('a CommonJS .js file: left to Node; the same code as .mjs, or under a "type": "module" package: made CommonJS', () => {
    const plain = "const { a } = require('./a');\nexports.main = () => a + 1;\n";
    assert.equal(programModuleToCommonJs(plain, PLAIN), null);
    for (const path of [PLAIN.replace(/\.js$/, '.mjs'), MODULE_PACKAGE]) {
      // Transformed though it has no module syntax: Node would load it as a module.
      const out = programModuleToCommonJs(plain, path);
      assert.ok(out !== null, path);
      assert.equal((load(out, { './a': { a: 6 } }) as { main: () => number }).main(), 7);
      assert.deepStrictEqual(mapOf(out).sources, [pathToFileURL(path).href]);
    }
  });

  test('what CommonJS cannot hold is refused, each kind once, at its first line, with what to do instead', () => {
    const source = ['const x = 1;', 'await x;', 'console.log(import.meta.url);', 'await x;', ''].join('\n');
    assert.throws(
      () => programModuleToCommonJs(source, PLAIN),
      (e: unknown) =>
        e instanceof EsModuleError &&
        e.message ===
          `top-level await at ${PLAIN}:2: move it into main; import.meta at ${PLAIN}:3: use __filename and __dirname instead (an ES module program is run as CommonJS)`,
    );
  });

  test("a syntax error: a module's said with its file, line and column; a CommonJS file's left to Node", () => {
    const broken = 'const x = 1;\nconst y = ;\n';
    assert.equal(programModuleToCommonJs(broken, PLAIN), null);
    assert.throws(
      () => programModuleToCommonJs(broken, MODULE_PACKAGE),
      (e: unknown) => e instanceof TranspileError && e.message === `${MODULE_PACKAGE}:2:11: Unexpected token`,
    );
  });
});

test('a .tsx file: its JSX made calls of React.createElement, its types dropped', () => {
  const out = transpileTypeScript('const id: string = "a";\nexport const el = <div id={id} />;\n', '/x/p.tsx');
  const element = (type: string, props: { id: string }): [string, string] => [type, props.id];
  assert.deepStrictEqual((load(out, {}, { React: { createElement: element } }) as { el: unknown }).el, ['div', 'a']);
});

describe('withoutCodelessLines', () => {
  test('a segment on a line of only comments or blanks keeps its generated column alone; others stay whole', () => {
    const source = [
      'const a = 1;',
      '  // a note',
      '/* a comment',
      '   still it */',
      '/* x */ const b = 2;',
      '',
      '/* one */ /* two */',
      'const c = 3; // after code',
    ].join('\n');
    // One generated line per source line, two segments each (column 0 and 4 of that source line).
    const mappings = encode(
      source.split('\n').map((_, line) => [
        [0, 0, line, 0],
        [4, 0, line, 4],
      ]),
    );
    const codeless = new Set([1, 2, 3, 5, 6]);
    assert.deepStrictEqual(
      decode(withoutCodelessLines(mappings, source)),
      source.split('\n').map((_, line) =>
        codeless.has(line)
          ? [[0], [4]]
          : [
              [0, 0, line, 0],
              [4, 0, line, 4],
            ],
      ),
    );
  });
});
