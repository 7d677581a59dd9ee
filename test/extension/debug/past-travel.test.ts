// extension/debug/past-travel.ts at the protocol level, against the fake host (fake-debug-host.ts):
// Reverse Continue goes to the latest stop before the moment shown (a recorded failure, a hit found
// by replay), Continue from the past to the earliest after it, else the present; a hit on a line is
// shown where the search found it (no seek), a hit on a suspension point by a seek to its tick on
// its task's thread, in its words; nowhere to go is a refusal naming what was looked for, which
// moves nothing. Each test compares the ordered log (dap-log.ts) and the host requests whole.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { ERR_HOST } from '../../../extension/debug/session-core';
import type { BreakpointHitLanding, HostMethods, SourcePosition, TimelineMark } from '../../../protocol/host-protocol';
import { FakeRun, serveSeeks, snapshotAt, timelineOf, attachedToFake } from './fake-debug-host';
import { logMark, logSince, markedMove, MOVE_EVENTS } from './dap-log';

const TIMEOUT = 5000;
const FILE = '/work/prog.ts';
type SearchParams = HostMethods['pastBreakpointHit']['params'];

function at(line: number): SourcePosition {
  return { file: FILE, line, column: 3 };
}

/**
 * A run of `ticks` recorded ticks whose timeline holds `marks`, shown at tick `shown`: a live pause
 * there (shown === ticks) or a finished run's past tick; its breakpoint searches answered by `search`.
 */
function recordedRun(
  ticks: number,
  shown: number,
  marks: TimelineMark[],
  search: (p: SearchParams) => BreakpointHitLanding,
): FakeRun {
  const live = shown === ticks;
  const run = new FakeRun(live ? 'paused' : 'finished');
  if (live) run.lastPause = { reason: 'pause', tick: ticks, description: `Paused after tick ${ticks}` };
  else run.viewedTick = shown;
  run.endpoint.serve('snapshot', () => snapshotAt(shown, true));
  run.endpoint.serve('timeline', (p) => timelineOf(7, ticks, p.sinceTick !== undefined ? {} : { marks }));
  run.endpoint.serve('pastBreakpointHit', search);
  serveSeeks(run, ticks);
  return run;
}

/** A search that finds nothing, the breakpoints armed named. */
function noHit(breakpoints: Array<{ file: string; line: number }> = []): (p: SearchParams) => BreakpointHitLanding {
  return (p) => ({ landed: 'none', breakpoints, from: p.floor ?? p.tick, to: p.ceiling ?? p.tick });
}

/** The searches and seeks asked since request `from`, their moment ids left out (checked apart). */
function travelAsked(run: FakeRun, from: number): Array<[string, unknown]> {
  return run.endpoint.requests.slice(from).flatMap((r): Array<[string, unknown]> => {
    if (r.method !== 'pastBreakpointHit' && r.method !== 'seekTick') return [];
    const { moment: _moment, ...params } = r.params as { moment?: string };
    return [[r.method, params]];
  });
}

const EXCEPTION_AT_3: TimelineMark = { tick: 3, kind: 'exception', taskId: 3, detail: 'Task #3 failed' };
const EXCEPTION_AT_2: TimelineMark = { tick: 2, kind: 'exception', taskId: 4, detail: 'Task #4 failed' };

