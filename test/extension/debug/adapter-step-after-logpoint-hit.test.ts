// Step Over from a past logpoint's hit, as VS Code drives the standalone adapter: gather-vs-ascompleted
// stopped live on URL1's `done` line, a breakpoint there; a logpoint on `return [url, seconds]` lists URL2's
// and URL3's returns; gone to URL2's, Step Over goes past the task's last line (its coroutine returns) as the
// live step does, to the next line the loop runs: compareWaits taking URL2's result from asCompleted,
// replayed, not the live stop. The same run's live Step Over from that return, taken first, is the oracle.
// Continue from there meets URL3's `done` breakpoint, in the past, then the live stop.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import {
  goToLogpointHit,
  launchToStop,
  listLogpointHits,
  localsOf,
  moveToStop,
  startAdapter,
  stopPlace,
} from './adapter-harness';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient, DapEvent } from './dap-client';

const FILE = join(PROJECT_ROOT, 'runtime', 'samples', 'gather-vs-ascompleted.ts');
const DONE = lineOf(FILE, 't.log(`  done: ${url} took');
const RETURN = lineOf(FILE, 'return [url, seconds];');
const HANDLED = lineOf(FILE, 'completed.push(url);');
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

describe('Step Over from a past logpoint hit (standalone adapter)', { timeout: 300_000 }, () => {
  let dap: DapClient | null = null;
  after(async () => {
    await dap?.close();
  });

  it("lands where the live step over landed: the awaiter's next line, in the past", async () => {
    // The oracle, in the same run (the sleeps wake on the real clock: another run may count its ticks
    // otherwise): live, from URL2's `done`, Step Over to its return, then Step Over from the return.
    const d = (dap = await startAdapter());
    let stop = await launchToStop(d, SAMPLE, {
      configure: async () =>
        void (await d.request('setBreakpoints', {
          source: { path: FILE },
          breakpoints: [{ line: DONE }, { line: RETURN }],
        })),
      exceptionFilters: [],
    });
    const first = await whereOf(d, stop);
    assert.deepEqual([first.task, first.line], ['URL2', DONE]);
    const live: Where[] = [];
    for (let i = 0; i < 2; i++) {
      stop = await moveToStop(d, 'next', { threadId: Number(stop.body.threadId) });
      live.push(await whereOf(d, stop));
    }
    const [atReturn, oracle] = [live[0]!, live[1]!];
    assert.deepEqual(
      live.map((w) => [w.task, w.line, w.reason]),
      [
        // The step lands on a line holding a breakpoint: said as that breakpoint's.
        ['URL2', RETURN, 'breakpoint'],
        // URL2's task ends: the step lapses to the next line the loop runs, compareWaits handling its result.
        ['compareWaits', HANDLED, 'step'],
      ],
      'live: Step Over from URL2 `return` lands on the line taking its result',
    );

    // On to URL3's `done`, then URL1's (the present), the return's breakpoint gone; a logpoint there lists the
    // returns.
    await d.request('setBreakpoints', { source: { path: FILE }, breakpoints: [{ line: DONE }] });
    stop = await moveToStop(d, 'continue', { threadId: Number(stop.body.threadId) });
    const url3Live = await whereOf(d, stop);
    assert.deepEqual([url3Live.task, url3Live.line], ['URL3', DONE]);
    stop = await moveToStop(d, 'continue', { threadId: Number(stop.body.threadId) });
    const present = await whereOf(d, stop);
    assert.deepEqual([present.task, present.line], ['URL1', DONE]);
    const hits = await listLogpointHits(d, FILE, [{ line: DONE }, { line: RETURN, logMessage: 'returns {url}' }]);
    assert.deepEqual(
      hits.map((h) => h.task),
      ['URL2', 'URL3'],
    );
    assert.equal(hits[0]!.tick, atReturn.tick);
    stop = await goToLogpointHit(d, hits[0]!.hit);
    const hit = await whereOf(d, stop);
    assert.deepEqual([hit.task, hit.line, hit.tick, hit.url], ['URL2', RETURN, atReturn.tick, 'URL2']);

    stop = await moveToStop(d, 'next', { threadId: Number(stop.body.threadId) });
    const next = await whereOf(d, stop);
    assert.deepEqual(next, oracle, 'Step Over lands on the live step over landing, replayed');
    assert.ok(next.tick < present.tick, 'in the past, before the live stop');
    // Continue from there goes on through the past: URL3's `done` breakpoint, then the live stop.
    stop = await moveToStop(d, 'continue', { threadId: Number(stop.body.threadId) });
    const url3 = await whereOf(d, stop);
    assert.deepEqual(url3, url3Live, "URL3's `done` as the live run met it, replayed");
    stop = await moveToStop(d, 'continue', { threadId: Number(stop.body.threadId) });
    const back = await whereOf(d, stop);
    assert.deepEqual([back.task, back.line, back.tick], [present.task, present.line, present.tick]);
  });
});
