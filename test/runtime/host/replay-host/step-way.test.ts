// Tests of what a forward search from a past line tells beside its landing
// (runtime/host/replay-host/step-way.ts): the breakpoint hit at `until` itself, the logpoints' messages met
// on the way (from the marker on, in ticks after the start, through a tick, before a hit), a hit stopped on
// with the messages the scan holds (asked of a fake line debugger), and a landing given messages.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type {
  ArmedBreakpoint,
  BreakpointHitLanding,
  ScanHit,
  ScanTicksResult,
} from '../../../../protocol/host-protocol';
import {
  printedBefore,
  printedBeforeHit,
  printedThrough,
  wayToUntil,
  withPrinted,
} from '../../../../runtime/host/replay-host/step-way';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';

const BREAKPOINTS: ArmedBreakpoint[] = [
  { file: '/p.ts', line: 3 },
  { file: '/p.ts', line: 9, logMessage: 'n={n}' },
];
const NONE: BreakpointHitLanding = { landed: 'none', breakpoints: [{ file: '/p.ts', line: 3 }], from: 4, to: 8 };
const LINE: BreakpointHitLanding = {
  landed: 'line',
  tick: 6,
  taskId: 2,
  line: null,
  breakpoint: { file: '/p.ts', line: 3 },
  description: 'Breakpoint at p.ts:3',
};

const log = (tick: number, message: string): ScanHit => ({ bp: 1, tick, taskId: 2, count: 1, message });
const hit = (tick: number): ScanHit => ({ bp: 0, tick, taskId: 2, count: 1 });
/** Before the marker (index 1): a message of tick 4; after it, ticks 4 (the start's), 5, 6, 7. */
const HITS = [log(4, 'a'), log(4, 'b'), log(5, 'c'), hit(6), log(6, 'd'), log(7, 'e')];
const scan = (over: Partial<ScanTicksResult> = {}): ScanTicksResult => ({
  hits: HITS,
  marked: 1,
  stopped: false,
  tickHits: [],
  ...over,
});

describe('wayToUntil: a search that found no hit before `until`', () => {
  test("the breakpoint hit at `until` and the messages after the marker in ticks after the start's", () => {
    assert.deepEqual(wayToUntil(NONE, scan({ untilHit: 0 }), BREAKPOINTS, 4), {
      ...NONE,
      atUntil: { file: '/p.ts', line: 3 },
      printed: ['c', 'd', 'e'],
    });
  });

  test('nothing met: the landing as it is; a landing that is a hit is left alone', () => {
    assert.deepEqual(wayToUntil(NONE, scan({ hits: [] }), BREAKPOINTS, 4), NONE);
    assert.deepEqual(wayToUntil(NONE, scan({ untilHit: 7 }), BREAKPOINTS, 7), NONE);
    assert.equal(wayToUntil(LINE, scan({ untilHit: 0 }), BREAKPOINTS, 4), LINE);
  });

  test('no marker reached: the messages from the first hit on', () => {
    assert.deepEqual(wayToUntil(NONE, scan({ marked: null }), BREAKPOINTS, 3).printed, ['a', 'b', 'c', 'd', 'e']);
  });
});

test('printedThrough and printedBeforeHit: the messages up to a tick, or before a hit', () => {
  assert.deepEqual(printedThrough(scan(), 4, 6), ['c', 'd']);
  assert.deepEqual(printedThrough(scan(), 3, 4), ['b']);
  assert.deepEqual(printedBeforeHit(scan(), 4, 5), ['c', 'd']);
  assert.deepEqual(printedBeforeHit(scan(), 4, 6), ['c', 'd', 'e']);
});

describe('printedBefore: a hit stopped on, with what the scan printed before it', () => {
  const asking = (answer: () => unknown): { dbg: LineDebugger; asked: string[] } => {
    const asked: string[] = [];
    const dbg = {
      callMain: async (expression: string) => {
        asked.push(expression);
        return answer();
      },
    } as unknown as LineDebugger;
    return { dbg, asked };
  };

  test("a line hit gets the scan's messages, as strings", async () => {
    const { dbg, asked } = asking(() => ['x', 2]);
    assert.deepEqual(await printedBefore(dbg, LINE), { ...LINE, printed: ['x', '2'] });
    assert.deepEqual(asked, ['scanPrinted()']);
  });

  test('none printed, a failed read, or a landing that is not a line hit: as it is', async () => {
    assert.equal(await printedBefore(asking(() => []).dbg, LINE), LINE);
    assert.equal(
      await printedBefore(
        asking(() => {
          throw new Error('gone');
        }).dbg,
        LINE,
      ),
      LINE,
    );
    assert.equal(await printedBefore(asking(() => 'x').dbg, LINE), LINE);
    assert.equal(await printedBefore(asking(() => ['x']).dbg, NONE), NONE);
  });
});

test('withPrinted: messages added to a hit, a copy of them; none, or a landing with no hit: as it is', () => {
  const printed = ['m'];
  const landed = withPrinted(LINE, printed);
  printed.push('later');
  assert.deepEqual(landed, { ...LINE, printed: ['m'] });
  assert.equal(withPrinted(LINE, []), LINE);
  assert.equal(withPrinted(NONE, ['m']), NONE);
});
