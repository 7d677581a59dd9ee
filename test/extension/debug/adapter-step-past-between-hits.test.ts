// A step from a past line whose task's next line is in a later tick stops, as live, at another task's
// breakpoint hit on the way: gather-vs-ascompleted, a breakpoint on getUrl's `yield* sleep(seconds)`, which
// URL1, URL2 and URL3 run in turn in one tick. Live, Step Over from URL2's line stops at URL3's hit (js-debug's
// rule: a step stops at any breakpoint hit). In the past (URL2's hit gone back to by Reverse Continue from a later
// stop) the same step must stop there too, not on URL2's `done` line ticks later; the next steps (URL3's own next
// line ticks later, no hit between, and the line after) land as live. The live steps are the oracle.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import { launchToStop, localsOf, moveToStop, startAdapter, stopPlace } from './adapter-harness';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient, DapEvent } from './dap-client';

const FILE = join(PROJECT_ROOT, 'runtime', 'samples', 'gather-vs-ascompleted.ts');
const SLEEP = lineOf(FILE, 'yield* sleep(seconds);');
const RETURN = lineOf(FILE, 'return [url, seconds];');
const SAMPLE = { type: 'coroscope', request: 'launch', name: 'gather', sample: 'gather-vs-ascompleted' };

/** Where a stop stands: its reason, the loop's tick, its task's name, top line and `url`. */
interface Where {
  reason: string;
  tick: number;
  task: string;
  line: number;
  url: string;
}

async function whereOf(dap: DapClient, stop: DapEvent): Promise<Where> {
  const { reason, tick, task, top } = await stopPlace(dap, stop);
  const locals = await localsOf(dap, top.id);
  return { reason, tick, task, line: top.line, url: JSON.parse(locals.get('url') ?? 'null') as string };
}

/** The adapter of the launch under way: closed by the next launch and after the tests, even a failed one's. */
let current: DapClient | null = null;

async function launched(lines: readonly number[] = [SLEEP]): Promise<{ dap: DapClient; stop: DapEvent }> {
  await current?.close();
  const dap = await startAdapter();
  current = dap;
  const breakpoints = lines.map((line) => ({ line }));
  const stop = await launchToStop(dap, SAMPLE, {
    configure: async () => void (await dap.request('setBreakpoints', { source: { path: FILE }, breakpoints })),
    exceptionFilters: [],
  });
  return { dap, stop };
}

const threadOf = (stop: DapEvent) => ({ threadId: Number(stop.body.threadId) });

describe('A past step stops at a breakpoint hit between its line and its landing', { timeout: 300_000 }, () => {
  after(async () => {
    await current?.close();
  });

  it('Step Over from a past hit stops where the live Step Over stops', async () => {
    // The oracle: live, from URL2's `yield* sleep` (URL1's hit, then Continue), in the same run as the past
    // steps below: the sleeps' wake-ups run on the real clock, so another run may count its ticks otherwise.
    const run = await launched();
    let stop = await moveToStop(run.dap, 'continue', threadOf(run.stop));
    const from = await whereOf(run.dap, stop);
    assert.deepEqual([from.task, from.line, from.reason], ['URL2', SLEEP, 'breakpoint']);
    const live: Where[] = [];
    for (let i = 0; i < 3; i++) {
      stop = await moveToStop(run.dap, 'next', threadOf(stop));
      live.push(await whereOf(run.dap, stop));
    }
    assert.deepEqual(
      [live[0]!.task, live[0]!.line, live[0]!.tick, live[0]!.reason],
      ['URL3', SLEEP, from.tick, 'breakpoint'],
      'live: the step stops at URL3 running the breakpoint line in the same tick',
    );
    // Then URL3's own next line, ticks later (no hit between), and the line after it.
    assert.deepEqual(
      live.slice(1).map((w) => [w.task, w.line > SLEEP, w.tick > from.tick]),
      [
        ['URL3', true, true],
        ['URL3', true, true],
      ],
    );

    // The past: on to a later stop (asCompleted's URL1), back by Reverse Continue to URL2's hit, then the same
    // steps.
    stop = await moveToStop(run.dap, 'continue', threadOf(stop));
    const present = await whereOf(run.dap, stop);
    assert.ok(present.tick > live[2]!.tick, `a later stop: ${JSON.stringify(present)}`);
    for (let i = 0; i < 2; i++) stop = await moveToStop(run.dap, 'reverseContinue', threadOf(stop));
    const back = await whereOf(run.dap, stop);
    assert.deepEqual([back.task, back.line, back.tick, back.url], [from.task, from.line, from.tick, from.url]);
    const past: Where[] = [];
    for (let i = 0; i < 3; i++) {
      stop = await moveToStop(run.dap, 'next', threadOf(stop));
      past.push(await whereOf(run.dap, stop));
    }
    assert.deepEqual(past, live, 'the past steps stop where the live steps stopped');
    // Continue from there goes on through the past: the next hit is the live stop's.
    stop = await moveToStop(run.dap, 'continue', threadOf(stop));
    const onward = await whereOf(run.dap, stop);
    assert.deepEqual([onward.task, onward.line, onward.tick], [present.task, present.line, present.tick]);
  });

  it("Step Over from the step before a live stop's stops where the live Step Over stops", async () => {
    // The oracle: live, from URL2's `yield* sleep`, breakpoints there and on `return`.
    let run = await launched([SLEEP, RETURN]);
    let stop = await moveToStop(run.dap, 'continue', threadOf(run.stop));
    const from = await whereOf(run.dap, stop);
    stop = await moveToStop(run.dap, 'next', threadOf(stop));
    const live = await whereOf(run.dap, stop);
    assert.deepEqual([live.task, live.line, live.tick], ['URL3', SLEEP, from.tick]);

    // The past: on to URL2's `return` (a live line stop), two lines back (its `done`, then its step before's
    // `yield* sleep`), then the same step: into the live stop's step, where URL3's hit came first.
    run = await launched([SLEEP, RETURN]);
    stop = run.stop;
    for (let i = 0; i < 3; i++) stop = await moveToStop(run.dap, 'continue', threadOf(stop));
    const present = await whereOf(run.dap, stop);
    assert.deepEqual([present.task, present.line], ['URL2', RETURN]);
    for (let i = 0; i < 2; i++) stop = await moveToStop(run.dap, 'stepBack', threadOf(stop));
    const back = await whereOf(run.dap, stop);
    assert.deepEqual([back.task, back.line, back.tick], [from.task, from.line, from.tick]);
    stop = await moveToStop(run.dap, 'next', threadOf(stop));
    assert.deepEqual(await whereOf(run.dap, stop), live, 'the past step stops where the live step stopped');
  });
});
