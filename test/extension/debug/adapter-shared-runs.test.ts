// The debug adapter (CoroscopeSession, as VS Code runs it inline) on a run registry shared
// with the inspector panel's RunSession, driven with real DAP messages over in-process
// streams: `attach` to a run the panel launched (same task ids, one runtime host process),
// the panel's pause / continue / step reaching the debugger as `stopped` / `continued`, a
// DAP `next` moving the panel's tick, the panel's Stop ending the debug session; `attach`
// refused clearly without a run or with several; a detach that leaves the run to the panel
// (running again, deaf to it); a run launched by a debug session seen by the panel, and
// ended for it by the debugger's disconnect.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { RunSession } from '../../../extension/run-session';
import { RunRegistry } from '../../../extension/runs/run-registry';
import { until } from '../wait-until';
import { HOST_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient, processExists } from './dap-client';
import { initialize, startDebugging, threadsOf } from './adapter-harness';
import { ERR_LAUNCH } from '../../../extension/debug/session-core';

function inlineAdapter(runs: RunRegistry, name: string): DapClient {
  return DapClient.inProcess(
    new CoroscopeSession({ hostScript: HOST_SCRIPT, runs, viewName: name, cwd: PROJECT_ROOT }),
  );
}

/** An attach as VS Code does it, with these exception filters (none by default). */
async function attach(dap: DapClient, args: Record<string, unknown>, filters: string[] = []): Promise<void> {
  await startDebugging(
    dap,
    'attach',
    { type: 'coroscope', request: 'attach', name: 'attach', ...args },
    { exceptionFilters: filters },
  );
}

async function threadIds(dap: DapClient): Promise<Map<number, string>> {
  return new Map((await threadsOf(dap)).map((t) => [t.id, t.name]));
}

