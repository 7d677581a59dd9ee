// HitCount (runtime/inspect/hit-count.ts): the one counter of a breakpoint's hits against its
// hit condition, for the loop, the line debugger, a scan of the past and the search arming it.
// Checks the parse (and the refusal), the count (it goes up at every hit, the condition only
// lets some through; none before the tick set in), the live count of a hit condition set while
// the run went (HitsSince: the tick told late, the hits of that tick kept as `before`), and
// that a scan given that offset lets through the same hits the live count did.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  countedFrom,
  HitCount,
  hitConditionOf,
  HitsSince,
  parseHitCondition,
  scanCount,
  scanCounting,
} from '../../../runtime/inspect/hit-count';

describe('hit conditions', () => {
  test('the DAP forms: N (>=N), >=N, >N, ==N, =N, <N, <=N, %N', () => {
    const through = (text: string): number[] => [1, 2, 3, 4, 5, 6].filter((n) => parseHitCondition(text)!(n));
    assert.deepEqual(through('3'), [3, 4, 5, 6]);
    assert.deepEqual(through(' >= 3 '), [3, 4, 5, 6]);
    assert.deepEqual(through('>3'), [4, 5, 6]);
    assert.deepEqual(through('==3'), [3]);
    assert.deepEqual(through('=3'), [3]);
    assert.deepEqual(through('<3'), [1, 2]);
    assert.deepEqual(through('<=3'), [1, 2, 3]);
    assert.deepEqual(through('%2'), [2, 4, 6]);
    for (const bad of ['%0', 'x', '>', '3x', '!=3', '-1']) assert.equal(parseHitCondition(bad), null, bad);
  });

  test('as set: blank is none, one that does not parse is refused with the forms', () => {
    assert.deepEqual(hitConditionOf(undefined), { test: null });
    assert.deepEqual(hitConditionOf('  '), { test: null });
    const ok = hitConditionOf('%3');
    assert.ok('test' in ok && ok.test !== null && ok.test(6));
    assert.deepEqual(hitConditionOf('often'), {
      refused: 'hit condition "often" is not one of N, >=N, >N, ==N, <N, <=N, %N',
    });
  });
});

describe('HitCount', () => {
  test('every hit counts; the hit condition lets some through; a new run counts from its start', () => {
    const c = new HitCount(parseHitCondition('%2'));
    assert.deepEqual([c.count(), c.count(), c.count(), c.count()], [null, 2, null, 4]);
    assert.equal(c.hits, 4);
    c.reset();
    assert.deepEqual([c.count(), c.count()], [null, 2]);
    const every = new HitCount(null);
    assert.deepEqual([every.count(), every.count()], [1, 2]);
  });

  test('hits up to the tick it was set in are not counted; it goes on from the hits before', () => {
    const c = new HitCount(parseHitCondition('==3'), 1, 10);
    assert.equal(c.countsIn(10), false);
    assert.equal(c.count(9), null);
    assert.equal(c.count(10), null);
    assert.equal(c.hits, 1);
    assert.equal(c.count(11), null);
    assert.equal(c.count(12), 3);
    assert.equal(c.count(12), null);
  });
});

describe('HitsSince', () => {
  test("set before the run (or once finished): from the run's start, no offset", () => {
    assert.equal(HitsSince.from('start'), null);
  });

  test('set at a line stop in tick 7: the hits noted in tick 7 are before, the first of a later tick closes it', () => {
    const since = HitsSince.from({ tick: 7 })!;
    assert.deepEqual(since.offset(), { tick: 7, before: 0 });
    since.noteTick(7);
    since.noteTick(7);
    assert.equal(since.open, true);
    since.noteTick(8);
    assert.equal(since.open, false);
    assert.deepEqual(since.offset(), { tick: 7, before: 2 });
  });

  test('set while the main thread ran: the tick is told late; hits noted meanwhile count by their tick', async () => {
    let tell!: (tick: number) => void;
    const since = HitsSince.from({ telling: new Promise<number>((resolve) => (tell = resolve)) })!;
    since.noteTick(4);
    since.noteTick(5);
    assert.equal(since.offset(), null);
    tell(4);
    await Promise.resolve();
    assert.deepEqual(since.offset(), { tick: 4, before: 1 });
    assert.equal(since.open, false);
  });

  test('never told (the run went away): counted from the start', async () => {
    const since = HitsSince.from({ telling: Promise.reject(new Error('gone')) })!;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(since.open, false);
    assert.equal(since.offset(), null);
  });
});

describe('a search of the past counts as the live run did', () => {
  test('the offset of a live count, given to a scan, lets the same hits through', () => {
    // Set at a stop in tick 3 with hit condition %2; hits live in ticks 3, 3, 4, 5, 5, 6.
    const hitTicks = [3, 3, 4, 5, 5, 6];
    const live = new HitCount(parseHitCondition('%2'));
    const since = HitsSince.from({ tick: 3 })!;
    const stoppedLive: number[] = [];
    for (const t of hitTicks) {
      const n = live.count();
      if (since.open) since.noteTick(t);
      if (n !== null) stoppedLive.push(t);
    }
    const armed = { hitCondition: '%2', hitsSince: since.offset()! };
    const counting = scanCounting(armed);
    assert.deepEqual(counting, { hitCondition: '%2', since: 3, before: 2 });
    // A scan from tick 3 on (countedFrom: no later than the tick set in), starting with the hits before.
    assert.equal(countedFrom([armed], 5), 3);
    const scan = scanCount(counting, counting.before);
    const stoppedInScan = hitTicks.filter((t) => t > 3).filter((t) => scan.count(t) !== null);
    assert.deepEqual(
      stoppedInScan,
      stoppedLive.filter((t) => t > 3),
    );
    assert.deepEqual(stoppedInScan, [5, 6]);
  });

  test('without a hit condition nothing is offset; from the run start the scan counts from 0', () => {
    assert.deepEqual(scanCounting({}), { before: 0 });
    assert.deepEqual(scanCounting({ hitCondition: '2' }), { hitCondition: '2', before: 0 });
    assert.equal(countedFrom([{ hitCondition: '2' }], 9), 0);
    assert.equal(countedFrom([{}], 9), 9);
    const scan = scanCount({ hitCondition: '2' }, 0);
    assert.deepEqual([scan.count(1), scan.count(1), scan.count(2)], [null, 2, 3]);
  });
});
