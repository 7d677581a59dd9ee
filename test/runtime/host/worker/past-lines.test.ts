// Where steps through a task step's replayed lines land (runtime/host/worker/past-lines.ts): back to
// the previous line of the same frame or to the caller's line, never to a callee's; forward
// over, into and out, never past the live stop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TimelineSegment } from '../../../../protocol/host-protocol';
import {
  nextLine,
  previousLine,
  sameEntry,
  stepEnds,
  stepsBefore,
  type PastLineEntry,
} from '../../../../runtime/host/worker/past-lines';

const at = (chain: string, line: number): PastLineEntry => ({ chain: chain.split('>'), line: `f.ts:${line}` });

// work:10 calls fetch (lines 20, 21 calls get (30, 31), 22), then work:11 calls fetch again (20, 21 = the live stop).
const step: PastLineEntry[] = [
  at('work', 10), // 0
  at('work>fetch', 20), // 1
  at('work>fetch', 21), // 2
  at('work>fetch>get', 30), // 3
  at('work>fetch>get', 31), // 4
  at('work>fetch', 22), // 5
  at('work', 11), // 6
  at('work>fetch', 20), // 7
  at('work>fetch', 21), // 8: live
];
const LIVE = 8;

test('a step back goes to the previous line of the same frame, over the lines of its callees', () => {
  assert.equal(previousLine(step, LIVE), 7);
  assert.equal(previousLine(step, 5), 2);
  assert.equal(previousLine(step, 4), 3);
});

test("at the first line of a function a step back goes to the caller's line, not to an earlier call's lines", () => {
  assert.equal(previousLine(step, 7), 6);
  assert.equal(previousLine(step, 3), 2);
  assert.equal(previousLine(step, 1), 0);
  assert.equal(previousLine(step, 6), 0);
});

test("at the task's first line of the step there is no line before (its previous suspension is)", () => {
  assert.equal(previousLine(step, 0), null);
  // Resumed inside fetch: its first line has no line of the same frame or a caller before it.
  assert.equal(previousLine([at('work>fetch', 21), at('work>fetch', 22)], 0), null);
  assert.equal(previousLine([at('work>fetch>get', 31), at('work>fetch', 22)], 1), null);
});

test('forward: into the next line, over the callees, out to the caller; never past the live stop', () => {
  assert.equal(nextLine(step, 2, 'into', LIVE), 3);
  assert.equal(nextLine(step, 2, 'over', LIVE), 5);
  assert.equal(nextLine(step, 3, 'out', LIVE), 5);
  assert.equal(nextLine(step, 5, 'out', LIVE), 6);
  assert.equal(nextLine(step, 7, 'over', LIVE), LIVE);
  // The live stop is inside a callee of the line: stepping over it reaches the live stop first.
  assert.equal(nextLine(step, 6, 'over', LIVE), LIVE);
  assert.equal(nextLine(step, 6, 'out', LIVE), LIVE);
});

test('entries are the same line of the same chain', () => {
  assert.ok(sameEntry(at('work>fetch', 20), at('work>fetch', 20)));
  assert.ok(!sameEntry(at('work>fetch', 20), at('work>fetch', 21)));
  assert.ok(!sameEntry(at('work>fetch', 20), at('work>get', 20)));
  assert.ok(!sameEntry(at('work', 20), at('work>fetch', 20)));
});

test("before a step's first line: the task's earlier steps latest first, those spent wholly inside a deeper call passed over by their recorded frames, none kept in doubt", () => {
  const suspended = (fromTick: number, frames: string, framesKept?: number): TimelineSegment => {
    const s: TimelineSegment = { fromTick, toTick: fromTick + 1, state: 'suspended', frames: frames.split('>') };
    if (framesKept !== undefined) s.framesKept = framesKept;
    return s;
  };
  const running = (fromTick: number): TimelineSegment => ({ fromTick, toTick: fromTick, state: 'running' });
  // work got an item (tick 2), fetch called the session (5: connect), the session sent and read (7, 9: work,
  // fetch, request kept), fetch resumed at 12.
  const lane = [
    suspended(2, 'work>get', 0),
    running(4),
    suspended(5, 'work>fetch>request>connect', 1),
    suspended(7, 'work>fetch>request>read', 3),
    suspended(9, 'work>fetch>request>read', 4),
    running(12),
  ];
  // The stop's frames are fetch and work (2): the steps ending at 9 and 7 kept 3 and more calls from the
  // root, fetch's callee included.
  assert.deepEqual(stepsBefore(lane, 12, 2), [
    { tick: 5, passedOver: 2 },
    { tick: 2, passedOver: 0 },
  ]);
  // A stop three frames deep (in request): its step at 7 ran its lines (a new read), the one at 9 only inside
  // the same read.
  assert.deepEqual(stepsBefore(lane, 12, 3), [
    { tick: 7, passedOver: 1 },
    { tick: 5, passedOver: 0 },
    { tick: 2, passedOver: 0 },
  ]);
  // Only the steps before the one stepped back from; a recording without frames passes none over.
  assert.deepEqual(stepsBefore(lane, 7, 2), [
    { tick: 5, passedOver: 0 },
    { tick: 2, passedOver: 0 },
  ]);
  assert.deepEqual(
    stepsBefore(
      [
        { fromTick: 3, toTick: 4, state: 'suspended' },
        { fromTick: 6, toTick: 7, state: 'suspended' },
      ],
      9,
      1,
    ).map((s) => s.tick),
    [6, 3],
  );
  assert.deepEqual(stepsBefore(lane, 2, 2), []);
});

