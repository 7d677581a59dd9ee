// Tests of a past hit search's scan breakpoints (runtime/host/replay-host/scan-breakpoints.ts), against a fake
// line debugger that answers CDP as V8 would (a requested column slides to a break location) and notes what it
// is asked: one breakpoint per place V8 puts them, its condition calling scanHit with each breakpoint's own;
// a scan's stretch replayed after the ticks before it with them removed; a pause's verdict.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type {
  ArmedBreakpoint,
  LineStopPrint,
  ScanTicksParams,
  ScanTicksResult,
} from '../../../../protocol/host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import { lineCount, ScanBreakpoints } from '../../../../runtime/host/replay-host/scan-breakpoints';
import type { CdpPaused, WalkFrame, WalkVerdict } from '../../../../runtime/host/worker/cdp-shapes';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';
import {
  loggedMessageCounted,
  loggedMessageExpression,
  loggedMessageOrThrow,
} from '../../../../runtime/host/worker/logpoint-message';

const SCRIPT = 'file:///p.js';
type Place = { scriptId: string; lineNumber: number; columnNumber: number };

/** What the fake answers and what it was asked. */
interface FakeDebugger {
  dbg: LineDebugger;
  asked: string[];
  /** The breakpoints set (not probes), by id, with their parameters. */
  set: Map<string, { url: string; lineNumber: number; columnNumber: number; condition: string }>;
  hook: {
    ids: ReadonlySet<string>;
    onHit: ((p: CdpPaused) => Promise<WalkVerdict>) | null;
    stopped: (() => void) | null;
  };
  stopped: { now: boolean };
}

/**
 * A line debugger whose source lines map through `generated` ("file:line" to generated places), whose probes
 * slide to `slides` ("url:line0:column0" to the break location; none: the probe fails), and whose main thread
 * answers callMain from `main`.
 */
function fakeDebugger(
  generated: Record<string, Array<{ line0: number; column0: number }>>,
  slides: Record<string, Place>,
  main: (expression: string) => unknown = () => null,
  opts: { failSetAt?: number; frames?: WalkFrame[]; locals?: Array<{ name: string; value: string }> } = {},
): FakeDebugger {
  const asked: string[] = [];
  const set = new Map<string, { url: string; lineNumber: number; columnNumber: number; condition: string }>();
  const hook: FakeDebugger['hook'] = { ids: new Set(), onHit: null, stopped: null };
  const stopped = { now: false };
  let ids = 0;
  const dbg = {
    generatedLocations: (file: string, line: number) =>
      (generated[`${file}:${line}`] ?? []).map((g) => ({ url: SCRIPT, line0: g.line0, column0: g.column0, line })),
    cdp: async (
      method: string,
      params: { url: string; lineNumber: number; columnNumber: number; condition: string; breakpointId?: string },
    ): Promise<unknown> => {
      const name = method.replace('Debugger.', '');
      if (name === 'setBreakpointByUrl' && params.condition === 'false') {
        const at = slides[`${params.url}:${params.lineNumber}:${params.columnNumber}`];
        asked.push(`probe ${params.lineNumber}:${params.columnNumber}`);
        if (at === undefined) throw new Error('no script');
        return { breakpointId: `probe-${++ids}`, locations: [at] };
      }
      if (name === 'setBreakpointByUrl') {
        if (opts.failSetAt === set.size + 1) throw new Error('V8 said no');
        const id = `bp-${++ids}`;
        set.set(id, { ...params });
        asked.push(`set ${id}`);
        return { breakpointId: id };
      }
      if (name === 'removeBreakpoint') {
        const id = params.breakpointId ?? '';
        if (!id.startsWith('probe-')) asked.push(`remove ${id}`);
        return {};
      }
      asked.push(name);
      return {};
    },
    setWalkHook: (
      ids: ReadonlySet<string>,
      onHit: FakeDebugger['hook']['onHit'],
      stoppedHook: FakeDebugger['hook']['stopped'],
    ): void => {
      hook.ids = ids;
      hook.onHit = onHit;
      hook.stopped = stoppedHook;
    },
    isStopped: (): boolean => stopped.now,
    resume: async (announce: boolean): Promise<void> => {
      asked.push(`resume ${announce}`);
      stopped.now = false;
    },
    callMain: async (expression: string): Promise<unknown> => {
      asked.push(`main ${expression}`);
      return main(expression);
    },
    walkFrames: (): WalkFrame[] => opts.frames ?? [],
    localsOf: async () => opts.locals ?? [],
  };
  return { dbg: dbg as unknown as LineDebugger, asked, set, hook, stopped };
}

