// Which compiler loads a user's .ts program (runtime/host/main-thread/program-transpiler.ts): the host's
// own when .ts is registered, else the program folder's tsx, else its TypeScript, else the
// bundled Sucrase transpiler (runtime/host/main-thread/bundled-transpiler.ts), whose output keeps every
// line and carries an inline map that maps the columns back; a syntax error names file:line:col.
// The workspaces are temp folders; a workspace's tsx or TypeScript is this project's own
// package, linked into the folder's node_modules as `npm i` would put it there.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { bundledTranspilerPath, chooseTranspiler } from '../../../../runtime/host/main-thread/program-transpiler';
import {
  transpileEsModule,
  transpileTypeScript,
  TranspileError,
} from '../../../../runtime/host/main-thread/bundled-transpiler';
import { ROOT } from '../host-client';

const PROGRAM = [
  "import { coroutine, sleep, Queue, type Coroutine } from 'coroscope';",
  'interface Job {',
  '  readonly id: number;',
  '}',
  'type Name = string;',
  'enum Color { Red, Green }',
  'const worker = coroutine(function* worker(q: Queue<Job>, name: Name): Coroutine<number> {',
  '  const job = yield* q.get();',
  '  const doubled: number = (job as Job).id * 2;',
  '  yield* sleep(0.01);',
  '  return doubled + Color.Green;',
  '});',
  'export const main = coroutine(function* main(): Coroutine<number> {',
  '  const q = new Queue<Job>();',
  '  q.putNowait({ id: 20 });',
  "  return yield* worker(q, 'w');",
  '});',
  '',
].join('\n');

describe('choosing the compiler of a .ts program', () => {
  let root = '';
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'coroscope-transpiler-'));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  function workspace(name: string, packages: readonly string[]): string {
    const dir = join(root, name);
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    for (const p of packages) symlinkSync(join(ROOT, 'node_modules', p), join(dir, 'node_modules', p), 'dir');
    writeFileSync(join(dir, 'main.ts'), PROGRAM);
    return join(dir, 'main.ts');
  }

  test('an empty folder gets the bundled transpiler', () => {
    const program = workspace('empty', []);
    assert.deepEqual(chooseTranspiler(program, false), { kind: 'bundled', module: bundledTranspilerPath() });
  });

  test('a folder with TypeScript gets its TypeScript; with tsx, its tsx (before its TypeScript)', () => {
    const withTs = workspace('with-typescript', ['typescript']);
    const ts = chooseTranspiler(withTs, false);
    assert.equal(ts.kind, 'typescript');
    // Resolved through the folder's link, to the package's real place.
    assert.equal(ts.module, join(realpathSync(join(ROOT, 'node_modules', 'typescript')), 'lib', 'typescript.js'));
    const withBoth = workspace('with-tsx', ['typescript', 'tsx']);
    const tsx = chooseTranspiler(withBoth, false);
    assert.equal(tsx.kind, 'tsx');
    assert.equal(tsx.module, join(realpathSync(join(ROOT, 'node_modules', 'tsx')), 'dist', 'cjs', 'api', 'index.cjs'));
  });

  test('a host that compiles .ts itself (run under tsx) keeps its own', () => {
    assert.deepEqual(chooseTranspiler(workspace('host', ['tsx']), true), { kind: 'host', module: null });
  });
});

