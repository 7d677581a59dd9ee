// Time travel in the standalone debug adapter, with real DAP messages over stdio: a demo crawl
// (recorded, as every launch is by default) stopped at a breakpoint; Step Back to the worker's
// previous suspension (a replayed past tick: its stack and locals as they were), again, Next
// forward one tick, Continue back to the present's breakpoint stop;
// then on to a later hit and Reverse Continue to the first one; Step Back refused in a run
// launched with record: false.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ADAPTER_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { TASKS_REQUEST, type TasksBody } from '../../../extension/debug/custom-requests';
import { DapClient } from './dap-client';

const CRAWLER_TS = join(PROJECT_ROOT, 'runtime', 'crawler', 'crawler.ts');

function fetchLine(): number {
  const lines = readFileSync(CRAWLER_TS, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes('response = yield* this.session.get('));
  assert.ok(i >= 0);
  return i + 1;
}

async function start(): Promise<DapClient> {
  const dap = DapClient.spawn(process.execPath, [ADAPTER_SCRIPT], { cwd: PROJECT_ROOT });
  await dap.request('initialize', { clientID: 'coroscope-tests', adapterID: 'coroscope', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  return dap;
}

/** The tick the adapter said it shows (its console line for a replayed tick) after event index `from`. */
function shownTick(dap: DapClient, from: number): number {
  const lines = dap.events.slice(from).filter((e) => e.event === 'output').map((e) => String(e.body.output));
  const m = lines.map((l) => /tick (\d+) of \d+ \(replayed/.exec(l)).filter((x) => x !== null).at(-1);
  assert.ok(m !== undefined, `no replayed tick announced: ${lines.join('')}`);
  return Number(m[1]);
}

/** The tick the views show and the steps the thread's task had made by then (the Coroutines view's request). */
async function moment(dap: DapClient, taskId: number): Promise<{ tick: number; steps: number }> {
  const body = await dap.request<TasksBody>(TASKS_REQUEST);
  const task = body.tasks.find((t) => t.id === taskId);
  assert.ok(task !== undefined, `task #${taskId} is listed`);
  return { tick: body.tick, steps: task.steps };
}

async function stackOf(dap: DapClient, threadId: number): Promise<DebugProtocol.StackFrame[]> {
  return (await dap.request<DebugProtocol.StackTraceResponse['body']>('stackTrace', { threadId, startFrame: 0, levels: 100 })).stackFrames;
}

describe('the debug adapter steps back through a recorded run', { timeout: 180_000 }, () => {
  let dap: DapClient;
  const line = fetchLine();

  before(async () => {
    await buildAdapterAndHost();
    dap = await start();
  });
  after(async () => {
    await dap?.close();
  });

  let thread = 0;
  let present = { tick: 0, steps: 0 };

  it('advertises Step Back and stops at the breakpoint of a recorded launch', async () => {
    const launch = dap.request('launch', { type: 'coroscope', request: 'launch', name: 'demo', crawl: 'demo', maxTasks: 3 });
    await dap.waitForEvent('initialized');
    const set = await dap.request<DebugProtocol.SetBreakpointsResponse['body']>('setBreakpoints', { source: { path: CRAWLER_TS }, breakpoints: [{ line }] });
    assert.equal(set.breakpoints[0]!.verified, true);
    await dap.request('setExceptionBreakpoints', { filters: [] });
    await dap.request('configurationDone');
    await launch;
    let stopped = await dap.waitForEvent('stopped');
    assert.equal(stopped.body.reason, 'breakpoint');
    // On to a hit of a worker with a few suspensions behind it.
    for (let i = 0; i < 30; i++) {
      thread = Number(stopped.body.threadId);
      if ((await moment(dap, thread)).steps >= 6) break;
      const from = dap.mark();
      await dap.request('continue', { threadId: thread });
      stopped = await dap.waitForEvent('stopped', { from });
      assert.equal(stopped.body.reason, 'breakpoint');
    }
    const frames = await stackOf(dap, thread);
    assert.ok(frames.some((f) => f.name === 'fetch' && f.line === line));
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
    assert.ok(then.steps < present.steps, `${then.steps} steps then, ${present.steps} now`);
    const frames = await stackOf(dap, thread);
    assert.match(frames[0]!.name, /^awaiting /);
    const { threads } = await dap.request<DebugProtocol.ThreadsResponse['body']>('threads');
    assert.ok(threads.some((t) => t.id === thread), 'the worker is a thread at the past tick');
  });

  it('Step Back again goes further back; Next moves forward one tick', async () => {
    let from = dap.mark();
    await dap.request('stepBack', { threadId: thread });
    await dap.waitForEvent('stopped', { from, predicate: (b) => b.reason === 'step' });
    const earlier = shownTick(dap, from);
    assert.ok(earlier < pastTick, `${earlier} < ${pastTick}`);
    from = dap.mark();
    await dap.request('next', { threadId: thread });
    await dap.waitForEvent('stopped', { from, predicate: (b) => b.reason === 'step' });
    assert.equal(shownTick(dap, from), earlier + 1);
  });

  it('Continue from the past returns to the present breakpoint stop; on to the next hit, Reverse Continue goes back to the stop before it', async () => {
    // Forward through the earlier breakpoint stops (each a later tick, replayed, shown as the live stop was: 'breakpoint'), then the present's own stop.
    let from = dap.mark();
    let last = 0;
    let back = null;
    for (let i = 0; i < 40 && back === null; i++) {
      from = dap.mark();
      await dap.request('continue', { threadId: thread });
      const stop = await dap.waitForEvent('stopped', { from });
      assert.equal(stop.body.reason, 'breakpoint');
      if (dap.events.slice(from).some((e) => e.event === 'output' && String(e.body.output).includes('back to the present'))) back = stop;
      else {
        const t = shownTick(dap, from);
        assert.ok(t > last && t < present.tick, `${last} < ${t} < ${present.tick}`);
        last = t;
      }
    }
    assert.ok(back !== null);
    assert.equal(back.body.threadId, thread);
    assert.match(dap.outputText(), /back to the present/);
    assert.deepEqual(await moment(dap, thread), present);
    from = dap.mark();
    await dap.request('continue', { threadId: thread });
    const second = await dap.waitForEvent('stopped', { from, predicate: (b) => b.reason === 'breakpoint' });
    from = dap.mark();
    await dap.request('reverseContinue', { threadId: Number(second.body.threadId) });
    const rewound = await dap.waitForEvent('stopped', { from });
    assert.equal(rewound.body.reason, 'breakpoint');
    assert.equal(rewound.body.description, 'Paused on breakpoint');
    const tick = shownTick(dap, from);
    assert.ok(tick > pastTick, `the first breakpoint stop (tick ${tick}) is after the step-back ticks (${pastTick})`);
    const frames = await stackOf(dap, thread);
    assert.ok(frames.some((f) => f.name === 'fetch' && f.line === line), 'at the first stop the worker is at the breakpoint line again');
    assert.equal(tick, present.tick);
  });

  it('Step Back in a run launched with record: false says it was not recorded', async () => {
    await dap.request('disconnect', {});
    await dap.close();
    dap = await start();
    const launch = dap.request('launch', { type: 'coroscope', request: 'launch', name: 'demo', crawl: 'demo', maxTasks: 2, record: false, stopOnEntry: true });
    await dap.waitForEvent('initialized');
    await dap.request('configurationDone');
    await launch;
    const stopped = await dap.waitForEvent('stopped');
    const r = await dap.requestRaw('stepBack', { threadId: Number(stopped.body.threadId) });
    assert.equal(r.success, false);
    assert.match(JSON.stringify(r.body), /was not recorded/);
  });
});
