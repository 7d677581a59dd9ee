// Walking back over loops written on one line (a line the task runs many times in a row is one line of the walk,
// passed at full speed: past-line-walk.ts's skipRepeats): from a line stop, the live Step Overs are kept (line,
// tick, locals), then Step Back goes back through each of them in turn to the first stop, across the task's
// suspensions, each stop equal to the live one; and Go to Last Change of a local set before the loops lands
// where the live step saw it first. A live Step Over of such a line that turns a thousand times lands on the
// next line (it gave up on the same line after 400 pauses, 13 s each time), and Step Back from there comes back.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import { launchToStop, localsOf, moveToStop, scopeOf, startAdapter, stopPlace } from './adapter-harness';
import type { DapClient, DapEvent } from './dap-client';

const FIXTURE = join(__dirname, 'fixtures', 'one-line-loops.ts');
const LONG_LOOP = join(__dirname, 'fixtures', 'long-one-line-loop.ts');
const line = (needle: string): number => lineOf(FIXTURE, needle);

interface Stop {
  task: string;
  tick: number;
  line: number;
  locals: Record<string, string>;
}

async function stopOf(dap: DapClient, stop: DapEvent): Promise<Stop> {
  const { tick, task, top } = await stopPlace(dap, stop);
  return { task, tick, line: top.line, locals: Object.fromEntries(await localsOf(dap, top.id)) };
}

const threadOf = (stop: DapEvent) => ({ threadId: Number(stop.body.threadId) });

describe('Step Back and Go to Last Change over loops on one line', { timeout: 300_000 }, () => {
  let dap: DapClient | null = null;
  after(async () => {
    await dap?.close();
  });

  it('go back through the live stops one by one, across suspensions, to the line that set a local', async () => {
    dap = await startAdapter();
    const run = dap;
    let stop = await launchToStop(
      run,
      { type: 'coroscope', request: 'launch', name: 'one-line loops', program: FIXTURE },
      {
        configure: async () =>
          void (await run.request('setBreakpoints', {
            source: { path: FIXTURE },
            breakpoints: [{ line: line('const factor = scale * 7;') }, { line: line('sum += count;') }],
          })),
        exceptionFilters: [],
      },
    );
    const live: Stop[] = [await stopOf(run, stop)];
    while (live[live.length - 1]!.line !== line('sum += count;')) {
      assert.ok(live.length < 30, JSON.stringify(live.map((s) => s.line)));
      stop = await moveToStop(run, 'next', threadOf(stop));
      live.push(await stopOf(run, stop));
    }
    // The live steps ran each loop on its line as one step, and crossed two suspensions.
    assert.deepEqual(
      live.map((s) => s.line),
      [
        line('const factor'),
        line('const items'),
        line('for (let i = 0'),
        line('let sum = 0;'),
        line('yield* sleep(0);'),
        line('for (const x of items)'),
        line('let count = 0;'),
        line('while (count < 40)'),
        lineOf(FIXTURE, 'yield* sleep(0);', line('while (count < 40)')),
        line('sum += count;'),
      ],
    );
    assert.equal(new Set(live.map((s) => s.tick)).size, 3, 'three steps of the task');
    // Go to Last Change of `factor` (set in the task's first step, before its first loop): the line after it,
    // as the live step showed it.
    const { ref } = await scopeOf(run, (await stopPlace(run, stop)).top.id, 'Locals');
    let from = run.mark();
    await run.request('coroscope/lastChange', { variablesReference: ref, name: 'factor' });
    stop = await run.waitForEvent('stopped', { from, timeoutMs: 120_000 });
    assert.deepEqual(await stopOf(run, stop), live[1], 'Go to Last Change lands where the live step saw factor first');
    // Continue to the breakpoint on the live stop's line (its hit there is the present); then Step Back, stop by
    // stop, each the live one.
    from = run.mark();
    await run.request('continue', threadOf(stop));
    stop = await run.waitForEvent('stopped', { from, timeoutMs: 120_000 });
    assert.deepEqual(await stopOf(run, stop), live[live.length - 1], 'back at the live stop');
    const back: Stop[] = [];
    for (let i = live.length - 2; i >= 0; i--) {
      stop = await moveToStop(run, 'stepBack', threadOf(stop));
      back.push(await stopOf(run, stop));
    }
    assert.deepEqual(back, live.slice(0, -1).reverse(), 'each Step Back stops where the live step before did');
    await run.close();
    dap = null;
  });

  it('a live Step Over of a one-line loop of a thousand turns lands on the next line, and Step Back comes back', async () => {
    dap = await startAdapter();
    const run = dap;
    const at = (needle: string): number => lineOf(LONG_LOOP, needle);
    let stop = await launchToStop(
      run,
      { type: 'coroscope', request: 'launch', name: 'long loop', program: LONG_LOOP },
      {
        configure: async () =>
          void (await run.request('setBreakpoints', {
            source: { path: LONG_LOOP },
            breakpoints: [{ line: at('for (const n of items)') }],
          })),
        exceptionFilters: [],
      },
    );
    const before = await stopOf(run, stop);
    assert.equal(before.line, at('for (const n of items)'));
    assert.equal(before.locals.count, '0');
    stop = await moveToStop(run, 'next', threadOf(stop));
    const after = await stopOf(run, stop);
    assert.deepEqual([after.line, after.locals.count, after.tick], [at('const thirds = count;'), '334', before.tick]);
    stop = await moveToStop(run, 'stepBack', threadOf(stop));
    assert.deepEqual(await stopOf(run, stop), before, 'Step Back lands where the live stop was');
    await run.close();
    dap = null;
  });
});
