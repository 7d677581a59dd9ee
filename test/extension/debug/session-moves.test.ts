// Tests of the session's move requests (extension/debug/session-moves.ts) at the protocol level,
// against the fake host (fake-debug-host.ts): which host request each DAP move becomes at a live
// pause, with which params (the loop's thread steps a tick, a task's thread steps that task, Step
// Out names the frame depth); how `singleThread` and "Follow This Task" limit Continue and Step
// Over to one task; and the refusals: any move while a move through the past is under way, and a
// forward step or Pause at a finished run's end (Continue there ends the session).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import type { HostEvents, Snapshot, TaskSummary } from '../../../protocol/host-protocol';
import { FakeRun, serveSeeks, snapshotAt, timelineOf, attachedToFake } from './fake-debug-host';
import type { DapClient } from './dap-client';
import { refusalOf } from './adapter-harness';
import { until } from '../wait-until';

const TIMEOUT = 5000;
const PAUSE: HostEvents['paused'] = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };

/** Task 3, suspended two frames deep (its Step Out leaves frame depth 1). */
function snapshotWithTask(tick: number): Snapshot {
  const task: TaskSummary = {
    id: 3,
    name: 'worker',
    state: 'suspended',
    steps: 2,
    busyMs: 0,
    sinceResumedMs: 0,
    createdBy: null,
    awaiting: null,
    awaitedBy: [],
    frames: ['worker', 'fetch'],
  };
  const s = snapshotAt(tick, true);
  return { ...s, tasks: [task], counts: { ...s.counts, suspended: 1 } };
}

/** A live paused run whose every move is answered, then landed by a `paused` event (as the host does). */
function livePausedRun(): FakeRun {
  const run = new FakeRun('paused');
  run.lastPause = PAUSE;
  run.endpoint.serve('snapshot', () => snapshotWithTask(5));
  const land = (): { tick: number } => {
    setImmediate(() => run.endpoint.emit('paused', { ...PAUSE, reason: 'step' }));
    return { tick: 5 };
  };
  run.endpoint.serve('stepTick', land);
  run.endpoint.serve('stepTask', land);
  run.endpoint.serve('stepOut', land);
  run.endpoint.serve('continue', land);
  run.endpoint.serve('pause', () => ({ tick: 5 }));
  return run;
}

/** The host requests asked since `from` (index in the request log), moves only, with their params. */
function movesSince(run: FakeRun, from: number): Array<[string, unknown]> {
  const moves = new Set(['stepTick', 'stepTask', 'stepOut', 'continue', 'pause', 'seekTick']);
  return run.endpoint.requests.slice(from).flatMap((r) => (moves.has(r.method) ? [[r.method, r.params]] : []));
}

/** Sends a move and waits for the stop it lands on; the host requests it caused. */
async function move(dap: DapClient, run: FakeRun, command: string, args: unknown): Promise<Array<[string, unknown]>> {
  const asked = run.endpoint.requests.length;
  const from = dap.mark();
  await dap.request(command, args);
  await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
  return movesSince(run, asked);
}

