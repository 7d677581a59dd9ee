// Tests of the pure parts of a past hit search's scan (runtime/host/replay-host/hit-scan-params.ts): the
// params of a stretch (hit conditions as counted since they were set, a task's limit, a suspension
// breakpoint's line and condition, the counts before), the marker and `until` asked only of a scan through
// their own tick, the refusal of a replay that missed either (code and words), and a hit's ordinal in its tick.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ArmedBreakpoint, ScanHit, ScanTicksParams, ScanTicksResult } from '../../../../protocol/host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import {
  checkEnded,
  checkMarked,
  endAt,
  markerOf,
  ordinalOf,
  stretchParams,
} from '../../../../runtime/host/replay-host/hit-scan-params';
import type { Planted } from '../../../../runtime/host/replay-host/scan-breakpoints';

const PRINT = { frames: [], locals: [], locations: [] };

function planted(markerLocation: number | null, untilLocation: number | null): Planted {
  return { ids: new Set(), locations: [[0], [1, 2]], markerLocation, untilLocation, places: [] };
}

function result(over: Partial<ScanTicksResult> = {}): ScanTicksResult {
  return { hits: [], marked: null, stopped: false, tickHits: [], ...over };
}

function refusal(f: () => void): { code: string; message: string } | null {
  try {
    f();
    return null;
  } catch (e) {
    assert.ok(e instanceof ProtocolError);
    return { code: e.code, message: e.message };
  }
}

test('stretchParams: each breakpoint as a scan counts it, with the counts before and the places planted', () => {
  const breakpoints: ArmedBreakpoint[] = [
    { file: '/p.ts', line: 3 },
    { file: '/p.ts', line: 4, hitCondition: '>2' },
    { file: '/p.ts', line: 5, hitCondition: '%3', hitsSince: { tick: 8, before: 4 }, task: 2 },
    { file: '/p.ts', line: 6, atSuspension: true },
    { file: '/p.ts', line: 7, atSuspension: true, condition: 'n > 1', logMessage: 'ignored here' },
  ];
  assert.deepEqual(stretchParams(breakpoints, planted(null, null), 10, 20), {
    from: 10,
    to: 20,
    breakpoints: [
      {},
      { hitCondition: '>2' },
      { hitCondition: '%3', since: 8, task: 2 },
      { atSuspension: { file: '/p.ts', line: 6 } },
      { atSuspension: { file: '/p.ts', line: 7, condition: 'n > 1' } },
    ],
    counts: [0, 0, 4, 0, 0],
    locations: [[0], [1, 2]],
  });
});

describe('the marker and `until`: asked only of the scan through their own tick', () => {
  test('markerOf: a line stop bound with a task, a marker planted, and the scan ending in its tick', () => {
    const bound = { tick: 12, taskId: 3, print: PRINT };
    assert.deepEqual(markerOf(bound, planted(5, null), 12), { location: 5, tick: 12, taskId: 3 });
    assert.deepEqual(
      [
        markerOf(bound, planted(5, null), 11),
        markerOf(bound, planted(null, null), 12),
        markerOf({ tick: 12, taskId: 3 }, planted(5, null), 12),
        markerOf({ tick: 12, print: PRINT }, planted(5, null), 12),
      ],
      [undefined, undefined, undefined, undefined],
    );
  });

  test('endAt: the live stop ends a scan through its tick only', () => {
    const through = stretchParams([], planted(null, 9), 10, 12);
    endAt(through, { tick: 12, taskId: 3 }, planted(null, 9));
    assert.deepEqual(through.until, { location: 9, tick: 12, taskId: 3 });
    const before = stretchParams([], planted(null, 9), 10, 11);
    endAt(before, { tick: 12, taskId: 3 }, planted(null, 9));
    const noTask = stretchParams([], planted(null, 9), 10, 12);
    endAt(noTask, { tick: 12 }, planted(null, 9));
    const none = stretchParams([], planted(null, null), 10, 12);
    endAt(none, { tick: 12, taskId: 3 }, planted(null, null));
    endAt(none, null, planted(null, 9));
    assert.deepEqual([before.until, noTask.until, none.until], [undefined, undefined, undefined]);
  });
});

describe('a replay that missed its marker or the live stop is not the recorded run', () => {
  const marked: ScanTicksParams = {
    from: 1,
    to: 4,
    breakpoints: [],
    locations: [],
    marker: { location: 0, tick: 4, taskId: 2 },
  };
  const ending: ScanTicksParams = {
    from: 1,
    to: 4,
    breakpoints: [],
    locations: [],
    until: { location: 1, tick: 4, taskId: 2 },
  };

  test('checkMarked refuses a marker not reached, and nothing else', () => {
    assert.deepEqual(
      refusal(() => checkMarked(marked, result())),
      {
        code: 'replayFailed',
        message:
          'pastHit: the replay of tick 4 ran to its end without reaching the line shown: it is not the run that was recorded',
      },
    );
    assert.equal(
      refusal(() => checkMarked(marked, result({ marked: 0 }))),
      null,
    );
    assert.equal(
      refusal(() => checkMarked(ending, result())),
      null,
    );
  });

  test('checkEnded refuses the live stop not reached, and nothing else', () => {
    assert.deepEqual(
      refusal(() => checkEnded(ending, result({ untilReached: false }))),
      {
        code: 'replayFailed',
        message:
          'pastHit: the replay of tick 4 ran to its end without reaching the live stop: it is not the run that was recorded',
      },
    );
    assert.deepEqual(
      refusal(() => checkEnded(ending, result())),
      refusal(() => checkEnded(ending, result({ untilReached: false }))),
    );
    assert.equal(
      refusal(() => checkEnded(ending, result({ untilReached: true }))),
      null,
    );
    assert.equal(
      refusal(() => checkEnded(marked, result())),
      null,
    );
  });
});

test("ordinalOf: a hit's place among its tick's hits, in replay order", () => {
  const hit = (tick: number): ScanHit => ({ bp: 0, tick, taskId: 1, count: 1 });
  const hits = [hit(3), hit(5), hit(5), hit(5), hit(6)];
  assert.deepEqual(
    hits.map((_, i) => ordinalOf(hits, i)),
    [0, 0, 1, 2, 0],
  );
});
