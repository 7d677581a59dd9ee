// A restarted session names its threads from its new run only (issue 26: "a new run's views show
// nothing of the previous run"). The session keeps the names of the tasks it listed, for a line
// stop whose task the table shown lacks (a past line's table is of the tick boundary before);
// task ids start over in a new run, so a name kept from the run before the restart would label
// another task. Against the fake host (fake-debug-host.ts), launched by the session itself.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import type { Snapshot, TaskSummary } from '../../../protocol/host-protocol';
import { FakeRun, FakeRuns, snapshotAt } from './fake-debug-host';
import { DapClient } from './dap-client';
import { initialize, startDebugging } from './adapter-harness';

const TIMEOUT = 5000;
const FILE = '/work/prog.ts';

function task(id: number, name: string): TaskSummary {
  return {
    id,
    name,
    state: 'running',
    steps: 1,
    busyMs: 0,
    sinceResumedMs: 0,
    createdBy: null,
    awaiting: null,
    awaitedBy: [],
    frames: [name],
  };
}

function snapshotWith(tick: number, tasks: TaskSummary[]): Snapshot {
  const s = snapshotAt(tick, true);
  return { ...s, tasks, counts: { ...s.counts, running: tasks.length } };
}

async function threadName(dap: DapClient, id: number): Promise<string | undefined> {
  const body = await dap.request<DebugProtocol.ThreadsResponse['body']>('threads');
  return body.threads.find((t) => t.id === id)?.name;
}

describe('thread names across a restart', () => {
  it('a restarted run does not show a name of the run before it', async () => {
    const run = new FakeRun('running');
    let runIds = 7;
    let tasks: TaskSummary[] = [task(3, 'old-worker')];
    const ep = run.endpoint;
    ep.serve('launch', () => ({ runId: ++runIds, heldAtEntry: true }));
    ep.serve('setExceptionBreaks', () => ({}));
    ep.serve('setLineStepMode', () => ({}));
    ep.serve('continue', () => ({ tick: 0 }));
    ep.serve('stop', () => {
      ep.emit('finished', { runId: run.runId!, ok: true, summary: 'stopped', stopped: true });
      return {};
    });
    ep.serve('snapshot', () => snapshotWith(4, tasks));
    const dap = DapClient.inProcess(
      new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run, true) }),
    );
    try {
      await initialize(dap);
      await startDebugging(
        dap,
        'launch',
        { type: 'coroscope', request: 'launch', name: 'x', sample: 'generators' },
        { timeoutMs: TIMEOUT },
      );

      let from = dap.mark();
      ep.emit('paused', {
        reason: 'breakpoint',
        tick: 4,
        taskId: 3,
        description: 'old-worker stopped on a line',
        line: { file: FILE, line: 12, column: 1 },
      });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      assert.equal((await threadName(dap, 3)) ?? '', 'old-worker [running: line 12]', 'the first run names its task');

      await dap.request('restart', {});
      assert.equal(run.runId, 9, 'the restart launched a new run');
      // The new run's table does not list its task #3 yet (a past line's table is of the tick before).
      tasks = [];
      from = dap.mark();
      ep.emit('paused', {
        reason: 'breakpoint',
        tick: 2,
        taskId: 3,
        description: 'task #3 stopped on a line',
        line: { file: FILE, line: 5, column: 1 },
      });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      const name = (await threadName(dap, 3)) ?? '';
      assert.doesNotMatch(name, /old-worker/, `a name of the run before the restart: ${name}`);
      assert.equal(name, 'task #3 [running: line 5]');
    } finally {
      await dap.close();
    }
  });
});
