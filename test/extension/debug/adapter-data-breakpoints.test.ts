// A data breakpoint on a field watches one object (issue 28), in the standalone debug adapter over DAP, on
// fixtures/account-transfers.ts: three tasks transfer between alice and bob in turn. From the first task's
// stop, a data breakpoint on `to.balance` (bob's, asked before `to` is expanded) and Continue, again and
// again: each stop is the line after a write to bob's balance, whichever task made it and by whichever name
// (`to` in the first two, `from` in the third, whose `to` is alice), then Continue says no write is left.
// Back from the third task's first line, Go to Last Change on its `to.balance` (alice's, written by the
// others while it waited for the lock) says so, where the task first sees the value, instead of taking the
// wait's line for the writer and going on back to a refusal. The same Continues from the first task's line
// found again in the finished run's past land where the live ones did. Go to Last Change from a line of a live
// stop's past reads the line shown again after the scan of other tasks' writes read the values back there.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import type { DapClient } from './dap-client';
import { initialize, launchToStop, moveToStop, scopeOf, spawnAdapter, stackOf, stopPlace } from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'account-transfers.ts');
const BEFORE_LINE = lineOf(PROGRAM, 'const before = from.balance;');
const TO_LINE = lineOf(PROGRAM, 'to.balance += amount;');
const RELEASE_LINE = lineOf(PROGRAM, 'lock.release();');
const ACQUIRE_LINE = lineOf(PROGRAM, 'yield* lock.acquire();');

/** Where the live run's data breakpoint on bob's balance stops, Continue after Continue from the first task's line. */
const LIVE_LANDINGS = [
  { task: 'first', line: RELEASE_LINE, bob: '130', said: 'Coroscope: Continue: to.balance changed: 100 → 130' },
  { task: 'second', line: RELEASE_LINE, bob: '180', said: 'Coroscope: Continue: to.balance changed: 130 → 180' },
  // The third task writes bob's balance as its `from`; its own `to` (alice) is not the watched object.
  { task: 'third', line: TO_LINE, bob: '170', said: 'Coroscope: Continue: to.balance changed: 180 → 170' },
];

/** A launch stopped at the `hit`th run of the line `const before = ...` (the breakpoint then cleared). */
async function stoppedAtBefore(dap: DapClient, hit: number): Promise<number> {
  await initialize(dap, { supportsVariableType: true });
  const stop = await launchToStop(
    dap,
    { type: 'coroscope', request: 'launch', name: 'transfers', program: PROGRAM },
    {
      configure: async (d) => {
        await d.request('setBreakpoints', {
          source: { path: PROGRAM },
          breakpoints: [{ line: BEFORE_LINE, hitCondition: `== ${hit}` }],
        });
      },
      exceptionFilters: [],
    },
  );
  await dap.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [] });
  return Number(stop.body.threadId);
}

/** The reference of a local of the stop's top frame (an object: its fields' container). */
async function localRef(dap: DapClient, threadId: number, name: string): Promise<number> {
  const frame = (await stackOf(dap, threadId))[0]!;
  const local = (await scopeOf(dap, frame.id, 'Locals')).variables.get(name);
  assert.ok(local !== undefined && local.variablesReference > 0, `${name} in Locals`);
  return local.variablesReference;
}

/** One Continue's landing with the data breakpoint set: task, line, the watched balance there, the console's words. */
interface Landing {
  task: string;
  line: number;
  bob: string;
  said: string;
}

/**
 * A data breakpoint on `to.balance` of the stop on `threadId`, then Continue three times (reading bob's
 * balance by the name the landing task has for it) and once more: the landings and the last refusal.
 */
async function continuesOnBobsBalance(
  dap: DapClient,
  threadId: number,
): Promise<{ landings: Landing[]; refusal: string }> {
  const to = await localRef(dap, threadId, 'to');
  const info = await dap.request<DebugProtocol.DataBreakpointInfoResponse['body']>('dataBreakpointInfo', {
    variablesReference: to,
    name: 'balance',
  });
  assert.ok(typeof info.dataId === 'string', info.description);
  const set = await dap.request<DebugProtocol.SetDataBreakpointsResponse['body']>('setDataBreakpoints', {
    breakpoints: [{ dataId: info.dataId, accessType: 'write' }],
  });
  assert.equal(set.breakpoints[0]?.verified, true);
  const landings: Landing[] = [];
  for (const name of ['to', 'to', 'from']) {
    const from = dap.mark();
    const stop = await moveToStop(dap, 'continue', { threadId });
    const place = await stopPlace(dap, stop);
    const bob = await dap.request<DebugProtocol.EvaluateResponse['body']>('evaluate', {
      expression: `${name}.balance`,
      frameId: place.top.id,
      context: 'watch',
    });
    const said = dap.events
      .slice(from)
      .filter((e) => e.event === 'output')
      .map((e) => String(e.body.output))
      .find((o) => o.includes('to.balance changed'));
    landings.push({ task: place.task, line: place.top.line, bob: bob.result, said: said?.split(', first')[0] ?? '' });
  }
  const last = await dap.requestRaw('continue', { threadId });
  assert.equal(last.success, false);
  return { landings, refusal: (last.body as { error?: { format?: string } } | undefined)?.error?.format ?? '' };
}

