// Tests of runtime/inspect/lints.ts: a slow callback (with the task and where it suspended),
// a task that never yields, a coroutine created and never awaited (and none reported for a
// task's coroutine, or one cancelled before it started), a task destroyed while pending, and
// lost wake-ups (a waiter missing from its future, a future listing a task that waits elsewhere),
// a coroutine never awaited reported within a tick of the wall time, and deadlocks as lints.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import {
  EventLoop,
  Lock,
  Queue,
  VirtualClock,
  coroutine,
  sleep,
  type Coroutine,
  type Future,
  type Task,
} from '../../../runtime/index';
import { CoroutineHooksHub } from '../../../runtime/inspect/coroutine-hooks';
import { LintCollector } from '../../../runtime/inspect/lints';
import { ObserverFanout } from '../../../runtime/observer-fanout';
import type { Lint } from '../../../protocol/host-protocol';
import { lineOf } from '../../source-line';

function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Blocking the loop on purpose.
  }
}

const hub = new CoroutineHooksHub();

function linted(options: { debug?: boolean; virtual?: boolean; now?: () => number } = {}): {
  loop: EventLoop;
  lints: LintCollector;
  seen: Lint[];
  done: () => void;
} {
  const loop = new EventLoop({
    clock: options.virtual === false ? undefined : new VirtualClock(),
    debug: options.debug ?? false,
    logger: { warn: () => undefined, error: () => undefined },
  });
  const seen: Lint[] = [];
  const lints = new LintCollector(loop, {
    onLint: (l) => seen.push(l),
    neverAwaitedSeconds: 0,
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  loop.setObserver(new ObserverFanout([lints]));
  const remove = hub.add({ created: (g, f) => lints.created(g, f), started: (f) => lints.started(f) });
  hub.enable(true);
  return {
    loop,
    lints,
    seen,
    done: () => {
      remove();
      hub.enable(false);
    },
  };
}

describe('lints', () => {
  test('slow callback: a step that blocked the loop, with its task and where it then suspended', async () => {
    const { loop, seen, done } = linted({ debug: true, virtual: false });
    loop.slowCallbackDuration = 0.02;
    const blocker = coroutine(function* blocker(): Coroutine<void> {
      busyWait(40);
      yield* sleep(0.001);
    });
    const t = loop.createTask(blocker(), { name: 'blocker' });
    await loop.runUntilComplete(t);
    // Steps are timed in wall time (the loop's real clock): on a loaded machine another step
    // (the blocker's last one, the loop's own callbacks) can pass 20 ms too, and the blocking
    // one can take longer than its 40 ms. The blocking step is the blocker's first report.
    const slow = seen.filter((l) => l.kind === 'slowCallback' && l.taskId === t.id);
    assert.ok(slow.length >= 1, JSON.stringify(seen));
    assert.ok(slow[0]!.seconds! >= 0.04);
    assert.equal(basename(slow[0]!.position?.file ?? ''), 'lints.test.ts');
    assert.ok(!seen.some((l) => l.kind === 'neverYields'), 'it yielded');
    loop.close();
    done();
  });

  test('never yields: a task that ran from start to finish in one long step', async () => {
    // The lint's clock is a fake one that only the hog moves: the hog's step lasts 30 ms and
    // the quick task's 0, however loaded the machine is.
    let nowMs = 0;
    const { loop, seen, done } = linted({ now: () => nowMs });
    loop.slowCallbackDuration = 0.02;
    const hog = coroutine(function* hog(): Coroutine<number> {
      nowMs += 30;
      return 42;
    });
    const quick = coroutine(function* quick(): Coroutine<number> {
      return 1;
    });
    const t = loop.createTask(hog(), { name: 'hog' });
    loop.createTask(quick(), { name: 'quick' });
    assert.equal(await loop.runUntilComplete(t), 42);
    const never = seen.filter((l) => l.kind === 'neverYields');
    assert.equal(never.length, 1);
    assert.equal(never[0]!.taskId, t.id);
    loop.close();
    done();
  });

  test('never awaited: a coroutine created and dropped; not a task’s, nor one cancelled before it ran', async () => {
    const { loop, lints, seen, done } = linted();
    const job = coroutine(function* job(n: number): Coroutine<number> {
      yield* sleep(1);
      return n;
    });
    let madeAt = -1;
    const main = coroutine(function* main(): Coroutine<void> {
      job(1); // forgotten
      madeAt = loop.tickCount();
      const t = loop.createTask(job(2), { name: 'ran' });
      const c = loop.createTask(job(3), { name: 'cancelled-before-start' });
      c.cancel();
      yield* t;
    });
    await loop.runUntilComplete(loop.createTask(main(), { name: 'main' }));
    // Reported at a tick's end, the tick after the one that made it (no sweep was asked for).
    const never = seen.filter((l) => l.kind === 'neverAwaited');
    assert.equal(never.length, 1, JSON.stringify(never));
    assert.equal(
      never[0]!.message,
      `coroutine job() was never awaited: created and not started (unstarted since tick ${madeAt}); use yield* job(...) or createTask`,
    );
    assert.equal(never[0]!.tick, madeAt + 1);
    assert.equal(basename(never[0]!.position?.file ?? ''), 'lints.test.ts');
    // Not reported twice, also not at a sweep or at close.
    lints.sweep();
    lints.loopClosing();
    assert.equal(seen.filter((l) => l.kind === 'neverAwaited').length, 1);
    loop.close();
    done();
  });

  test('never awaited: reported while the program still runs, once the wall time has passed (not only at close)', async () => {
    const clock = new VirtualClock();
    const loop = new EventLoop({ clock, logger: { warn: () => undefined, error: () => undefined } });
    const seen: Lint[] = [];
    // Wall time follows the virtual clock: the program sleeps 1.6 s, the threshold is 1 s.
    const lints = new LintCollector(loop, {
      onLint: (l) => seen.push(l),
      neverAwaitedSeconds: 1,
      now: () => loop.time() * 1000,
    });
    loop.setObserver(new ObserverFanout([lints]));
    const remove = hub.add({ created: (g, f) => lints.created(g, f), started: (f) => lints.started(f) });
    hub.enable(true);
    const forgotten = coroutine(function* forgotten(): Coroutine<void> {
      yield* sleep(0);
    });
    let reportedBeforeTheEnd = 0;
    const main = coroutine(function* main(): Coroutine<void> {
      forgotten();
      yield* sleep(0.5);
      assert.equal(seen.length, 0, 'not before the wall time');
      yield* sleep(1.1);
      yield* sleep(0);
      reportedBeforeTheEnd = seen.filter((l) => l.kind === 'neverAwaited').length;
    });
    await loop.runUntilComplete(loop.createTask(main(), { name: 'main' }));
    assert.equal(reportedBeforeTheEnd, 1, JSON.stringify(seen));
    // A loop asleep in one long tick: a sweep reports it (the ready queue is empty).
    const asleep = loop.createTask(
      coroutine(function* asleep(): Coroutine<void> {
        forgotten();
        yield* sleep(100);
      })(),
      { name: 'asleep' },
    );
    await loop.runOnce(); // the step that forgets it; first seen at this tick's end
    clock.advance(2);
    lints.sweep();
    assert.equal(seen.filter((l) => l.kind === 'neverAwaited').length, 2, JSON.stringify(seen));
    asleep.cancel();
    await loop.runOnce();
    loop.close();
    remove();
    hub.enable(false);
  });

  test('deadlock: a queue starved by a producer that died names the producer and the queue', async () => {
    const { loop, lints, seen, done } = linted();
    loop.setExceptionHandler(() => undefined);
    const jobs = new Queue<number>();
    const producer = coroutine(function* producer(): Coroutine<void> {
      yield* sleep(0);
      throw new Error('boom');
    });
    const consumer = coroutine(function* consumer(): Coroutine<void> {
      yield* jobs.get();
    });
    loop.createTask(producer(), { name: 'producer' });
    loop.createTask(consumer(), { name: 'consumer' });
    for (let i = 0; i < 4; i++) await loop.runOnce();
    lints.checkDeadlocks(true);
    const dead = seen.filter((l) => l.kind === 'deadlock');
    assert.equal(dead.length, 1, JSON.stringify(dead));
    assert.match(
      dead[0]!.message,
      /nothing can run: .*"consumer" waits on queue\.get jobs \(Queue, lints\.test\.ts:\d+\); no live task is left to wake them, and Task #\d+ "producer" failed \(Error: boom\) earlier/,
    );
    assert.equal(dead[0]!.position?.line, lineOf(__filename, 'const jobs = new Queue<number>();'));
    loop.close();
    done();
  });

  test('deadlock: a lock-order cycle, a future cycle and a mixed one are lints, each reported once', async () => {
    const { loop, lints, seen, done } = linted();
    loop.setExceptionHandler(() => undefined);
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
    loop.createTask(ba(), { name: 'BA' });
    await loop.runOnce();
    await loop.runOnce();
    await loop.runOnce();
    lints.checkDeadlocks(true);
    lints.checkDeadlocks(true);
    let dead = seen.filter((l) => l.kind === 'deadlock');
    assert.equal(dead.length, 1, JSON.stringify(seen));
    assert.match(dead[0]!.message, /^deadlock: lock-order cycle: each task holds what the next one waits for/);
    assert.ok(dead[0]!.taskId === a.id || dead[0]!.taskId === a.id + 1);

    const made: { x?: Future<void>; y?: Future<void> } = {};
    const left = coroutine(function* left(): Coroutine<void> {
      made.x = loop.createFuture<void>();
      yield* sleep(0);
      yield* made.y!;
      made.x.setResult();
    });
    const right = coroutine(function* right(): Coroutine<void> {
      made.y = loop.createFuture<void>();
      yield* sleep(0);
      yield* made.x!;
      made.y.setResult();
    });
    loop.createTask(left(), { name: 'left' });
    loop.createTask(right(), { name: 'right' });
    const lock = new Lock();
    const inner: { t?: Task<void> } = {};
    const holder = coroutine(function* holder(): Coroutine<void> {
      yield* lock.acquire();
      inner.t = loop.createTask(
        coroutine(function* needsLock(): Coroutine<void> {
          yield* lock.acquire();
        })(),
        { name: 'needsLock' },
      );
      yield* inner.t;
    });
    loop.createTask(holder(), { name: 'holder' });
    for (let i = 0; i < 4; i++) await loop.runOnce();
    lints.checkDeadlocks(true);
    dead = seen.filter((l) => l.kind === 'deadlock');
    assert.equal(dead.length, 3, JSON.stringify(dead));
    assert.ok(
      dead.some((l) =>
        /^deadlock: future cycle: each task awaits a future only the next one would complete/.test(l.message),
      ),
    );
    // The lock is named as the test names it, with its holder and the line where it took it; the lint points there.
    const mixed = dead.find((l) =>
      /^deadlock: cycle of tasks awaiting each other and the resources they hold: .*"needsLock" \(waiting for lock \(Lock, lints\.test\.ts:\d+\), held by Task #\d+ "holder" since lints\.test\.ts:\d+\)/.test(
        l.message,
      ),
    );
    assert.ok(mixed !== undefined, JSON.stringify(dead));
    assert.equal(mixed.position?.line, lineOf(__filename, 'yield* lock.acquire();'));
    loop.close();
    done();
  });

  test('destroyed pending: the loop closed with a task still pending', async () => {
    const { loop, seen, done } = linted();
    loop.setExceptionHandler(() => undefined);
    const forever = coroutine(function* forever(): Coroutine<void> {
      yield* sleep(1000);
    });
    const t = loop.createTask(forever(), { name: 'forever' });
    await loop.runOnce();
    loop.close();
    const d = seen.filter((l) => l.kind === 'destroyedPending');
    assert.equal(d.length, 1);
    assert.equal(d[0]!.taskId, t.id);
    assert.equal(
      d[0]!.message,
      `Task #${t.id} "forever" was destroyed but it is pending in forever → sleep: the loop closed before it finished`,
    );
    done();
  });

  test('lost wake-ups: a task missing from its future’s waiters; a future listing a task that waits elsewhere', async () => {
    const { loop, lints, seen, done } = linted();
    const fut = loop.createFuture<number>();
    const other = loop.createFuture<number>();
    const waiter = coroutine(function* waiter(): Coroutine<number> {
      return yield* fut;
    });
    const t = loop.createTask(waiter(), { name: 'waiter' });
    await loop.runOnce();
    lints.checkWakeups();
    assert.equal(seen.length, 0, 'all in order so far');
    fut._removeWaiter(t);
    other._addWaiter(t);
    lints.checkWakeups();
    const lost = seen.filter((l) => l.kind === 'lostWakeup');
    assert.equal(lost.length, 1);
    assert.equal(
      lost[0]!.message,
      `Task #${t.id} "waiter" is suspended on <Future pending> but is not among its waiters: completing that future will not wake it`,
    );
    // The stale registration shows once the other future is known (a task waits on it).
    const t2 = loop.createTask(
      coroutine(function* second(): Coroutine<number> {
        return yield* other;
      })(),
      { name: 'second' },
    );
    await loop.runOnce();
    lints.checkWakeups();
    assert.ok(
      seen.some(
        (l) =>
          l.kind === 'lostWakeup' &&
          /lists Task #\d+ "waiter" as a waiter, but that task is suspended on/.test(l.message),
      ),
      JSON.stringify(seen),
    );
    // A future completed without waking its task.
    fut.setResult(1);
    lints.checkWakeups();
    other._removeWaiter(t);
    other.setResult(2);
    await loop.runOnce();
    assert.equal(t2.result(), 2);
    loop.setExceptionHandler(() => undefined);
    loop.close();
    done();
  });
});