describe('session moves', () => {
  it('at a live pause: each move is the host request of its thread', async () => {
    const run = livePausedRun();
    const dap = await attachedToFake(run);
    try {
      assert.deepEqual(await move(dap, run, 'next', { threadId: LOOP_THREAD_ID }), [['stepTick', {}]]);
      assert.deepEqual(await move(dap, run, 'stepIn', { threadId: LOOP_THREAD_ID }), [['stepTick', {}]]);
      assert.deepEqual(await move(dap, run, 'stepIn', { threadId: 3 }), [['stepTask', { taskId: 3 }]]);
      assert.deepEqual(await move(dap, run, 'stepOut', { threadId: 3 }), [['stepOut', { taskId: 3, depth: 1 }]]);
      const asked = run.endpoint.requests.length;
      const from = dap.mark();
      const body = await dap.request<DebugProtocol.ContinueResponse['body']>('continue', { threadId: LOOP_THREAD_ID });
      assert.deepEqual(body, { allThreadsContinued: true });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      assert.deepEqual(movesSince(run, asked), [['continue', {}]]);
    } finally {
      await dap.close();
    }
  });

  it('singleThread limits Continue and Step Over to the task: its next step', async () => {
    const run = livePausedRun();
    const dap = await attachedToFake(run);
    try {
      const asked = run.endpoint.requests.length;
      const from = dap.mark();
      const body = await dap.request<DebugProtocol.ContinueResponse['body']>('continue', {
        threadId: 3,
        singleThread: true,
      });
      assert.deepEqual(body, { allThreadsContinued: false });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      // Limited to the task: another task's line hit meanwhile does not stop it (oneTask).
      assert.deepEqual(movesSince(run, asked), [['stepTask', { taskId: 3, oneTask: true }]]);
      assert.deepEqual(await move(dap, run, 'next', { threadId: 3, singleThread: true }), [
        ['stepTask', { taskId: 3, oneTask: true }],
      ]);
      // On the loop's thread singleThread names no task: the loop's tick.
      assert.deepEqual(await move(dap, run, 'next', { threadId: LOOP_THREAD_ID, singleThread: true }), [
        ['stepTick', {}],
      ]);
    } finally {
      await dap.close();
    }
  });

  it('a move while a move through the past is under way is refused, and asks nothing of the host', async () => {
    const run = new FakeRun('paused');
    run.lastPause = PAUSE;
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    // The replay to the past tick lands only when the test lets it.
    let land: () => void = () => undefined;
    run.endpoint.serve('seekTick', (p) => {
      const moment = { runId: 7, tick: p.tick, ticks: 5 };
      return new Promise((resolve) => (land = () => resolve(moment)));
    });
    const dap = await attachedToFake(run);
    // A move through the past is answered once it has landed.
    const stepBack = dap.request('stepBack', { threadId: LOOP_THREAD_ID }).catch(() => undefined);
    try {
      await until('the seek asked of the host', () => run.endpoint.asked().includes('seekTick'));
      const asked = run.endpoint.requests.length;
      for (const command of ['next', 'stepIn', 'stepOut', 'continue', 'stepBack', 'reverseContinue', 'pause']) {
        const refusal = await refusalOf(dap, command, { threadId: LOOP_THREAD_ID });
        assert.equal(refusal.command, command);
        assert.ok(
          refusal.message?.startsWith(`${command}: another move of this session is under way`),
          `${command}: ${refusal.message}`,
        );
      }
      assert.deepEqual(movesSince(run, asked), []);
    } finally {
      land();
      await stepBack;
      await dap.close();
    }
  });

  it("at a finished run's end: forward steps and Pause refused, Continue ends the session", async () => {
    const run = new FakeRun('finished');
    run.viewedTick = 10;
    run.endpoint.serve('snapshot', () => snapshotAt(10, true));
    run.endpoint.serve('timeline', () => timelineOf(7, 10));
    serveSeeks(run, 10, true);
    const dap = await attachedToFake(run);
    try {
      const asked = run.endpoint.requests.length;
      for (const [command, what] of [
        ['next', 'Step Over'],
        ['stepIn', 'Step Into'],
        ['stepOut', 'Step Out'],
        ['pause', 'Pause'],
      ] as const) {
        const refusal = await refusalOf(dap, command, { threadId: LOOP_THREAD_ID });
        assert.ok(
          refusal.message?.startsWith(`${what}: the run finished at tick 10, nothing comes after it`),
          `${command}: ${refusal.message}`,
        );
      }
      assert.deepEqual(movesSince(run, asked), []);
      const from = dap.mark();
      await dap.request('continue', { threadId: LOOP_THREAD_ID });
      await dap.waitForEvent('terminated', { from, timeoutMs: TIMEOUT });
      assert.deepEqual(movesSince(run, asked), [], 'Continue at the end moves nothing');
    } finally {
      await dap.close();
    }
  });
});
