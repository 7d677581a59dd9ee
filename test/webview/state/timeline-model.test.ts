import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Timeline, TimelineLane } from '../../../protocol/host-protocol';
import { awaitCategory, segmentIndexAt, segmentKind, TimelineModel } from '../../../webview/state/timeline-model';
import { makeTimeline } from '../fixtures-timeline';

function lane(over: Partial<TimelineLane> = {}): TimelineLane {
  return {
    taskId: 5,
    name: 'worker-1',
    parentId: 1,
    createdTick: 2,
    segmentsFrom: 0,
    endTick: null,
    endState: null,
    segments: [
      { fromTick: 2, toTick: 3, state: 'running' },
      { fromTick: 3, toTick: 8, state: 'suspended', awaiting: 'socket.read', wokenTick: 8, wokenBy: 'io' },
      { fromTick: 9, toTick: 9, state: 'running' },
      { fromTick: 9, toTick: 10, state: 'suspended', awaiting: 'queue.get', open: true },
    ],
    ...over,
  };
}

function update(over: Partial<Timeline>): Timeline {
  return { runId: 1, ticks: 10, sinceTick: 0, live: true, lanes: [], marks: [], tickTimes: [], ...over };
}

describe('TimelineModel', () => {
  it('classifies what a stretch of a lane waits on', () => {
    assert.equal(awaitCategory('socket.read'), 'io');
    assert.equal(awaitCategory('http.pool'), 'io');
    assert.equal(awaitCategory('sleep'), 'timer');
    assert.equal(awaitCategory('queue.get'), 'sync');
    assert.equal(awaitCategory('lock'), 'sync');
    assert.equal(awaitCategory('gather'), 'task');
    assert.equal(awaitCategory('future'), 'wait');
    assert.equal(segmentKind({ fromTick: 0, toTick: 1, state: 'scheduled' }), 'scheduled');
    assert.equal(segmentKind({ fromTick: 0, toTick: 1, state: 'suspended' }), 'wait');
  });

  it('finds the segment right after a tick: at a shared end, the later one', () => {
    const m = new TimelineModel();
    m.apply(update({ lanes: [lane()] }));
    const l = m.lane(5)!;
    assert.equal(segmentIndexAt(l.segments, 1), -1);
    assert.equal(segmentIndexAt(l.segments, 3), 1);
    assert.equal(segmentIndexAt(l.segments, 9), 3);
    assert.deepEqual(m.stateAt(l, 1), { kind: 'notCreated' });
    const at = m.stateAt(l, 5);
    assert.ok(at.kind === 'segment' && at.segment.awaiting === 'socket.read');
    const later = m.stateAt(l, 9);
    assert.ok(later.kind === 'segment' && later.segment.awaiting === 'queue.get');
  });

  it('answers the jumps: who woke it, where it was created, who cancelled it', () => {
    const m = new TimelineModel();
    m.apply(
      update({
        lanes: [
          lane({ endTick: 12, endState: 'cancelled', cancelledTick: 11, cancelledBy: { kind: 'task', taskId: 1 } }),
          lane({ taskId: 6, createdTick: 0 }),
        ],
      }),
    );
    const l = m.lane(5)!;
    const j = m.jumps(l, 4);
    assert.deepEqual(j.woken, { tick: 8, by: 'io' });
    assert.equal(j.created, 2);
    assert.deepEqual(j.cancelled, { tick: 11 });
    // Running, or suspended on something not completed yet: no "who woke this".
    assert.equal(m.jumps(l, 2).woken, null);
    assert.equal(m.jumps(l, 10).woken, null);
    assert.deepEqual(m.stateAt(l, 12), { kind: 'ended', state: 'cancelled' });
    // Created before the first tick: "created here" is the first tick.
    assert.equal(m.jumps(m.lane(6)!, 4).created, 1);
  });

  it('merges a live update as the host says: the lane cut to segmentsFrom entries, the new ones appended', () => {
    const m = new TimelineModel();
    m.apply(update({ lanes: [lane()], ticks: 10 }));
    const next = update({
      sinceTick: 10,
      ticks: 14,
      lanes: [
        lane({
          segmentsFrom: 3,
          segments: [
            { fromTick: 9, toTick: 12, state: 'suspended', awaiting: 'queue.get', wokenTick: 12, wokenBy: 1 },
            { fromTick: 13, toTick: 14, state: 'running', open: true },
          ],
        }),
      ],
    });
    m.apply(next);
    m.apply(next);
    const segs = m.lane(5)!.segments;
    assert.deepEqual(
      segs.map((s) => [s.fromTick, s.toTick, s.state]),
      [
        [2, 3, 'running'],
        [3, 8, 'suspended'],
        [9, 9, 'running'],
        [9, 12, 'suspended'],
        [13, 14, 'running'],
      ],
    );
    assert.equal(m.lastTick, 14);
    assert.equal(m.sinceTick, 14);
    assert.equal(m.finished, false);
    m.apply(update({ sinceTick: 14, ticks: 14, live: false }));
    assert.equal(m.finished, true);
  });

  it("keeps marks sorted and replaces those after the update's sinceTick", () => {
    const m = new TimelineModel();
    m.apply(
      update({
        marks: [
          { tick: 1, kind: 'io', taskId: 5, detail: 'a' },
          { tick: 6, kind: 'timer', detail: 'b' },
        ],
      }),
    );
    m.apply(
      update({
        sinceTick: 5,
        marks: [
          { tick: 7, kind: 'io', taskId: 5, detail: 'c' },
          { tick: 6, kind: 'cancel', taskId: 5, detail: 'd' },
        ],
      }),
    );
    assert.deepEqual(
      m.marks.map((x) => x.detail),
      ['a', 'd', 'c'],
    );
    assert.deepEqual(
      m.marksIn(2, 7).map((x) => x.detail),
      ['d'],
    );
  });

  it('maps ticks to wall time and back, updated incrementally', () => {
    const m = new TimelineModel();
    m.apply(update({ ticks: 4, tickTimes: [0, 1, 3, 6] }));
    assert.equal(m.msAt(1), 0);
    assert.equal(m.msAt(3), 3);
    assert.equal(m.msAt(4), 6);
    assert.equal(m.msAt(5), 8);
    assert.equal(m.tickAtMs(0), 1);
    assert.equal(m.tickAtMs(2.9), 2);
    assert.equal(m.tickAtMs(3), 3);
    assert.equal(m.tickAtMs(99), 4);
    m.apply(update({ sinceTick: 4, ticks: 6, tickTimes: [10, 15] }));
    assert.equal(m.msAt(5), 10);
    assert.equal(m.msAt(6), 15);
  });

  it('filters lanes by id and name, in task order', () => {
    const m = new TimelineModel();
    m.apply(makeTimeline(12, 50));
    assert.equal(m.visibleLanes('').length, 13);
    assert.deepEqual(
      m.visibleLanes('worker-1').map((l) => l.name),
      ['worker-1', 'worker-10', 'worker-11', 'worker-12'],
    );
    assert.deepEqual(
      m.visibleLanes('#1 crawl').map((l) => l.taskId),
      [1],
    );
  });

  it('clear() forgets the run', () => {
    const m = new TimelineModel();
    m.apply(makeTimeline(2, 20));
    m.clear();
    assert.equal(m.laneCount, 0);
    assert.equal(m.hasTicks, false);
    assert.equal(m.sinceTick, undefined);
  });
});
