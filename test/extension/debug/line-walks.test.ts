// extension/debug/line-walks.ts at the protocol level, against the fake host (fake-debug-host.ts),
// through the walk that uses it: Continue with a data breakpoint set at a past line
// (session-changes.ts) walks the task's lines one line move at a time, each landed before the
// next. Only the walk's end is shown (the stops and past-line words on the way are dropped), the
// walk is answered once it has ended, and a walk that cannot go on is the request's error with the
// line it had reached shown (the move refused on the way leaves the position it left). Ordered
// logs compared whole (dap-log.ts); a walk's duration in ms is the one part normalized.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { ERR_HOST } from '../../../extension/debug/session-core';
import { dataIdOf } from '../../../extension/debug/value-changes';
import type { HostEvents, PastLineLanding, SourcePosition } from '../../../protocol/host-protocol';
import { FakeRun, FakeRuns, snapshotAt, timelineOf } from './fake-debug-host';
import type { DapClient } from './dap-client';
import { attachedInProcess } from './adapter-harness';
import { MOVE_EVENTS, logMark, logSince, type LoggedMessage } from './dap-log';

const TIMEOUT = 5000;
const FILE = '/work/prog.ts';
const LIVE_STOP: HostEvents['paused'] = {
  reason: 'breakpoint',
  tick: 7,
  taskId: 2,
  description: 'Task #2 "worker-2" hit a breakpoint at prog.ts:12',
  line: at(12),
};
/** `count` in the task's one frame, `worker`: 1 up to line 13, 2 from line 14 on. */
const WATCHED = { expression: 'count', functionName: 'worker', depth: 0 };

function at(line: number): SourcePosition {
  return { file: FILE, line, column: 3 };
}

/** As the host words a past line (position-events.ts says it in the console). */
function pastLineWords(line: number): string {
  return `task #2 on a past line at prog.ts:${line} (tick 7, replayed)`;
}

/**
 * A live run held on task 2's line 12 in tick 7, whose line replay walks lines 11 .. `lastLine` (a step
 * past it meets a loop breakpoint's hit: off the lines), `count` read at the line the host stands on.
 */
function walkedRun(lastLine: number): { run: FakeRun; steps: () => number } {
  const run = new FakeRun('paused');
  run.lastPause = LIVE_STOP;
  run.endpoint.serve('snapshot', () => snapshotAt(7, true));
  run.endpoint.serve('timeline', () => timelineOf(7, 7));
  let line = 12;
  let steps = 0;
  const show = (moment: string | undefined): void =>
    run.endpoint.emit('paused', {
      reason: 'step',
      tick: 7,
      taskId: 2,
      description: pastLineWords(line),
      line: at(line),
      pastLine: true,
      ...(moment === undefined ? {} : { moment }),
    });
  run.endpoint.serve('lineStepBack', (p) => {
    line--;
    show(p.moment);
    return { landed: 'line', line: at(line) };
  });
  run.endpoint.serve('lineStep', (p): { landing?: PastLineLanding } => {
    steps++;
    if (line === lastLine)
      return { landing: { landed: 'tick', tick: 7, taskId: 3, description: 'Task #3 hit a breakpoint' } };
    line++;
    // The landing's `paused` follows the answer, as the host sends it: the walk waits for it.
    setImmediate(() => show(p.moment));
    return { landing: { landed: 'line', line: at(line) } };
  });
  run.endpoint.serve('lineStack', () => ({
    taskId: 2,
    frames: [{ index: 0, name: 'worker', position: at(line), generated: null, scopes: [] }],
  }));
  run.endpoint.serve('lineEvaluate', () => ({ value: line <= 13 ? '1' : '2', type: 'number', handle: 0 }));
  return { run, steps: () => steps };
}

async function attached(run: FakeRun): Promise<DapClient> {
  const dap = await attachedInProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
    { run: run.key },
    { timeoutMs: TIMEOUT },
  );
  await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
  return dap;
}

/** From the live stop to its past line 11, the data breakpoint on `count` set. */
async function atPastLineWatching(dap: DapClient): Promise<void> {
  const from = dap.mark();
  await dap.request('stepBack', { threadId: 2 });
  await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
  const set = await dap.request<{ breakpoints: Array<{ verified: boolean }> }>('setDataBreakpoints', {
    breakpoints: [{ dataId: dataIdOf(WATCHED), accessType: 'write' }],
  });
  assert.deepEqual(
    set.breakpoints.map((b) => b.verified),
    [true],
  );
}

/** The log with a walk's duration (the one part that varies) normalized. */
function normalized(log: LoggedMessage[]): LoggedMessage[] {
  return log.map((m) =>
    'output' in m && typeof m.output === 'string'
      ? { ...m, output: m.output.replace(/ walked in \d+ ms\)/, ' walked in N ms)') }
      : m,
  );
}

describe('line walks', () => {
  it('a walk of line moves: answered once ended, only its end shown (no stop or past-line words on the way)', async () => {
    const { run, steps } = walkedRun(20);
    const dap = await attached(run);
    try {
      await atPastLineWatching(dap);
      const mark = logMark(dap);
      await dap.requestRaw('continue', { threadId: 2 });
      await dap.waitForEvent('stopped', { from: mark.events, timeoutMs: TIMEOUT });
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(steps(), 3, 'lines 12, 13, 14: each landed before the next');
      assert.deepEqual(normalized(logSince(dap, mark, MOVE_EVENTS)), [
        { response: 'continue', success: true },
        { event: 'output', category: 'console', output: `Coroscope: ${pastLineWords(14)}\n` },
        { event: 'stopped', reason: 'step', threadId: 2, description: null },
        {
          event: 'output',
          category: 'console',
          output: 'Coroscope: Continue: count changed: 1 → 2, first seen here (tick 7, 3 line(s) walked in N ms)\n',
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('a walk that cannot go on: the error says how far it went, the line it reached shown; the next move goes from there', async () => {
    const { run, steps } = walkedRun(13);
    const dap = await attached(run);
    try {
      await atPastLineWatching(dap);
      const mark = logMark(dap);
      await dap.requestRaw('continue', { threadId: 2 });
      await dap.waitForEvent('stopped', { from: mark.events, timeoutMs: TIMEOUT });
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(steps(), 3, 'lines 12 and 13, then off the lines');
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        {
          response: 'continue',
          success: false,
          error: {
            id: ERR_HOST,
            format:
              "Continue: no later change of count in the task's lines (2 walked, then no further line): the line reached is shown",
            showUser: true,
          },
        },
        // The line reached shown again (its words, said on the way, were dropped with the walk's other lines).
        { event: 'stopped', reason: 'step', threadId: 2, description: null },
      ]);
      // The position is the line reached (13), not moving: Step Back goes from it to line 12.
      const back = logMark(dap);
      await dap.requestRaw('stepBack', { threadId: 2 });
      await dap.waitForEvent('stopped', { from: back.events, timeoutMs: TIMEOUT });
      assert.deepEqual(logSince(dap, back, MOVE_EVENTS), [
        { response: 'stepBack', success: true },
        { event: 'output', category: 'console', output: `Coroscope: ${pastLineWords(12)}\n` },
        { event: 'stopped', reason: 'step', threadId: 2, description: null },
      ]);
    } finally {
      await dap.close();
    }
  });
});
