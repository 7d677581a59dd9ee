// A step in the past behaves as the same step did live (issue 25): from a line stop, the live steps first,
// each stop's reason, thread, line and locals kept with the program output printed on the way (logpoints
// included); then Step Back to the first stop (printing nothing) and the same steps again, in the past: the
// same stops, for the same reasons, with the same output in the same order. One run is the oracle (the
// fixture's sleeps wake on the real clock: another launch may count its ticks otherwise).

import assert from 'node:assert/strict';
import { basename, join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import { launchToStop, localsOf, moveToStop, startAdapter, stopPlace } from './adapter-harness';
import type { DapClient, DapEvent } from './dap-client';

const FIXTURE = join(__dirname, 'fixtures', 'steps-as-live.ts');
const line = (needle: string): number => lineOf(FIXTURE, needle);
/** A worker's line calling a plain function twice (a breakpoint in it): out of the first call, mid-line. */
const MID = join(__dirname, 'fixtures', 'mid-line-steps.ts');
const midLine = (needle: string): number => lineOf(MID, needle);

interface Case {
  name: string;
  /** The program (default: steps-as-live.ts). */
  program?: string;
  /** The breakpoints set again at the first stop, while the run is held there (their hit counts start then). */
  atFirstStop?: DebugProtocol.SourceBreakpoint[];
  breakpoints: DebugProtocol.SourceBreakpoint[];
  /** The steps (or Continues) from the first stop (the first breakpoint's line). */
  steps: ReadonlyArray<'next' | 'stepIn' | 'stepOut' | 'continue'>;
  /**
   * How the test goes back to the first stop: Step Back (default), or Reverse Continue to its breakpoint's hit
   * (the live run went on past the first stop's tick).
   */
  back?: 'reverseContinue';
  /** What the live run must show for the case to test anything: a check of the live stops and output. */
  live: (stops: readonly Stop[]) => void;
}

/** One stop of a step: its reason, thread, top line and locals, and the program output printed on the way. */
interface Stop {
  reason: string;
  thread: number;
  task: string;
  tick: number;
  file: string;
  line: number;
  locals: Record<string, string>;
  printed: string[];
}

async function stopOf(dap: DapClient, stop: DapEvent, from: number): Promise<Stop> {
  const { reason, tick, task, top } = await stopPlace(dap, stop);
  const locals = Object.fromEntries(await localsOf(dap, top.id));
  return {
    reason,
    thread: Number(stop.body.threadId),
    task,
    tick,
    file: basename(top.source?.path ?? ''),
    line: top.line,
    locals,
    printed: printedSince(dap, from),
  };
}

/** The program's output (its own and its logpoints') since event `from`, as the Debug Console shows it. */
function printedSince(dap: DapClient, from: number): string[] {
  return dap.events
    .slice(from)
    .filter((e) => e.event === 'output' && e.body.category === 'stdout')
    .map((e) => String(e.body.output));
}

const CASES: Case[] = [
  {
    name: 'a step landing on a line with a breakpoint says breakpoint, back to the live stop too',
    breakpoints: [{ line: line('let total = base;') }, { line: line('total += 2;') }, { line: line('total += got;') }],
    steps: ['next', 'next', 'next', 'next', 'next'],
    live: (stops) =>
      assert.deepEqual(
        stops.map((s) => [s.line, s.reason]),
        [
          [line('total += 1;'), 'step'],
          [line('total += 2;'), 'breakpoint'],
          [line('shared.started = true;'), 'step'],
          [line('const got = yield* helper(total);'), 'step'],
          [line('total += got;'), 'breakpoint'],
        ],
      ),
  },
  {
    name: 'a step prints the logpoints on its way, as live (its task, a call, another task meanwhile)',
    breakpoints: [
      { line: line('let total = base;') },
      { line: line('total += 1;'), logMessage: 'worker at one: total={total}' },
      { line: line('const doubled = n * 2;'), logMessage: 'helper of {n}' },
      { line: line('beats += 1;'), logMessage: 'beat {beats}' },
      { line: line('return total;'), logMessage: 'returns {total}' },
    ],
    steps: ['next', 'next', 'next', 'next', 'next', 'next'],
    live: (stops) => {
      // Live, a logpoint prints where a step lands on its line, and on every line the step runs over.
      assert.deepEqual(
        stops.map((s) => s.line),
        [
          line('total += 1;'),
          line('total += 2;'),
          line('shared.started = true;'),
          line('const got'),
          line('total += got;'),
          // Over `total += got`, the step runs past the logpoint's line (it prints) to the function's end.
          line('return total;') + 1,
        ],
        JSON.stringify(stops),
      );
      assert.deepEqual(stops[0]!.printed, ['worker at one: total=5\n']);
      assert.deepEqual([stops[1]!.printed, stops[2]!.printed, stops[3]!.printed], [[], [], []]);
      assert.equal(stops[4]!.printed[0], 'helper of 8\n', JSON.stringify(stops[4]));
      assert.ok(stops[4]!.printed.length > 1 && stops[4]!.printed.slice(1).every((p) => /^beat \d+\n$/.test(p)));
      assert.deepEqual(stops[5]!.printed, ['returns 24\n']);
    },
  },
  {
    // Issue 25, gap 1: a logpoint's hit condition counts the run's hits from its start, as live counted them
    // (the ticker's polls before the first stop included), not from the moment the past step starts at.
    name: 'a step prints the logpoints with a hit condition as live, counted from the run start',
    breakpoints: [
      { line: line('let total = base;') },
      { line: line('while (!shared.started)'), logMessage: 'poll at {beats}', hitCondition: '>1' },
      { line: line('beats += 1;'), logMessage: 'beat {beats}', hitCondition: '%3' },
      { line: line('const doubled = n * 2;'), logMessage: 'helper of {n}', hitCondition: '==1' },
    ],
    steps: ['next', 'next', 'next', 'next', 'next', 'next'],
    live: (stops) => {
      const printed = stops.flatMap((s) => s.printed);
      // The ticker polls before the first stop: its last poll, after it, is past its first and prints.
      assert.ok(printed.includes('poll at 0\n'), JSON.stringify(stops));
      assert.ok(printed.includes('helper of 8\n'), JSON.stringify(stops));
      // Its third hit and every third after (a logpoint prints before its line runs: `beats` one less).
      const beats = printed.filter((p) => p.startsWith('beat '));
      assert.ok(beats.length > 0 && beats.every((p) => (Number(p.slice(5)) + 1) % 3 === 0), JSON.stringify(beats));
    },
  },
  {
    // A logpoint with a hit condition set while the run is held at a line stop counts, live, from then: its
    // hits later in that tick too (here the ticker's loop line, once, after its stop), so its count in later
    // ticks is one more than a count from the next tick's start; the past counts as live did.
    name: 'a step prints a logpoint with a hit condition set at the stop, counted from then, as live',
    breakpoints: [{ line: line('beats += 1;') }],
    atFirstStop: [
      { line: line('beats += 1;') },
      { line: lineOf(FIXTURE, 'yield* sleep(0);', line('for (let i')), logMessage: 'beat {beats}', hitCondition: '%2' },
    ],
    steps: ['next', 'next', 'next', 'next', 'next', 'next'],
    back: 'reverseContinue',
    live: (stops) => {
      // Its first hit, in the stop's tick, is its count 1: the even counts print, from the next tick on.
      assert.equal(stops[0]!.line, lineOf(FIXTURE, 'yield* sleep(0);', line('for (let i')), JSON.stringify(stops));
      assert.deepEqual(stops[0]!.printed, [], JSON.stringify(stops));
      const beats = stops.flatMap((s) => s.printed);
      assert.deepEqual(beats, ['beat 2\n'], JSON.stringify(stops));
    },
  },
  {
    // Issue 25: a Continue in the past prints the logpoints it runs through, as the live Continue did: to a
    // breakpoint's hit in the same tick, then to the live stop in a later tick (another task's meanwhile).
    name: 'a Continue prints the logpoints on its way, as live',
    breakpoints: [
      { line: line('let total = base;') },
      { line: line('total += 1;'), logMessage: 'worker at one: total={total}' },
      { line: line('const doubled = n * 2;') },
      { line: line('return doubled;'), logMessage: 'helper returns {doubled}' },
      { line: line('beats += 1;'), logMessage: 'beat {beats}', hitCondition: '%4' },
      { line: line('total += got;') },
    ],
    steps: ['continue', 'continue'],
    back: 'reverseContinue',
    live: (stops) => {
      assert.deepEqual(
        stops.map((s) => [s.line, s.reason]),
        [
          [line('const doubled = n * 2;'), 'breakpoint'],
          [line('total += got;'), 'breakpoint'],
        ],
      );
      assert.deepEqual(stops[0]!.printed, ['worker at one: total=5\n']);
      assert.equal(stops[1]!.printed.at(-1), 'helper returns 16\n', JSON.stringify(stops[1]));
      assert.ok(
        stops[1]!.printed.some((p) => p.startsWith('beat ')),
        JSON.stringify(stops[1]),
      );
    },
  },
  {
    // Issue 25: a step from a point mid-line (back from a first call, before a second, in the same tick) stops
    // at a breakpoint in that second call, and prints the logpoints on its way, as live.
    name: 'a step from mid-line (back from a call) prints the logpoints on its way, as live',
    program: MID,
    breakpoints: [
      { line: midLine('let total = base;') },
      { line: midLine('const h = n / 2;') },
      { line: midLine('const first = n + 1;') },
      { line: midLine('yield n + 2;'), logMessage: 'second of {n}' },
      { line: midLine('total += 1;'), logMessage: 'after halves {total}' },
    ],
    steps: ['next', 'next', 'next', 'next', 'next', 'next', 'next', 'next', 'next', 'next', 'next', 'next', 'next'],
    live: (stops) => {
      assert.deepEqual(
        stops.map((s) => [s.line, s.reason, s.printed]),
        [
          [midLine('total = half('), 'step', []],
          [midLine('const h = n / 2;'), 'breakpoint', []],
          [midLine('return h;') + 1, 'step', []],
          // Back from the first call: mid-line, before the second; the next step stops in that call.
          [midLine('total = half('), 'step', []],
          [midLine('const h = n / 2;'), 'breakpoint', []],
          [midLine('return h;') + 1, 'step', []],
          [midLine('const it = pair'), 'step', []],
          [midLine('total = it.next()'), 'step', []],
          [midLine('const first = n + 1;'), 'breakpoint', []],
          [midLine('yield first;'), 'step', []],
          // Back from the first `next()`, mid-line: the step runs the second (its logpoint) to the next line.
          [midLine('total = it.next()'), 'step', []],
          [midLine('total += 1;'), 'step', ['second of 6\n', 'after halves 21\n']],
          [midLine('return total;') + 1, 'step', []],
        ],
      );
    },
  },
  {
    // Through the debugger a breakpoint on a `yield*` line stops before the line runs (issue 26: a line
    // breakpoint, not the loop's); the loop's own, set through the host protocol, is
    // past-step-loop-breakpoint.test.ts's.
    name: "a step over a call stops at a breakpoint on another task's yield* line run meanwhile, as live",
    breakpoints: [
      { line: line('let total = base;') },
      { line: lineOf(FIXTURE, 'yield* sleep(0);', line('for (let i')) },
    ],
    // The last step goes on from the ticker's stop: that stop is then no present.
    steps: ['next', 'next', 'next', 'next', 'next', 'next'],
    back: 'reverseContinue',
    live: (stops) =>
      assert.deepEqual(
        stops.slice(0, 5).map((s) => [s.task, s.line, s.reason]),
        [
          ['worker', line('total += 1;'), 'step'],
          ['worker', line('total += 2;'), 'step'],
          ['worker', line('shared.started = true;'), 'step'],
          ['worker', line('const got'), 'step'],
          // The ticker at its loop's `yield*` line, run while the worker waits: the step stops there.
          ['ticker', lineOf(FIXTURE, 'yield* sleep(0);', line('for (let i')), 'breakpoint'],
        ],
        JSON.stringify(stops),
      ),
  },
];

const threadOf = (stop: DapEvent) => ({ threadId: Number(stop.body.threadId) });
const place = (s: Stop) => [s.thread, s.tick, s.line, s.locals];

describe('A step in the past behaves as the same step did live', { timeout: 600_000 }, () => {
  let dap: DapClient | null = null;
  after(async () => {
    await dap?.close();
  });

  for (const c of CASES)
    it(c.name, async () => {
      await dap?.close();
      dap = await startAdapter();
      const run = dap;
      let mark = run.mark();
      let stop = await launchToStop(
        run,
        { type: 'coroscope', request: 'launch', name: c.name, program: c.program ?? FIXTURE },
        {
          configure: async () =>
            void (await run.request('setBreakpoints', {
              source: { path: c.program ?? FIXTURE },
              breakpoints: c.breakpoints,
            })),
          exceptionFilters: [],
        },
      );
      let first = await stopOf(run, stop, mark);
      assert.equal(first.line, c.breakpoints[0]!.line);
      if (c.atFirstStop !== undefined) {
        await run.request('setBreakpoints', { source: { path: c.program ?? FIXTURE }, breakpoints: c.atFirstStop });
        // The same stop, its output since launch left out of the comparison.
        first = { ...first, printed: [] };
      }
      const live: Stop[] = [];
      for (const step of c.steps) {
        mark = run.mark();
        stop = await moveToStop(run, step, threadOf(stop));
        live.push(await stopOf(run, stop, mark));
      }
      c.live(live);
      // Back to the first stop: a step back prints nothing.
      mark = run.mark();
      let back = live[live.length - 1]!;
      for (let i = 0; i < 4 * c.steps.length && JSON.stringify(place(back)) !== JSON.stringify(place(first)); i++) {
        stop = await moveToStop(run, c.back ?? 'stepBack', threadOf(stop));
        back = await stopOf(run, stop, run.mark());
      }
      assert.deepEqual(place(back), place(first), 'Step Back comes to the first stop');
      assert.deepEqual(printedSince(run, mark), [], 'Step Back prints nothing');
      const past: Stop[] = [];
      for (const step of c.steps) {
        mark = run.mark();
        stop = await moveToStop(run, step, threadOf(stop));
        past.push(await stopOf(run, stop, mark));
      }
      assert.deepEqual(past, live, 'the past steps stop where the live ones did, saying and printing the same');
      await run.close();
      dap = null;
    });
});
