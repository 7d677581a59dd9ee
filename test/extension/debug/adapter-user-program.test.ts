// Issue 27's first scenario through the STANDALONE debug adapter, as the installed extension
// runs it: the adapter and the runtime host from a folder holding only their bundles (no
// node_modules, as the .vsix installs them), a new `buggy.ts` importing "coroscope" in an
// empty folder, the launch configuration "create a launch.json file" writes
// (`"program": "${file}"`, resolved), a breakpoint on a TypeScript line: the run stops on
// that line, with the program's frames and lines, and runs to its end.
// Also prints the time from the launch request to that first stop.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import { PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient } from './dap-client';
import { continueThroughEnd, initialize, stackOf } from './adapter-harness';

const BUNDLES = [
  'debugAdapter.js',
  'runtime-host.js',
  'runtime-host.js.map',
  'line-debug-worker.js',
  'line-debug-worker.js.map',
  'typescript-transpiler.js',
];

const PROGRAM = [
  "import { coroutine, sleep, Lock, type Coroutine } from 'coroscope';",
  '',
  'type Account = { balance: number };',
  '',
  'const deposit = coroutine(function* deposit(account: Account, lock: Lock, amount: number): Coroutine<void> {',
  '  yield* lock.acquire();',
  '  try {',
  '    const before: number = account.balance;',
  '    yield* sleep(0.001);',
  '    account.balance = before + amount;',
  '  } finally {',
  '    lock.release();',
  '  }',
  '});',
  '',
  'export const main = coroutine(function* main(): Coroutine<number> {',
  '  const account: Account = { balance: 0 };',
  '  const lock = new Lock();',
  '  yield* deposit(account, lock, 5);',
  '  console.log(`balance ${account.balance}`);',
  '  return account.balance;',
  '});',
  '',
].join('\n');

describe('the debug adapter installed as the extension is, on a .ts program in an empty folder', {
  timeout: 90_000,
}, () => {
  let root = '';
  let dap: DapClient;

  before(async () => {
    await buildAdapterAndHost();
    root = mkdtempSync(join(tmpdir(), 'coroscope-user-program-'));
    mkdirSync(join(root, 'extension', 'dist'), { recursive: true });
    for (const b of BUNDLES) copyFileSync(join(PROJECT_ROOT, 'dist', b), join(root, 'extension', 'dist', b));
    mkdirSync(join(root, 'workspace'));
    writeFileSync(join(root, 'workspace', 'buggy.ts'), PROGRAM);
    const { COROSCOPE_HOST_SCRIPT: _ignored, ...env } = process.env;
    dap = DapClient.spawn(process.execPath, [join(root, 'extension', 'dist', 'debugAdapter.js')], {
      cwd: join(root, 'workspace'),
      env,
    });
    await initialize(dap);
  });

  after(async () => {
    await dap?.close();
    if (root !== '') rmSync(root, { recursive: true, force: true });
  });

  it('stops on the TypeScript line of its breakpoint and runs to the end', async () => {
    const program = join(root, 'workspace', 'buggy.ts');
    const line = lineOf(program, 'const before: number = account.balance;');
    const launchedAt = performance.now();
    const launch = dap.request('launch', {
      type: 'coroscope',
      request: 'launch',
      name: "Coroscope: run this module's main coroutine",
      program,
      cwd: join(root, 'workspace'),
    });
    await dap.waitForEvent('initialized');
    const set = await dap.request<DebugProtocol.SetBreakpointsResponse['body']>('setBreakpoints', {
      source: { path: program, name: 'buggy.ts' },
      breakpoints: [{ line }],
    });
    assert.equal(set.breakpoints[0]?.verified, true, `breakpoint not verified: ${set.breakpoints[0]?.message ?? ''}`);
    await dap.request('configurationDone');
    await launch;
    const stopped = await dap.waitForEvent('stopped', { failOn: ['terminated'] });
    console.log(`launch to the first stop on buggy.ts:${line}: ${Math.round(stopped.at - launchedAt)} ms`);
    assert.equal(stopped.body.reason, 'breakpoint', dap.outputText().slice(-500));
    const frames = await stackOf(dap, Number(stopped.body.threadId));
    assert.deepEqual(
      frames.slice(0, 2).map((f) => [f.name, f.source?.path, f.line]),
      [
        ['deposit', program, line],
        ['main', program, lineOf(program, 'yield* deposit(account, lock, 5);')],
      ],
    );
    assert.doesNotMatch(dap.outputText(), /tsx|launch failed/);
    await dap.request('setBreakpoints', { source: { path: program }, breakpoints: [] });
    await continueThroughEnd(dap, Number(stopped.body.threadId));
    assert.match(dap.outputText(), /balance 5/);
  });
});
