// The debug adapter's positions and moves at the protocol level (DAP requests in, DAP
// responses and events out) against a fake runtime host (fake-debug-host.ts): no fork, a few
// milliseconds a test. Each test walks one path of where the debugger stands
// (extension/debug/debug-position.ts): a live pause into the past and back, a live line stop's
// past lines and back to it, the end of a finished run and its past, an opened recording (no
// present), a move the host refuses, and Stop while a move is under way.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import type { SourcePosition, TimelineLane, ViewedMoment } from '../../../protocol/host-protocol';
import { FakeRun, FakeRuns, serveSeeks, snapshotAt, timelineOf } from './fake-debug-host';
import { until } from '../wait-until';
import type { DapClient, DapEvent } from './dap-client';
import { attachedInProcess } from './adapter-harness';

const TIMEOUT = 5000;

/** Attaches a session to the fake run, as VS Code does (attach, configurationDone, the attach's answer). */
async function attached(run: FakeRun, moveLandingMs?: number): Promise<DapClient> {
  return attachedInProcess(
    new CoroscopeSession<FakeRun>({
      hostScript: '/nonexistent/runtime-host.js',
      runs: new FakeRuns(run),
      ...(moveLandingMs === undefined ? {} : { moveLandingMs }),
    }),
    { run: run.key },
    { timeoutMs: TIMEOUT },
  );
}

/** The next `stopped` from `from` on (not a loop row's relabel). */
function stopped(dap: DapClient, from: number): Promise<DapEvent> {
  return dap.waitForEvent('stopped', { from, timeoutMs: TIMEOUT, failOn: ['terminated'] });
}

function consoleSince(dap: DapClient, from: number): string {
  return dap.events
    .slice(from)
    .filter((e) => e.event === 'output')
    .map((e) => String(e.body.output))
    .join('');
}

function seeks(run: FakeRun): Array<number | null> {
  return run.endpoint.requests
    .filter((r) => r.method === 'seekTick')
    .map((r) => (r.params as { tick: number | null }).tick);
}

function laneOf(taskId: number): TimelineLane {
  return {
    taskId,
    name: `worker-${taskId}`,
    parentId: null,
    createdTick: 1,
    endTick: null,
    endState: null,
    segmentsFrom: 0,
    segments: [],
  };
}