describe('the bundled transpiler', () => {
  const path = join(tmpdir(), 'coroscope-bundled', 'main.ts');

  test('keeps every line of the program where it was, and its map says so', () => {
    const out = transpileTypeScript(PROGRAM, path);
    const generated = out.split('\n');
    const source = PROGRAM.split('\n');
    // Each line as written, and as it reads once its types are gone and its imports required.
    const kept: Array<[string, string]> = [
      ['const job = yield* q.get();', 'const job = yield* q.get();'],
      ['const doubled: number = (job as Job).id * 2;', 'const doubled = (job ).id * 2;'],
      ['yield* sleep(0.01);', 'yield* _coroscope.sleep.call(void 0, 0.01);'],
      ['return doubled + Color.Green;', 'return doubled + Color.Green;'],
      ['const q = new Queue<Job>();', 'const q = new _coroscope.Queue();'],
      ['q.putNowait({ id: 20 });', 'q.putNowait({ id: 20 });'],
      ["return yield* worker(q, 'w');", "return yield* worker(q, 'w');"],
    ];
    for (const [written, compiled] of kept) {
      const line = source.findIndex((l) => l.includes(written));
      const at = generated.findIndex((l) => l.includes(compiled));
      assert.ok(line >= 0 && at >= 0, `${written} → ${compiled}\n${out}`);
      assert.equal(at, line, `${written}: source line ${line + 1}, generated line ${at + 1}`);
    }
    const m = /\/\/# sourceMappingURL=data:application\/json;charset=utf-8;base64,(\S+)\s*$/.exec(out);
    assert.ok(m, 'an inline source map');
    const payload: unknown = JSON.parse(Buffer.from(m[1]!, 'base64').toString('utf8'));
    const map = new SourceMap(payload as ConstructorParameters<typeof SourceMap>[0]);
    const doubledLine = source.findIndex((l) => l.includes('const doubled'));
    const column = generated[doubledLine]!.indexOf('doubled');
    const entry = map.findEntry(doubledLine, column) as {
      originalSource?: string;
      originalLine?: number;
      originalColumn?: number;
    };
    assert.equal(entry.originalSource, pathToFileURL(path).href);
    assert.equal(entry.originalLine, doubledLine);
    assert.equal(entry.originalColumn, source[doubledLine]!.indexOf('doubled'));
  });

  test('a syntax error names the file, line and column, once', () => {
    const broken = 'export const x = 1;\nconst y: number = ;\n';
    assert.throws(
      () => transpileTypeScript(broken, path),
      (e: unknown) =>
        e instanceof TranspileError &&
        e.message === `${path}:2:19: Unexpected token` &&
        e.message.split(path).length === 2,
    );
  });

  test('an ES module: CommonJS on the same lines; a line without code maps nowhere, so a breakpoint moves on', () => {
    const module = [
      '/* A block comment',
      '   on two lines */',
      "import { coroutine, sleep } from 'coroscope';",
      '',
      'export const main = coroutine(function* main() {',
      '  const label = `at ${1} and ${2}`;',
      '  // a comment',
      '',
      '  yield* sleep(0);',
      '  /* a comment */ return label;',
      '});',
      '',
    ].join('\n');
    const esPath = join(tmpdir(), 'coroscope-bundled', 'main.mjs');
    const out = transpileEsModule(module, esPath);
    const generated = out.split('\n');
    assert.match(generated[2]!, /require\('coroscope'\)/);
    assert.match(generated[8]!, /^ {2}yield\* _coroscope\.sleep\.call\(void 0, 0\);$/);
    const m = /base64,(\S+)\s*$/.exec(out);
    assert.ok(m, 'an inline source map');
    const map = new SourceMap(
      JSON.parse(Buffer.from(m[1]!, 'base64').toString('utf8')) as ConstructorParameters<typeof SourceMap>[0],
    );
    // Each line's first non-blank generated column: the source line it maps to (1-based), or null.
    const mapped = generated.slice(0, 11).map((text, line0) => {
      const entry = map.findEntry(line0, Math.max(0, text.search(/\S/))) as {
        originalLine?: number;
        originalSource?: string;
      };
      return entry.originalSource === pathToFileURL(esPath).href ? entry.originalLine! + 1 : null;
    });
    // Lines after a template literal too (Sucrase's columns go astray there, its lines do not).
    assert.deepEqual(mapped, [null, null, 3, null, 5, 6, null, null, 9, 10, 11]);
  });
});
