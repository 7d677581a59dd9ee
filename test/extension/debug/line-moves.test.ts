// extension/debug/line-moves.ts at the protocol level, against the fake host (fake-debug-host.ts):
// the moves by line. A live line step asks the host's lineStep of its kind and is answered once
// the host took it, the stop it comes to after the answer; a step through the past lines that
// meets a loop breakpoint's hit goes on as a seek to its tick, on the hit task's thread; Step Back
// before the task's first line of its step goes to its previous suspension (said in the console),
// and is refused (the stop shown again, nothing moved) at the task's very first line, at its start,
// or on a run not recorded; from a hit shown in the past, a step with no later line goes back to
// the present. Ordered logs (dap-log.ts) and host requests compared whole.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { ERR_HOST } from '../../../extension/debug/session-core';
import type { HostEvents, PastLineLanding, SourcePosition, TimelineLane } from '../../../protocol/host-protocol';
import { FakeRun, serveSeeks, snapshotAt, timelineOf, attachedToFake } from './fake-debug-host';
import type { DapClient } from './dap-client';
import { type LoggedMessage, logMark, logSince, markedMove, MOVE_EVENTS } from './dap-log';

const TIMEOUT = 5000;
const FILE = '/work/prog.ts';
const LIVE_STOP: HostEvents['paused'] = {
  reason: 'breakpoint',
  tick: 7,
  taskId: 2,
  description: 'Task #2 "worker-2" hit a breakpoint at prog.ts:12',
  line: at(12),
};
/** The live line stop as the session shows it. */
const LIVE_STOP_SHOWN: LoggedMessage = {
  event: 'stopped',
  reason: 'breakpoint',
  threadId: 2,
  description: 'Paused on breakpoint',
};

function at(line: number): SourcePosition {
  return { file: FILE, line, column: 3 };
}

/** Task 2's lane: created at tick 1, suspended from ticks 3 and 5 (`suspended`: false, never suspended). */
function lane(suspended = true): TimelineLane {
  return {
    taskId: 2,
    name: 'worker-2',
    parentId: null,
    createdTick: 1,
    endTick: null,
    endState: null,
    segmentsFrom: 0,
    segments: suspended
      ? [
          { fromTick: 3, toTick: 4, state: 'suspended' },
          { fromTick: 5, toTick: 6, state: 'suspended' },
          { fromTick: 7, toTick: 7, state: 'running' },
        ]
      : [{ fromTick: 1, toTick: 7, state: 'running' }],
  };
}

/** A past line of task 2 in tick 7, shown by the host's `paused` of the move named `moment`. */
function pastLine(run: FakeRun, line: number, moment: string | undefined): void {
  run.endpoint.emit('paused', {
    reason: 'step',
    tick: 7,
    taskId: 2,
    description: `line ${line} of task #2 (replayed)`,
    line: at(line),
    pastLine: true,
    ...(moment === undefined ? {} : { moment }),
  });
}

/** A live run held on task 2's line 12 in tick 7 (of 7 recorded), task 2's lane in its timeline. */
function lineStopRun(lanes: TimelineLane[] = [lane()]): FakeRun {
  const run = new FakeRun('paused');
  run.lastPause = LIVE_STOP;
  run.endpoint.serve('snapshot', () => snapshotAt(7, true));
  run.endpoint.serve('timeline', (p) => timelineOf(7, 7, p.taskId !== undefined ? { lanes } : {}));
  serveSeeks(run, 7);
  return run;
}

/** The line moves and seeks asked since request `from`, with their params (moment ids as asked). */
function movesAsked(run: FakeRun, from: number): Array<[string, unknown]> {
  const moves = new Set(['lineStep', 'lineStepBack', 'seekTick', 'continue', 'stepTick', 'stepTask']);
  return run.endpoint.requests
    .slice(from)
    .flatMap((r): Array<[string, unknown]> => (moves.has(r.method) ? [[r.method, r.params]] : []));
}

/** Requests with their moment ids left out (each a new id of the session's: checked apart). */
function withoutMoments(asked: Array<[string, unknown]>): Array<[string, unknown]> {
  return asked.map(([method, params]) => {
    const { moment: _moment, ...rest } = params as { moment?: string };
    return [method, rest];
  });
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 30));
}

