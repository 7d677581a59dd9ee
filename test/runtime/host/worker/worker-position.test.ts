// WorkerPosition (runtime/host/worker/worker-position.ts): where the line debugger's worker
// stands, as one value, and its transitions: the moves of the live stop's walk, of a walk
// anchored at a hit, a breakpoint search, a seek, and a replay host forgetting its stop. The
// answers the worker reads from it (which replay host shows a line, whose moment the queries
// are) are checked at each step, as the old flags gave them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BreakpointHitLanding, PastLineLanding } from '../../../../protocol/host-protocol';
import {
  afterHitWalk,
  afterSearch,
  afterSeek,
  afterStopWalk,
  dropped,
  hostOf,
  leaveTick,
  LIVE,
  momentReplayed,
  showsLine,
  walksFromHit,
  type WorkerPosition,
} from '../../../../runtime/host/worker/worker-position';

const AT = { file: '/src/app.ts', line: 7, column: 1 };
const stopLine: PastLineLanding = { landed: 'line', line: AT };
const earlierLine: PastLineLanding = { landed: 'line', line: AT, tick: 4, taskId: 2 };
const present: PastLineLanding = { landed: 'present' };
const suspension: PastLineLanding = { landed: 'suspension', why: 'its first step' };
const hit: BreakpointHitLanding = {
  landed: 'line',
  tick: 3,
  taskId: 2,
  line: AT,
  breakpoint: { file: AT.file, line: AT.line },
  description: 'hit',
};
const none: BreakpointHitLanding = { landed: 'none', breakpoints: [{ file: AT.file, line: AT.line }], from: 0, to: 9 };
const tickHit: BreakpointHitLanding = {
  landed: 'tick',
  tick: 5,
  taskId: 2,
  breakpoint: { file: AT.file, line: AT.line },
  description: 'suspended',
};

/**
 * What the worker reads of a position: [host showing it, a line shown, moves walk from a hit, the moment's
 * queries the stop replay host's].
 */
function reads(pos: WorkerPosition): [string | null, boolean, boolean, boolean] {
  return [hostOf(pos), showsLine(pos), walksFromHit(pos), momentReplayed(pos)];
}

describe('WorkerPosition', () => {
  test('live shows nothing of the past: no host, no line, the live main thread answers', () => {
    assert.deepEqual(reads(LIVE), [null, false, false, false]);
  });

  test("the stop's walk: a line of the stop's tick, of an earlier step (its own tick), or off the lines", () => {
    assert.deepEqual(afterStopWalk(stopLine), { kind: 'pastLine' });
    assert.deepEqual(reads(afterStopWalk(stopLine)), ['stop', true, false, true]);
    assert.deepEqual(afterStopWalk(earlierLine), { kind: 'stepBefore' });
    assert.deepEqual(reads(afterStopWalk(earlierLine)), ['stop', true, true, true]);
    assert.equal(afterStopWalk(present), LIVE);
    assert.equal(afterStopWalk(suspension), LIVE);
  });

  test('a walk anchored at a hit keeps the hit shown on a line, and leaves it off one', () => {
    for (const on of ['stop', 'search'] as const) {
      const at: WorkerPosition = { kind: 'pastHit', on };
      assert.deepEqual(afterHitWalk(at, earlierLine), at);
      // A line with no tick of its own, from a hit: still the hit's walk (not the stop's).
      assert.deepEqual(afterHitWalk(at, stopLine), at);
      assert.equal(afterHitWalk(at, present), LIVE);
      assert.equal(afterHitWalk(at, suspension), LIVE);
      assert.deepEqual(reads(at), [on, true, true, on === 'stop']);
    }
  });

  test("from an earlier step of the stop's task, a line of the stop's own step is the stop's walk again", () => {
    const before: WorkerPosition = { kind: 'stepBefore' };
    assert.deepEqual(afterHitWalk(before, earlierLine), before);
    assert.deepEqual(afterHitWalk(before, stopLine), { kind: 'pastLine' });
    assert.equal(afterHitWalk(before, present), LIVE);
  });

  test("a search: a hit is shown on the searching host; none found, the line shown stays (its moment the replay's: shown again); a loop breakpoint's hit leaves it", () => {
    assert.deepEqual(afterSearch(LIVE, 'search', hit), { kind: 'pastHit', on: 'search' });
    assert.deepEqual(afterSearch({ kind: 'pastLine' }, 'stop', hit), {
      kind: 'pastHit',
      on: 'stop',
    });
    assert.equal(afterSearch(LIVE, 'stop', none), LIVE);
    const searchedFromLine = afterSearch({ kind: 'pastLine' }, 'stop', none);
    assert.deepEqual(searchedFromLine, { kind: 'pastLine' });
    assert.deepEqual(reads(searchedFromLine), ['stop', true, false, true]);
    assert.deepEqual(afterSearch({ kind: 'stepBefore' }, 'stop', none), { kind: 'stepBefore' });
    assert.deepEqual(afterSearch({ kind: 'pastHit', on: 'search' }, 'search', none), { kind: 'pastHit', on: 'search' });
    assert.equal(afterSearch({ kind: 'pastLine' }, 'stop', tickHit), LIVE);
    // A past tick viewed is not a line: a search from it that finds none leaves it.
    assert.equal(afterSearch({ kind: 'pastTick', tick: 3 }, 'stop', none), LIVE);
  });

  test('a seek views a past tick, or comes back to the present; a newer stop in the same tick leaves the tick viewed', () => {
    const viewed = afterSeek(LIVE, 6);
    assert.deepEqual(viewed, { kind: 'pastTick', tick: 6 });
    assert.deepEqual(reads(viewed), ['stop', false, false, true]);
    assert.equal(afterSeek(viewed, null), LIVE);
    assert.equal(afterSeek(LIVE, null), LIVE);
    assert.equal(leaveTick(viewed), LIVE);
    const line: WorkerPosition = { kind: 'pastLine' };
    assert.equal(leaveTick(line), line);
  });

  test('a replay host forgetting its stop, or ending, drops only what it showed', () => {
    const onSearch: WorkerPosition = { kind: 'pastHit', on: 'search' };
    assert.equal(dropped(onSearch, 'stop'), onSearch);
    assert.equal(dropped(onSearch, 'search'), LIVE);
    for (const pos of [
      { kind: 'pastTick', tick: 2 },
      { kind: 'pastLine' },
      { kind: 'stepBefore' },
      { kind: 'pastHit', on: 'stop' },
    ] as WorkerPosition[]) {
      assert.equal(dropped(pos, 'stop'), LIVE, pos.kind);
      assert.equal(dropped(pos, 'search'), pos, pos.kind);
    }
  });

  test("a walk through: step back into the step before, forward into the stop's step, a search finding none, forward to the present", () => {
    let pos: WorkerPosition = LIVE;
    pos = afterStopWalk(stopLine); // Step Back: a line of the stop's tick.
    pos = afterStopWalk(earlierLine); // Again: the task's step before.
    assert.equal(pos.kind, 'stepBefore');
    pos = afterHitWalk(pos, stopLine); // Forward into the stop's step.
    assert.deepEqual(pos, { kind: 'pastLine' });
    pos = afterSearch(pos, 'stop', none); // Reverse Continue, nothing found: the line stays, its moment shown.
    assert.deepEqual(reads(pos), ['stop', true, false, true]);
    pos = afterStopWalk(present); // Forward to the live stop.
    assert.equal(pos, LIVE);
  });
});
