// extension/debug/move-answers.ts at the protocol level, against the fake host (fake-debug-host.ts):
// how a move request is answered. A move in time answers success only once it has moved (the host
// answered and landed it), its `stopped` after the answer; a live execution request is answered
// before the host is asked; a move the host refuses is one error response (its reason, shown to
// the user) with the stop before shown again and no stop of the move; a move asked while one is
// under way is refused and asks nothing; a landing that never comes is given up after its bound.
// Each test compares the ordered log of responses and events (dap-log.ts) whole.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { ERR_HOST, ERR_NOT_RUNNING } from '../../../extension/debug/session-core';
import type { HostEvents, SourcePosition } from '../../../protocol/host-protocol';
import { RemoteError } from '../../../protocol/rpc';
import { FakeRun, FakeRuns, serveSeeks, snapshotAt, timelineOf } from './fake-debug-host';
import type { DapClient } from './dap-client';
import { attachedInProcess } from './adapter-harness';
import { type LoggedMessage, logMark, logSince, markedMove, MOVE_EVENTS } from './dap-log';
import { until } from '../wait-until';

const TIMEOUT = 5000;
const PAUSE: HostEvents['paused'] = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
/** The stop of the live pause, as the session shows it (VS Code's own words for a pause: none). */
const PAUSE_STOP: LoggedMessage = { event: 'stopped', reason: 'pause', threadId: LOOP_THREAD_ID, description: null };
const FILE = '/work/prog.ts';

function at(line: number): SourcePosition {
  return { file: FILE, line, column: 3 };
}

/** Attaches a session to the fake run and waits for the stop it shows first. */
async function attached(run: FakeRun, moveLandingMs?: number): Promise<DapClient> {
  const dap = await attachedInProcess(
    new CoroscopeSession<FakeRun>({
      hostScript: '/nonexistent/runtime-host.js',
      runs: new FakeRuns(run),
      ...(moveLandingMs === undefined ? {} : { moveLandingMs }),
    }),
    { run: run.key },
    { timeoutMs: TIMEOUT },
  );
  await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
  return dap;
}

/** A live run paused after tick 5 of 5 recorded. */
function pausedRun(): FakeRun {
  const run = new FakeRun('paused');
  run.lastPause = PAUSE;
  run.endpoint.serve('snapshot', () => snapshotAt(5, true));
  return run;
}

/** How many responses to `command` the client had when this is called (from the host's side of a request). */
function answered(dap: DapClient, command: string): number {
  return dap.answers.filter((a) => a.command === command).length;
}

/** Lets the adapter send what it would still send for the messages so far (a late stop, a second response). */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 30));
}

