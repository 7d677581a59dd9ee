// extension/debug/coroutines-view-requests.ts at the protocol level, in process against the fake host
// (fake-debug-host.ts): the Coroutines view's custom requests. The task table comes with the loop's tick
// and state, and when it cannot be refreshed it is the one last seen; the line step mode is narrowed
// before the host is asked; traces pass on a string URL only; a host's failure is the request's error
// response (ERR_HOST, its text, not shown to the user). Ordered logs compared whole (dap-log.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LINE_STEP_MODE_REQUEST,
  TASKS_REQUEST,
  TRACES_REQUEST,
  type TasksBody,
} from '../../../extension/debug/custom-requests';
import { ERR_HOST } from '../../../extension/debug/session-core';
import type { TracePair } from '../../../protocol/host-protocol';
import { makeTask } from '../../webview/fixtures-tasks';
import { logMark, logSince } from './dap-log';
import { FakeRun, snapshotAt, attachedToFake } from './fake-debug-host';

function pausedRun(): FakeRun {
  const run = new FakeRun('paused');
  run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
  run.endpoint.serve('snapshot', () => ({ ...snapshotAt(5, true), tasks: [makeTask(3, { name: 'fetcher' })] }));
  return run;
}

const trace = (url: string): TracePair => ({
  url,
  coroutine: { title: 'coroutine', error: 'Error: boom', frames: [], text: 'coroutine trace' },
  callback: { title: 'callback', error: 'Error: boom', frames: [], text: 'callback trace' },
});

describe('the Coroutines view requests', () => {
  it("the task table with the loop's tick and state; the last one seen when it cannot be refreshed", async () => {
    const run = pausedRun();
    const dap = await attachedToFake(run);
    try {
      const first = await dap.request<TasksBody>(TASKS_REQUEST, {});
      run.endpoint.serve('snapshot', () => {
        throw new Error('the host is gone');
      });
      const second = await dap.request<TasksBody>(TASKS_REQUEST, {});
      const summary = (b: TasksBody) => ({
        tasks: b.tasks.map((t) => `${t.id} ${t.name}`),
        tick: b.tick,
        paused: b.paused,
        running: b.running,
      });
      assert.deepEqual(summary(first), { tasks: ['3 fetcher'], tick: 5, paused: true, running: true });
      assert.deepEqual(summary(second), summary(first));
    } finally {
      await dap.close();
    }
  });

  it('the line step mode: narrowed first, then asked of the host; its failure is the answer', async () => {
    const run = pausedRun();
    const modes: unknown[] = [];
    run.endpoint.serve('setLineStepMode', (params) => {
      modes.push(params);
      if (modes.length > 1) throw new Error('setLineStepMode: refused');
      return {};
    });
    const dap = await attachedToFake(run);
    try {
      const mark = logMark(dap);
      await dap.requestRaw(LINE_STEP_MODE_REQUEST, { mode: 'sideways' });
      await dap.requestRaw(LINE_STEP_MODE_REQUEST, { mode: 'followLoop' });
      await dap.requestRaw(LINE_STEP_MODE_REQUEST, { mode: 'stayWithTask' });
      assert.deepEqual(logSince(dap, mark, []), [
        {
          response: LINE_STEP_MODE_REQUEST,
          success: false,
          error: {
            id: ERR_HOST,
            format: `${LINE_STEP_MODE_REQUEST}: "mode" must be "stayWithTask" or "followLoop"`,
            showUser: false,
          },
        },
        { response: LINE_STEP_MODE_REQUEST, success: true },
        {
          response: LINE_STEP_MODE_REQUEST,
          success: false,
          error: { id: ERR_HOST, format: 'setLineStepMode: refused', showUser: false },
        },
      ]);
      assert.deepEqual(modes, [{ mode: 'followLoop' }, { mode: 'stayWithTask' }]);
    } finally {
      await dap.close();
    }
  });

  it("traces: a string URL passed on, anything else none; the host's pair is the answer", async () => {
    const run = pausedRun();
    const asked: unknown[] = [];
    run.endpoint.serve('traces', (params) => {
      asked.push(params);
      return trace(params.url ?? 'http://demo/');
    });
    const dap = await attachedToFake(run);
    try {
      const bodies = [
        await dap.request<TracePair>(TRACES_REQUEST, { url: 'http://x/' }),
        await dap.request<TracePair>(TRACES_REQUEST, { url: 5 }),
        await dap.request<TracePair>(TRACES_REQUEST, undefined),
      ];
      assert.deepEqual(asked, [{ url: 'http://x/' }, {}, {}]);
      assert.deepEqual(bodies, [trace('http://x/'), trace('http://demo/'), trace('http://demo/')]);
    } finally {
      await dap.close();
    }
  });
});