describe('past travel', () => {
  it("Reverse Continue: the latest recorded failure before the moment shown, on its task's thread", async () => {
    const run = recordedRun(5, 5, [EXCEPTION_AT_2, EXCEPTION_AT_3], noHit());
    const dap = await attachedToFake(run);
    try {
      const asked = run.endpoint.requests.length;
      const mark = await markedMove(dap, 'reverseContinue', { threadId: LOOP_THREAD_ID }, TIMEOUT);
      // The search for a line hit is bounded by the recorded stop (nothing earlier can be the latest).
      assert.deepEqual(travelAsked(run, asked), [
        ['pastBreakpointHit', { direction: 'back', tick: 5, floor: 3 }],
        ['seekTick', { tick: 3, replayed: true }],
      ]);
      assert.deepEqual(logSince(dap, mark, ['stopped', 'continued']), [
        { response: 'reverseContinue', success: true },
        { event: 'stopped', reason: 'exception', threadId: 3, description: 'Paused on exception' },
        {
          event: 'stopped',
          reason: 'exception',
          threadId: LOOP_THREAD_ID,
          description: 'At tick 3 of 5 (replayed)',
          relabel: true,
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('Reverse Continue onto a line hit found by replay: answered, then the hit shown where found (no seek)', async () => {
    const run = recordedRun(5, 5, [EXCEPTION_AT_2], (p) =>
      p.direction === 'back'
        ? {
            landed: 'line',
            tick: 4,
            taskId: 2,
            line: at(12),
            breakpoint: { file: FILE, line: 12 },
            description: 'Task #2 hit the breakpoint at prog.ts:12 in tick 4 (replayed)',
          }
        : noHit()(p),
    );
    const dap = await attachedToFake(run);
    try {
      const asked = run.endpoint.requests.length;
      const mark = await markedMove(dap, 'reverseContinue', { threadId: LOOP_THREAD_ID }, TIMEOUT);
      assert.deepEqual(travelAsked(run, asked), [['pastBreakpointHit', { direction: 'back', tick: 5, floor: 2 }]]);
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'reverseContinue', success: true },
        {
          event: 'output',
          category: 'console',
          output: 'Coroscope: Task #2 hit the breakpoint at prog.ts:12 in tick 4 (replayed)\n',
        },
        { event: 'stopped', reason: 'breakpoint', threadId: 2, description: 'Paused on breakpoint' },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('Reverse Continue with nowhere to go: refused naming what was looked for, nothing moved', async () => {
    for (const [armed, looked] of [
      [[], ' (no line breakpoint is set)'],
      [[{ file: FILE, line: 12 }], `, and no hit of the breakpoint at ${FILE}:12 before it (replayed)`],
      [
        [
          { file: FILE, line: 12 },
          { file: FILE, line: 20 },
        ],
        `, and no hit of the breakpoints at ${FILE}:12, ${FILE}:20 before it (replayed)`,
      ],
    ] as const) {
      const run = recordedRun(5, 5, [], noHit([...armed]));
      const dap = await attachedToFake(run);
      try {
        const asked = run.endpoint.requests.length;
        const mark = logMark(dap);
        await dap.requestRaw('reverseContinue', { threadId: LOOP_THREAD_ID });
        await new Promise((resolve) => setTimeout(resolve, 30));
        assert.deepEqual(travelAsked(run, asked), [['pastBreakpointHit', { direction: 'back', tick: 5 }]]);
        assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
          {
            response: 'reverseContinue',
            success: false,
            error: {
              id: ERR_HOST,
              format: `Reverse Continue: no stop at a breakpoint or an exception before tick 5 in the recording (exception filters: taskFailed, deadlock)${looked}`,
              showUser: true,
            },
          },
        ]);
      } finally {
        await dap.close();
      }
    }
  });

  it('Continue from a past tick: to the next recorded stop after it, then to the present (the end)', async () => {
    const run = recordedRun(10, 2, [EXCEPTION_AT_3, { ...EXCEPTION_AT_3, tick: 6 }], noHit());
    const dap = await attachedToFake(run);
    try {
      let asked = run.endpoint.requests.length;
      let mark = await markedMove(dap, 'continue', { threadId: LOOP_THREAD_ID }, TIMEOUT);
      assert.deepEqual(travelAsked(run, asked), [
        ['pastBreakpointHit', { direction: 'forward', tick: 2, ceiling: 3 }],
        ['seekTick', { tick: 3, replayed: true }],
      ]);
      assert.deepEqual(logSince(dap, mark, ['stopped', 'continued']), [
        { response: 'continue', success: true },
        { event: 'stopped', reason: 'exception', threadId: 3, description: 'Paused on exception' },
        {
          event: 'stopped',
          reason: 'exception',
          threadId: LOOP_THREAD_ID,
          description: 'At tick 3 of 10 (replayed)',
          relabel: true,
        },
      ]);

      asked = run.endpoint.requests.length;
      mark = await markedMove(dap, 'continue', { threadId: 3 }, TIMEOUT);
      assert.deepEqual(travelAsked(run, asked), [
        ['pastBreakpointHit', { direction: 'forward', tick: 3, ceiling: 6 }],
        ['seekTick', { tick: 6, replayed: true }],
      ]);

      asked = run.endpoint.requests.length;
      mark = await markedMove(dap, 'continue', { threadId: 3 }, TIMEOUT);
      assert.deepEqual(travelAsked(run, asked), [
        ['pastBreakpointHit', { direction: 'forward', tick: 6, ceiling: 10 }],
        ['seekTick', { tick: null, replayed: true }],
      ]);
      assert.deepEqual(logSince(dap, mark, ['stopped', 'continued']), [
        { response: 'continue', success: true },
        { event: 'stopped', reason: 'end', threadId: LOOP_THREAD_ID, description: 'Finished at tick 10' },
      ]);
    } finally {
      await dap.close();
    }
  });

  it("Continue from the past onto a suspension point's hit: a seek to its tick, on its task's thread, in its words", async () => {
    const said = 'Task #3 "worker" hit a breakpoint at prog.ts:20';
    const run = recordedRun(10, 2, [{ ...EXCEPTION_AT_3, tick: 8 }], (p) =>
      p.direction === 'forward'
        ? { landed: 'tick', tick: 4, taskId: 3, breakpoint: { file: FILE, line: 20 }, description: said }
        : noHit()(p),
    );
    const dap = await attachedToFake(run);
    try {
      const asked = run.endpoint.requests.length;
      const mark = await markedMove(dap, 'continue', { threadId: LOOP_THREAD_ID }, TIMEOUT);
      assert.deepEqual(travelAsked(run, asked), [
        ['pastBreakpointHit', { direction: 'forward', tick: 2, ceiling: 8 }],
        ['seekTick', { tick: 4, replayed: true }],
      ]);
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'continue', success: true },
        {
          event: 'output',
          category: 'console',
          output: `Coroscope: ${said}, at tick 4 of 10 (replayed from the recording)\n`,
        },
        { event: 'stopped', reason: 'breakpoint', threadId: 3, description: 'Paused on breakpoint' },
        {
          event: 'stopped',
          reason: 'breakpoint',
          threadId: LOOP_THREAD_ID,
          description: 'At tick 4 of 10 (replayed)',
          relabel: true,
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('each search and seek of a move is named by a moment id of its own', async () => {
    const run = recordedRun(5, 5, [EXCEPTION_AT_3], noHit());
    const dap = await attachedToFake(run);
    try {
      const asked = run.endpoint.requests.length;
      const from = dap.mark();
      await dap.requestRaw('reverseContinue', { threadId: LOOP_THREAD_ID });
      await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
      const moments = run.endpoint.requests
        .slice(asked)
        .filter((r) => r.method === 'pastBreakpointHit' || r.method === 'seekTick')
        .map((r) => (r.params as { moment?: string }).moment);
      assert.equal(moments.length, 2);
      assert.equal(new Set(moments).size, 2, `moments: ${JSON.stringify(moments)}`);
      assert.ok(
        moments.every((m) => typeof m === 'string'),
        `moments: ${JSON.stringify(moments)}`,
      );
    } finally {
      await dap.close();
    }
  });
});
