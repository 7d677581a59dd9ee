// Time travel in the standalone debug adapter, with real DAP messages over stdio, on a demo
// crawl (recorded, as every launch is by default).
// Between ticks (a loop-level stop, reached by stepping the loop thread from the entry stop):
// Step Back to the worker's previous suspension (a replayed past tick: its stack and locals as
// they were), again, Next forward one tick, Continue back to the present's stop.
// At a breakpoint on the GET's `yield*` line (a line stop before the line runs, issue 26):
// Step Back goes by lines (the line the worker ran before, replayed in the stop's tick),
// Continue from there comes back to the live line stop; on to a later hit, Reverse Continue
// goes back to the first one. Step Back is refused in a run launched with record: false.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient } from './dap-client';
import { launchToStop, moveToStop, outputSince, stackOf, startAdapter, tasksOf, threadsOf } from './adapter-harness';
import { ERR_HOST } from '../../../extension/debug/session-core';

const CRAWLER_TS = join(PROJECT_ROOT, 'runtime', 'crawler', 'crawler.ts');

function fetchLine(): number {
  const lines = readFileSync(CRAWLER_TS, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes('response = yield* this.session.get('));
  assert.ok(i >= 0);
  return i + 1;
}

/** The tick the adapter said it shows (its console line for a replayed tick) after event index `from`. */
function shownTick(dap: DapClient, from: number): number {
  const lines = dap.events
    .slice(from)
    .filter((e) => e.event === 'output')
    .map((e) => String(e.body.output));
  const m = lines
    .map((l) => /tick (\d+) of \d+ \(replayed/.exec(l))
    .filter((x) => x !== null)
    .at(-1);
  assert.ok(m !== undefined, `no replayed tick announced: ${lines.join('')}`);
  return Number(m[1]);
}

/** The tick the views show and the steps the thread's task had made by then (the Coroutines view's request). */
async function moment(dap: DapClient, taskId: number): Promise<{ tick: number; steps: number }> {
  const body = await tasksOf(dap);
  const task = body.tasks.find((t) => t.id === taskId);
  assert.ok(task !== undefined, `task #${taskId} is listed`);
  return { tick: body.tick, steps: task.steps };
}

/** A thread's whole stack (up to 100 frames). */
async function fullStackOf(dap: DapClient, threadId: number): Promise<DebugProtocol.StackFrame[]> {
  return stackOf(dap, threadId, 100);
}

/** The task the adapter lists with the most steps whose name starts with `prefix`. */
async function busiest(dap: DapClient, prefix: string): Promise<{ id: number; steps: number } | null> {
  const body = await tasksOf(dap);
  const rows = body.tasks.filter((t) => t.name.startsWith(prefix)).sort((a, b) => b.steps - a.steps);
  return rows[0] === undefined ? null : { id: rows[0].id, steps: rows[0].steps };
}

describe('the debug adapter steps back through a recorded run', { timeout: 180_000 }, () => {
  let dap: DapClient;
  const line = fetchLine();

  before(async () => {
    dap = await startAdapter();
  });
  after(async () => {
    await dap?.close();
  });

  let thread = 0;
  let present = { tick: 0, steps: 0 };
  let loopThread = 0;

  it('advertises Step Back; stepping the loop thread from the entry stop stops between ticks', async () => {
    let stopped = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'demo', crawl: 'demo', maxTasks: 3, stopOnEntry: true },
      { exceptionFilters: [] },
    );
    loopThread = Number(stopped.body.threadId);
    // Tick by tick (Step Over on the loop thread: the host's stepTick), until a worker has a few suspensions behind it.
    for (let i = 0; i < 200; i++) {
      const w = await busiest(dap, 'worker-');
      if (w !== null && w.steps >= 6) {
        thread = w.id;
        break;
      }
      stopped = await moveToStop(dap, 'next', { threadId: loopThread });
      assert.equal(stopped.body.reason, 'step');
    }
    assert.ok(thread > 0, 'a worker made 6 steps');
    // Between ticks: the worker is suspended (its innermost frame awaits), no line stop holds it.
    const frames = await fullStackOf(dap, thread);
    assert.match(frames[0]!.name, /^awaiting /);
    present = await moment(dap, thread);
    assert.ok(present.steps >= 6, `worker #${thread} made ${present.steps} steps`);
  });

  let pastTick = 0;
  it('Step Back shows the worker at its previous suspension, a replayed past tick, with its stack', async () => {
    const from = dap.mark();
    await dap.request('stepBack', { threadId: thread });
    const stopped = await dap.waitForEvent('stopped', { from });
    assert.deepEqual([stopped.body.reason, stopped.body.threadId], ['step', thread]);
    pastTick = shownTick(dap, from);
    assert.ok(pastTick < present.tick, `${pastTick} < ${present.tick}`);
    // Every view shows that tick: the task table, with the worker one suspension behind.
    const then = await moment(dap, thread);
    assert.equal(then.tick, pastTick);
    assert.equal(then.steps, present.steps - 1, `${then.steps} steps then, ${present.steps} now`);
    const frames = await fullStackOf(dap, thread);
    assert.match(frames[0]!.name, /^awaiting /);
    const threads = await threadsOf(dap);
    assert.ok(
      threads.some((t) => t.id === thread),
      'the worker is a thread at the past tick',
    );
  });

  it('Step Back again goes further back; Next moves forward one tick', async () => {
    await moveToStop(dap, 'stepBack', { threadId: thread }, { predicate: (b) => b.reason === 'step' });
    const earlier = await moment(dap, thread);
    assert.ok(earlier.tick < pastTick, `${earlier.tick} < ${pastTick}`);
    assert.equal(earlier.steps, present.steps - 2);
    await moveToStop(dap, 'next', { threadId: thread }, { predicate: (b) => b.reason === 'step' });
    assert.equal((await moment(dap, thread)).tick, earlier.tick + 1);
  });

  it('Continue from the past returns to the present stop between ticks', async () => {
    const from = dap.mark();
    await dap.request('continue', { threadId: thread });
    await dap.waitForEvent('stopped', { from });
    assert.ok(
      dap.events.slice(from).some((e) => e.event === 'output' && String(e.body.output).includes('back to the present')),
      'back to the present',
    );
    assert.deepEqual(await moment(dap, thread), present);
  });

  let firstHit = { thread: 0, tick: 0 };
  it("a breakpoint on the GET's yield* line is a line stop before the line runs; Step Back from it goes by lines; Continue comes back to it", async () => {
    const set = await dap.request<DebugProtocol.SetBreakpointsResponse['body']>('setBreakpoints', {
      source: { path: CRAWLER_TS },
      breakpoints: [{ line }],
    });
    assert.equal(set.breakpoints[0]!.verified, true);
    let from = dap.mark();
    await dap.request('continue', { threadId: loopThread });
    const stopped = await dap.waitForEvent('stopped', { from });
    assert.equal(stopped.body.reason, 'breakpoint');
    firstHit = { thread: Number(stopped.body.threadId), tick: (await tasksOf(dap)).tick };
    const frames = await fullStackOf(dap, firstHit.thread);
    assert.deepEqual([frames[0]!.name, frames[0]!.line], ['fetch', line], 'stopped on the line itself, before it runs');
    // Step Back: the line the worker ran before, replayed within the stop's tick (not a previous suspension).
    from = dap.mark();
    await dap.request('stepBack', { threadId: firstHit.thread });
    await dap.waitForEvent('stopped', { from, predicate: (b) => b.reason === 'step' });
    const said = outputSince(dap, from);
    const m = /on a past line at (\S+):(\d+) \(tick (\d+), replayed\)/.exec(said);
    assert.ok(m !== null, `a past line was announced: ${said}`);
    assert.deepEqual([m[1], Number(m[3])], [CRAWLER_TS, firstHit.tick]);
    assert.ok(Number(m[2]) < line, `the line before the breakpoint's (${m[2]} < ${line})`);
    const back = await fullStackOf(dap, firstHit.thread);
    assert.deepEqual([back[0]!.name, back[0]!.line], ['fetch', Number(m[2])]);
    // Continue: nothing stops between that line and the live stop: the live stop again, as it was.
    from = dap.mark();
    await dap.request('continue', { threadId: firstHit.thread });
    const again = await dap.waitForEvent('stopped', { from });
    assert.deepEqual([again.body.reason, again.body.threadId], ['breakpoint', firstHit.thread]);
    assert.match(outputSince(dap, from), /back to the live stop/);
    const live = await fullStackOf(dap, firstHit.thread);
    assert.deepEqual([live[0]!.name, live[0]!.line], ['fetch', line]);
  });

  it('on to the next hit, Reverse Continue goes back to the first one, replayed, with its stack', async () => {
    let from = dap.mark();
    await dap.request('continue', { threadId: firstHit.thread });
    const second = await dap.waitForEvent('stopped', { from, predicate: (b) => b.reason === 'breakpoint' });
    const secondTick = (await tasksOf(dap)).tick;
    assert.ok(secondTick >= firstHit.tick, `${secondTick} >= ${firstHit.tick}`);
    from = dap.mark();
    await dap.request('reverseContinue', { threadId: Number(second.body.threadId) });
    const rewound = await dap.waitForEvent('stopped', { from });
    assert.equal(rewound.body.reason, 'breakpoint');
    assert.equal(rewound.body.threadId, firstHit.thread);
    const frames = await fullStackOf(dap, firstHit.thread);
    assert.deepEqual(
      [frames[0]!.name, frames[0]!.line],
      ['fetch', line],
      'at the first hit the worker is at the breakpoint line again',
    );
    assert.equal((await tasksOf(dap)).tick, firstHit.tick);
    assert.ok(outputSince(dap, from).includes(`crawler.ts:${line}`), "the console names the hit's line");
    // From the hit found in the past, Step Back goes by lines too: the line its worker ran before.
    await moveToStop(dap, 'stepBack', { threadId: firstHit.thread }, { predicate: (b) => b.reason === 'step' });
    const before = await fullStackOf(dap, firstHit.thread);
    assert.deepEqual([before[0]!.name, before[0]!.source?.path], ['fetch', CRAWLER_TS]);
    const tick = (await tasksOf(dap)).tick;
    assert.ok(before[0]!.line < line && tick === firstHit.tick, `line ${before[0]!.line} < ${line} at tick ${tick}`);
  });

  it('Step Back in a run launched with record: false says it was not recorded', async () => {
    await dap.request('disconnect', {});
    await dap.close();
    dap = await startAdapter();
    const stopped = await launchToStop(dap, {
      type: 'coroscope',
      request: 'launch',
      name: 'demo',
      crawl: 'demo',
      maxTasks: 2,
      record: false,
      stopOnEntry: true,
    });
    const r = await dap.requestRaw('stepBack', { threadId: Number(stopped.body.threadId) });
    assert.equal(r.success, false);
    assert.deepEqual(r.body, {
      error: {
        id: ERR_HOST,
        format:
          "timeline: run 1 was not recorded: launch it with options.record (the extension's coroscope.record setting)",
        showUser: true,
      },
    });
  });
});