describe('move answers', () => {
  it('a move in time answers success only once it has moved; its stop follows the answer', async () => {
    const run = pausedRun();
    serveSeeks(run, 5);
    const dap = await attached(run);
    const answersAtSeek: number[] = [];
    const seek = run.endpoint.requests.length;
    try {
      // The host moves the views (its viewedTick events) before it answers: the session's stop of them is held.
      run.endpoint.serve('seekTick', (p) => {
        answersAtSeek.push(answered(dap, 'stepBack'));
        run.endpoint.emit('viewedTick', { runId: 7, tick: p.tick, ticks: 5, replayed: false, moment: p.moment! });
        return { runId: 7, tick: p.tick, ticks: 5, replayed: true, moment: p.moment! };
      });
      const mark = logMark(dap);
      await dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await settle();
      assert.deepEqual(answersAtSeek, [0], 'not answered while the host was moving');
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'stepBack', success: true },
        { event: 'output', category: 'console', output: 'Coroscope: tick 4 of 5 (replayed from the recording)\n' },
        { event: 'stopped', reason: 'step', threadId: LOOP_THREAD_ID, description: 'At tick 4 of 5 (replayed)' },
      ]);
      assert.deepEqual(
        run.endpoint.requests.slice(seek).filter((r) => r.method === 'seekTick').length,
        1,
        'one seek for one move',
      );
    } finally {
      await dap.close();
    }
  });

  it('a move in time the host refuses: one error response with its reason, the stop before again, no stop of the move', async () => {
    const run = pausedRun();
    run.endpoint.serve('seekTick', () => {
      throw new Error('seekTick: the replay to tick 4 failed: boom');
    });
    const dap = await attached(run);
    try {
      const mark = logMark(dap);
      await dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await settle();
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        {
          response: 'stepBack',
          success: false,
          error: { id: ERR_HOST, format: 'seekTick: the replay to tick 4 failed: boom', showUser: true },
        },
        PAUSE_STOP,
      ]);
      // The position left is taken again: a move now goes from the pause (tick 5), not from where the refused one
      // went.
      serveSeeks(run, 5);
      const again = logMark(dap);
      await dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await settle();
      assert.deepEqual(logSince(dap, again, ['stopped']), [
        { response: 'stepBack', success: true },
        { event: 'stopped', reason: 'step', threadId: LOOP_THREAD_ID, description: 'At tick 4 of 5 (replayed)' },
      ]);
    } finally {
      await dap.close();
    }
  });

  it("a move superseded by another view's move: refused naming the move that came first", async () => {
    const run = pausedRun();
    run.endpoint.serve('seekTick', () => {
      throw new RemoteError('the panel moved the views to tick 2', 'superseded');
    });
    const dap = await attached(run);
    try {
      const mark = logMark(dap);
      await dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await settle();
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        {
          response: 'stepBack',
          success: false,
          error: {
            id: ERR_HOST,
            format: 'stepBack: another move of the views came first (the panel moved the views to tick 2)',
            showUser: true,
          },
        },
        PAUSE_STOP,
      ]);
    } finally {
      await dap.close();
    }
  });

  it('a live execution request is answered before the host is asked; the stop it lands on follows', async () => {
    const run = pausedRun();
    const answersAtStep: number[] = [];
    const dap = await attached(run);
    run.endpoint.serve('stepTick', () => {
      answersAtStep.push(answered(dap, 'next'));
      setImmediate(() => run.endpoint.emit('paused', { reason: 'step', tick: 6, description: 'Stepped to tick 6' }));
      return { tick: 6 };
    });
    try {
      const mark = await markedMove(dap, 'next', { threadId: LOOP_THREAD_ID }, TIMEOUT);
      assert.deepEqual(answersAtStep, [1], 'answered before the host was asked');
      assert.deepEqual(logSince(dap, mark, ['stopped', 'continued']), [
        { response: 'next', success: true },
        { event: 'stopped', reason: 'step', threadId: LOOP_THREAD_ID, description: null },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('a live execution request the host refuses: the console says why, the stop before is shown again', async () => {
    const run = pausedRun();
    run.endpoint.serve('stepTick', () => {
      throw new Error('the loop is not paused');
    });
    const dap = await attached(run);
    try {
      const mark = await markedMove(dap, 'next', { threadId: LOOP_THREAD_ID }, TIMEOUT);
      await settle();
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'next', success: true },
        { event: 'output', category: 'stderr', output: 'Coroscope: next failed: the loop is not paused\n' },
        PAUSE_STOP,
      ]);
    } finally {
      await dap.close();
    }
  });

  it('a move asked while one is under way: refused with what it waits for, asks nothing; the first lands after', async () => {
    const run = pausedRun();
    let land: () => void = () => undefined;
    run.endpoint.serve(
      'seekTick',
      (p) =>
        new Promise((resolve) => {
          land = () => {
            const moment = { runId: 7, tick: p.tick, ticks: 5, moment: p.moment! };
            run.endpoint.emit('viewedTick', { ...moment, replayed: false });
            resolve({ ...moment, replayed: true });
          };
        }),
    );
    const dap = await attached(run, 2000);
    try {
      const mark = logMark(dap);
      const first = dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await until('the seek asked', () => run.endpoint.asked().includes('seekTick'), TIMEOUT);
      const asked = run.endpoint.requests.length;
      await dap.requestRaw('reverseContinue', { threadId: LOOP_THREAD_ID });
      assert.equal(run.endpoint.requests.length, asked, 'the refused move asked nothing of the host');
      land();
      await first;
      await settle();
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        {
          response: 'reverseContinue',
          success: false,
          error: {
            id: ERR_HOST,
            format:
              'reverseContinue: another move of this session is under way (waiting for the host: seek); try again once it has landed (given up after 2 s without its landing)',
            showUser: true,
          },
        },
        { response: 'stepBack', success: true },
        { event: 'output', category: 'console', output: 'Coroscope: tick 4 of 5 (replayed from the recording)\n' },
        { event: 'stopped', reason: 'step', threadId: LOOP_THREAD_ID, description: 'At tick 4 of 5 (replayed)' },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('a line move answered whose landing never comes: given up after its bound, back on the line it left', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'breakpoint', tick: 7, taskId: 2, description: 'Task #2 hit a breakpoint', line: at(12) };
    run.endpoint.serve('snapshot', () => snapshotAt(7, true));
    run.endpoint.serve('timeline', () => timelineOf(7, 7));
    run.endpoint.serve('lineStepBack', (p) => {
      run.endpoint.emit('paused', {
        reason: 'step',
        tick: 7,
        taskId: 2,
        description: 'line 11 of task #2 (replayed)',
        line: at(11),
        pastLine: true,
        moment: p.moment!,
      });
      return { landed: 'line', line: at(11) };
    });
    // Answered, then no `paused` of the move.
    run.endpoint.serve('lineStep', () => ({}));
    const bound = 100;
    const dap = await attached(run, bound);
    try {
      await dap.request('stepBack', { threadId: 2 });
      await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT, predicate: (b) => b.reason === 'step' });
      const mark = logMark(dap);
      await dap.request('next', { threadId: 2 });
      const lineStep = run.endpoint.requests.find((r) => r.method === 'lineStep')!;
      const moment = (lineStep.params as { moment: string }).moment;
      await dap.waitForEvent('stopped', { from: mark.events, timeoutMs: TIMEOUT });
      await settle();
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'next', success: true },
        {
          event: 'output',
          category: 'stderr',
          output: `Coroscope: next: the host answered but never showed where the move landed (no past line event for move ${moment} in 0.1 s): back where it was\n`,
        },
        { event: 'stopped', reason: 'step', threadId: 2, description: null },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('a live line step is never given up: the program runs on until its stop', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'breakpoint', tick: 7, taskId: 2, description: 'Task #2 hit a breakpoint', line: at(12) };
    run.endpoint.serve('snapshot', () => snapshotAt(7, true));
    run.endpoint.serve('lineStep', () => ({}));
    const bound = 50;
    const dap = await attached(run, bound);
    try {
      const mark = logMark(dap);
      await dap.request('next', { threadId: 2 });
      await new Promise((resolve) => setTimeout(resolve, bound * 4));
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [{ response: 'next', success: true }]);
      run.endpoint.emit('paused', {
        reason: 'step',
        tick: 7,
        taskId: 2,
        description: 'Task #2 at prog.ts:13',
        line: at(13),
        moment: (run.endpoint.requests.find((r) => r.method === 'lineStep')!.params as { moment: string }).moment,
      });
      await dap.waitForEvent('stopped', { from: mark.events, timeoutMs: TIMEOUT });
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'next', success: true },
        { event: 'stopped', reason: 'step', threadId: 2, description: null },
      ]);
    } finally {
      await dap.close();
    }
  });
  it('a move in time still under way when the session ends: refused as ended, nothing of it after `terminated`', async () => {
    const run = pausedRun();
    let land: () => void = () => undefined;
    run.endpoint.serve('seekTick', async (p) => {
      await new Promise<void>((resolve) => {
        land = resolve;
      });
      run.endpoint.emit('viewedTick', { runId: 7, tick: p.tick, ticks: 5, replayed: false, moment: p.moment! });
      return { runId: 7, tick: p.tick, ticks: 5, replayed: true, moment: p.moment! };
    });
    run.endpoint.serve('stop', () => ({}));
    const dap = await attached(run);
    try {
      const mark = logMark(dap);
      const back = dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await until('the seek asked', () => run.endpoint.requests.some((r) => r.method === 'seekTick'), TIMEOUT);
      await dap.request('terminate', {});
      await dap.waitForEvent('terminated', { from: mark.events, timeoutMs: TIMEOUT });
      land();
      await back;
      await settle();
      assert.deepEqual(logSince(dap, mark, [...MOVE_EVENTS, 'terminated']), [
        { response: 'terminate', success: true },
        { event: 'terminated' },
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
});
