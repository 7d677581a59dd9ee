// A forward step from a past line stops, as live, at a breakpoint its line's call runs in the same tick (a
// plain function, a `yield*` helper, a generator resumed by `next()`): js-debug's rule, a step stops at any
// breakpoint hit. The oracle is the live run: from a line stop, Step Over N times (each stop's file, line,
// task, tick and reason), then Step Back to the first stop and Step Over N times again in the past; the
// lists must be the same, the last step coming back to the live stop (the present).

import assert from 'node:assert/strict';
import { basename, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import { launchToStop, moveToStop, startAdapter, stopPlace } from './adapter-harness';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient, DapEvent } from './dap-client';

const FIXTURE = join(__dirname, 'fixtures', 'calls-with-breakpoints.ts');
const SAMPLES = join(PROJECT_ROOT, 'runtime', 'samples');
const GATHER = join(SAMPLES, 'gather-vs-ascompleted.ts');
const TRANSCRIPT = join(SAMPLES, 'transcript.ts');
const GENERATORS = join(SAMPLES, 'generators.ts');

interface Case {
  name: string;
  launch: Record<string, unknown>;
  /** Breakpoint lines by file; the first stop is at the first one's first line. */
  breakpoints: ReadonlyArray<readonly [string, number[]]>;
  /** How many Step Overs from the first stop. */
  steps: number;
  /** The breakpoint lines (file, line) live steps stop at in the first stop's tick, in order. */
  hits: ReadonlyArray<readonly [string, number]>;
}

const CASES: Case[] = [
  {
    name: 'a program: a plain call and a yield* helper, each with a breakpoint',
    launch: { program: FIXTURE },
    breakpoints: [
      [
        FIXTURE,
        [
          lineOf(FIXTURE, 'let total = base;'),
          lineOf(FIXTURE, 'const sum = values.reduce'),
          lineOf(FIXTURE, 'const doubled = n * 2;'),
        ],
      ],
    ],
    steps: 9,
    hits: [
      [FIXTURE, lineOf(FIXTURE, 'const sum = values.reduce')],
      [FIXTURE, lineOf(FIXTURE, 'const doubled = n * 2;')],
    ],
  },
  {
    name: 'gather-vs-ascompleted: Transcript.log with a breakpoint',
    launch: { sample: 'gather-vs-ascompleted' },
    breakpoints: [
      [GATHER, [lineOf(GATHER, 'const start = loop.time();')]],
      [TRANSCRIPT, [lineOf(TRANSCRIPT, 'this.lines.push(line);')]],
    ],
    steps: 5,
    hits: [[TRANSCRIPT, lineOf(TRANSCRIPT, 'this.lines.push(line);')]],
  },
  {
    name: 'generators: a generator resumed by next() with a breakpoint',
    launch: { sample: 'generators' },
    breakpoints: [
      [GENERATORS, [lineOf(GENERATORS, 'const totals = runningTotal();'), lineOf(GENERATORS, 'let total = 0;')]],
    ],
    steps: 6,
    hits: [[GENERATORS, lineOf(GENERATORS, 'let total = 0;')]],
  },
];

/** Where a stop stands: its reason, the loop's tick, its task's name, its top frame's file and line. */
interface Where {
  reason: string;
  tick: number;
  task: string;
  file: string;
  line: number;
}

async function whereOf(dap: DapClient, stop: DapEvent): Promise<Where> {
  const { reason, tick, task, top } = await stopPlace(dap, stop);
  return { reason, tick, task, file: basename(top.source?.path ?? ''), line: top.line };
}

const threadOf = (stop: DapEvent) => ({ threadId: Number(stop.body.threadId) });
const place = (w: Where) => [w.file, w.line, w.tick, w.task];

describe('A past step over a call stops at its breakpoint in the same tick, as live', { timeout: 600_000 }, () => {
  let dap: DapClient | null = null;
  after(async () => {
    await dap?.close();
  });

  for (const c of CASES)
    it(c.name, async () => {
      // A case failed before: its adapter closed (each case has its own).
      await dap?.close();
      dap = await startAdapter();
      const run = dap;
      let stop = await launchToStop(
        run,
        { type: 'coroscope', request: 'launch', name: c.name, ...c.launch },
        {
          configure: async () => {
            for (const [file, lines] of c.breakpoints)
              await run.request('setBreakpoints', {
                source: { path: file },
                breakpoints: lines.map((line) => ({ line })),
              });
          },
          exceptionFilters: [],
        },
      );
      const first = await whereOf(run, stop);
      assert.deepEqual([first.file, first.line], [basename(c.breakpoints[0]![0]), c.breakpoints[0]![1][0]]);
      const live: Where[] = [];
      for (let i = 0; i < c.steps; i++) {
        stop = await moveToStop(run, 'next', threadOf(stop));
        live.push(await whereOf(run, stop));
      }
      assert.deepEqual(
        live.filter((w) => w.reason === 'breakpoint' && w.tick === first.tick).map((w) => [w.file, w.line]),
        c.hits.map(([file, line]) => [basename(file), line]),
        `live, the steps stop at the breakpoints in the first stop's tick: ${JSON.stringify(live)}`,
      );
      // Back to the first stop, then the same steps in the past.
      let back = live[live.length - 1]!;
      for (let i = 0; i < 3 * c.steps && JSON.stringify(place(back)) !== JSON.stringify(place(first)); i++) {
        stop = await moveToStop(run, 'stepBack', threadOf(stop));
        back = await whereOf(run, stop);
      }
      assert.deepEqual(place(back), place(first), 'Step Back comes to the first stop');
      const past: Where[] = [];
      for (let i = 0; i < c.steps; i++) {
        stop = await moveToStop(run, 'next', threadOf(stop));
        past.push(await whereOf(run, stop));
      }
      assert.deepEqual(past, live, 'the past steps stop where the live steps stopped, for the same reasons');
      await run.close();
      dap = null;
    });
});
