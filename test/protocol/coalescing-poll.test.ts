import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoalescingPoll, type PollTimers } from '../../protocol/coalescing-poll';

/** A fake clock: timers fire only when the test advances it. */
class FakeTimers implements PollTimers {
  now = 0;
  private next = 1;
  private readonly due = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.due.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.due.delete(handle as number);
  }
  get pending(): number {
    return this.due.size;
  }
  /** Moves the clock to `now + ms`, firing what falls due in order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      let first: [number, { at: number; fn: () => void }] | null = null;
      for (const e of this.due) if (e[1].at <= end && (first === null || e[1].at < first[1].at)) first = e;
      if (first === null) break;
      this.due.delete(first[0]);
      this.now = first[1].at;
      first[1].fn();
    }
    this.now = end;
  }
}

/** A poll whose answers the test gives, one by one. */
function scriptedPoll(): {
  once: () => Promise<number | null>;
  started: () => number;
  answer: (next: number | null | Error) => Promise<void>;
} {
  let started = 0;
  const waiting: Array<(v: number | null | Error) => void> = [];
  return {
    once: () => {
      started++;
      return new Promise<number | null>((resolve, reject) =>
        waiting.push((v) => (v instanceof Error ? reject(v) : resolve(v))),
      );
    },
    started: () => started,
    answer: async (next) => {
      const w = waiting.shift();
      assert.ok(w !== undefined, 'no poll is in flight to answer');
      w(next);
      // Let the loop's continuation run (it awaits the poll's promise).
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

describe('CoalescingPoll', () => {
  it('polls after the delay asked, then after the delay each poll answers, and stops on null', async () => {
    const clock = new FakeTimers();
    const p = scriptedPoll();
    const poll = new CoalescingPoll(p.once, clock);
    poll.schedule(100);
    clock.advance(99);
    assert.equal(p.started(), 0);
    clock.advance(1);
    assert.equal(p.started(), 1);
    assert.equal(poll.inFlight, true);
    await p.answer(250);
    assert.equal(poll.inFlight, false);
    clock.advance(249);
    assert.equal(p.started(), 1);
    clock.advance(1);
    assert.equal(p.started(), 2);
    await p.answer(null);
    clock.advance(10_000);
    assert.equal(p.started(), 2, 'stopped after a null answer');
    assert.equal(clock.pending, 0);
  });

  it('asks made while a poll is in flight coalesce into exactly one more poll right after it', async () => {
    const clock = new FakeTimers();
    const p = scriptedPoll();
    const poll = new CoalescingPoll(p.once, clock);
    poll.schedule(0);
    clock.advance(0);
    assert.equal(p.started(), 1);
    poll.schedule(0);
    poll.schedule(0);
    poll.schedule(500); // a later poll asked while one is in flight adds nothing
    assert.equal(clock.pending, 0, 'no second poll while one is in flight');
    await p.answer(1000); // its own answer (1 s) is overridden by the coalesced ask
    clock.advance(0);
    assert.equal(p.started(), 2);
    await p.answer(null);
    clock.advance(5000);
    assert.equal(p.started(), 2, 'one ask, one extra poll');
  });

  it('a pending timer is kept for a later ask and replaced by an ask for now', async () => {
    const clock = new FakeTimers();
    const p = scriptedPoll();
    const poll = new CoalescingPoll(p.once, clock);
    poll.schedule(300);
    poll.schedule(100); // not sooner unless 0: the pending one stands
    clock.advance(100);
    assert.equal(p.started(), 0);
    assert.equal(clock.pending, 1);
    poll.schedule(0);
    assert.equal(clock.pending, 1, 'the 300 ms timer was replaced, not doubled');
    clock.advance(0);
    assert.equal(p.started(), 1);
    await p.answer(null);
    clock.advance(1000);
    assert.equal(p.started(), 1);
  });

  it('cancel clears the pending timer and a coalesced ask; a poll that throws stops the loop', async () => {
    const clock = new FakeTimers();
    const p = scriptedPoll();
    const poll = new CoalescingPoll(p.once, clock);
    poll.schedule(50);
    poll.cancel();
    clock.advance(1000);
    assert.equal(p.started(), 0);
    poll.schedule(0);
    clock.advance(0);
    poll.schedule(0);
    poll.cancel(); // the coalesced ask goes too
    await p.answer(null);
    clock.advance(1000);
    assert.equal(p.started(), 1);
    poll.schedule(0);
    clock.advance(0);
    await p.answer(new Error('host gone'));
    assert.equal(poll.inFlight, false);
    clock.advance(10_000);
    assert.equal(p.started(), 2);
    assert.equal(clock.pending, 0);
  });
});
