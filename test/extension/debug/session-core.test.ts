// extension/debug/session-core.ts at the protocol level, against the fake host (fake-debug-host.ts):
// what every room shares. A request whose handler fails gets exactly one response, the error's
// text (shown to the user for a move only); events are held while a move is under way and go
// after its answer, but the session's end (`exited`, `terminated`) is never held (what was held
// goes out before it, and the move is refused as ended); task events while the run goes are
// coalesced into one `started`, the finished tasks' `exited` and one Coroutines refresh; frame ids
// hold for one stop only (a move forgets them and the reads behind them). Ordered logs compared
// whole (dap-log.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { ERR_HOST, ERR_NOT_RUNNING, THREAD_EVENTS_MS } from '../../../extension/debug/session-core';
import { TASKS_CHANGED_EVENT } from '../../../extension/debug/custom-requests';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { TaskDetail, Traceback, ViewedMoment } from '../../../protocol/host-protocol';
import { makeTask } from '../../webview/fixtures-tasks';
import { FakeRun, FakeRuns, serveSeeks, snapshotAt } from './fake-debug-host';
import type { DapClient } from './dap-client';
import { attachedInProcess } from './adapter-harness';
import { logMark, logSince } from './dap-log';
import { until } from '../wait-until';

const TIMEOUT = 5000;

async function attached(run: FakeRun): Promise<DapClient> {
  const dap = await attachedInProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
    { run: run.key },
    { timeoutMs: TIMEOUT },
  );
  return dap;
}

function pausedRun(): FakeRun {
  const run = new FakeRun('paused');
  run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
  run.endpoint.serve('snapshot', () => snapshotAt(5, true));
  return run;
}

function traceback(text: string): Traceback {
  return { title: 'Task #3 failed', error: 'Error: boom', frames: [], text };
}

