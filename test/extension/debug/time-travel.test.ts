// Where the debugger's steps through a recording land, from a task's lane.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TimelineLane, TimelineSegment } from '../../../protocol/host-protocol';
import {
  frameReturn,
  laneHasFrames,
  nextOf,
  nextSuspension,
  previousOf,
  previousSuspension,
} from '../../../extension/debug/time-travel';

function lane(segments: TimelineSegment[]): TimelineLane {
  return {
    taskId: 3,
    name: 'worker-1',
    parentId: 1,
    createdTick: 1,
    endTick: null,
    endState: null,
    segmentsFrom: 0,
    segments,
  };
}

// Scheduled at 1, runs at 2 and suspends on the queue until 10 (woken), runs at 11, suspends
// on a read until 14, runs 15-16, suspends from 16 (open, still at tick 20).
const worker = lane([
  { fromTick: 1, toTick: 1, state: 'scheduled' },
  { fromTick: 2, toTick: 2, state: 'running' },
  { fromTick: 2, toTick: 10, state: 'suspended', awaiting: 'queue.get', wokenTick: 10, wokenBy: 2 },
  { fromTick: 11, toTick: 11, state: 'running' },
  { fromTick: 11, toTick: 14, state: 'suspended', awaiting: 'socket.read', wokenTick: 14, wokenBy: 'io' },
  { fromTick: 15, toTick: 16, state: 'running' },
  { fromTick: 16, toTick: 20, state: 'suspended', awaiting: 'socket.read', open: true },
]);

describe('time travel in a recording', () => {
  it('a step back goes to the suspension before the one the task is in', () => {
    assert.equal(previousSuspension(worker, 20), 11);
    assert.equal(previousSuspension(worker, 16), 11);
    assert.equal(previousSuspension(worker, 13), 2);
    assert.equal(previousSuspension(worker, 11), 2);
    // Running at 15 (between suspensions): the last one before.
    assert.equal(previousSuspension(worker, 15), 11);
    assert.equal(previousSuspension(worker, 5), null);
    assert.equal(previousSuspension(worker, 1), null);
  });

  it('a step forward goes to the next suspension after the tick', () => {
    assert.equal(nextSuspension(worker, 2), 11);
    assert.equal(nextSuspension(worker, 1), 2);
    assert.equal(nextSuspension(worker, 12), 16);
    assert.equal(nextSuspension(worker, 16), null);
  });

  it('stops before and after a tick', () => {
    assert.equal(previousOf([40, 7, 22], 30), 22);
    assert.equal(previousOf([40, 7, 22], 7), null);
    assert.equal(nextOf(new Set([40, 7, 22]), 22), 40);
    assert.equal(nextOf([40, 7, 22], 40), null);
  });

  // A worker: its loop (root) awaits the queue, then fetch > get reads twice, fetch > text
  // reads once, then back at the queue; it ends at 30.
  const fetching = {
    ...lane([
      { fromTick: 1, toTick: 1, state: 'scheduled' },
      { fromTick: 2, toTick: 2, state: 'running' },
      { fromTick: 2, toTick: 4, state: 'suspended', awaiting: 'queue.get', frames: ['work'] },
      { fromTick: 5, toTick: 5, state: 'running' },
      { fromTick: 5, toTick: 7, state: 'suspended', awaiting: 'socket.read', frames: ['work', 'fetch', 'get', 'read'] },
      { fromTick: 8, toTick: 8, state: 'running' },
      {
        fromTick: 8,
        toTick: 10,
        state: 'suspended',
        awaiting: 'socket.read',
        frames: ['work', 'fetch', 'get', 'read'],
      },
      { fromTick: 11, toTick: 11, state: 'running' },
      {
        fromTick: 11,
        toTick: 13,
        state: 'suspended',
        awaiting: 'socket.read',
        frames: ['work', 'fetch', 'text', 'read'],
      },
      { fromTick: 14, toTick: 14, state: 'running' },
      { fromTick: 14, toTick: 29, state: 'suspended', awaiting: 'queue.get', frames: ['work'] },
      { fromTick: 30, toTick: 30, state: 'running' },
    ]),
    endTick: 30,
    endState: 'cancelled' as const,
  };

  it("a step out goes to the first later suspension where the current frame has returned, else the task's end", () => {
    assert.equal(laneHasFrames(fetching), true);
    assert.equal(laneHasFrames(worker), false);
    // In read (under get): the next read is a new call at the same depth under the same
    // frames (indistinguishable by names); text's read shows get has returned.
    assert.equal(frameReturn(fetching, 5), 11);
    assert.equal(frameReturn(fetching, 9), 11);
    // Scheduled at 7 after the first read: still in that read.
    assert.equal(frameReturn(fetching, 7), 11);
    // In text's read: fetch returns before the queue.
    assert.equal(frameReturn(fetching, 12), 14);
    // In the root frame: out of it is the task's end.
    assert.equal(frameReturn(fetching, 3), 30);
    assert.equal(frameReturn(fetching, 20), 30);
    // Before its first suspension: the root frame too.
    assert.equal(frameReturn(fetching, 1), 30);
    // Still going at the end of the recording: nothing later yet.
    assert.equal(frameReturn(worker, 17), null);
  });

  it('with the calls kept at each suspension, a step out tells a call made again by the same names', () => {
    // As `fetching`, recorded with framesKept: the second read (at 8) is a new call of read.
    const kept = [undefined, undefined, 0, undefined, 1, undefined, 3, undefined, 2, undefined, 1, undefined];
    const exact = {
      ...fetching,
      segments: fetching.segments.map((s, i) => (kept[i] === undefined ? s : { ...s, framesKept: kept[i] })),
    };
    assert.equal(frameReturn(exact, 5), 8);
    // In the second read: get is still going, text's read shows get returned... and the read with it.
    assert.equal(frameReturn(exact, 9), 11);
    assert.equal(frameReturn(exact, 12), 14);
    assert.equal(frameReturn(exact, 3), 30);
    // Scheduled at 6, still in the first read.
    assert.equal(frameReturn(exact, 6), 8);
  });
});
