// Tests of runtime/barrier.ts (asyncio.Barrier), ported from CPython's
// Lib/test/test_asyncio/test_locks.py (class BarrierTests) and rewritten in this runtime's
// API, on the virtual clock.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  Barrier,
  BrokenBarrierError,
  RuntimeError,
  ValueError,
  CancelledError,
  coroutine,
  gather,
  sleep,
  getRunningLoop,
  type Coroutine,
  inspectResource,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

async function runMain<T>(main: () => Coroutine<T>): Promise<T> {
  const loop = virtualLoop();
  try {
    return await loop.runUntilComplete(main());
  } finally {
    loop.close();
  }
}

/** A party that records 'passed' or 'broken' (BrokenBarrierError) in `results`. */
const recordingParty = coroutine(function* party(b: Barrier, results: string[]): Coroutine<void> {
  try {
    yield* b.wait();
    results.push('passed');
  } catch (e) {
    if (e instanceof BrokenBarrierError) results.push('broken');
    else throw e;
  }
});

describe('BarrierTests (CPython test_locks.py)', () => {
  test('test_barrier_parties: parties must be > 0', () => {
    assert.throws(() => new Barrier(0), ValueError);
    assert.throws(() => new Barrier(-4), ValueError);
    assert.equal(new Barrier(5).parties, 5);
  });

  test('test_barrier / test_repr: a fresh barrier is filling, not broken', async () => {
    const b = new Barrier(1);
    assert.equal(b.nWaiting, 0);
    assert.equal(b.broken, false);
    assert.match(b.toString(), /filling waiters=0\/1/);
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        yield* b.abort();
      }),
    );
    assert.equal(b.broken, true);
    assert.match(b.toString(), /broken/);
  });

  test('test_filling_one_task / test_filling_one_task_twice: one party passes at once, index 0, again and again', async () => {
    const b = new Barrier(1);
    const r = await runMain(
      coroutine(function* main(): Coroutine<number[]> {
        return [yield* b.wait(), yield* b.wait()];
      }),
    );
    assert.deepEqual(r, [0, 0]);
    assert.equal(b.nWaiting, 0);
    assert.equal(b.broken, false);
  });

  test('test_filling_task_by_task: nWaiting counts arrivals until the round fills', async () => {
    const b = new Barrier(3);
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const loop = getRunningLoop();
        const t1 = loop.createTask(b.wait());
        yield* sleep(0);
        assert.equal(b.nWaiting, 1);
        const t2 = loop.createTask(b.wait());
        yield* sleep(0);
        assert.equal(b.nWaiting, 2);
        const t3 = loop.createTask(b.wait());
        yield* sleep(0);
        const indices = yield* gather(t1, t2, t3);
        assert.deepEqual([...indices].sort(), [0, 1, 2]);
        assert.equal(b.nWaiting, 0);
      }),
    );
  });

  test('test_filling_tasks_wait_twice / test_filling_tasks_check_return_value: every party gets each index once per round', async () => {
    const b = new Barrier(5);
    const seen: number[][] = [[], []];
    const party = coroutine(function* party(): Coroutine<void> {
      seen[0]!.push(yield* b.wait());
      seen[1]!.push(yield* b.wait());
    });
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        yield* gather(...Array.from({ length: 5 }, () => party()));
      }),
    );
    assert.deepEqual([...seen[0]!].sort(), [0, 1, 2, 3, 4]);
    assert.deepEqual([...seen[1]!].sort(), [0, 1, 2, 3, 4]);
    assert.equal(b.nWaiting, 0);
    assert.equal(b.broken, false);
  });

  test('test_draining_state / test_blocking_tasks_while_draining: newcomers wait for the draining round to leave', async () => {
    const b = new Barrier(2);
    const log: string[] = [];
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const loop = getRunningLoop();
        const party = coroutine(function* party(name: string): Coroutine<void> {
          const i = yield* b.wait();
          log.push(`${name}:${i}:${b.state()}`);
        });
        const first = [loop.createTask(party('a')), loop.createTask(party('b'))];
        // Arrives while the first round drains: joins the next one.
        const late = loop.createTask(party('c'));
        yield* gather(...first);
        assert.equal(late.done(), false);
        assert.equal(b.nWaiting, 1);
        yield* gather(late, party('d'));
      }),
    );
    // The last arrival releases the round and leaves first; the last one out refills
    // (the same log as CPython 3.11.7's).
    assert.deepEqual(log, ['b:1:draining', 'a:0:filling', 'd:1:draining', 'c:0:filling']);
  });

  test('test_filling_tasks_cancel_one: a cancelled party leaves the count', async () => {
    const b = new Barrier(3);
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const loop = getRunningLoop();
        const t1 = loop.createTask(b.wait());
        yield* sleep(0);
        assert.equal(b.nWaiting, 1);
        const t2 = loop.createTask(b.wait());
        yield* sleep(0);
        assert.equal(b.nWaiting, 2);
        t1.cancel();
        try {
          yield* t1;
        } catch (e) {
          assert.ok(e instanceof CancelledError);
        }
        assert.equal(b.nWaiting, 1);
        const t3 = loop.createTask(b.wait());
        const t4 = loop.createTask(b.wait());
        // asyncio's index is the count at arrival: the cancelled party's slot is reused
        // (CPython 3.11.7 gives the same [1, 1, 2]).
        assert.deepEqual(yield* gather(t2, t3, t4), [1, 1, 2]);
      }),
    );
    assert.equal(b.broken, false);
  });

  test('test_reset_barrier: reset of an idle barrier keeps it usable', async () => {
    const b = new Barrier(1);
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        yield* b.reset();
        assert.equal(b.nWaiting, 0);
        assert.equal(b.broken, false);
        assert.equal(yield* b.wait(), 0);
      }),
    );
  });

  test('test_reset_barrier_while_tasks_waiting: the waiting parties get BrokenBarrierError', async () => {
    const b = new Barrier(3);
    const results: string[] = [];
    const party = (): Coroutine<void> => recordingParty(b, results);
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const loop = getRunningLoop();
        const tasks = [loop.createTask(party()), loop.createTask(party())];
        yield* sleep(0);
        yield* b.reset();
        yield* gather(...tasks);
        // Reset done: the barrier works again for a full round.
        yield* gather(party(), party(), party());
      }),
    );
    assert.deepEqual(results, ['broken', 'broken', 'passed', 'passed', 'passed']);
    assert.equal(b.broken, false);
  });

  test('test_abort_barrier: waiting and later parties get BrokenBarrierError until reset', async () => {
    const b = new Barrier(4);
    const results: string[] = [];
    const party = (): Coroutine<void> => recordingParty(b, results);
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const loop = getRunningLoop();
        const tasks = [loop.createTask(party()), loop.createTask(party())];
        yield* sleep(0);
        yield* b.abort();
        yield* gather(...tasks);
        assert.equal(b.broken, true);
        yield* party();
        yield* b.reset();
        assert.equal(b.broken, false);
      }),
    );
    assert.deepEqual(results, ['broken', 'broken', 'broken']);
  });

  test('test_abort_barrier_when_exception: a party failing between rounds aborts; the others are told', async () => {
    const b = new Barrier(3);
    const results: string[] = [];
    const party = coroutine(function* party(fail: boolean): Coroutine<void> {
      try {
        const i = yield* b.wait();
        if (fail && i === 0) throw new RuntimeError('the party of index 0 fails');
        yield* b.wait();
        results.push('second round');
      } catch (e) {
        if (e instanceof BrokenBarrierError) results.push('broken');
        else {
          results.push('failed');
          yield* b.abort();
        }
      }
    });
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        yield* gather(party(true), party(true), party(true));
      }),
    );
    assert.deepEqual([...results].sort(), ['broken', 'broken', 'failed']);
    assert.equal(b.broken, true);
  });
});

describe('Barrier: the inspection interface', () => {
  test('lists the parties waiting for the round to fill', async () => {
    const b = new Barrier(3);
    await runMain(
      coroutine(function* main(): Coroutine<void> {
        const loop = getRunningLoop();
        const t1 = loop.createTask(b.wait());
        const t2 = loop.createTask(b.wait());
        yield* sleep(0);
        const view = inspectResource(b)!;
        assert.equal(view.kind, 'barrier');
        assert.equal(view.waiters().length, 2);
        assert.match(view.description(), /waiters=2\/3/);
        yield* gather(t1, t2, b.wait());
        assert.equal(view.waiters().length, 0);
      }),
    );
  });
});
