// Tests of runtime/inspect/await-graph.ts: the graph's nodes and edges (a task awaiting a
// task, gather's children, a queue's getters and join, resources by stable ids) and the
// deadlock rules: a cycle of tasks awaiting each other (and who awaits them), nothing left
// that can run (a queue.get with no producer, an Event nobody sets), a Lock held by a
// finished task; a lock-order cycle (two Locks taken in opposite order), a future cycle (each
// task awaits a future only the other would complete, and not while a timer could complete
// one), a mixed cycle (a lock's holder awaits a task waiting on that lock); and no report
// while a timer can still make progress.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  Event,
  Lock,
  Queue,
  coroutine,
  gather,
  sleep,
  type Coroutine,
  type Future,
  type Task,
} from '../../../runtime/index';
import { inspect } from '../../../runtime/inspection';
import { buildAwaitGraph } from '../../../runtime/inspect/await-graph';
import { resourceIdOf } from '../../../runtime/inspect/resource-ids';
import { awaitedTasks } from '../../../runtime/inspect/task-summaries';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

async function ticks(loop: EventLoop, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await loop.runOnce();
}

function cancelAll(loop: EventLoop): Promise<void> {
  for (const t of loop.allTasks()) {
    try {
      t.cancel();
    } catch {
      // Tasks awaiting each other: cancel() recurses (a runtime limitation); they stay.
    }
  }
  return ticks(loop, 3);
}

