// A user's .ts program launched in the runtime host as the installed extension runs it
// (runtime/host/main-thread/program-loader.ts): the host's bundles copied into a folder with no
// node_modules (as the .vsix installs them), the program in an empty folder of its own, so
// neither finds tsx or TypeScript and the bundled transpiler loads it; a breakpoint on a
// TypeScript line (after type-only lines, which leave nothing behind) stops on that line.
// The same with the folder's own TypeScript linked in: its transpileModule loads the program.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { forkHost, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { ensureBundles } from '../../../dist-bundles';

const BUNDLES = [
  'runtime-host.js',
  'runtime-host.js.map',
  'runtime-host.js.sources.json',
  'line-debug-worker.js',
  'line-debug-worker.js.map',
  'typescript-transpiler.js',
];
ensureBundles();

const PROGRAM = [
  "import { coroutine, sleep, Queue, Lock, type Coroutine } from 'coroscope';",
  '',
  'interface Job {',
  '  readonly id: number;',
  '}',
  'type Label = string;',
  '',
  'const worker = coroutine(function* worker(jobs: Queue<Job>, lock: Lock, label: Label): Coroutine<number> {',
  '  let done = 0;',
  '  while (!jobs.empty()) {',
  '    const job: Job = jobs.getNowait();',
  '    yield* lock.acquire();',
  '    try {',
  '      const doubled: number = job.id * 2;',
  '      yield* sleep(0.001);',
  '      done += doubled;',
  '    } finally {',
  '      lock.release();',
  '    }',
  '  }',
  '  console.log(`${label} did ${done}`);',
  '  return done;',
  '});',
  '',
  'export const main = coroutine(function* main(): Coroutine<number> {',
  '  const jobs = new Queue<Job>();',
  '  for (let id = 1; id <= 3; id++) jobs.putNowait({ id });',
  "  return yield* worker(jobs, new Lock(), 'worker');",
  '});',
  '',
].join('\n');

