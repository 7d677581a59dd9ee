// extension/debug/line-walks.ts at the protocol level, against the fake host (fake-debug-host.ts),
// through the walk that uses it: Continue with a data breakpoint set at a past line
// (session-changes.ts) walks the task's lines one line move at a time, each landed before the
// next. Only the walk's end is shown (the stops and past-line words on the way are dropped), the
// walk is answered once it has ended, and a walk that cannot go on is the request's error with the
// line it had reached shown (the move refused on the way leaves the position it left). Ordered
// logs compared whole (dap-log.ts); a walk's duration in ms is the one part normalized. The line
// replay is fake-line-replay.ts's: `count` is 1 up to line 13, 2 from line 14 on.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERR_HOST } from '../../../extension/debug/session-core';
import { dataIdOf } from '../../../extension/debug/value-changes';
import { attachedToFake } from './fake-debug-host';
import { WATCHED, lineReplayRun, pastLineWords } from './fake-line-replay';
import type { DapClient } from './dap-client';
import { type LoggedMessage, logMark, logSince, markedMove, MOVE_EVENTS } from './dap-log';

const TIMEOUT = 5000;

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
    const { run, steps } = lineReplayRun(12, 20);
    const dap = await attachedToFake(run);
    try {
      await atPastLineWatching(dap);
      const walked = steps();
      const mark = await markedMove(dap, 'continue', { threadId: 2 }, TIMEOUT);
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(steps() - walked, 3, 'lines 12, 13, 14: each landed before the next');
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
    const { run, steps } = lineReplayRun(12, 13);
    const dap = await attachedToFake(run);
    try {
      await atPastLineWatching(dap);
      const walked = steps();
      const mark = await markedMove(dap, 'continue', { threadId: 2 }, TIMEOUT);
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(steps() - walked, 3, 'lines 12 and 13, then off the lines');
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        {
          response: 'continue',
          success: false,
          error: {
            id: ERR_HOST,
            format:
              "Continue: no later change of count in the task's lines (2 walked, then no further line): prog.ts:13 (tick 7), the line reached, is shown",
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
