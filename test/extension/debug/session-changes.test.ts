// extension/debug/session-changes.ts at the protocol level, against the fake host's line replay
// (fake-line-replay.ts: `count` is 1 up to line 13, 2 from line 14 on): where a value was set. Data
// breakpoints are verified one by one with why not; Reverse Continue with one set, at a line stop,
// walks back to the line where the new value is first seen and names the line that wrote it; asked
// away from a line stop the moves are the plain ones; Go to Next Change on the live run and a
// malformed Go to Last Change are refused (nothing asked). Ordered logs compared whole
// (dap-log.ts); a walk's duration in ms is the one part normalized.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { LAST_CHANGE_REQUEST, NEXT_CHANGE_REQUEST } from '../../../extension/debug/session-changes';
import { ERR_HOST } from '../../../extension/debug/session-core';
import { dataIdOf } from '../../../extension/debug/value-changes';
import { FakeRun, snapshotAt, attachedToFake } from './fake-debug-host';
import { REPLAYED_FILE, WATCHED, lineReplayRun, pastLineWords } from './fake-line-replay';
import type { DapClient } from './dap-client';
import { type LoggedMessage, logMark, logSince, markedMove, MOVE_EVENTS } from './dap-log';

const TIMEOUT = 5000;

function watch(dap: DapClient): Promise<DebugProtocol.SetDataBreakpointsResponse['body']> {
  return dap.request('setDataBreakpoints', { breakpoints: [{ dataId: dataIdOf(WATCHED), accessType: 'write' }] });
}

function normalized(log: LoggedMessage[]): LoggedMessage[] {
  return log.map((m) =>
    'output' in m && typeof m.output === 'string'
      ? { ...m, output: m.output.replace(/ walked in \d+ ms\)/, ' walked in N ms)') }
      : m,
  );
}

describe('session changes', () => {
  it('data breakpoints: each verified, or refused saying why', async () => {
    const { run } = lineReplayRun(12, 20);
    const dap = await attachedToFake(run);
    try {
      const set = await dap.request<DebugProtocol.SetDataBreakpointsResponse['body']>('setDataBreakpoints', {
        breakpoints: [
          { dataId: dataIdOf(WATCHED), accessType: 'write' },
          { dataId: 'x-other-adapter:1' },
          // What dataBreakpointInfo answers for a value it cannot watch, sent on as it is.
          { dataId: null as unknown as string },
          { dataId: dataIdOf(WATCHED), accessType: 'read' },
          { dataId: dataIdOf(WATCHED), condition: 'count > 1' },
        ],
      });
      assert.deepEqual(set.breakpoints, [
        { verified: true, message: 'stops where count (in worker) changes' },
        { verified: false, message: 'not a value this debugger can watch: "x-other-adapter:1"' },
        { verified: false, message: 'not a value this debugger can watch: null' },
        { verified: false, message: 'only writes are watched (a change of the value)' },
        { verified: false, message: 'a data breakpoint takes no condition' },
      ]);
      const info = await dap.request<DebugProtocol.DataBreakpointInfoResponse['body']>('dataBreakpointInfo', {
        name: 'count',
      });
      assert.deepEqual(info, {
        dataId: null,
        description: 'a data breakpoint is set on a local or a field in Variables',
      });
    } finally {
      await dap.close();
    }
  });

  it('Reverse Continue with a data breakpoint at a line stop: to where the new value is first seen, its writer named', async () => {
    const { run, steps } = lineReplayRun(15, 20);
    const dap = await attachedToFake(run);
    try {
      await watch(dap);
      const asked = run.endpoint.requests.length;
      const mark = await markedMove(dap, 'reverseContinue', { threadId: 2 }, TIMEOUT);
      await new Promise((resolve) => setTimeout(resolve, 30));
      // Back to 14 (2), back to 13 (1: the writer), forth to 14 (where 2 is first seen).
      assert.deepEqual(
        run.endpoint.requests
          .slice(asked)
          .filter((r) => r.method === 'lineStep' || r.method === 'lineStepBack')
          .map((r) => r.method),
        ['lineStepBack', 'lineStepBack', 'lineStep'],
      );
      assert.equal(steps(), 3);
      assert.deepEqual(normalized(logSince(dap, mark, MOVE_EVENTS)), [
        { response: 'reverseContinue', success: true },
        { event: 'output', category: 'console', output: `Coroscope: ${pastLineWords(14)}\n` },
        { event: 'stopped', reason: 'step', threadId: 2, description: null },
        {
          event: 'output',
          category: 'console',
          output: `Coroscope: Reverse Continue: count was set by ${REPLAYED_FILE}:13 (tick 7, task #2): 1 → 2; shown where the new value is first seen (2 line(s) walked in N ms)\n`,
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('away from a line stop, a data breakpoint walks nothing: Continue is the live one, and says so', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    run.endpoint.serve('continue', () => ({ tick: 5 }));
    const dap = await attachedToFake(run);
    try {
      await watch(dap);
      const asked = run.endpoint.requests.length;
      const from = dap.mark();
      await dap.request('continue', { threadId: LOOP_THREAD_ID });
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.deepEqual(
        run.endpoint.requests.slice(asked).map((r) => r.method),
        ['continue'],
      );
      assert.deepEqual(
        dap.events
          .slice(from)
          .filter((e) => e.event === 'output')
          .map((e) => String(e.body.output)),
        [
          'Coroscope: Continue: the data breakpoint on count is followed from a stop on a line; from here (no line, no frame to read count in) it goes to breakpoints and exceptions only\n',
        ],
      );
    } finally {
      await dap.close();
    }
  });

  it('Go to Next Change on the live run and a malformed Go to Last Change: refused, nothing asked of the host', async () => {
    const { run } = lineReplayRun(12, 20);
    const dap = await attachedToFake(run);
    try {
      const asked = run.endpoint.requests.length;
      const mark = logMark(dap);
      await dap.requestRaw(NEXT_CHANGE_REQUEST, { variablesReference: 1, name: 'count' });
      await dap.requestRaw(LAST_CHANGE_REQUEST, { name: 'count' });
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        {
          response: NEXT_CHANGE_REQUEST,
          success: false,
          error: {
            id: ERR_HOST,
            format: 'Go to Next Change: the live run has no recorded future; set a data breakpoint on it and Continue',
            showUser: true,
          },
        },
        {
          response: LAST_CHANGE_REQUEST,
          success: false,
          error: {
            id: ERR_HOST,
            format: `${LAST_CHANGE_REQUEST}: "variablesReference" (number) and "name" (string) are needed`,
            showUser: false,
          },
        },
      ]);
      assert.deepEqual(run.endpoint.requests.slice(asked), []);
    } finally {
      await dap.close();
    }
  });
});