describe("the debug adapter attached to the panel's run (one run, two views)", { timeout: 120_000 }, () => {
  let runs: RunRegistry;
  let panel: RunSession;
  let dap: DapClient;

  before(async () => {
    await buildAdapterAndHost();
    runs = new RunRegistry({ hostScript: HOST_SCRIPT, clientName: 'test' });
    panel = new RunSession(runs, { snapshotRate: () => 20 });
  });

  after(async () => {
    await dap?.close();
    panel?.dispose();
    await runs?.dispose();
  });

  it('refuses an attach when no run is live, saying so', async () => {
    const lone = inlineAdapter(runs, 'debug 0');
    try {
      await initialize(lone);
      const r = await lone.requestRaw('attach', { type: 'coroscope', request: 'attach', name: 'a' });
      assert.equal(r.success, false);
      assert.deepEqual(r.body, {
        error: {
          id: ERR_LAUNCH,
          format:
            'there is no run to attach to: start one first (Coroscope: Run Crawl, or a sample), or open a recording',
          showUser: false,
        },
      });
      const bad = await lone.requestRaw('attach', { type: 'coroscope', request: 'attach', name: 'a', run: 'first' });
      assert.equal(bad.success, false);
      assert.deepEqual(bad.body, {
        error: {
          id: ERR_LAUNCH,
          format:
            'Coroscope: "run" must be the number of a run (as "Coroscope: Pick a Run to Debug" gives), got "first"',
          showUser: true,
        },
      });
    } finally {
      await lone.close();
    }
  });

  it("attaches to the panel's crawl, paused at entry: the same run, the same tasks, one host process", async () => {
    await panel.launch({ kind: 'demo' }, { maxTasks: 3, stopOnEntry: true });
    await until('the pause at entry', () => panel.status.phase === 'paused');
    for (let i = 0; i < 3; i++) await panel.stepTick();
    const run = panel.run;
    assert.ok(run !== null);
    dap = inlineAdapter(runs, 'debug 1');
    await initialize(dap);
    const from = dap.mark();
    await attach(dap, { run: String(run.key) });
    const proc = await dap.waitForEvent('process', { from });
    assert.equal(proc.body.systemProcessId, run.pid);
    assert.equal(proc.body.startMethod, 'attach');
    // The run is paused: the debugger shows that stop at once.
    const stopped = await dap.waitForEvent('stopped', { from });
    assert.equal(stopped.body.reason, 'step');
    assert.deepEqual(run.viewers().sort(), ['debug 1', 'panel']);
    assert.equal(runs.list().length, 1, 'one runtime host process for the run');
    await until("the panel's mirror", () => panel.mirror.tasks.size >= 4);
    const threads = await threadIds(dap);
    const panelIds = panel.mirror.allTasks().map((t) => t.id);
    for (const id of panelIds)
      assert.ok(threads.has(id), `task #${id} is a thread (threads: ${[...threads.values()].join(', ')})`);
    assert.ok([...threads.values()].some((n) => /^worker-1 \[/.test(n)));
  });

  it('a pause, a step and a continue from the panel reach the debugger as continued and stopped', async () => {
    let from = dap.mark();
    await panel.continue();
    await dap.waitForEvent('continued', { from });
    from = dap.mark();
    await panel.pause();
    const paused = await dap.waitForEvent('stopped', { from });
    assert.equal(paused.body.reason, 'pause');
    assert.equal(paused.body.allThreadsStopped, true);
    from = dap.mark();
    await panel.stepTick();
    const stepped = await dap.waitForEvent('stopped', { from });
    assert.equal(stepped.body.reason, 'step');
  });

  it("a step over in the debugger moves the panel's tick", async () => {
    const tick0 = panel.status.tick;
    const from = dap.mark();
    await dap.request('next', { threadId: 2_000_000_000 });
    await dap.waitForEvent('stopped', { from });
    await until("the panel's tick to move", () => panel.status.phase === 'paused' && panel.status.tick > tick0);
  });

  it('attach without "run" while several runs are live lists them', async () => {
    const other = await runs.start();
    const off = other.attach('test');
    await other.launch({ kind: 'sample', id: 'generators' }, { stopOnEntry: true }, 'test');
    const extra = inlineAdapter(runs, 'debug 2');
    try {
      await initialize(extra);
      const r = await extra.requestRaw('attach', { type: 'coroscope', request: 'attach', name: 'a' });
      assert.equal(r.success, false);
      // Each live run by its key and title: the panel's crawl, then the sample.
      const crawl = runs.debuggable().find((run) => run.key !== other.key);
      assert.ok(crawl !== undefined);
      assert.deepEqual(r.body, {
        error: {
          id: ERR_LAUNCH,
          format: `several runs are live (or finished and recorded), say which with "run": ${crawl.key}: ${crawl.title}; ${other.key}: Sample generators`,
          showUser: false,
        },
      });
    } finally {
      await extra.close();
      off();
    }
    await until('the other run ended with its last view', () => !other.isAlive());
  });

  it('Stop in the panel ends the debug session (terminated)', async () => {
    const from = dap.mark();
    await panel.stopRun();
    await dap.waitForEvent('terminated', { from });
    await until('the panel to see the run finished', () => panel.status.phase === 'finished');
  });
});

describe("a debug session that detaches from the panel's run", { timeout: 120_000 }, () => {
  let runs: RunRegistry;
  let panel: RunSession;

  before(async () => {
    await buildAdapterAndHost();
    runs = new RunRegistry({ hostScript: HOST_SCRIPT, clientName: 'test' });
    panel = new RunSession(runs, { snapshotRate: () => 20 });
  });

  after(async () => {
    panel?.dispose();
    await runs?.dispose();
  });

  it('leaves the run going for the panel and hears nothing of it after; terminateDebuggee ends it', async () => {
    await panel.launch({ kind: 'demo', pages: 20_000 }, { maxTasks: 2, stopOnEntry: true });
    await until('the pause at entry', () => panel.status.phase === 'paused');
    const run = panel.run;
    assert.ok(run !== null);
    const dap = inlineAdapter(runs, 'debug 1');
    try {
      await initialize(dap);
      await attach(dap, {});
      await dap.waitForEvent('stopped');
      await dap.request('disconnect', {});
      assert.ok(run.isAlive(), 'the run goes on');
      assert.deepEqual(run.viewers(), ['panel']);
      await until('the paused run let go', () => panel.status.phase === 'running');
      const mark = dap.mark();
      await panel.pause();
      await until('paused in the panel', () => panel.status.phase === 'paused');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(
        dap.events.slice(mark).map((e) => e.event),
        [],
        'the detached session hears nothing more',
      );
    } finally {
      await dap.close();
    }
    // An attach that ends with terminateDebuggee ends the run for the panel too.
    const second = inlineAdapter(runs, 'debug 2');
    try {
      await initialize(second);
      await attach(second, { run: run.key });
      await second.request('disconnect', { terminateDebuggee: true });
      await until('the run ended', () => !run.isAlive());
      await until('the panel to see it', () => panel.run === null);
    } finally {
      await second.close();
    }
  });
  it("takes its exception breaks with it: a deadlock after it left is said, and the panel's run goes on", async () => {
    await panel.launch(
      { kind: 'program', path: join(__dirname, 'fixtures', 'posting-deadlock.ts') },
      { stopOnEntry: true },
    );
    await until('the pause at entry', () => panel.status.phase === 'paused');
    const run = panel.run;
    assert.ok(run !== null);
    const dap = inlineAdapter(runs, 'debug 3');
    try {
      await initialize(dap);
      await attach(dap, {}, ['taskFailed', 'deadlock']);
      await dap.waitForEvent('stopped');
      await dap.request('disconnect', {});
    } finally {
      await dap.close();
    }
    await until('the deadlock said to the panel', () => panel.exceptions.some((e) => e.deadlock !== undefined), 30_000);
    const deadlock = panel.exceptions.find((e) => e.deadlock !== undefined)!;
    assert.equal(deadlock.deadlock?.stopped, false, 'no debugger is there to stop it');
    await new Promise((r) => setTimeout(r, 300));
    assert.notEqual(panel.status.phase, 'paused', `the panel's run was stopped: ${panel.status.pauseReason ?? ''}`);
    await panel.stopRun();
  });
});

describe('a run launched by a debug session, seen in the panel', { timeout: 120_000 }, () => {
  let runs: RunRegistry;
  let panel: RunSession;
  let dap: DapClient;

  before(async () => {
    await buildAdapterAndHost();
    runs = new RunRegistry({ hostScript: HOST_SCRIPT, clientName: 'test' });
    panel = new RunSession(runs, { snapshotRate: () => 20 });
    // As extension.ts wires it: a run a debug session launches shows in the panel.
    runs.onDidLaunch.on(({ run, by }) => {
      if (by !== 'panel') panel.show(run);
    });
  });

  after(async () => {
    await dap?.close();
    panel?.dispose();
    await runs?.dispose();
  });

  it("the panel lists the debugger's tasks with the same ids, and its stop", async () => {
    dap = inlineAdapter(runs, 'debug 1');
    await initialize(dap);
    const from = dap.mark();
    const launch = dap.request('launch', {
      type: 'coroscope',
      request: 'launch',
      name: 'l',
      crawl: 'demo',
      maxTasks: 3,
      stopOnEntry: true,
    });
    await dap.waitForEvent('initialized', { from });
    await dap.request('configurationDone');
    await launch;
    const entry = await dap.waitForEvent('stopped', { from });
    assert.equal(entry.body.reason, 'entry');
    const run = panel.run;
    assert.ok(run !== null, "the panel follows the debugger's run");
    assert.equal(runs.list().length, 1, 'one runtime host process');
    assert.equal((await dap.waitForEvent('process', { from })).body.systemProcessId, run.pid);
    assert.equal(panel.status.phase, 'paused');
    const stepFrom = dap.mark();
    await dap.request('next', { threadId: 2_000_000_000 });
    await dap.waitForEvent('stopped', { from: stepFrom });
    await dap.request('next', { threadId: 2_000_000_000 });
    await until("the panel's workers", () => panel.mirror.allTasks().some((t) => t.name === 'worker-1'));
    const threads = await threadIds(dap);
    for (const t of panel.mirror.allTasks()) assert.ok(threads.has(t.id), `task #${t.id} ${t.name} is a thread`);
  });

  it("the debugger's disconnect ends the run it launched, for the panel too", async () => {
    const run = panel.run;
    assert.ok(run !== null);
    const pid = run.pid!;
    await dap.request('disconnect', { terminateDebuggee: true });
    await until("the run's host gone", () => !run.isAlive());
    assert.equal(processExists(pid), false);
    await until('the panel to say stopped', () => panel.status.phase !== 'paused' && panel.status.phase !== 'running');
    assert.equal(panel.run, null);
  });
});
