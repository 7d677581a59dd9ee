// Tests of PositionEvents (extension/debug/position-events.ts) at the protocol level: host events
// emitted by the fake host (fake-debug-host.ts) into a session attached to a running run, and the
// DAP events they become, compared as event bodies: a live stop (its reason, thread, text), a
// deadlock stop (with the coroscope/deadlock event), `continued` while a stop is shown, a past tick
// viewed by another view (the panel's scrubber) shown as a `goto` stop with the loop row told too,
// a live stop while a past tick is shown (kept, not shown), and another run's events ignored.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { DEADLOCK_EVENT } from '../../../extension/debug/custom-requests';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { FakeRun, FakeRuns, snapshotAt } from './fake-debug-host';
import type { DapClient } from './dap-client';
import { attachedInProcess } from './adapter-harness';

const TIMEOUT = 5000;

async function attachedToRunning(): Promise<{ run: FakeRun; dap: DapClient }> {
  const run = new FakeRun('running');
  run.endpoint.serve('snapshot', () => snapshotAt(3, false));
  const dap = await attachedInProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
    { run: run.key },
    { timeoutMs: TIMEOUT },
  );
  return { run, dap };
}

/** The bodies of the events named `event` from `from` on. */
function bodies<T>(dap: DapClient, from: number, event: string): T[] {
  return dap.events
    .slice(from)
    .filter((e) => e.event === event)
    .map((e) => e.body as T);
}

type Stopped = DebugProtocol.StoppedEvent['body'];

/** Lets the in-process session handle what was emitted (it answers on later turns). */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 30));
}

describe('position events', () => {
  it('a live breakpoint stop: one stopped event on its task, said as a breakpoint', async () => {
    const { run, dap } = await attachedToRunning();
    try {
      const from = dap.mark();
      run.endpoint.emit('paused', {
        reason: 'breakpoint',
        tick: 4,
        taskId: 2,
        description: 'Task #2 "worker" hit a breakpoint at prog.ts:12',
      });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      await settle();
      assert.deepEqual(bodies<Stopped>(dap, from, 'stopped'), [
        { reason: 'breakpoint', threadId: 2, allThreadsStopped: true, description: 'Paused on breakpoint' },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('an exception stop carries the error as its text; a cancel stop is an exception of CancelledError', async () => {
    const { run, dap } = await attachedToRunning();
    try {
      let from = dap.mark();
      run.endpoint.emit('paused', {
        reason: 'exception',
        tick: 4,
        taskId: 2,
        description: 'Task #2 "worker" failed: ValueError: bad',
      });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      assert.deepEqual(bodies<Stopped>(dap, from, 'stopped'), [
        {
          reason: 'exception',
          threadId: 2,
          text: 'Task #2 "worker" failed: ValueError: bad',
          allThreadsStopped: true,
          description: 'Paused on exception',
        },
      ]);
      from = dap.mark();
      run.endpoint.emit('continued', { tick: 4 });
      run.endpoint.emit('paused', { reason: 'cancelled', tick: 5, taskId: 3, description: 'Task #3 was cancelled' });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      assert.deepEqual(bodies<Stopped>(dap, from, 'stopped'), [
        {
          reason: 'exception',
          threadId: 3,
          text: 'CancelledError',
          allThreadsStopped: true,
          description: 'Paused on task cancelled',
        },
      ]);
      assert.deepEqual(bodies(dap, from, 'continued'), [{ threadId: LOOP_THREAD_ID, allThreadsContinued: true }]);
    } finally {
      await dap.close();
    }
  });

  it('a deadlock stop: the coroscope/deadlock event with the cycle, the stop said as one', async () => {
    const { run, dap } = await attachedToRunning();
    try {
      const from = dap.mark();
      const deadlock = {
        summary: 'lock-order cycle: a → b → a',
        reason: 'a awaits b, b awaits a',
        details: 'a: waits for lock L2 held by b\nb: waits for lock L1 held by a',
      };
      run.endpoint.emit('paused', {
        reason: 'exception',
        tick: 9,
        taskId: 2,
        description: 'Deadlock: lock-order cycle: a → b → a',
        deadlock,
      });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      assert.deepEqual(bodies(dap, from, DEADLOCK_EVENT), [{ summary: deadlock.summary, details: deadlock.details }]);
      assert.deepEqual(bodies<Stopped>(dap, from, 'stopped'), [
        {
          reason: 'exception',
          threadId: 2,
          text: 'Deadlock',
          allThreadsStopped: true,
          description: 'Deadlock: lock-order cycle: a → b → a',
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it("another view's past tick is shown as a goto stop, the loop row told; a live stop meanwhile is kept", async () => {
    const { run, dap } = await attachedToRunning();
    try {
      let from = dap.mark();
      run.endpoint.emit('paused', { reason: 'breakpoint', tick: 6, taskId: 2, description: 'Task #2 at a breakpoint' });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });

      from = dap.mark();
      run.endpoint.emit('viewedTick', { runId: 7, tick: 4, ticks: 6, replayed: false });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      await settle();
      assert.deepEqual(bodies<Stopped>(dap, from, 'stopped'), [
        {
          reason: 'goto',
          threadId: 2,
          allThreadsStopped: true,
          description: 'At tick 4 of 6 (replayed)',
          preserveFocusHint: true,
        },
        {
          reason: 'goto',
          threadId: LOOP_THREAD_ID,
          allThreadsStopped: false,
          description: 'At tick 4 of 6 (replayed)',
          preserveFocusHint: true,
        },
      ]);

      // The run stops again live while the views show tick 4: kept for the way back, not shown.
      from = dap.mark();
      run.endpoint.emit('paused', { reason: 'breakpoint', tick: 7, taskId: 2, description: 'Task #2 again' });
      await settle();
      assert.deepEqual(bodies(dap, from, 'stopped'), []);
    } finally {
      await dap.close();
    }
  });

  it("another run's viewedTick is ignored", async () => {
    const { run, dap } = await attachedToRunning();
    try {
      run.endpoint.emit('paused', { reason: 'breakpoint', tick: 6, taskId: 2, description: 'at a breakpoint' });
      await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
      const from = dap.mark();
      run.endpoint.emit('viewedTick', { runId: 99, tick: 4, ticks: 6, replayed: false });
      await settle();
      assert.deepEqual(bodies(dap, from, 'stopped'), []);
    } finally {
      await dap.close();
    }
  });
});