const EMPTY: ScanTicksResult = { hits: [], marked: null, stopped: false, tickHits: [] };
/** Ticks from+1 .. to scanned for one breakpoint at the first place planted. */
const stretch = (from: number, to: number): ScanTicksParams => ({ from, to, breakpoints: [{}], locations: [[0]] });
const noSeek = async (): Promise<void> => undefined;
const noScan = async (): Promise<ScanTicksResult> => EMPTY;

/** A stop's print whose innermost frame is at generated line `line0`, column `column0`. */
function printAt(line0: number, column0: number, locals: Array<{ name: string; value: string }> = []): LineStopPrint {
  return {
    frames: [{ url: SCRIPT, functionLine: 0, functionColumn: 0, line: line0, column: column0 }],
    locals,
    locations: [],
  };
}

describe('plant', () => {
  test('breakpoints and the marker that V8 puts at one place are one breakpoint; each its own condition, in order', async () => {
    const f = fakeDebugger(
      {
        '/p.ts:3': [{ line0: 5, column0: 0 }],
        '/p.ts:4': [{ line0: 5, column0: 7 }],
        '/p.ts:9': [{ line0: 12, column0: 2 }],
      },
      {
        [`${SCRIPT}:5:0`]: { scriptId: '1', lineNumber: 5, columnNumber: 4 },
        [`${SCRIPT}:5:7`]: { scriptId: '1', lineNumber: 5, columnNumber: 4 },
        [`${SCRIPT}:5:4`]: { scriptId: '1', lineNumber: 5, columnNumber: 4 },
        // A line without a break location: the next line's.
        [`${SCRIPT}:12:2`]: { scriptId: '1', lineNumber: 13, columnNumber: 0 },
      },
    );
    const scan = new ScanBreakpoints(f.dbg, noScan, noSeek);
    const breakpoints: ArmedBreakpoint[] = [
      { file: '/p.ts', line: 3 },
      { file: '/p.ts', line: 4, condition: 'n > 1' },
      // The loop's own: nothing planted for it.
      { file: '/p.ts', line: 9, atSuspension: true },
      { file: '/p.ts', line: 9, condition: 'n === 2' },
    ];
    const planted = await scan.plant(breakpoints, { tick: 4, print: printAt(5, 4) });
    assert.deepStrictEqual(planted.locations, [[0, 1], [3]]);
    assert.equal(planted.markerLocation, 0);
    assert.equal(planted.untilLocation, null);
    const guarded = (c: string): string => `(() => { try { return !!(${c}); } catch { return false; } })()`;
    assert.deepStrictEqual(planted.places, [
      {
        url: SCRIPT,
        lineNumber: 5,
        columnNumber: 4,
        condition: `globalThis.__coroscopeLine.scanHit(0, [true, ${guarded('n > 1')}])`,
      },
      {
        url: SCRIPT,
        lineNumber: 13,
        columnNumber: 0,
        condition: `globalThis.__coroscopeLine.scanHit(1, [${guarded('n === 2')}])`,
      },
    ]);
    assert.deepStrictEqual([...planted.ids], ['bp-5', 'bp-6']);
    assert.deepStrictEqual(f.hook.ids, planted.ids);
    assert.deepStrictEqual(f.asked, [
      'probe 5:0',
      'probe 5:7',
      'probe 12:2',
      'probe 5:4',
      'set bp-5',
      'set bp-6',
      'setBreakpointsActive',
    ]);
  });

  test('a logpoint alone at its place passes its message unwrapped; sharing it, or with a hit condition, the guarded forms', async () => {
    const f = fakeDebugger(
      {
        '/p.ts:3': [{ line0: 5, column0: 0 }],
        '/p.ts:7': [{ line0: 8, column0: 0 }],
        '/p.ts:10': [{ line0: 9, column0: 0 }],
        '/p.ts:11': [{ line0: 8, column0: 0 }],
      },
      {
        [`${SCRIPT}:5:0`]: { scriptId: '1', lineNumber: 5, columnNumber: 0 },
        [`${SCRIPT}:8:0`]: { scriptId: '1', lineNumber: 8, columnNumber: 0 },
        [`${SCRIPT}:9:0`]: { scriptId: '1', lineNumber: 9, columnNumber: 0 },
      },
    );
    const scan = new ScanBreakpoints(f.dbg, noScan, noSeek);
    const planted = await scan.plant(
      [
        { file: '/p.ts', line: 3, logMessage: 'n={n}', condition: 'n > 0' },
        { file: '/p.ts', line: 7, logMessage: 'at {i}' },
        { file: '/p.ts', line: 10, logMessage: 'until {i}' },
        // At the second's place: both guarded, whatever either throws.
        { file: '/p.ts', line: 11, logMessage: 'also {j}', hitCondition: '>= 2' },
      ],
      { tick: 1 },
      // The live stop a forward search ends at: at the third logpoint's place.
      { tick: 9, print: printAt(9, 0) },
    );
    assert.equal(planted.markerLocation, null);
    assert.equal(planted.untilLocation, 2);
    assert.deepStrictEqual(planted.locations, [[0], [1, 3], [2]]);
    assert.deepStrictEqual(
      planted.places.map((p) => p.condition),
      [
        `globalThis.__coroscopeLine.scanHit(0, [${loggedMessageOrThrow('n={n}', 'n > 0')}])`,
        `globalThis.__coroscopeLine.scanHit(1, [${loggedMessageExpression('at {i}')}, ${loggedMessageCounted('also {j}')}])`,
        `globalThis.__coroscopeLine.scanHit(2, [${loggedMessageExpression('until {i}')}])`,
      ],
    );
  });

  test('a probe V8 refuses: planted where asked', async () => {
    const f = fakeDebugger({ '/p.ts:3': [{ line0: 5, column0: 3 }] }, {});
    const planted = await new ScanBreakpoints(f.dbg, noScan, noSeek).plant([{ file: '/p.ts', line: 3 }], { tick: 1 });
    assert.deepStrictEqual(planted.places, [
      { url: SCRIPT, lineNumber: 5, columnNumber: 3, condition: 'globalThis.__coroscopeLine.scanHit(0, [true])' },
    ]);
  });

  test('a breakpoint V8 refuses to set: the search fails, naming the place, and the ones set are removed', async () => {
    const f = fakeDebugger(
      { '/p.ts:3': [{ line0: 5, column0: 0 }], '/p.ts:4': [{ line0: 6, column0: 0 }] },
      {
        [`${SCRIPT}:5:0`]: { scriptId: '1', lineNumber: 5, columnNumber: 0 },
        [`${SCRIPT}:6:0`]: { scriptId: '1', lineNumber: 6, columnNumber: 0 },
      },
      undefined,
      { failSetAt: 2 },
    );
    const scan = new ScanBreakpoints(f.dbg, noScan, noSeek);
    await assert.rejects(
      scan.plant(
        [
          { file: '/p.ts', line: 3 },
          { file: '/p.ts', line: 4 },
        ],
        { tick: 1 },
      ),
      (e: unknown) =>
        e instanceof ProtocolError &&
        e.code === 'failed' &&
        e.message === `pastHit: cannot arm ${SCRIPT}:6:0: V8 said no`,
    );
    assert.deepStrictEqual(f.asked.slice(-2), ['set bp-3', 'remove bp-3']);
  });
});