test("before a step's first line, by name: the steps that ran none of the stop's functions (a helper's, as deep as the stop) are passed over however many, down to the task's first step", () => {
  const suspended = (fromTick: number, frames: string, framesKept: number): TimelineSegment => ({
    fromTick,
    toTick: fromTick + 1,
    state: 'suspended',
    frames: frames.split('>'),
    framesKept,
  });
  // main slept (tick 1), called helper, which slept five times (3, 5, 7, 9, 11: main and helper kept), then
  // main called inner, where the stop is (tick 13).
  const lane = [
    suspended(1, 'main>sleep', 0),
    suspended(3, 'main>helper>sleep', 1),
    ...[5, 7, 9, 11].map((t) => suspended(t, 'main>helper>sleep', 2)),
  ];
  // The stop's frames are inner and main: the helper's steps ran only helper and sleep (as deep as inner: the
  // frame count passes none of them over).
  assert.deepEqual(
    stepsBefore(lane, 13, 2).map((s) => s.tick),
    [11, 9, 7, 5, 3, 1],
  );
  assert.deepEqual(stepsBefore(lane, 13, 2, ['inner', 'main']), [
    { tick: 3, passedOver: 4 },
    { tick: 1, passedOver: 0 },
  ]);
  // A stop in helper itself: each of its steps ran it.
  assert.deepEqual(
    stepsBefore(lane, 13, 2, ['helper', 'main']).map((s) => s.tick),
    [11, 9, 7, 5, 3, 1],
  );
  // The task's first step ran its whole chain; a step with no frames recorded is kept in doubt.
  assert.deepEqual(
    stepsBefore([suspended(1, 'main>sleep', 0)], 3, 1, ['main']).map((s) => s.tick),
    [1],
  );
  assert.deepEqual(
    stepsBefore([{ fromTick: 1, toTick: 2, state: 'suspended' }, suspended(3, 'main>helper>sleep', 2)], 5, 2, [
      'inner',
      'main',
    ]).map((s) => s.tick),
    [3, 1],
  );
  assert.deepEqual(
    stepsBefore([suspended(1, 'main>helper>sleep', 1), { fromTick: 3, toTick: 4, state: 'suspended' }], 5, 2, [
      'inner',
      'main',
    ]).map((s) => s.tick),
    [3, 1],
  );
});

test('a yield to the loop (sleep(0): scheduled again at once, no suspension) ends a step as a suspension does; the scheduled segment before its first step (its creation) does not', () => {
  // Created at tick 0, first step at tick 1 ends in a bare yield, stepped again at tick 2; then suspended at 3 until 5.
  const lane: TimelineSegment[] = [
    { fromTick: 0, toTick: 0, state: 'scheduled' },
    { fromTick: 1, toTick: 1, state: 'running' },
    { fromTick: 1, toTick: 1, state: 'scheduled' },
    { fromTick: 2, toTick: 3, state: 'running' },
    { fromTick: 3, toTick: 5, state: 'suspended' },
    { fromTick: 6, toTick: 6, state: 'running' },
  ];
  assert.deepEqual(
    stepEnds(lane, 2).map((s) => s.fromTick),
    [1],
  );
  assert.deepEqual(stepEnds(lane, 1), []);
  assert.deepEqual(
    stepsBefore(lane, 6, 1).map((s) => s.tick),
    [3, 1],
  );
  assert.deepEqual(stepsBefore(lane, 2, 1), [{ tick: 1, passedOver: 0 }]);
});