/** Steps back from the live line stop to its line 11 (a past line); waits for its stop. */
async function toPastLine(run: FakeRun, dap: DapClient): Promise<void> {
  run.endpoint.serve('lineStepBack', (p) => {
    pastLine(run, 11, p.moment);
    return { landed: 'line', line: at(11) };
  });
  const from = dap.mark();
  await dap.request('stepBack', { threadId: 2 });
  await dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT });
}

describe('line moves', () => {
  it('a live line step: lineStep of its kind, answered once the host took it, its stop after the answer', async () => {
    const run = lineStopRun();
    const dap = await attachedToFake(run);
    let answersAtStep = -1;
    run.endpoint.serve('lineStep', (p) => {
      answersAtStep = dap.answers.length;
      // The host's `paused` of the step before its answer: held until the answer has gone.
      run.endpoint.emit('paused', {
        ...LIVE_STOP,
        reason: 'step',
        line: at(13),
        ...(p.moment === undefined ? {} : { moment: p.moment }),
      });
      return {};
    });
    try {
      for (const [command, kind] of [
        ['next', 'over'],
        ['stepIn', 'into'],
        ['stepOut', 'out'],
      ] as const) {
        const asked = run.endpoint.requests.length;
        const mark = logMark(dap);
        await dap.requestRaw(command, { threadId: 2 });
        await settle();
        assert.equal(answersAtStep, mark.answers, `${command}: not answered before the host took it`);
        const [[method, params]] = movesAsked(run, asked) as [[string, { kind: string; moment?: string }]];
        assert.deepEqual([method, params.kind, typeof params.moment], ['lineStep', kind, 'string']);
        assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
          { response: command, success: true },
          { event: 'stopped', reason: 'step', threadId: 2, description: null },
        ]);
      }
    } finally {
      await dap.close();
    }
  });

  it("a past line step that meets a loop breakpoint's hit: a seek to its tick, on the hit task's thread, in its words", async () => {
    const said = 'Task #3 "worker-3" hit a breakpoint at prog.ts:20';
    const run = lineStopRun();
    const dap = await attachedToFake(run);
    try {
      await toPastLine(run, dap);
      run.endpoint.serve('lineStep', () => ({ landing: { landed: 'tick', tick: 6, taskId: 3, description: said } }));
      const asked = run.endpoint.requests.length;
      const mark = await markedMove(dap, 'next', { threadId: 2 }, TIMEOUT);
      await settle();
      const moves = movesAsked(run, asked) as Array<[string, { moment?: string }]>;
      assert.deepEqual(
        moves.map(([m, { moment: _moment, ...params }]) => [m, params]),
        [
          ['lineStep', { kind: 'over' }],
          ['seekTick', { tick: 6, replayed: true }],
        ],
      );
      assert.notEqual(moves[0]![1].moment, moves[1]![1].moment, 'the seek goes on under a moment id of its own');
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'next', success: true },
        {
          event: 'output',
          category: 'console',
          output: `Coroscope: ${said}, at tick 6 of 7 (replayed from the recording)\n`,
        },
        { event: 'stopped', reason: 'breakpoint', threadId: 3, description: 'Paused on breakpoint' },
        {
          event: 'stopped',
          reason: 'breakpoint',
          threadId: LOOP_THREAD_ID,
          description: 'At tick 6 of 7 (replayed)',
          relabel: true,
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it("Step Back before the task's first line of its step: its previous suspension (a seek), the console says why", async () => {
    const run = lineStopRun();
    run.endpoint.serve('lineStepBack', () => ({ landed: 'suspension', why: 'its lines before were not recorded' }));
    const dap = await attachedToFake(run);
    try {
      const asked = run.endpoint.requests.length;
      const mark = await markedMove(dap, 'stepBack', { threadId: 2 }, TIMEOUT);
      await settle();
      assert.deepEqual(
        movesAsked(run, asked).map(([m, p]) => [m, (p as { tick?: number | null }).tick]),
        [
          ['lineStepBack', undefined],
          ['seekTick', 5],
        ],
      );
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'stepBack', success: true },
        {
          event: 'output',
          category: 'console',
          output:
            "Coroscope: before task #2's first line of its step at tick 7: its previous suspension, at tick 5 (its lines before were not recorded)\n",
        },
        { event: 'output', category: 'console', output: 'Coroscope: tick 5 of 7 (replayed from the recording)\n' },
        { event: 'stopped', reason: 'step', threadId: 2, description: 'At tick 5 of 7 (replayed)' },
        {
          event: 'stopped',
          reason: 'step',
          threadId: LOOP_THREAD_ID,
          description: 'At tick 5 of 7 (replayed)',
          relabel: true,
        },
      ]);
    } finally {
      await dap.close();
    }
  });

  it('Step Back refused at the first line, at the start, or on a run not recorded: its reason, the stop shown again, no seek', async () => {
    const cases: Array<{
      name: string;
      lanes: TimelineLane[] | Error;
      landing: PastLineLanding;
      refusal: string;
      again: boolean;
    }> = [
      {
        name: 'at its very first line',
        lanes: [lane()],
        landing: { landed: 'line', line: at(12), atStart: true, task: 'worker-2' },
        refusal:
          'Step Back: worker-2 is at its first line (prog.ts:12): nothing of it ran before. Reverse Continue goes to earlier breakpoint hits',
        again: true,
      },
      {
        name: 'at its start (no earlier suspension)',
        lanes: [lane(false)],
        landing: { landed: 'suspension', why: 'it was created in this tick' },
        refusal: 'Step Back: worker-2 (#2) is at its start (created at tick 1): it was created in this tick',
        again: true,
      },
      {
        name: 'a run not recorded',
        lanes: new Error('run 7 is not recorded'),
        landing: { landed: 'line', line: at(11) },
        refusal: 'Step Back needs a recorded run: launch with record (run 7 is not recorded)',
        again: false,
      },
    ];
    for (const c of cases) {
      const run = lineStopRun();
      const lanes = c.lanes;
      run.endpoint.serve('timeline', (p) => {
        if (lanes instanceof Error) throw lanes;
        return timelineOf(7, 7, p.taskId !== undefined ? { lanes } : {});
      });
      run.endpoint.serve('lineStepBack', () => c.landing);
      const dap = await attachedToFake(run);
      try {
        const asked = run.endpoint.requests.length;
        const mark = logMark(dap);
        await dap.requestRaw('stepBack', { threadId: 2 });
        await settle();
        const expected: LoggedMessage[] = [
          { response: 'stepBack', success: false, error: { id: ERR_HOST, format: c.refusal, showUser: true } },
        ];
        // Refused once the host was asked: the line stop shown again (its frames asked anew).
        if (c.again) expected.push(LIVE_STOP_SHOWN);
        assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), expected, c.name);
        assert.deepEqual(
          movesAsked(run, asked).map(([m]) => m),
          c.again ? ['lineStepBack'] : [],
          c.name,
        );
      } finally {
        await dap.close();
      }
    }
  });

  it('from a hit shown in the past, a step with no later line in the recording goes back to the present', async () => {
    const run = lineStopRun();
    run.endpoint.serve('pastBreakpointHit', () => ({
      landed: 'line',
      tick: 4,
      taskId: 2,
      line: at(12),
      breakpoint: { file: FILE, line: 12 },
      description: 'Task #2 hit the breakpoint at prog.ts:12 in tick 4 (replayed)',
    }));
    run.endpoint.serve('lineStep', () => ({ landing: { landed: 'present' } }));
    const dap = await attachedToFake(run);
    try {
      let mark = await markedMove(dap, 'reverseContinue', { threadId: 2 }, TIMEOUT);
      const asked = run.endpoint.requests.length;
      mark = await markedMove(dap, 'next', { threadId: 2 }, TIMEOUT);
      await settle();
      assert.deepEqual(withoutMoments(movesAsked(run, asked)), [
        ['lineStep', { kind: 'over' }],
        ['seekTick', { tick: null, replayed: true }],
      ]);
      assert.deepEqual(logSince(dap, mark, MOVE_EVENTS), [
        { response: 'next', success: true },
        {
          event: 'output',
          category: 'console',
          output: 'Coroscope: the recording has no later line of this task: back to the present\n',
        },
        { event: 'output', category: 'console', output: 'Coroscope: back to the present\n' },
        LIVE_STOP_SHOWN,
        {
          event: 'stopped',
          reason: 'breakpoint',
          threadId: LOOP_THREAD_ID,
          description: 'Paused at tick 7',
          relabel: true,
        },
      ]);
    } finally {
      await dap.close();
    }
  });
});