describe('the await graph', () => {
  test('a task awaiting gather of children, and a queue getter: nodes and edges', async () => {
    const loop = virtualLoop();
    const q = new Queue<number>();
    const child = coroutine(function* child(): Coroutine<number> {
      return yield* q.get();
    });
    let kids: Task<number>[] = [];
    const parent = coroutine(function* parent(): Coroutine<number[]> {
      kids = [loop.createTask(child(), { name: 'kid-1' }), loop.createTask(child(), { name: 'kid-2' })];
      return yield* gather(...kids);
    });
    const p = loop.createTask(parent(), { name: 'parent' });
    await ticks(loop, 3);
    const g = buildAwaitGraph(loop);
    const edge = g.edges.find((e) => e.from === `task:${p.id}`)!;
    assert.equal(edge.kind, 'awaits');
    assert.equal(g.nodes.find((n) => n.id === edge.to)?.label, 'gather 2 awaitables');
    for (const k of kids) {
      assert.ok(
        g.edges.some((e) => e.from === edge.to && e.to === `task:${k.id}` && e.kind === 'awaits'),
        `gather → ${k.name}`,
      );
      const getter = g.edges.find((e) => e.from === `task:${k.id}`)!;
      assert.equal(g.nodes.find((n) => n.id === getter.to)?.label, 'queue.get');
      assert.ok(g.edges.some((e) => e.from === getter.to && e.to === resourceIdOf(q) && e.kind === 'waitsOn'));
    }
    assert.equal(g.nodes.find((n) => n.id === resourceIdOf(q))?.kind, 'resource');
    assert.deepEqual(
      awaitedTasks(p._waiter!).map((t) => t.name),
      ['kid-1', 'kid-2'],
    );
    // Nothing can put into the queue: every live task waits forever.
    assert.equal(g.deadlocks.length, 1);
    assert.match(g.deadlocks[0]!.reason, /^nothing can run/);
    assert.deepEqual(new Set(g.deadlocks[0]!.nodes), new Set([p, ...kids].map((t) => `task:${t.id}`)));
    q.putNowait(1);
    q.putNowait(2);
    assert.deepEqual(await loop.runUntilComplete(p), [1, 2]);
    assert.deepEqual(buildAwaitGraph(loop).deadlocks, []);
    loop.close();
  });

  test('a cycle of tasks awaiting each other, and the task awaiting them', async () => {
    const loop = virtualLoop();
    const tasks: { a?: Task<void>; b?: Task<void> } = {};
    const a = coroutine(function* a(): Coroutine<void> {
      yield* sleep(0);
      yield* tasks.b!;
    });
    const b = coroutine(function* b(): Coroutine<void> {
      yield* sleep(0);
      yield* tasks.a!;
    });
    tasks.a = loop.createTask(a(), { name: 'A' });
    tasks.b = loop.createTask(b(), { name: 'B' });
    const watcher = coroutine(function* watcher(): Coroutine<void> {
      yield* gather(tasks.a!, tasks.b!);
    });
    const w = loop.createTask(watcher(), { name: 'watcher' });
    // Something unrelated keeps a timer pending: the cycle is still certain.
    const ticker = loop.createTask(sleep(100), { name: 'ticker' });
    await ticks(loop, 4);
    const g = buildAwaitGraph(loop);
    assert.equal(g.deadlocks.length, 1, JSON.stringify(g.deadlocks));
    const d = g.deadlocks[0]!;
    assert.match(
      d.reason,
      /cycle of tasks awaiting each other: Task #\d+ "A" → Task #\d+ "B" → Task #\d+ "A"|cycle of tasks awaiting each other: Task #\d+ "B" → Task #\d+ "A" → Task #\d+ "B"/,
    );
    assert.match(d.reason, /"watcher" awaits/);
    assert.deepEqual(new Set(d.nodes), new Set([tasks.a, tasks.b, w].map((t) => `task:${t.id}`)));
    assert.ok(!d.nodes.includes(`task:${ticker.id}`));
    assert.ok(g.edges.some((e) => e.from === `task:${tasks.a!.id}` && e.to === `task:${tasks.b!.id}`));
    ticker.cancel();
    await ticks(loop, 2);
    loop.setExceptionHandler(() => undefined); // A, B and watcher are still pending
    loop.close();
  });

  test('a Lock held by a task that finished, with a waiter', async () => {
    const loop = virtualLoop();
    {
      const lock = new Lock();
      const forgetful = coroutine(function* forgetful(): Coroutine<void> {
        yield* lock.acquire();
      });
      const patient = coroutine(function* patient(): Coroutine<void> {
        yield* sleep(1);
        yield* lock.acquire();
        lock.release();
      });
      const h = loop.createTask(forgetful(), { name: 'forgetful' });
      const p = loop.createTask(patient(), { name: 'patient' });
      const busy = loop.createTask(sleep(1000), { name: 'busy' });
      await ticks(loop, 4);
      assert.ok(h.done() && lock.locked());
      assert.deepEqual(lock[inspect]().holders(), [h]);
      const g = buildAwaitGraph(loop);
      assert.ok(g.edges.some((e) => e.from === `task:${h.id}` && e.to === resourceIdOf(lock) && e.kind === 'holds'));
      assert.equal(g.deadlocks.length, 1, JSON.stringify(g.deadlocks));
      assert.equal(
        g.deadlocks[0]!.reason,
        `<Lock locked waiters=1> is held by Task #${h.id} "forgetful", which returned without releasing it; #${p.id} wait for it forever`,
      );
      assert.ok(g.deadlocks[0]!.nodes.includes(`task:${p.id}`));
      // Released by hand: no holder, no deadlock.
      lock.release();
      assert.deepEqual(lock[inspect]().holders(), []);
      await ticks(loop, 2);
      assert.deepEqual(buildAwaitGraph(loop).deadlocks, []);
      busy.cancel();
      await cancelAll(loop);
      loop.close();
    }
  });

  test('a lock-order cycle: two tasks take two Locks in opposite order', async () => {
    const loop = virtualLoop();
    const first = new Lock();
    const second = new Lock();
    const ab = coroutine(function* ab(): Coroutine<void> {
      yield* first.acquire();
      yield* sleep(0);
      yield* second.acquire();
    });
    const ba = coroutine(function* ba(): Coroutine<void> {
      yield* second.acquire();
      yield* sleep(0);
      yield* first.acquire();
    });
    const a = loop.createTask(ab(), { name: 'AB' });
    const b = loop.createTask(ba(), { name: 'BA' });
    await ticks(loop, 4);
    const g = buildAwaitGraph(loop);
    assert.equal(g.deadlocks.length, 1, JSON.stringify(g.deadlocks));
    const d = g.deadlocks[0]!;
    assert.match(
      d.reason,
      /^lock-order cycle: each task holds what the next one waits for: Task #\d+ "(AB|BA)" \(waiting for <Lock locked/,
    );
    assert.deepEqual(
      new Set(d.nodes),
      new Set([`task:${a.id}`, `task:${b.id}`, resourceIdOf(first), resourceIdOf(second)]),
    );
    assert.ok(g.edges.some((e) => e.from === `task:${a.id}` && e.to === resourceIdOf(first) && e.kind === 'holds'));
    assert.ok(g.edges.some((e) => e.from === `task:${b.id}` && e.to === resourceIdOf(second) && e.kind === 'holds'));
    loop.setExceptionHandler(() => undefined);
    loop.close();
  });

  test('a future cycle: each task awaits a future only the other would complete', async () => {
    const loop = virtualLoop();
    const made: { a?: Future<number>; b?: Future<number> } = {};
    const left = coroutine(function* left(): Coroutine<number> {
      made.a = loop.createFuture<number>();
      yield* sleep(0);
      const got = yield* made.b!; // B would set it after its own await
      made.a.setResult(got);
      return got;
    });
    const right = coroutine(function* right(): Coroutine<number> {
      made.b = loop.createFuture<number>();
      yield* sleep(0);
      const got = yield* made.a!;
      made.b.setResult(got);
      return got;
    });
    const a = loop.createTask(left(), { name: 'left' });
    const b = loop.createTask(right(), { name: 'right' });
    const watcher = loop.createTask(
      coroutine(function* watcher(): Coroutine<void> {
        yield* a;
      })(),
      { name: 'watcher' },
    );
    // While a timer is pending, a callback it runs could complete either future: nothing said.
    const ticker = loop.createTask(sleep(5), { name: 'ticker' });
    await ticks(loop, 2);
    assert.ok(!ticker.done() && a.awaiting() === made.b && b.awaiting() === made.a);
    assert.deepEqual(buildAwaitGraph(loop).deadlocks, []);
    await loop.runUntilComplete(ticker);
    await ticks(loop, 1);
    const g = buildAwaitGraph(loop);
    assert.equal(g.deadlocks.length, 1, JSON.stringify(g.deadlocks));
    const d = g.deadlocks[0]!;
    assert.match(
      d.reason,
      /^future cycle: each task awaits a future only the next one would complete: Task #\d+ "(left|right)" \(awaiting a future only #\d+ would complete\)/,
    );
    assert.match(d.reason, /"watcher" awaits/);
    const futureIds = g.nodes.filter((n) => n.kind === 'future').map((n) => n.id);
    assert.deepEqual(new Set(d.nodes), new Set([`task:${a.id}`, `task:${b.id}`, `task:${watcher.id}`, ...futureIds]));
    // A future made outside any task: whoever completes it is unknown, no cycle is claimed.
    assert.equal(loop.createFuture()[inspect]().createdBy(), null);
    loop.setExceptionHandler(() => undefined);
    loop.close();
  });

  test('a mixed cycle: a lock’s holder awaits a task that waits on that lock', async () => {
    const loop = virtualLoop();
    const lock = new Lock();
    const tasks: { inner?: Task<void> } = {};
    const needsLock = coroutine(function* needsLock(): Coroutine<void> {
      yield* lock.acquire();
      lock.release();
    });
    const holder = coroutine(function* holder(): Coroutine<void> {
      yield* lock.acquire();
      tasks.inner = loop.createTask(needsLock(), { name: 'inner' });
      yield* tasks.inner;
      lock.release();
    });
    const h = loop.createTask(holder(), { name: 'holder' });
    await ticks(loop, 4);
    const g = buildAwaitGraph(loop);
    assert.equal(g.deadlocks.length, 1, JSON.stringify(g.deadlocks));
    const d = g.deadlocks[0]!;
    assert.match(d.reason, /^cycle of tasks awaiting each other and the resources they hold: /);
    assert.match(d.reason, /"inner" \(waiting for <Lock locked/);
    assert.deepEqual(new Set(d.nodes), new Set([`task:${h.id}`, `task:${tasks.inner!.id}`, resourceIdOf(lock)]));
    loop.setExceptionHandler(() => undefined);
    loop.close();
  });

  test('no deadlock while a timer can still make progress', async () => {
    const loop = virtualLoop();
    const ev = new Event();
    const setter = coroutine(function* setter(): Coroutine<void> {
      yield* sleep(5);
      ev.set();
    });
    const waiter = coroutine(function* waiter(): Coroutine<boolean> {
      return yield* ev.wait();
    });
    const w = loop.createTask(waiter(), { name: 'waiter' });
    loop.createTask(setter(), { name: 'setter' });
    await ticks(loop, 2);
    assert.deepEqual(buildAwaitGraph(loop).deadlocks, []);
    assert.equal(await loop.runUntilComplete(w), true);
    loop.close();
  });
});