describe('scan', () => {
  test('a stretch after the start: its breakpoints removed for the seek to it, set again, then scanned', async () => {
    const order: string[] = [];
    const f = fakeDebugger(
      { '/p.ts:3': [{ line0: 5, column0: 0 }] },
      { [`${SCRIPT}:5:0`]: { scriptId: '1', lineNumber: 5, columnNumber: 0 } },
    );
    const hit: ScanTicksResult = { ...EMPTY, hits: [{ bp: 0, tick: 40, taskId: 2, count: 1 }] };
    const scan = new ScanBreakpoints(
      f.dbg,
      async (p: ScanTicksParams) => {
        order.push(...f.asked.splice(0), `scan ${p.from}..${p.to}`);
        return hit;
      },
      async (tick: number) => {
        order.push(...f.asked.splice(0), `seek ${tick}`);
      },
    );
    const planted = await scan.plant([{ file: '/p.ts', line: 3 }], { tick: 1 });
    f.asked.splice(0);
    assert.deepStrictEqual(await scan.scan(stretch(36, 100)), hit);
    assert.deepStrictEqual(order, ['remove bp-2', 'seek 36', 'set bp-3', 'scan 36..100']);
    // Set again with the same parameters, under a new id.
    assert.deepStrictEqual([...planted.ids], ['bp-3']);
    assert.deepStrictEqual(f.set.get('bp-3'), planted.places[0]);
    // From the run's start: no seek, nothing removed.
    assert.deepStrictEqual(await scan.scan(stretch(0, 36)), hit);
    assert.deepStrictEqual(order.slice(4), ['scan 0..36']);
    assert.deepStrictEqual(f.asked, []);
    // From tick 1: its one tick before is replayed without them too.
    await scan.scan(stretch(1, 36));
    assert.deepStrictEqual(order.slice(5), ['remove bp-3', 'seek 1', 'set bp-4', 'scan 1..36']);
  });

  test("a scan that fails is the search's replayFailed; a protocol error stays itself", async () => {
    const f = fakeDebugger({}, {});
    const failing = new ScanBreakpoints(
      f.dbg,
      async () => {
        throw new Error('the replay diverged');
      },
      noSeek,
    );
    await assert.rejects(
      failing.scan(stretch(0, 5)),
      (e: unknown) =>
        e instanceof ProtocolError && e.code === 'replayFailed' && e.message === 'pastHit: the replay diverged',
    );
    const refusal = new ProtocolError('no such tick', 'badTick');
    const refusing = new ScanBreakpoints(
      f.dbg,
      async () => {
        throw refusal;
      },
      noSeek,
    );
    await assert.rejects(refusing.scan(stretch(0, 5)), (e: unknown) => e === refusal);
  });

  test("stopped on a hit: the scan answers 'stopped'; release lets the thread go, waits for the scan's end, removes them", async () => {
    const f = fakeDebugger(
      { '/p.ts:3': [{ line0: 5, column0: 0 }] },
      { [`${SCRIPT}:5:0`]: { scriptId: '1', lineNumber: 5, columnNumber: 0 } },
    );
    let finish: (r: ScanTicksResult) => void = () => undefined;
    const scan = new ScanBreakpoints(
      f.dbg,
      () => new Promise<ScanTicksResult>((resolve) => (finish = resolve)),
      noSeek,
    );
    await scan.plant([{ file: '/p.ts', line: 3 }], { tick: 1 });
    f.asked.splice(0);
    const outcome = scan.scan(stretch(0, 9));
    await new Promise((resolve) => setImmediate(resolve));
    f.stopped.now = true;
    f.hook.stopped?.();
    assert.equal(await outcome, 'stopped');
    assert.equal(scan.isStopped(), true);
    let released = false;
    const releasing = scan.release().then(() => (released = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepStrictEqual([released, f.asked], [false, ['resume false']]);
    finish(EMPTY);
    await releasing;
    assert.deepStrictEqual(f.asked, ['resume false', 'remove bp-2']);
    assert.deepStrictEqual([f.hook.ids.size, f.hook.onHit, f.hook.stopped], [0, null, null]);
    assert.equal(scan.isStopped(), false);
  });
});

describe("a pause's verdict", () => {
  const frame: WalkFrame = {
    frame: { callFrameId: 'f', functionName: 'f', location: { scriptId: '1', lineNumber: 5 }, scopeChain: [] },
    url: SCRIPT,
    functionKey: '1:0:0',
    line: '/p.ts:3',
    position: { url: SCRIPT, functionLine: 0, functionColumn: 0, line: 5, column: 4 },
  };
  const paused: CdpPaused = { callFrames: [], reason: 'other' };

  /** The verdict on one pause whose scanPause() is `why`, with the marker's and the until's prints set. */
  async function verdict(
    why: string | null,
    prints: { print?: LineStopPrint | null; until?: LineStopPrint | null },
    answer: boolean,
  ): Promise<{ verdict: WalkVerdict | undefined; asked: string[] }> {
    const f = fakeDebugger({ '/p.ts:3': [{ line0: 5, column0: 4 }] }, {}, (e) => (e === 'scanPause()' ? why : answer), {
      frames: [frame],
      locals: [{ name: 'n', value: '2' }],
    });
    const scan = new ScanBreakpoints(f.dbg, noScan, noSeek);
    await scan.plant([{ file: '/p.ts', line: 3 }], { tick: 1 });
    scan.print = prints.print ?? null;
    scan.untilPrint = prints.until ?? null;
    f.asked.splice(0);
    return { verdict: await f.hook.onHit?.(paused), asked: f.asked.filter((a) => a.startsWith('main ')) };
  }

  test('the hit asked for stops; a pause for nothing known goes on', async () => {
    assert.deepStrictEqual(await verdict('stop', {}, false), { verdict: 'stop', asked: ['main scanPause()'] });
    assert.deepStrictEqual(await verdict(null, {}, true), { verdict: 'resume', asked: ['main scanPause()'] });
  });

  test('the marker: matched against the stop searched from; the main thread decides', async () => {
    const same = printAt(5, 4, [{ name: 'n', value: '2' }]);
    const other = printAt(5, 4, [{ name: 'n', value: '3' }]);
    assert.deepStrictEqual(await verdict('marker', { print: same }, true), {
      verdict: 'stop',
      asked: ['main scanPause()', 'main scanMarked(true)'],
    });
    assert.deepStrictEqual(await verdict('marker', { print: other }, false), {
      verdict: 'resume',
      asked: ['main scanPause()', 'main scanMarked(false)'],
    });
    assert.deepStrictEqual((await verdict('marker', { print: null }, false)).asked, [
      'main scanPause()',
      'main scanMarked(false)',
    ]);
  });

  test('where a forward search ends: matched against the live stop; the main thread decides', async () => {
    const live = printAt(5, 4, [{ name: 'n', value: '2' }]);
    assert.deepStrictEqual(await verdict('until', { until: live }, true), {
      verdict: 'stop',
      asked: ['main scanPause()', 'main scanUntil(true)'],
    });
    assert.deepStrictEqual(await verdict('until', { until: printAt(6, 0) }, false), {
      verdict: 'resume',
      asked: ['main scanPause()', 'main scanUntil(false)'],
    });
  });
});

test("lineCount: a file's lines, 0 for one that cannot be read", () => {
  // A fixture of twelve lines and its last line's newline: a breakpoint may slide to line 12.
  assert.equal(lineCount(join(__dirname, '..', '..', '..', 'fixtures', 'first-step-lines.ts')), 12);
  assert.equal(lineCount('/no/such/file.ts'), 0);
});