describe('data breakpoints on a field', () => {
  it("Continue stops after each write to the watched object's field, by any task and any name", async () => {
    const dap = await spawnAdapter();
    try {
      const threadId = await stoppedAtBefore(dap, 1);
      assert.equal((await stopPlace(dap, await dap.waitForEvent('stopped', { from: 0 }))).task, 'first');
      const { landings, refusal } = await continuesOnBobsBalance(dap, threadId);
      assert.deepEqual(landings, LIVE_LANDINGS);
      assert.ok(refusal.startsWith('Continue: no later change of to.balance'), refusal);
    } finally {
      await dap.close();
    }
  });

  it("in a finished run's past, from the first task's line found again: the live run's landings", async () => {
    const dap = await spawnAdapter();
    try {
      await initialize(dap, { supportsVariableType: true });
      const end = await launchToStop(
        dap,
        { type: 'coroscope', request: 'launch', name: 'transfers', program: PROGRAM },
        { exceptionFilters: [] },
      );
      assert.equal(end.body.reason, 'end');
      // The first transfer's line, found again by Reverse Continue (the one moving 30), the breakpoint then cleared.
      await dap.request('setBreakpoints', {
        source: { path: PROGRAM },
        breakpoints: [{ line: BEFORE_LINE, condition: 'amount === 30' }],
      });
      const hit = await moveToStop(dap, 'reverseContinue', { threadId: Number(end.body.threadId) });
      const place = await stopPlace(dap, hit);
      assert.deepEqual([place.task, place.top.line], ['first', BEFORE_LINE]);
      await dap.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [] });
      const { landings, refusal } = await continuesOnBobsBalance(dap, Number(hit.body.threadId));
      // Where the live data breakpoint stopped (the test above), by the same task, line and value, in the same words.
      assert.deepEqual(landings, LIVE_LANDINGS);
      // The recording ends there: the walk reached the run's end.
      assert.ok(refusal.startsWith("Continue: no later change of to.balance in the task's lines"), refusal);
    } finally {
      await dap.close();
    }
  });

  it('Go to Last Change on a field others wrote while the task waited: said so where it first sees it', async () => {
    const dap = await spawnAdapter();
    try {
      const threadId = await stoppedAtBefore(dap, 3);
      const to = await localRef(dap, threadId, 'to');
      const from = dap.mark();
      const r = await dap.requestRaw('coroscope/lastChange', { variablesReference: to, name: 'balance' });
      const refusal = (r.body as { error?: { format?: string } } | undefined)?.error?.format;
      assert.equal(r.success, true, refusal);
      const stop = await dap.waitForEvent('stopped', { from });
      const place = await stopPlace(dap, stop);
      assert.deepEqual([place.task, place.top.line], ['third', BEFORE_LINE]);
      const said = dap.events
        .slice(from)
        .filter((e) => e.event === 'output')
        .map((e) => String(e.body.output))
        .find((o) => o.startsWith('Coroscope: Go to Last Change:'));
      // The console is the only place this answer is given (no DAP field holds it).
      const wait = `to.balance changed while ${PROGRAM}:${ACQUIRE_LINE} ran (ticks 2 to ${place.tick}, third), which does not assign it`;
      assert.ok(said?.includes(wait) === true, said);
      assert.ok(said.includes('100 → 20; shown where third first sees the new value'), said);
    } finally {
      await dap.close();
    }
  });
});

/**
 * From the second transfer's `to.balance += amount`, stepped back to from its live stop at `lock.release()`: Go
 * to Last Change on `from.balance`, which the line just before wrote (passed over), and others before the wait.
 * The scan of other tasks' writes reads the values back first (the task's own write in this tick: not one of
 * theirs), and the walk then reads the line shown again: where it lands, and what it says.
 */
async function lastChangeFromLivePast(lineByLine: boolean): Promise<{ place: [string, number, number]; said: string }> {
  const dap = await spawnAdapter({ ...process.env, COROSCOPE_CHANGES_LINE_BY_LINE: lineByLine ? '1' : '0' });
  try {
    await initialize(dap, { supportsVariableType: true });
    const live = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'transfers', program: PROGRAM },
      {
        configure: async (d) => {
          await d.request('setBreakpoints', {
            source: { path: PROGRAM },
            breakpoints: [{ line: RELEASE_LINE, hitCondition: '== 2' }],
          });
        },
        exceptionFilters: [],
      },
    );
    await dap.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [] });
    const back = await moveToStop(dap, 'stepBack', { threadId: Number(live.body.threadId) });
    const shown = await stopPlace(dap, back);
    assert.deepEqual([shown.task, shown.top.line], ['second', TO_LINE]);
    const from = dap.mark();
    const r = await dap.requestRaw('coroscope/lastChange', {
      variablesReference: await localRef(dap, Number(back.body.threadId), 'from'),
      name: 'balance',
    });
    const refusal = (r.body as { error?: { format?: string } } | undefined)?.error?.format;
    assert.equal(r.success, true, refusal);
    const place = await stopPlace(dap, await dap.waitForEvent('stopped', { from }));
    const said = dap.events
      .slice(from)
      .filter((e) => e.event === 'output')
      .map((e) => String(e.body.output))
      .filter((o) => o.startsWith('Coroscope: Go to Last Change:'))
      .join('')
      .replace(/ in \d+ ms/g, ' in N ms');
    return { place: [place.task, place.top.line, place.tick], said };
  } finally {
    await dap.close();
  }
}

describe("Go to Last Change from a line of a live stop's past", () => {
  it('on a field the task wrote in that tick: lands where the line-by-line walk does, in its words', async () => {
    const oracle = await lastChangeFromLivePast(true);
    const fast = await lastChangeFromLivePast(false);
    assert.deepEqual(fast.place, oracle.place);
    // Passed over the write on the line just before; before it, the value alice's balance had when second resumed.
    assert.deepEqual(oracle.place.slice(0, 2), ['second', BEFORE_LINE]);
    assert.equal(
      fast.said.replace(/\d+ line\(s\) walked/, 'N lines walked'),
      oracle.said.replace(/\d+ line\(s\) walked/, 'N lines walked'),
    );
  });
});
