// What "Coroscope: New Coroutine Program" writes (extension/new-program.ts): its launch
// configuration is added once to a folder's configurations; the program gets a name not
// taken; the starter program, in an empty folder, runs in the runtime host as the installed
// extension runs it (bundles only, no node_modules), stops on the line the command puts its
// breakpoint on, and ends with its cooks' output. (That the starter and its tsconfig type-check
// against the shipped types: test/package/vsix.test.ts, on the packaged extension.)

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  programLaunchConfiguration,
  STARTER_FIRST_LINE,
  STARTER_PROGRAM,
  starterFileName,
  withLaunchConfiguration,
} from '../../extension/new-program';
import { forkHost, ROOT, type HostClient } from '../runtime/host/host-client';
import { ensureBundles } from '../dist-bundles';

describe('New Coroutine Program: the launch configuration and the file name', () => {
  it("adds its launch configuration once, after the folder's own, keeping them", () => {
    const config = programLaunchConfiguration('coroutines.ts');
    assert.deepEqual(config, {
      type: 'coroscope',
      request: 'launch',
      name: 'Coroscope: coroutines.ts',
      program: '${workspaceFolder}/coroutines.ts',
      stopOnEntry: false,
    });
    const theirs = { type: 'node', request: 'launch', name: 'Their program', program: '${workspaceFolder}/index.js' };
    const once = withLaunchConfiguration([theirs], config);
    assert.deepEqual(once, [theirs, config]);
    assert.equal(withLaunchConfiguration(once, config), null, 'a second time: nothing to write');
    assert.equal(
      withLaunchConfiguration([{ ...config, name: 'renamed by the user' }], config),
      null,
      'the same program under another name',
    );
    assert.deepEqual(withLaunchConfiguration(undefined, config), [config]);
  });

  it('names the program coroutines.ts, or the first coroutines-N.ts not taken', () => {
    assert.equal(
      starterFileName(() => false),
      'coroutines.ts',
    );
    const taken = new Set(['coroutines.ts', 'coroutines-2.ts']);
    assert.equal(
      starterFileName((n) => taken.has(n)),
      'coroutines-3.ts',
    );
  });
});

const BUNDLES = [
  'runtime-host.js',
  'runtime-host.js.map',
  'line-debug-worker.js',
  'line-debug-worker.js.map',
  'typescript-transpiler.js',
];
ensureBundles();

describe('New Coroutine Program: the starter program in an empty folder', {
  timeout: 60_000,
}, () => {
  let root = '';
  let host: HostClient | null = null;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'coroscope-new-program-'));
    mkdirSync(join(root, 'extension', 'dist'), { recursive: true });
    for (const b of BUNDLES) copyFileSync(join(ROOT, 'dist', b), join(root, 'extension', 'dist', b));
    mkdirSync(join(root, 'folder'));
  });
  after(async () => {
    await host?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("stops on main's first line, then runs to its end with both cooks' output", async () => {
    const program = join(root, 'folder', 'coroutines.ts');
    writeFileSync(program, STARTER_PROGRAM);
    assert.match(STARTER_PROGRAM.split('\n')[STARTER_FIRST_LINE - 1]!, /^ {2}const orders = new Queue/);
    host = forkHost({
      bundle: join(root, 'extension', 'dist', 'runtime-host.js'),
      pipe: true,
      cwd: join(root, 'folder'),
    });
    await host.rpc.request('launch', { target: { kind: 'program', path: program }, options: { stopOnEntry: true } });
    const set = await host.rpc.request('setBreakpoints', {
      file: program,
      breakpoints: [{ file: program, line: STARTER_FIRST_LINE }],
    });
    assert.deepEqual(
      set.breakpoints.map((b) => b.verified),
      [true],
    );
    await host.rpc.request('continue', {});
    const stop = await host.waitFor('paused', (b) => b.line !== undefined, 20000);
    assert.deepEqual([stop.reason, stop.line?.file, stop.line?.line], ['breakpoint', program, STARTER_FIRST_LINE]);
    await host.rpc.request('setBreakpoints', { file: program, breakpoints: [] });
    const from = host.events.length;
    await host.rpc.request('continue', {});
    const done = await host.waitFor('finished', () => true, 20000, from);
    assert.equal(done.ok, true);
    const out = host.output('stdout');
    for (const line of ['ada cooked soup', 'bob cooked salad', 'ada cooked 2 dishes', 'bob cooked 2 dishes'])
      assert.ok(out.includes(line), `${line} in:\n${out}`);
  });
});
