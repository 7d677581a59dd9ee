// The extension's host manager and run session against the real runtime host
// (dist/runtime-host.js, built by `npm test` before the tests run): lazy start, launch, pause
// at entry, step, continue to the end, and a host killed mid-run.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunStatus } from '../../protocol/webview-protocol';
import { HostManager } from '../../extension/host-manager';
import { RunSession } from '../../extension/run-session';

const HOST = join(__dirname, '..', '..', 'dist', 'runtime-host.js');

async function until<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('HostManager and RunSession with the real runtime host', { skip: existsSync(HOST) ? false : 'dist/runtime-host.js is not built (npm run build)', timeout: 60_000 }, () => {
  let manager: HostManager;
  let session: RunSession;
  const phases: RunStatus['phase'][] = [];

  before(() => {
    manager = new HostManager({ hostScript: HOST, clientName: 'test' });
    session = new RunSession(manager, { snapshotRate: () => 20 });
    session.onStatus.on((s) => phases.push(s.phase));
  });
  after(async () => {
    session.dispose();
    await manager.dispose();
  });

  it('starts nothing until asked, then one host for concurrent callers', async () => {
    assert.equal(manager.current(), null);
    const [a, b] = await Promise.all([manager.ensure(), manager.ensure()]);
    assert.equal(a, b);
    assert.ok(a.isAlive());
  });

  it('launches a demo crawl paused at entry, steps it, and mirrors its tasks', async () => {
    const r = await session.launch({ kind: 'demo' }, { maxTasks: 5, stopOnEntry: true });
    assert.ok(r.runId > 0);
    await until('the pause at entry', () => session.status.phase === 'paused');
    assert.equal(session.status.pauseReason, 'entry');
    const tick0 = session.status.tick;
    for (let i = 0; i < 6; i++) await session.stepTick();
    await until('the workers in the mirror', () => session.mirror.tasks.size >= 6);
    assert.ok(session.status.tick > tick0);
    const worker = [...session.mirror.tasks.values()].find((t) => t.name === 'worker-1');
    assert.ok(worker !== undefined);
    const detail = await session.request('taskDetail', { taskId: worker.id, locals: false });
    assert.equal(detail.task.id, worker.id);
  });

  it('continues to the end of the crawl, with progress points that move forward', async () => {
    await session.continue();
    await until('the end of the crawl', () => session.status.phase === 'finished', 30_000);
    assert.match(session.status.detail, /crawled \d+ urls/);
    const pts = session.progressPoints;
    assert.ok(pts.length >= 1);
    for (let i = 1; i < pts.length; i++) assert.ok(pts[i]!.t > pts[i - 1]!.t);
    assert.ok(session.lastProgress !== null && session.lastProgress.done > 10);
    assert.ok(phases.includes('starting') && phases.includes('running') && phases.includes('finished'));
  });

  it('a host killed mid-run: the status says so with its last lines, requests fail, the next launch gets a fresh host', async () => {
    await session.launch({ kind: 'demo' }, { maxTasks: 5, stopOnEntry: true });
    await until('the pause at entry', () => session.status.phase === 'paused');
    const host = manager.current();
    assert.ok(host !== null);
    const exits: boolean[] = [];
    manager.onDidExit(({ exit }) => exits.push(exit.expected));
    const pending = session.request('stepTask', { taskId: 1 }).catch((e: unknown) => e);
    process.kill(host.pid!, 'SIGKILL'); // as a crash would
    assert.ok((await pending) instanceof Error, 'the request in flight failed');
    await until('the host died status', () => session.status.phase === 'hostDied');
    assert.match(session.status.detail, /was killed \(SIGKILL\)/);
    assert.ok(Array.isArray(session.status.lastLines));
    assert.deepEqual(exits, [false]);
    assert.equal(manager.current(), null);
    await assert.rejects(session.request('snapshot', {}), /not running/);
    const r = await session.launch({ kind: 'demo' }, { maxTasks: 5, stopOnEntry: true });
    assert.ok(r.runId >= 1);
    const fresh = manager.current();
    assert.ok(fresh !== null && fresh !== host && fresh.pid !== host.pid);
    await session.stopRun();
  });

  it('a host that dies on its own (SIGKILL from outside) is reported as unexpected', async () => {
    const host = await manager.ensure();
    const got = new Promise<{ expected: boolean; signal: string | null }>((resolve) => manager.onDidExit(({ exit }) => resolve({ expected: exit.expected, signal: exit.signal })));
    process.kill(host.pid!, 'SIGKILL');
    const exit = await got;
    assert.deepEqual(exit, { expected: false, signal: 'SIGKILL' });
    await until('the host died status', () => session.status.phase === 'hostDied');
  });

  it('stop() ends the host', async () => {
    const host = await manager.ensure();
    await manager.stop();
    assert.equal(host.isAlive(), false);
    assert.equal(manager.current(), null);
  });
});
