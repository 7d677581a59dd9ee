// extension/debug/past-search.ts at the protocol level, against the fake host (fake-debug-host.ts):
// what the moves in time ask of the recording. The ticks a reverse continue may land on follow the
// exception filters set (failures, cancels, failed URLs, each shown as the live run stops on it); a
// tick at or after the present's own stop is the present; a breakpoint search is a move under way
// (another move meanwhile is refused, naming it) until the host answers, then the position it left;
// a run not recorded is refused saying how to record one. Ordered logs compared whole (dap-log.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { ERR_HOST } from '../../../extension/debug/session-core';
import type { BreakpointHitLanding, HostMethods, TimelineMark, UrlFailureMark } from '../../../protocol/host-protocol';
import { FakeRun, FakeRuns, serveSeeks, snapshotAt, timelineOf } from './fake-debug-host';
import type { DapClient } from './dap-client';
import { attachedInProcess } from './adapter-harness';
import { type LoggedMessage, logMark, logSince, markedMove, MOVE_EVENTS } from './dap-log';
import { until } from '../wait-until';

const TIMEOUT = 5000;
type SearchParams = HostMethods['pastBreakpointHit']['params'];

/** A failure (task 4, tick 2), a cancel (task 5, tick 3) and a failed URL (task 6, tick 4) in 5 ticks. */
const MARKS: TimelineMark[] = [
  { tick: 2, kind: 'exception', taskId: 4, detail: 'Task #4 failed' },
  { tick: 3, kind: 'cancel', taskId: 5, detail: 'Task #5 cancelled' },
];
const URL_FAILED: UrlFailureMark = {
  tick: 4,
  taskId: 6,
  url: 'http://127.0.0.1:8080/a',
  description: 'Task #6 "worker-6" failed to fetch http://127.0.0.1:8080/a: Error: refused',
};

function noHit(p: SearchParams): BreakpointHitLanding {
  return { landed: 'none', breakpoints: [], from: p.floor ?? p.tick, to: p.ceiling ?? p.tick };
}

/** A live run paused after tick 5 of 5 recorded, with MARKS and URL_FAILED in its timeline. */
function pausedRun(search: (p: SearchParams) => BreakpointHitLanding | Promise<BreakpointHitLanding> = noHit): FakeRun {
  const run = new FakeRun('paused');
  run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
  run.endpoint.serve('snapshot', () => snapshotAt(5, true));
  run.endpoint.serve('timeline', (p) =>
    p.sinceTick !== undefined ? timelineOf(7, 5) : { ...timelineOf(7, 5, { marks: MARKS }), urlFailures: [URL_FAILED] },
  );
  run.endpoint.serve('setExceptionBreaks', () => ({}));
  run.endpoint.serve('pastBreakpointHit', search);
  serveSeeks(run, 5);
  return run;
}

async function attached(run: FakeRun, exceptionFilters?: string[]): Promise<DapClient> {
  const dap = await attachedInProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
    { run: run.key },
    exceptionFilters === undefined ? { timeoutMs: TIMEOUT } : { timeoutMs: TIMEOUT, exceptionFilters },
  );
  await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
  return dap;
}

function seeks(run: FakeRun): Array<number | null> {
  return run.endpoint.requests
    .filter((r) => r.method === 'seekTick')
    .map((r) => (r.params as { tick: number | null }).tick);
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 30));
}

/**
 * A landing on a past tick of 5, on task `threadId`'s thread, in `reason`: the console's line (in the live
 * stop's words when the recording says them), the stop, the loop's row relabelled.
 */
function landedAt(tick: number, threadId: number, reason: string, description: string, said?: string): LoggedMessage[] {
  const where = `tick ${tick} of 5 (replayed from the recording)`;
  return [
    {
      event: 'output',
      category: 'console',
      output: `Coroscope: ${said === undefined ? where : `${said}, at ${where}`}\n`,
    },
    { event: 'stopped', reason, threadId, description },
    {
      event: 'stopped',
      reason,
      threadId: LOOP_THREAD_ID,
      description: `At tick ${tick} of 5 (replayed)`,
      relabel: true,
    },
  ];
}

