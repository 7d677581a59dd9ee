// runtime/record/record-clocks.ts: the recording clock samples one time per tick and reports every
// reading between ticks; the replay clock gives those readings back in order, then repeats the last.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock, type Clock } from '../../../runtime/clock';
import { RecordingClock, ReplayClock } from '../../../runtime/record/record-clocks';

/** A real-time-like clock (not virtual) whose readings the test sets, counting holds. */
class SetClock implements Clock {
  readonly virtual = false;
  reading = 0;
  holds = 0;
  releases = 0;
  now(): number {
    return this.reading;
  }
  advanceTo(): void {}
  hold(): void {
    this.holds++;
  }
  release(): void {
    this.releases++;
  }
}

describe('RecordingClock', () => {
  it('gives the tick start to every reading within a tick, and reports only the readings between ticks', () => {
    const base = new VirtualClock(1);
    const gapReads: number[] = [];
    const clock = new RecordingClock(base, (t) => gapReads.push(t));
    assert.equal(clock.virtual, true);
    assert.equal(clock.now(), 1);
    assert.equal(clock.startTick(), 1);
    base.advance(0.5);
    assert.deepEqual([clock.now(), clock.now()], [1, 1], 'within the tick: its start');
    clock.endTick();
    assert.equal(clock.now(), 1.5, 'between ticks: live');
    base.advance(0.25);
    assert.equal(clock.now(), 1.75);
    assert.deepEqual(gapReads, [1, 1.5, 1.75]);
  });

  it('rounds real time up to the microsecond, and leaves a virtual clock as it is', () => {
    const real = new SetClock();
    const clock = new RecordingClock(real, () => undefined);
    real.reading = 2.0000001;
    assert.equal(clock.now(), 2.000001);
    real.reading = 3.000002;
    assert.equal(clock.startTick(), 3.000002, 'already on the grid');
    const virtual = new RecordingClock(new VirtualClock(2.0000001), () => undefined);
    assert.equal(virtual.now(), 2.0000001);
  });

  it('passes holds and advanceTo through to the clock it wraps', () => {
    const real = new SetClock();
    const clock = new RecordingClock(real, () => undefined);
    clock.hold();
    clock.hold();
    clock.release();
    assert.deepEqual([real.holds, real.releases], [2, 1]);
    const base = new VirtualClock();
    new RecordingClock(base, () => undefined).advanceTo(4);
    assert.equal(base.now(), 4);
  });

  it('over a ReplayClock, a tick runs at the recorded time, however many readings came before', () => {
    const replay = new ReplayClock([0.5], 0);
    const clock = new RecordingClock(replay, () => undefined);
    replay.setTick(7, [7.25]);
    assert.equal(clock.now(), 7, 'a reading before the tick starts is the tick time too');
    assert.equal(clock.startTick(), 7);
    clock.endTick();
    assert.equal(clock.now(), 7.25, "then the gap's recorded reading");
  });
});

describe('ReplayClock', () => {
  it("gives the gap's readings in order, then repeats the last one", () => {
    const clock = new ReplayClock([0.1, 0.2], 0);
    assert.equal(clock.virtual, true);
    assert.deepEqual([clock.now(), clock.now(), clock.now(), clock.now()], [0.1, 0.2, 0.2, 0.2]);
  });

  it('starts at its start time when the first gap is empty, and never moves by advanceTo', () => {
    const clock = new ReplayClock([], 3);
    clock.advanceTo(10);
    assert.equal(clock.now(), 3);
  });

  it('a tick set: its time until taken, then the next gap; an empty gap repeats the tick time', () => {
    const clock = new ReplayClock([], 0);
    clock.setTick(1.5, [1.75, 2]);
    assert.deepEqual([clock.now(), clock.now()], [1.5, 1.5], 'the tick is pending');
    assert.equal(clock.takeTickTime(), 1.5);
    assert.deepEqual([clock.now(), clock.now(), clock.now()], [1.75, 2, 2]);
    clock.setTick(3, []);
    assert.equal(clock.takeTickTime(), 3);
    assert.deepEqual([clock.now(), clock.now()], [3, 3]);
  });
});