describe('session core', () => {
  it("a request whose host read fails: one error response with the error's text, not shown as a move's", async () => {
    const run = pausedRun();
    run.endpoint.serve('setExceptionBreaks', () => {
      throw new Error('setExceptionBreaks: the host is busy');
    });
    const dap = await attached(run);
    try {
      const mark = logMark(dap);
      await dap.requestRaw('setExceptionBreakpoints', { filters: ['taskFailed'] });
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.deepEqual(logSince(dap, mark), [
        {
          response: 'setExceptionBreakpoints',
          success: false,
          error: { id: ERR_HOST, format: 'setExceptionBreaks: the host is busy', showUser: false },
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it("the session's end is never held behind a move: what the move held goes first, the move is refused as ended", async () => {
    const run = pausedRun();
    let land: (m: ViewedMoment) => void = () => undefined;
    run.endpoint.serve('seekTick', () => new Promise((resolve) => (land = resolve)));
    run.endpoint.serve('stop', () => {
      run.endpoint.emit('finished', { runId: 7, ok: true, summary: 'stopped', stopped: true });
      return {};
    });
    const dap = await attached(run);
    try {
      await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
      const mark = logMark(dap);
      const move = dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await until('the seek asked', () => run.endpoint.asked().includes('seekTick'), TIMEOUT);
      // Said while the move is under way: held.
      run.endpoint.emit('exception', { taskId: 3, traceback: traceback('Traceback: task #3 failed\n') });
      assert.deepEqual(logSince(dap, mark, ['output', 'exited', 'terminated']), [], 'held during the move');
      await dap.request('terminate');
      await dap.waitForEvent('terminated', { from: mark.events, timeoutMs: TIMEOUT });
      const ended = [
        { response: 'terminate', success: true },
        { event: 'output', category: 'stderr', output: 'Traceback: task #3 failed\n' },
        { event: 'output', category: 'console', output: 'Coroscope: stopped\n' },
        { event: 'exited' },
        { event: 'terminated' },
      ];
      assert.deepEqual(logSince(dap, mark, ['output', 'exited', 'terminated']), ended);
      land({ runId: 7, tick: 4, ticks: 5 });
      await move;
      await new Promise((resolve) => setTimeout(resolve, 30));
      // The move landed after the end: refused as ended, nothing of it shown.
      assert.deepEqual(logSince(dap, mark, ['output', 'exited', 'terminated', 'stopped']), [
        ...ended,
        {
          response: 'stepBack',
          success: false,
          error: { id: ERR_NOT_RUNNING, format: 'stepBack: the session ended before the move landed', showUser: false },
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('task events while the run goes: coalesced into one started, the finished ones exited, one refresh', async () => {
    const run = new FakeRun('running');
    run.endpoint.serve('snapshot', () => snapshotAt(3, false));
    const dap = await attached(run);
    try {
      const mark = logMark(dap);
      for (const id of [11, 12, 13]) run.endpoint.emit('taskCreated', { task: makeTask(id) });
      run.endpoint.emit('taskFinished', { task: makeTask(11, { state: 'done' }) });
      run.endpoint.emit('taskFinished', { task: makeTask(9, { state: 'done' }) });
      assert.deepEqual(logSince(dap, mark, ['thread', TASKS_CHANGED_EVENT]), [], 'nothing before the coalescing delay');
      const started = performance.now();
      await dap.waitForEvent(TASKS_CHANGED_EVENT, { from: mark.events, timeoutMs: TIMEOUT });
      assert.ok(performance.now() - started >= THREAD_EVENTS_MS - 20, 'not before the coalescing delay');
      const events = dap.events
        .slice(mark.events)
        .filter((e) => e.event === 'thread' || e.event === TASKS_CHANGED_EVENT)
        .map((e) => (e.event === 'thread' ? [e.event, e.body.reason, e.body.threadId] : [e.event]));
      assert.deepEqual(events, [
        ['thread', 'started', 13],
        ['thread', 'exited', 11],
        ['thread', 'exited', 9],
        [TASKS_CHANGED_EVENT],
      ]);
      assert.deepEqual(
        [...run.tasks.tasks.keys()].sort((a, b) => a - b),
        [9, 11, 12, 13],
        'the task table has every row the events carried',
      );
    } finally {
      await dap.close();
    }
  });

  it("frame ids hold for one stop: after a move, the older stop's frame has no scopes and the reads are asked anew", async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
    const shown = snapshotAt(5, true);
    run.endpoint.serve('snapshot', () => ({ ...shown, tasks: [makeTask(3, { state: 'suspended' })] }));
    run.endpoint.serve(
      'taskDetail',
      (p): TaskDetail => ({
        task: makeTask(p.taskId, { state: 'suspended' }),
        frames: [
          {
            index: 0,
            name: 'worker',
            position: { file: '/work/w.ts', line: 3, column: 1 },
            generated: null,
            locals: [],
          },
        ],
        awaitChain: [],
        createdAt: null,
        traceback: null,
      }),
    );
    serveSeeks(run, 5);
    const dap = await attached(run);
    const details = (): number => run.endpoint.asked().filter((m) => m === 'taskDetail').length;
    const stack = async (): Promise<DebugProtocol.StackFrame[]> =>
      (await dap.request<DebugProtocol.StackTraceResponse['body']>('stackTrace', { threadId: 3 })).stackFrames;
    const scopes = async (frameId: number): Promise<string[]> =>
      (await dap.request<DebugProtocol.ScopesResponse['body']>('scopes', { frameId })).scopes.map((s) => s.name);
    try {
      await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
      const [first] = await stack();
      const before = details();
      assert.deepEqual(first && [first.name, first.line], ['worker', 3]);
      assert.notDeepEqual(await scopes(first!.id), [], 'the frame has scopes at its stop');
      await stack();
      assert.equal(details(), before, 'read once per stop');
      const from = dap.mark();
      await dap.request('stepBack', { threadId: LOOP_THREAD_ID });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      assert.deepEqual(await scopes(first!.id), [], "an older stop's frame id names nothing now");
      const moved = details();
      await stack();
      assert.notEqual(details(), moved, 'the new stop reads the task again');
    } finally {
      await dap.close();
    }
  });
});
