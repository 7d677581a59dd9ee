// The debug adapter's live moves and Reverse Continue / Pause through its position switch
// (extension/debug/session-moves.ts, debug-position.ts), against the fake host (fake-debug-host.ts):
// a live line step is a move (`moving` until the live stop it comes to: another move meanwhile is
// refused, Pause may hold the program it runs), and Reverse Continue and Pause are answered by where the
// debugger stands (refused while a move is under way, asking nothing of the host). Beside
// session-positions.test.ts (kept under ~500 lines), with the same attach.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import type { HostEvents, SourcePosition } from '../../../protocol/host-protocol';
import { FakeRun, FakeRuns, snapshotAt } from './fake-debug-host';
import { until } from '../wait-until';
import type { DapClient, DapEvent } from './dap-client';
import { attachedInProcess } from './adapter-harness';

const TIMEOUT = 5000;
const FILE = '/work/prog.ts';
const at = (line: number): SourcePosition => ({ file: FILE, line, column: 3 });

async function attached(run: FakeRun): Promise<DapClient> {
  return attachedInProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
    { run: run.key },
    { timeoutMs: TIMEOUT },
  );
}

function stopped(dap: DapClient, from: number): Promise<DapEvent> {
  return dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT, failOn: ['terminated'] });
}

function asked(run: FakeRun, method: string): number {
  return run.endpoint.requests.filter((r) => r.method === method).length;
}

/** A run held on line 12 of task #2 at tick 7, whose line steps the test lands itself (`land`). */
function liveLineRun(): FakeRun {
  const run = new FakeRun('paused');
  run.lastPause = {
    reason: 'breakpoint',
    tick: 7,
    taskId: 2,
    description: 'Task #2 "worker-2" hit a breakpoint at prog.ts:12',
    line: at(12),
  };
  run.endpoint.serve('snapshot', () => snapshotAt(7, true));
  run.endpoint.serve('lineStep', () => ({}));
  return run;
}

/** The live program comes to line `line` (the host's `paused` of a line step, or of a pause). */
function land(run: FakeRun, line: number, reason: HostEvents['paused']['reason'] = 'step'): void {
  run.endpoint.emit('paused', { reason, tick: 7, taskId: 2, description: `line ${line} of task #2`, line: at(line) });
}

async function refusedUnderWay(dap: DapClient, command: string, args: object): Promise<void> {
  const r = (await dap.requestRaw(command, args)) as DebugProtocol.ErrorResponse;
  assert.equal(r.success, false, `${command} refused`);
  assert.match(r.body.error?.format ?? '', /another move of this session is under way/);
}

describe('live moves, Reverse Continue and Pause by the position', () => {
  it('a live line step is a move: Step Back and Reverse Continue meanwhile are refused, its stop lands it', async () => {
    const run = liveLineRun();
    const dap = await attached(run);
    try {
      assert.equal((await stopped(dap, 0)).body.reason, 'breakpoint');
      const from = dap.mark();
      const step = await dap.requestRaw('next', { threadId: 2 });
      assert.equal(step.success, true);
      await until('the line step asked', () => asked(run, 'lineStep') === 1, TIMEOUT);
      const before = run.endpoint.requests.length;
      await refusedUnderWay(dap, 'stepBack', { threadId: 2 });
      await refusedUnderWay(dap, 'reverseContinue', { threadId: 2 });
      assert.equal(run.endpoint.requests.length, before, 'the refused moves asked nothing of the host');
      land(run, 13);
      const landed = await stopped(dap, from);
      assert.equal(landed.body.reason, 'step');
      assert.equal(landed.body.threadId, 2);
      // Landed: the next step is a move again, not refused.
      const again = dap.mark();
      assert.equal((await dap.requestRaw('next', { threadId: 2 })).success, true);
      land(run, 14);
      assert.equal((await stopped(dap, again)).body.reason, 'step');
    } finally {
      await dap.close();
    }
  });

  it('Pause during a live line step holds the program: its stop lands the step', async () => {
    const run = liveLineRun();
    run.endpoint.serve('pause', () => {
      setImmediate(() => land(run, 20, 'pause'));
      return { tick: 7 };
    });
    const dap = await attached(run);
    try {
      await stopped(dap, 0);
      const from = dap.mark();
      assert.equal((await dap.requestRaw('next', { threadId: 2 })).success, true);
      await until('the line step asked', () => asked(run, 'lineStep') === 1, TIMEOUT);
      assert.equal((await dap.requestRaw('pause', { threadId: 2 })).success, true);
      const paused = await stopped(dap, from);
      assert.equal(paused.body.reason, 'pause');
      assert.equal(asked(run, 'pause'), 1);
      // Landed: Step Back is a move of its own again (not refused as under way).
      const r = (await dap.requestRaw('stepBack', { threadId: 2 })) as DebugProtocol.ErrorResponse;
      assert.doesNotMatch(r.body?.error?.format ?? '', /under way/);
    } finally {
      await dap.close();
    }
  });

  it('Pause and Reverse Continue while a seek is under way: refused, nothing asked of the host', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    let landSeek: () => void = () => undefined;
    run.endpoint.serve('seekTick', (p) => {
      const moment = { runId: 7, tick: p.tick, ticks: 5, ...(p.moment !== undefined ? { moment: p.moment } : {}) };
      return new Promise((resolve) => {
        landSeek = () => {
          run.endpoint.emit('viewedTick', { ...moment, replayed: false });
          resolve(moment);
        };
      });
    });
    run.endpoint.serve('pause', () => ({ tick: 5 }));
    const dap = await attached(run);
    try {
      await stopped(dap, 0);
      const from = dap.mark();
      const back = dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await until('the seek asked', () => asked(run, 'seekTick') === 1, TIMEOUT);
      const before = run.endpoint.requests.length;
      await refusedUnderWay(dap, 'pause', { threadId: LOOP_THREAD_ID });
      await refusedUnderWay(dap, 'reverseContinue', { threadId: LOOP_THREAD_ID });
      assert.equal(run.endpoint.requests.length, before, 'the refused requests asked nothing of the host');
      landSeek();
      assert.equal((await back).success, true);
      assert.equal(String((await stopped(dap, from)).body.description), 'At tick 4 of 5 (replayed)');
    } finally {
      await dap.close();
    }
  });
});
