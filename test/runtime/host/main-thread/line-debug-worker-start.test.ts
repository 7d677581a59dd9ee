// Tests of how a runtime host's line debugger worker is started (runtime/host/main-thread/line-debug-worker-start.ts)
// and started ahead by the host's preload (host-preload.ts, named by host-preload-option.ts): a worker started ahead
// is taken once, by the same pipe and host script, and what it said before it was taken is heard by the bridge that
// takes it; the preload does nothing in a process that is not the host (a program's child that inherited the
// option); the option names the preload once, and only where it is beside the host's script.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LineDebugBridge } from '../../../../runtime/host/main-thread/line-debug-bridge';
import {
  clientFdOf,
  startLineDebugWorkerAhead,
  takeLineDebugWorkerAhead,
} from '../../../../runtime/host/main-thread/line-debug-worker-start';
import { withHostPreload } from '../../../../runtime/host/shared/host-preload-option';
import { ROOT } from '../host-client';

/** A stand-in worker (CommonJS, as the worker's bundle is) that says it started, then echoes. */
const STAND_IN = `const { parentPort, workerData } = require('node:worker_threads');
parentPort.postMessage({ started: { fd: workerData.coroscopeLineDebugFd, script: workerData.coroscopeHostScript } });
parentPort.on('message', (m) => {
  if (m && m.bridge === 'disconnect') { parentPort.postMessage({ bridge: 'disconnected' }); process.exit(0); }
});
`;

function withHostDir(body: (hostScript: string, dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-worker-ahead-'));
  const hostScript = join(dir, 'runtime-host.js');
  writeFileSync(hostScript, '');
  writeFileSync(join(dir, 'line-debug-worker.js'), STAND_IN);
  return body(hostScript, dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test('the client pipe is read from --client-fd=N (a number above 2), else there is none', () => {
  assert.equal(clientFdOf(['node', 'host.js', '--client-fd=4']), 4);
  assert.equal(clientFdOf(['node', 'host.js']), null);
  assert.equal(clientFdOf(['node', 'host.js', '--client-fd=1']), null);
  assert.equal(clientFdOf(['node', 'host.js', '--client-fd=x']), null);
});

test('a worker started ahead is taken once, by its pipe and host script, and what it said meanwhile is heard', () =>
  withHostDir(async (hostScript) => {
    startLineDebugWorkerAhead(hostScript, 7, []);
    assert.equal(takeLineDebugWorkerAhead(hostScript, 8), null, 'another pipe');
    assert.equal(takeLineDebugWorkerAhead(`${hostScript}.other`, 7), null, 'another host script');
    // As the host's bundle loads: the main thread busy while the worker starts and speaks.
    const until = Date.now() + 400;
    while (Date.now() < until);
    const taken = takeLineDebugWorkerAhead(hostScript, 7);
    assert.notEqual(taken, null);
    assert.equal(takeLineDebugWorkerAhead(hostScript, 7), null, 'taken once');
    const bridge = new LineDebugBridge(taken!);
    const heard = await new Promise<unknown>((resolve) => bridge.onMessage(resolve));
    assert.deepEqual(heard, { started: { fd: 7, script: hostScript } });
    await bridge.disconnect();
  }));

const PRELOAD = join(ROOT, 'dist', 'runtime-host-preload.js');

test('the preload starts nothing in a process that is not the host beside it', { skip: !existsSync(PRELOAD) }, () =>
  withHostDir(async (_host, dir) => {
    // A program's child process that inherited `--require` with a client pipe argument of its own.
    const child = join(dir, 'child.js');
    writeFileSync(
      child,
      "const { threadId } = require('node:worker_threads');\n" +
        "process.stdout.write(JSON.stringify({ parked: typeof globalThis[Symbol.for('coroscope.lineDebugWorkerAhead')], threadId }));\n",
    );
    const r = spawnSync(process.execPath, ['--require', PRELOAD, child, '--client-fd=4'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { parked: 'undefined', threadId: 0 });
  }),
);

test("the preload option is named once, and only where the preload is beside the host's script", () =>
  withHostDir(async (hostScript, dir) => {
    assert.deepEqual(withHostPreload(hostScript, ['--inspect=0']), ['--inspect=0']);
    const preload = join(dir, 'runtime-host-preload.js');
    writeFileSync(preload, '');
    const once = withHostPreload(hostScript, ['--inspect=0']);
    assert.deepEqual(once, ['--require', preload, '--inspect=0']);
    assert.deepEqual(withHostPreload(hostScript, once), once, 'passed on, not named twice');
  }));
