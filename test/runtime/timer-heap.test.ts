// TimerHeap: timers come out in (when, seq) order whatever the order they went in, cancelled ones
// are dropped by removeCancelled() with the order kept, and every handle dropped is marked no
// longer scheduled. Deterministic: a seeded generator, checked against a sort.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TimerHandle } from '../../runtime/handle';
import { TimerHeap } from '../../runtime/timer-heap';

/** A small linear congruential generator: the same sequence on every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function timer(when: number, seq: number): TimerHandle {
  return new TimerHandle(when, seq, () => undefined, [], null);
}

const order = (a: TimerHandle, b: TimerHandle) => a.when - b.when || a.seq - b.seq;
const names = (hs: readonly TimerHandle[]) => hs.map((h) => `${h.when}#${h.seq}`);

function drain(heap: TimerHeap): TimerHandle[] {
  const out: TimerHandle[] = [];
  for (let h = heap.pop(); h !== undefined; h = heap.pop()) out.push(h);
  return out;
}

test('pops in (when, seq) order; equal times keep their scheduling order', () => {
  const random = seeded(7);
  const heap = new TimerHeap();
  const all: TimerHandle[] = [];
  for (let seq = 0; seq < 500; seq++) {
    const h = timer(Math.floor(random() * 40), seq); // many equal `when`s
    all.push(h);
    heap.push(h);
  }
  assert.equal(heap.size, 500);
  assert.equal(heap.peek(), [...all].sort(order)[0]);
  assert.deepEqual(names(drain(heap)), names([...all].sort(order)));
  assert.equal(heap.size, 0);
  assert.equal(heap.pop(), undefined);
  assert.equal(heap.peek(), undefined);
});

test('pushes between pops keep the order (the loop schedules while it runs timers)', () => {
  const random = seeded(11);
  const heap = new TimerHeap();
  const reference: TimerHandle[] = [];
  const popped: TimerHandle[] = [];
  let seq = 0;
  for (let round = 0; round < 200; round++) {
    for (let k = 0; k < 3; k++) {
      const h = timer(round + Math.floor(random() * 10), seq++);
      heap.push(h);
      reference.push(h);
    }
    const h = heap.pop();
    assert.ok(h !== undefined);
    reference.sort(order);
    assert.equal(h, reference.shift(), `round ${round}: the earliest timer comes out`);
    popped.push(h);
  }
  assert.equal(heap.size, reference.length);
});

test('removeCancelled drops exactly the cancelled timers, unschedules them, and keeps the order', () => {
  const random = seeded(3);
  const heap = new TimerHeap();
  const all: TimerHandle[] = [];
  for (let seq = 0; seq < 300; seq++) {
    const h = timer(Math.floor(random() * 1000) / 10, seq);
    all.push(h);
    heap.push(h);
  }
  const cancelled = all.filter((_, i) => i % 3 === 0);
  for (const h of cancelled) h.cancel();
  assert.equal(heap.removeCancelled(), cancelled.length);
  assert.equal(heap.size, all.length - cancelled.length);
  assert.ok(cancelled.every((h) => !h.scheduled));
  const kept = all.filter((h) => !h.cancelled());
  assert.ok(kept.every((h) => h.scheduled));
  heap.push(timer(0, 1000)); // still a heap after the rebuild
  assert.deepEqual(names(drain(heap)), names([timer(0, 1000), ...kept.sort(order)]));
});

test('clear() empties the heap and marks every handle unscheduled', () => {
  const heap = new TimerHeap();
  const hs = [timer(2, 0), timer(1, 1), timer(3, 2)];
  for (const h of hs) heap.push(h);
  assert.equal(heap.all().length, 3);
  heap.clear();
  assert.equal(heap.size, 0);
  assert.ok(hs.every((h) => !h.scheduled));
});