describe('past search', () => {
  it('Reverse Continue lands on the failures, cancels and failed URLs of the exception filters set', async () => {
    const cases: Array<{ filters: string[]; tick: number; log: LoggedMessage[] }> = [
      {
        filters: ['taskFailed'],
        tick: 2,
        log: [{ response: 'reverseContinue', success: true }, ...landedAt(2, 4, 'exception', 'Paused on exception')],
      },
      {
        filters: ['taskFailed', 'taskCancelled'],
        tick: 3,
        log: [
          { response: 'reverseContinue', success: true },
          // As the live stop on a cancel: DAP's reason 'exception', its own words.
          ...landedAt(3, 5, 'exception', 'Paused on task cancelled'),
        ],
      },
      {
        filters: ['taskFailed', 'taskCancelled', 'urlFailed'],
        tick: 4,
        log: [
          { response: 'reverseContinue', success: true },
          ...landedAt(4, 6, 'exception', 'Paused on exception', URL_FAILED.description),
        ],
      },
    ];
    for (const c of cases) {
      const run = pausedRun();
      const dap = await attached(run, c.filters);
      try {
        const mark = await markedMove(dap, 'reverseContinue', { threadId: LOOP_THREAD_ID }, TIMEOUT);
        await settle();
        assert.deepEqual(seeks(run), [c.tick], `filters ${c.filters.join(', ')}`);
        assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), c.log, `filters ${c.filters.join(', ')}`);
      } finally {
        await dap.close();
      }
    }
  });

  it('with no exception filter set, the recorded failures are no stops: Reverse Continue refused, nothing moved', async () => {
    const run = pausedRun();
    const dap = await attached(run, []);
    try {
      const mark = logMark(dap);
      await dap.requestRaw('reverseContinue', { threadId: LOOP_THREAD_ID });
      await settle();
      assert.deepEqual(seeks(run), []);
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        {
          response: 'reverseContinue',
          success: false,
          error: {
            id: ERR_HOST,
            format:
              'Reverse Continue: no stop at a breakpoint or an exception before tick 5 in the recording (exception filters: none) (no line breakpoint is set)',
            showUser: true,
          },
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it("a recorded stop at the present's own tick is the present: Continue from the past goes back to it", async () => {
    const run = pausedRun();
    run.endpoint.serve('timeline', (p) =>
      timelineOf(
        7,
        5,
        p.sinceTick !== undefined ? {} : { marks: [{ tick: 5, kind: 'exception', taskId: 4, detail: '' }] },
      ),
    );
    const dap = await attached(run);
    try {
      await dap.request('stepBack', { threadId: LOOP_THREAD_ID });
      const asked = run.endpoint.requests.length;
      const mark = await markedMove(dap, 'continue', { threadId: LOOP_THREAD_ID }, TIMEOUT);
      const search = run.endpoint.requests.slice(asked).find((r) => r.method === 'pastBreakpointHit');
      const { moment: _moment, ...params } = search?.params as SearchParams;
      assert.deepEqual(params, { direction: 'forward', tick: 4, ceiling: 5 }, 'searched up to the present');
      assert.deepEqual(seeks(run), [4, null]);
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'continue', success: true },
        { event: 'output', category: 'console', output: 'Coroscope: back to the present\n' },
        { event: 'stopped', reason: 'pause', threadId: LOOP_THREAD_ID, description: null },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('a search is a move under way: a move meanwhile is refused naming it; once answered, the position it left', async () => {
    let answer: (landing: BreakpointHitLanding) => void = () => undefined;
    let params: SearchParams | null = null;
    const run = pausedRun(
      (p) =>
        new Promise((resolve) => {
          params = p;
          answer = resolve;
        }),
    );
    const dap = await attached(run, []);
    try {
      const mark = logMark(dap);
      const search = dap.requestRaw('reverseContinue', { threadId: LOOP_THREAD_ID });
      await until('the search asked', () => params, TIMEOUT);
      await dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      answer(noHit(params!));
      await search;
      // The position the search left (the pause at tick 5): Step Back goes from it.
      await dap.request('stepBack', { threadId: LOOP_THREAD_ID });
      await dap.waitForEvent('stopped', { from: mark.events, timeoutMs: TIMEOUT });
      assert.deepEqual(seeks(run), [4]);
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        {
          response: 'stepBack',
          success: false,
          error: {
            id: ERR_HOST,
            format:
              'stepBack: another move of this session is under way (waiting for the host: search); try again once it has landed (given up after 30 s without its landing)',
            showUser: true,
          },
        },
        {
          response: 'reverseContinue',
          success: false,
          error: {
            id: ERR_HOST,
            format:
              'Reverse Continue: no stop at a breakpoint or an exception before tick 5 in the recording (exception filters: none) (no line breakpoint is set)',
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

  it('a run not recorded: the search refused saying how to record one, in the words of its direction', async () => {
    const notRecorded = (): BreakpointHitLanding => {
      throw new Error('run 7 is not recorded');
    };
    const run = pausedRun(notRecorded);
    const dap = await attached(run);
    try {
      let mark = logMark(dap);
      await dap.requestRaw('reverseContinue', { threadId: LOOP_THREAD_ID });
      // From a past tick, Continue searches forward.
      await dap.request('stepBack', { threadId: LOOP_THREAD_ID });
      await dap.waitForEvent('stopped', { from: mark.events, timeoutMs: TIMEOUT });
      mark = logMark(dap);
      await dap.requestRaw('continue', { threadId: LOOP_THREAD_ID });
      await settle();
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        {
          response: 'continue',
          success: false,
          error: {
            id: ERR_HOST,
            format: 'Continue needs a recorded run: launch with record (run 7 is not recorded)',
            showUser: true,
          },
        },
      ]);
      assert.deepEqual(
        dap.answers.filter((a) => a.command === 'reverseContinue').map((a) => a.body.error),
        [
          {
            id: ERR_HOST,
            format: 'Reverse Continue needs a recorded run: launch with record (run 7 is not recorded)',
            showUser: true,
          },
        ],
      );
      assert.deepEqual(seeks(run), [4], 'the refused searches moved nothing');
    } finally {
      await dap.close();
    }
  });
});