describe('debug positions and moves against a fake host', () => {
  it('a live pause: Step Back to a past tick, Next back to the present (the pause again)', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    serveSeeks(run, 5);
    const dap = await attached(run);
    try {
      assert.equal((await stopped(dap, 0)).body.reason, 'pause');
      let from = dap.mark();
      await dap.request('stepBack', { threadId: LOOP_THREAD_ID });
      const back = await stopped(dap, from);
      assert.equal(back.body.reason, 'step');
      assert.equal(String(back.body.description), 'At tick 4 of 5 (replayed)');
      assert.deepEqual(seeks(run), [4]);

      from = dap.mark();
      await dap.request('next', { threadId: LOOP_THREAD_ID });
      const present = await stopped(dap, from);
      assert.equal(present.body.reason, 'pause', 'back at the live pause, in its own reason');
      assert.deepEqual(seeks(run), [4, null], 'the present is tick 5: next from 4 goes back to it');
      assert.equal(consoleSince(dap, from), 'Coroscope: back to the present\n');
    } finally {
      await dap.close();
    }
  });

  it('a live line stop: Step Back to a past line, Continue back to the live stop (its own reason)', async () => {
    const file = '/work/prog.ts';
    const at = (line: number): SourcePosition => ({ file, line, column: 3 });
    const run = new FakeRun('paused');
    run.lastPause = {
      reason: 'breakpoint',
      tick: 7,
      taskId: 2,
      description: 'Task #2 "worker-2" hit a breakpoint at prog.ts:12',
      line: at(12),
    };
    run.endpoint.serve('snapshot', () => snapshotAt(7, true));
    run.endpoint.serve('timeline', (p) => timelineOf(7, 7, p.taskId !== undefined ? { lanes: [laneOf(2)] } : {}));
    run.endpoint.serve('lineStepBack', () => {
      run.endpoint.emit('paused', {
        reason: 'step',
        tick: 7,
        taskId: 2,
        description: 'line 11 of task #2 (replayed)',
        line: at(11),
        pastLine: true,
      });
      return { landed: 'line', line: at(11) };
    });
    run.endpoint.serve('pastBreakpointHit', (p) => ({
      landed: 'none',
      breakpoints: [],
      from: p.tick,
      to: p.ceiling ?? p.tick,
    }));
    // Back to the present from a past line: the views' present, and the live stop's `paused` again.
    run.endpoint.serve('seekTick', (p) => {
      assert.equal(p.tick, null);
      run.endpoint.emit('viewedTick', { runId: 7, tick: null, ticks: 7 });
      run.endpoint.emit('paused', {
        reason: 'step',
        tick: 7,
        taskId: 2,
        description: 'Task #2 at prog.ts:12',
        line: at(12),
      });
      return { runId: 7, tick: null, ticks: 7 };
    });
    const dap = await attached(run);
    try {
      assert.equal((await stopped(dap, 0)).body.reason, 'breakpoint');
      let from = dap.mark();
      await dap.request('stepBack', { threadId: 2 });
      const line = await stopped(dap, from);
      assert.equal(line.body.reason, 'step');
      assert.equal(line.body.threadId, 2);

      from = dap.mark();
      await dap.request('continue', { threadId: 2 });
      const live = await stopped(dap, from);
      assert.equal(live.body.reason, 'breakpoint', 'the live stop again, as it was');
      assert.equal(
        consoleSince(dap, from),
        'Coroscope: nothing stops between the past line shown and the live stop at tick 7: back to the live stop (Continue again runs the program on)\n',
      );
      assert.ok(!run.endpoint.asked().includes('continue'), 'the live program is still held');
    } finally {
      await dap.close();
    }
  });

  it('the end of a finished run: Reverse Continue to a recorded exception, Continue back to the end, Continue ends', async () => {
    const run = new FakeRun('running');
    run.endpoint.serve('snapshot', () => snapshotAt(10, false));
    run.endpoint.serve('timeline', (p) =>
      timelineOf(
        7,
        10,
        p.sinceTick !== undefined
          ? {}
          : { marks: [{ tick: 6, kind: 'exception', taskId: 3, detail: 'Task #3 failed' }] },
      ),
    );
    run.endpoint.serve('pastBreakpointHit', (p) => ({
      landed: 'none',
      breakpoints: [],
      from: p.floor ?? 0,
      to: p.tick,
    }));
    serveSeeks(run, 10);
    const dap = await attached(run);
    try {
      let from = dap.mark();
      run.phase = 'finished';
      run.endpoint.emit('finished', { runId: 7, ok: true, summary: 'done' });
      assert.equal((await stopped(dap, from)).body.reason, 'end');

      from = dap.mark();
      await dap.request('reverseContinue', { threadId: LOOP_THREAD_ID });
      const exception = await stopped(dap, from);
      assert.equal(exception.body.reason, 'exception');
      assert.equal(exception.body.threadId, 3, "on the failed task's thread");
      assert.deepEqual(seeks(run), [6]);

      from = dap.mark();
      await dap.request('continue', { threadId: 3 });
      assert.equal((await stopped(dap, from)).body.reason, 'end', 'nothing stops after tick 6: the end again');
      assert.deepEqual(seeks(run), [6, null]);

      from = dap.mark();
      await dap.request('continue', { threadId: LOOP_THREAD_ID });
      await dap.waitForEvent('terminated', { from, timeoutMs: TIMEOUT });
    } finally {
      await dap.close();
    }
  });

  it('an opened recording has no present: Step Back, then Next lands on its last tick (its end), not "back to the present"', async () => {
    const run = new FakeRun('finished');
    run.viewedTick = 10;
    run.endpoint.serve('snapshot', () => snapshotAt(10, true));
    run.endpoint.serve('timeline', () => timelineOf(7, 10));
    serveSeeks(run, 10, true);
    const dap = await attached(run);
    try {
      assert.equal((await stopped(dap, 0)).body.reason, 'end');
      let from = dap.mark();
      await dap.request('stepBack', { threadId: LOOP_THREAD_ID });
      assert.equal((await stopped(dap, from)).body.reason, 'step');
      assert.deepEqual(seeks(run), [9]);

      from = dap.mark();
      await dap.request('next', { threadId: LOOP_THREAD_ID });
      assert.equal((await stopped(dap, from)).body.reason, 'end');
      assert.deepEqual(seeks(run), [9, 10], 'its last tick, asked as a tick');
      assert.doesNotMatch(consoleSince(dap, from), /back to the present/);

      const refused = await dap.requestRaw('next', { threadId: LOOP_THREAD_ID });
      assert.equal(refused.success, false, 'nothing comes after the end');
    } finally {
      await dap.close();
    }
  });

  it('a finished run attached to at a past tick: Continue forward lands at its end (its present)', async () => {
    const run = new FakeRun('finished');
    run.viewedTick = 5;
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    run.endpoint.serve('timeline', () => timelineOf(7, 10));
    run.endpoint.serve('pastBreakpointHit', (p) => ({
      landed: 'none',
      breakpoints: [],
      from: p.tick,
      to: p.ceiling ?? p.tick,
    }));
    serveSeeks(run, 10);
    const dap = await attached(run);
    try {
      const first = await stopped(dap, 0);
      assert.equal(first.body.reason, 'goto');
      const from = dap.mark();
      await dap.request('continue', { threadId: LOOP_THREAD_ID });
      assert.equal((await stopped(dap, from)).body.reason, 'end');
      assert.deepEqual(seeks(run), [null]);
      assert.ok(!dap.events.slice(from).some((e) => e.event === 'continued'), 'a finished run never runs on');
    } finally {
      await dap.close();
    }
  });

  it('a move the host refuses: an error shown to the user, the stop before shown again, no stop of the move', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    run.endpoint.serve('seekTick', () => {
      throw new Error('seekTick: the replay to tick 4 failed: boom');
    });
    const dap = await attached(run);
    try {
      await stopped(dap, 0);
      const from = dap.mark();
      const r = (await dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID })) as DebugProtocol.ErrorResponse;
      assert.equal(r.success, false);
      assert.equal(r.body.error?.format ?? '', 'seekTick: the replay to tick 4 failed: boom');
      assert.equal(r.body.error?.showUser, true);
      const again = await stopped(dap, from);
      assert.equal(again.body.reason, 'pause', 'the pause shown again');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const reasons = dap.events
        .slice(from)
        .filter((e) => e.event === 'stopped' || e.event === 'continued')
        .map((e) => `${e.event}:${String(e.body.reason ?? '')}`);
      assert.deepEqual(reasons, ['stopped:pause'], 'no stop or continue of the refused move');
    } finally {
      await dap.close();
    }
  });

  it('a move asked while another is under way is refused with why; the first lands as asked', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    let land: () => void = () => undefined;
    run.endpoint.serve('seekTick', (p) => {
      const moment = { runId: 7, tick: p.tick, ticks: 5 };
      return new Promise((resolve) => {
        land = () => {
          run.endpoint.emit('viewedTick', { ...moment, replayed: false });
          resolve(moment);
        };
      });
    });
    const dap = await attached(run);
    try {
      await stopped(dap, 0);
      const from = dap.mark();
      const first = dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await until('the seek asked', () => seeks(run).length === 1, TIMEOUT);
      const second = (await dap.requestRaw('next', { threadId: LOOP_THREAD_ID })) as DebugProtocol.ErrorResponse;
      assert.equal(second.success, false);
      assert.equal(
        second.body.error?.format ?? '',
        'next: another move of this session is under way (waiting for the host: seek); try again once it has landed (given up after 30 s without its landing)',
      );
      assert.deepEqual(seeks(run), [4], 'the second move asked nothing of the host');
      land();
      assert.equal((await first).success, true);
      const landed = await stopped(dap, from);
      assert.equal(landed.body.reason, 'step');
      assert.equal(String(landed.body.description), 'At tick 4 of 5 (replayed)');
    } finally {
      await dap.close();
    }
  });

  it('two sessions move the views at once: each takes only the answer named by its own moment id', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    // Task #2 suspended at ticks 2 and 5: its Step Back from tick 5 goes to tick 2 (the loop's goes to tick 4).
    const lane: TimelineLane = {
      ...laneOf(2),
      segments: [
        { fromTick: 2, toTick: 3, state: 'suspended' },
        { fromTick: 4, toTick: 4, state: 'running' },
        { fromTick: 5, toTick: 5, state: 'suspended' },
      ],
    };
    run.endpoint.serve('timeline', () => timelineOf(7, 5, { lanes: [lane] }));
    // The first seek is held until the second is asked: the first one's events then come while both sessions
    // are moving.
    const waiting: Array<{ moment: ViewedMoment; land: (m: ViewedMoment) => void }> = [];
    run.endpoint.serve('seekTick', (p) => {
      const moment: ViewedMoment = { runId: 7, tick: p.tick, ticks: 5, replayed: false };
      if (p.moment !== undefined) moment.moment = p.moment;
      return new Promise((land) => {
        waiting.push({ moment, land });
        if (waiting.length < 2) return;
        for (const w of waiting) {
          run.endpoint.emit('viewedTick', w.moment);
          w.land(w.moment);
        }
      });
    });
    const a = await attached(run);
    const b = await attached(run);
    try {
      await stopped(a, 0);
      await stopped(b, 0);
      const fromA = a.mark();
      const fromB = b.mark();
      await Promise.all([a.request('stepBack', { threadId: LOOP_THREAD_ID }), b.request('stepBack', { threadId: 2 })]);
      const asked = run.endpoint.requests
        .filter((r) => r.method === 'seekTick')
        .map((r) => r.params as { tick: number | null; moment?: string });
      assert.deepEqual(asked.map((p) => p.tick).sort(), [2, 4]);
      assert.ok(
        asked.every((p) => p.moment !== undefined) && asked[0]!.moment !== asked[1]!.moment,
        `each session names its seek: ${JSON.stringify(asked)}`,
      );
      for (const [dap, from, own, others] of [
        [a, fromA, 4, 2],
        [b, fromB, 2, 4],
      ] as const) {
        const at = (tick: number): DapEvent[] =>
          dap.events
            .slice(from)
            .filter((e) => e.event === 'stopped' && new RegExp(`tick ${tick} of 5`).test(String(e.body.description)));
        await until('both moments shown', () => at(own).length > 0 && at(others).length > 0, TIMEOUT);
        const shown = (tick: number): string => JSON.stringify(at(tick).map((e) => e.body));
        // Its own landing is a step it made (focused); the other session's is another view's move (not
        // focused), whichever came first.
        // (A task's landing relabels the loop's row too, unfocused.)
        assert.ok(
          at(own).every((e) => e.body.reason === 'step') && at(own)[0]!.body.preserveFocusHint !== true,
          `its own seek to tick ${own}: ${shown(own)}`,
        );
        assert.ok(
          at(others).every((e) => e.body.reason === 'goto' && e.body.preserveFocusHint === true),
          `the other session's seek to tick ${others}: ${shown(others)}`,
        );
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a line move the host answers but never lands: refused meanwhile, then given up after its bound (back on the line it left)', async () => {
    const file = '/work/prog.ts';
    const at = (line: number): SourcePosition => ({ file, line, column: 3 });
    const run = new FakeRun('paused');
    run.lastPause = {
      reason: 'breakpoint',
      tick: 7,
      taskId: 2,
      description: 'Task #2 "worker-2" hit a breakpoint at prog.ts:12',
      line: at(12),
    };
    run.endpoint.serve('snapshot', () => snapshotAt(7, true));
    run.endpoint.serve('timeline', (p) => timelineOf(7, 7, p.taskId !== undefined ? { lanes: [laneOf(2)] } : {}));
    run.endpoint.serve('lineStepBack', (p) => {
      run.endpoint.emit('paused', {
        reason: 'step',
        tick: 7,
        taskId: 2,
        description: 'line 11 of task #2 (replayed)',
        line: at(11),
        pastLine: true,
        ...(p.moment === undefined ? {} : { moment: p.moment }),
      });
      return { landed: 'line', line: at(11) };
    });
    // A host that answers the line step and then drops its `paused` (the first time).
    let dropLanding = true;
    run.endpoint.serve('lineStep', (p) => {
      if (!dropLanding)
        run.endpoint.emit('paused', {
          reason: 'step',
          tick: 7,
          taskId: 2,
          description: 'line 12 of task #2 (replayed)',
          line: at(12),
          pastLine: true,
          ...(p.moment === undefined ? {} : { moment: p.moment }),
        });
      return {};
    });
    const bound = 300;
    const dap = await attached(run, bound);
    try {
      await stopped(dap, 0);
      let from = dap.mark();
      await dap.request('stepBack', { threadId: 2 });
      assert.equal((await stopped(dap, from)).body.reason, 'step');
      from = dap.mark();
      const started = Date.now();
      await dap.request('next', { threadId: 2 });
      // Under way: another move is refused, saying what it waits for and its bound.
      const refusedMove = (await dap.requestRaw('stepBack', { threadId: 2 })) as DebugProtocol.ErrorResponse;
      assert.equal(refusedMove.success, false);
      assert.equal(
        refusedMove.body.error?.format ?? '',
        'stepBack: another move of this session is under way (waiting for the host: pastLine); try again once it has landed (given up after 0.3 s without its landing)',
      );
      // Given up: the past line it left shown again, the console saying why.
      const again = await stopped(dap, from);
      assert.ok(Date.now() - started >= bound - 20, 'not before its bound');
      assert.equal(again.body.reason, 'step');
      assert.equal(again.body.threadId, 2);
      assert.match(consoleSince(dap, from), /never showed where the move landed/);
      // The next move goes (not refused as under way), from the past line it left: a move through the past
      // lines, not the live program going on.
      dropLanding = false;
      from = dap.mark();
      await dap.request('next', { threadId: 2 });
      assert.equal((await stopped(dap, from)).body.reason, 'step');
      assert.equal(run.endpoint.asked().filter((m) => m === 'lineStep').length, 2);
      assert.ok(
        !dap.events.slice(from).some((e) => e.event === 'continued'),
        'stepped through the past lines (a live step would say continued)',
      );
    } finally {
      await dap.close();
    }
  });

  it('Stop during a move: the session ends (terminated is never held behind the move)', async () => {
    const run = new FakeRun('paused');
    run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
    run.endpoint.serve('snapshot', () => snapshotAt(5, true));
    let release: () => void = () => undefined;
    run.endpoint.serve(
      'seekTick',
      () => new Promise((resolve) => (release = () => resolve({ runId: 7, tick: 4, ticks: 5 }))),
    );
    run.endpoint.serve('stop', () => {
      run.endpoint.emit('finished', { runId: 7, ok: true, summary: 'stopped', stopped: true });
      return {};
    });
    const dap = await attached(run);
    try {
      await stopped(dap, 0);
      const from = dap.mark();
      const move = dap.requestRaw('stepBack', { threadId: LOOP_THREAD_ID });
      await until('the seek asked', () => seeks(run).length === 1, TIMEOUT);
      await dap.request('terminate');
      await dap.waitForEvent('terminated', { from, timeoutMs: TIMEOUT });
      release();
      await move;
    } finally {
      await dap.close();
    }
  });
});
