// One task table per Run in the extension process (extension/runs/run.ts: Run.tasks,
// refreshTasks): the inspector panel's RunSession and a debug session (CoroscopeSession,
// inline, real DAP messages) attached to the same run read one SnapshotMirror. Against the
// real runtime host: two views refreshing at once cause one snapshot request; a refresh the
// debugger asks (its Threads) is the panel's table too, the same version, told to the
// panel's listeners without a poll of its own; a table cleared meanwhile is not patched with
// a delta of the one before.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { RunSession } from '../../../extension/run-session';
import { RunRegistry } from '../../../extension/runs/run-registry';
import type { Run } from '../../../extension/runs/run';
import { HOST_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from '../debug/build-adapter';
import { DapClient } from '../debug/dap-client';
import { until } from '../wait-until';

/** Counts the snapshot requests the run's views send to its host (the real endpoint, counted on the way). */
function countSnapshots(run: Run): { readonly count: number } {
  const ep = run.endpoint;
  const send = ep.request.bind(ep);
  const counter = { count: 0 };
  ep.request = ((method: string, params: unknown) => {
    if (method === 'snapshot') counter.count++;
    return (send as (m: string, p: unknown) => Promise<unknown>)(method, params);
  }) as typeof ep.request;
  return counter;
}

describe('one task table per Run, shared by the panel and a debug session', { timeout: 120_000 }, () => {
  let runs: RunRegistry;
  let panel: RunSession;
  let dap: DapClient | null = null;
  /** The panel's snapshots per second while the run runs. */
  let rate = 20;

  before(async () => {
    await buildAdapterAndHost();
    runs = new RunRegistry({ hostScript: HOST_SCRIPT, clientName: 'test' });
    panel = new RunSession(runs, { snapshotRate: () => rate });
  });
  after(async () => {
    await dap?.close();
    panel.dispose();
    await runs.dispose();
  });

  it('two views of one run: one snapshot request for refreshes at once, one table, the same version', async () => {
    await panel.launch({ kind: 'demo', pages: 500, latency: 'instant' }, { maxTasks: 3, stopOnEntry: true });
    await until('the pause at entry', () => panel.status.phase === 'paused');
    for (let i = 0; i < 3; i++) await panel.stepTick();
    const run = panel.run!;
    const client = DapClient.inProcess(
      new CoroscopeSession({ hostScript: HOST_SCRIPT, runs, viewName: 'debug 1', cwd: PROJECT_ROOT }),
    );
    dap = client;
    await client.request('initialize', {
      clientID: 'coroscope-tests',
      adapterID: 'coroscope',
      linesStartAt1: true,
      columnsStartAt1: true,
      pathFormat: 'path',
    });
    const from = client.mark();
    const attached = client.request('attach', {
      type: 'coroscope',
      request: 'attach',
      name: 'attach',
      run: String(run.key),
    });
    await client.waitForEvent('initialized', { from });
    await client.request('setExceptionBreakpoints', { filters: [] });
    await client.request('configurationDone');
    await attached;
    await until("the panel's table", () => panel.mirror.tasks.size >= 4);
    assert.equal(panel.mirror, run.tasks, "the panel reads the Run's table");

    // Both views refresh at once (the panel's poll and the debugger's): one request, one version for both.
    await panel.stepTick();
    // (The panel's own poll after the step is done; the next one comes a second later, paused.)
    await new Promise((r) => setTimeout(r, 100));
    const snapshots = countSnapshots(run);
    const [a, b] = await Promise.all([run.refreshTasks(), run.refreshTasks()]);
    assert.equal(snapshots.count, 1);
    assert.equal(a.snapshot.version, b.snapshot.version);

    // The debugger's Threads refreshes the table the panel shows: the panel hears the change and reads that version.
    // (The run goes on; the panel polls once as it continues, then not for 10 s.)
    rate = 0.1;
    await panel.continue();
    await new Promise((r) => setTimeout(r, 100));
    const heard: number[] = [];
    const off = panel.onSnapshot.on(({ snapshot }) => heard.push(snapshot.version));
    await new Promise((r) => setTimeout(r, 150));
    const before = snapshots.count;
    const threads = await client.request<DebugProtocol.ThreadsResponse['body']>('threads');
    off();
    assert.equal(snapshots.count - before, 1, "one request for the debugger's Threads");
    assert.ok(heard.length >= 1, "the panel heard the debugger's refresh");
    assert.equal(panel.mirror.version, heard[heard.length - 1]);
    assert.equal(panel.mirror.version, run.tasks.version);
    for (const t of panel.mirror.liveTasks())
      assert.ok(
        threads.threads.some((th) => th.id === t.id),
        `task #${t.id} is a thread`,
      );
    rate = 20;
    await panel.pause();
    await until('paused again', () => panel.status.phase === 'paused');
  });

  it('a table cleared while a delta was asked (another moment shown) asks again for a whole table', async () => {
    const run = panel.run!;
    assert.equal(panel.status.phase, 'paused');
    await new Promise((r) => setTimeout(r, 100));
    await run.refreshTasks();
    const snapshots = countSnapshots(run);
    assert.ok(run.tasks.version >= 0);
    const refresh = run.refreshTasks();
    run.tasks.clear();
    const { snapshot } = await refresh;
    assert.equal(snapshot.full, true, 'the delta of the table before was not applied');
    assert.equal(snapshots.count, 2, 'the delta asked before the clear, then a whole table');
    assert.ok(run.tasks.tasks.size >= 4);
  });
});