describe("a .ts program from a folder with nothing installed, in the installed extension's host", {
  timeout: 90_000,
}, () => {
  let root = '';
  let hostScript = '';
  const hosts: HostClient[] = [];

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'coroscope-program-loader-'));
    // The extension's install folder: its dist/ bundles and nothing else.
    mkdirSync(join(root, 'extension', 'dist'), { recursive: true });
    for (const b of BUNDLES) copyFileSync(join(ROOT, 'dist', b), join(root, 'extension', 'dist', b));
    hostScript = join(root, 'extension', 'dist', 'runtime-host.js');
  });
  after(async () => {
    for (const h of hosts) await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function stopsOnItsLine(folder: string): Promise<void> {
    const program = join(folder, 'buggy.ts');
    writeFileSync(program, PROGRAM);
    const host = forkHost({ bundle: hostScript, pipe: true, cwd: folder });
    hosts.push(host);
    await host.rpc.request('launch', { target: { kind: 'program', path: program }, options: { stopOnEntry: true } });
    const line = lineOf(program, 'const doubled: number = job.id * 2;');
    const set = await host.rpc.request('setBreakpoints', { file: program, breakpoints: [{ file: program, line }] });
    assert.deepEqual(
      set.breakpoints.map((b) => b.verified),
      [true],
    );
    await host.rpc.request('continue', {});
    const stop = await host.waitFor('paused', (b) => b.line !== undefined, 20000);
    assert.equal(stop.reason, 'breakpoint');
    assert.equal(stop.line?.file, program);
    assert.equal(stop.line?.line, line);
    const stack = await host.rpc.request('lineStack', {});
    assert.deepEqual(
      stack.frames.slice(0, 2).map((f) => [f.name, f.position?.file, f.position?.line]),
      [
        ['worker', program, line],
        ['main', program, lineOf(program, "return yield* worker(jobs, new Lock(), 'worker');")],
      ],
    );
    // The frame's names, scope by scope (the try block's, the loop's, the function's).
    const names = new Map<string, string>();
    for (const scope of stack.frames[0]!.scopes) {
      for (const v of (await host.rpc.request('lineVariables', { handle: scope.handle })).variables)
        if (!names.has(v.name)) names.set(v.name, v.value);
    }
    assert.equal(names.get('label'), '"worker"', [...names.keys()].join(', '));
    assert.equal(names.get('done'), '0');
    await host.rpc.request('setBreakpoints', { file: program, breakpoints: [] });
    const from = host.events.length;
    await host.rpc.request('continue', {});
    const done = await host.waitFor('finished', () => true, 20000, from);
    assert.equal(done.ok, true);
  }

  test('an empty folder: the bundled transpiler loads it and a breakpoint stops on its TypeScript line', async () => {
    const folder = join(root, 'empty');
    mkdirSync(folder);
    await stopsOnItsLine(folder);
  });

  test('a syntax error is said once, where it is and what to do', async () => {
    const folder = join(root, 'broken');
    mkdirSync(folder);
    const program = join(folder, 'broken.ts');
    writeFileSync(program, 'export const main = 1;\nconst total: number = ;\n');
    const host = forkHost({ bundle: hostScript, pipe: true, cwd: folder });
    hosts.push(host);
    await assert.rejects(
      host.rpc.request('launch', { target: { kind: 'program', path: program }, options: {} }),
      (e: unknown) => {
        const text = e instanceof Error ? e.message : String(e);
        assert.match(
          text,
          new RegExp(
            `cannot compile ${program.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:23: Unexpected token: fix it and launch again$`,
          ),
        );
        assert.equal(text.split(program).length, 2, `the file named once: ${text}`);
        return true;
      },
    );
  });

  test('a folder with its own TypeScript: transpileModule loads it, lines as written', async () => {
    const folder = join(root, 'with-typescript');
    mkdirSync(join(folder, 'node_modules'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', 'typescript'), join(folder, 'node_modules', 'typescript'), 'dir');
    await stopsOnItsLine(folder);
  });
});

/** Two cooks on one loop, the program written as an ES module importing `scaled` from its helper `from`. */
function cooks(from: string): string {
  return [
    "import { coroutine, sleep, gather } from 'coroscope';",
    `import { scaled, servings } from '${from}';`,
    '',
    'const cook = coroutine(function* cook(dish, minutes) {',
    '  let done = 0;',
    '  for (let i = 0; i < minutes; i++) {',
    '    yield* sleep(0.001);',
    '    done = scaled(done + 1);',
    '  }',
    '  const plate = `${dish} after ${done} (${servings()})`;',
    '  return plate;',
    '});',
    '',
    'export default coroutine(function* main() {',
    "  return yield* gather(cook('soup', 2), cook('rice', 3));",
    '});',
    '',
  ].join('\n');
}

/** The helper, an ES module with state of its own (how many dishes it scaled). */
const SCALE =
  'let served = 0;\nexport function scaled(v) {\n  served++;\n  return v * 10;\n}\nexport const servings = () => served;\n';

describe("a JavaScript ES module program from an empty folder, in the installed extension's host", {
  timeout: 90_000,
}, () => {
  let root = '';
  let hostScript = '';
  const hosts: HostClient[] = [];

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'coroscope-es-module-'));
    mkdirSync(join(root, 'extension', 'dist'), { recursive: true });
    for (const b of BUNDLES) copyFileSync(join(ROOT, 'dist', b), join(root, 'extension', 'dist', b));
    hostScript = join(root, 'extension', 'dist', 'runtime-host.js');
  });
  after(async () => {
    for (const h of hosts) await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Writes `files` into a folder of their own; `program` is launched from it. */
  function folderWith(name: string, files: Record<string, string>): string {
    const folder = join(root, name);
    mkdirSync(folder);
    for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, file), text);
    return folder;
  }

  /** Launches `program`, stops on its `const plate` line with soup's locals (its helper's values), runs to its end. */
  async function stopsOnItsLine(folder: string, program: string): Promise<void> {
    const path = join(folder, program);
    const host = forkHost({ bundle: hostScript, pipe: true, cwd: folder });
    hosts.push(host);
    await host.rpc.request('launch', { target: { kind: 'program', path }, options: { stopOnEntry: true } });
    const line = lineOf(path, 'const plate =');
    const set = await host.rpc.request('setBreakpoints', { file: path, breakpoints: [{ file: path, line }] });
    assert.deepEqual(
      set.breakpoints.map((b) => [b.verified, b.line]),
      [[true, line]],
    );
    await host.rpc.request('continue', {});
    const stop = await host.waitFor('paused', (b) => b.line !== undefined, 20000);
    assert.equal(stop.reason, 'breakpoint');
    assert.deepEqual([stop.line?.file, stop.line?.line], [path, line]);
    const stack = await host.rpc.request('lineStack', {});
    assert.deepEqual(
      stack.frames.slice(0, 1).map((f) => [f.name, f.position?.file, f.position?.line]),
      [['cook', path, line]],
    );
    const names = new Map<string, string>();
    for (const scope of stack.frames[0]!.scopes) {
      for (const v of (await host.rpc.request('lineVariables', { handle: scope.handle })).variables)
        if (!names.has(v.name)) names.set(v.name, v.value);
    }
    assert.equal(names.get('dish'), '"soup"', [...names.keys()].join(', '));
    assert.equal(names.get('done'), '110');
    await host.rpc.request('setBreakpoints', { file: path, breakpoints: [] });
    const from = host.events.length;
    await host.rpc.request('continue', {});
    const done = await host.waitFor('finished', () => true, 20000, from);
    assert.equal(done.ok, true, done.error);
  }

  test('an .mjs program importing a sibling .mjs helper, main its default export: it stops on its line', async () => {
    const folder = folderWith('mjs', { 'cooks.mjs': cooks('./scale.mjs'), 'scale.mjs': SCALE });
    await stopsOnItsLine(folder, 'cooks.mjs');
  });

  test('a .js with import syntax and no package.json type is an ES module, as Node detects it', async () => {
    const folder = folderWith('untyped', { 'cooks.js': cooks('./scale.js'), 'scale.js': SCALE });
    await stopsOnItsLine(folder, 'cooks.js');
  });

  test('a .js under "type": "module" importing a sibling .js', async () => {
    const folder = folderWith('typed', {
      'package.json': '{ "name": "cooks", "type": "module" }\n',
      'cooks.js': cooks('./scale.js'),
      'scale.js': SCALE,
    });
    await stopsOnItsLine(folder, 'cooks.js');
  });

  test('what CommonJS cannot hold is refused: what, in which file at which line, and what to do instead', async () => {
    const folder = folderWith('refused', {
      'waits.mjs':
        "import { coroutine, sleep } from 'coroscope';\n\nawait sleep(0);\nexport const main = coroutine(function* main() {});\n",
      'where.mjs': "import './here.mjs';\nexport const main = () => null;\n",
      'here.mjs': 'export const dir = 1;\nexport const url = import.meta.url;\n',
    });
    const host = forkHost({ bundle: hostScript, pipe: true, cwd: folder });
    hosts.push(host);
    const refusal = async (program: string): Promise<string> => {
      const path = join(folder, program);
      try {
        await host.rpc.request('launch', { target: { kind: 'program', path }, options: {} });
      } catch (e) {
        return e instanceof Error ? e.message : String(e);
      }
      assert.fail(`${program} was launched`);
    };
    const waits = await refusal('waits.mjs');
    assert.ok(waits.includes(`top-level await at ${join(folder, 'waits.mjs')}:3: move it into main`), waits);
    // The helper's import.meta is named in the helper, not in the program that imports it.
    const where = await refusal('where.mjs');
    assert.ok(where.includes(`import.meta at ${join(folder, 'here.mjs')}:2: use __filename and __dirname`), where);
  });
});
