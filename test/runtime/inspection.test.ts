// Tests of runtime/inspection.ts, the inspection interface each primitive implements: what a
// Future stands for and who waits on it (its outcome read without marking an exception
// retrieved), what a Task awaits with its frames and steps, and for each resource (Queue,
// Event, Lock, Semaphore and BoundedSemaphore, a socket, a stream reader and writer, a
// sleep's timer, the HTTP connection pool) who waits on it and who holds it; gather's and
// waitFor's inner futures; the loop's scheduled steps; coroutine()'s tracking-wrapper
// marker. Every server is closed by its test.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  BoundedSemaphore,
  Event,
  EventLoop,
  Lock,
  Queue,
  Semaphore,
  Socket,
  VirtualClock,
  coroutine,
  exceptionOf,
  gather,
  inspect,
  inspectResource,
  isInspectable,
  isTrackingWrapper,
  openConnection,
  setCoroutineTracking,
  sleep,
  sockConnect,
  sockRecv,
  waitFor,
  type Coroutine,
  Future,
  type DoneCallback,
  type FutureInspection,
  type ResourceInspection,
  type Task,
  type TaskInspection,
} from '../../runtime/index';
import { startServer } from './loopback-server';

const NET = { timeout: 20_000 };

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

async function ticks(loop: EventLoop, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await loop.runOnce();
}

function futureView(fut: Future<unknown>): FutureInspection {
  const view = fut[inspect]();
  assert.notEqual(view.role, 'resource');
  return view as FutureInspection;
}

function taskView(task: Task<unknown>): TaskInspection {
  const view = task[inspect]();
  assert.equal(view.role, 'task');
  return view as TaskInspection;
}

function resourceView(x: unknown): ResourceInspection {
  const view = inspectResource(x);
  assert.ok(view !== null, `${String(x)} is an inspectable resource`);
  return view;
}

/** The resource a task is suspended on, through its awaited future's inspection. */
function resourceAwaitedBy(task: Task<unknown>): unknown {
  const w = task.awaiting();
  assert.ok(w !== null, `${task.name} is suspended`);
  return futureView(w).resource;
}

/** Runs the loop (real clock) until `cond` holds, at most ~5 s. */
async function runUntil(loop: EventLoop, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 5000 && !cond(); i++) {
    await loop.runOnce();
    if (!cond() && loop.readyCount() === 0) await new Promise((r) => setTimeout(r, 1));
  }
  assert.ok(cond(), 'condition reached');
}

describe('futures and tasks', () => {
  test('a pending future: no origin, its waiting task, its outcome read without retrieving', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const waiter = coroutine(function* waiter(): Coroutine<number> {
      return yield* fut;
    });
    const t = loop.createTask(waiter(), { name: 'waiter' });
    await ticks(loop, 1);
    const view = futureView(fut);
    assert.equal(view.role, 'future');
    assert.equal(view.kind, 'future');
    assert.equal(view.detail, null);
    assert.equal(view.resource, null);
    assert.deepEqual(view.inner(), []);
    assert.deepEqual(view.waitingTasks(), [t]);
    assert.deepEqual(view.outcome(), { state: 'pending' });
    assert.equal(view.wokenBy(), 'outside', 'a bare future may be completed from outside the loop');
    assert.ok(isInspectable(fut) && isInspectable(t));

    // A future whose class overrides addDoneCallback: the task registers a closure through it, and is listed
    // all the same.
    const seen: unknown[] = [];
    class LoggingFuture<T> extends Future<T> {
      override addDoneCallback(cb: DoneCallback<T>): void {
        seen.push(cb);
        super.addDoneCallback(cb);
      }
    }
    const logged = new LoggingFuture<number>(loop);
    const t2 = loop.createTask(
      coroutine(function* viaOverride(): Coroutine<number> {
        return yield* logged;
      })(),
      { name: 'via-override' },
    );
    await ticks(loop, 1);
    assert.equal(seen.length, 1, 'the override saw the registration');
    assert.deepEqual(futureView(logged).waitingTasks(), [t2]);
    logged.setResult(1);
    await ticks(loop, 1);
    assert.equal(t2.done() && t2.result(), 1);
    assert.deepEqual(futureView(logged).waitingTasks(), []);

    const failed = loop.createFuture<number>();
    const boom = new Error('boom');
    failed.setException(boom);
    assert.deepEqual(futureView(failed).outcome(), { state: 'exception', error: boom });
    assert.equal(exceptionOf(failed), boom);
    // Inspection did not retrieve it: the loop still reports it when the future is dropped.
    const reported: unknown[] = [];
    loop.setExceptionHandler((_l, ctx) => reported.push(ctx.exception));
    fut.setResult(7);
    await ticks(loop, 2);
    assert.deepEqual(futureView(fut).outcome(), { state: 'result', value: 7 });
    const cancelled = loop.createFuture<number>();
    cancelled.cancel('enough');
    assert.deepEqual(futureView(cancelled).outcome(), { state: 'cancelled', message: 'enough' });
    loop.close();
    assert.ok(reported.includes(boom), 'the exception was never marked retrieved');
  });

  test('a task: what it awaits, its steps and frames, who awaits it, and the tracking wrapper', async () => {
    setCoroutineTracking(true);
    try {
      const loop = virtualLoop();
      const inner = coroutine(function* inner(): Coroutine<number> {
        yield* sleep(5);
        return 1;
      });
      const outer = coroutine(function* outer(): Coroutine<number> {
        return yield* inner();
      });
      const child = loop.createTask(outer(), { name: 'child' });
      const parent = loop.createTask(
        coroutine(function* parent(): Coroutine<number> {
          return yield* child;
        })(),
        { name: 'parent' },
      );
      await ticks(loop, 2);
      const view = taskView(child);
      assert.equal(view.kind, 'task');
      assert.equal(view.steps, 1);
      assert.deepEqual(
        view.frames?.map((f) => f.fn.name),
        ['outer', 'inner', 'sleep'],
      );
      assert.ok(view.coroutineIsWrapper, 'a coroutine() root is the tracking wrapper');
      assert.ok(isTrackingWrapper(view.coroutine));
      assert.equal(futureView(view.awaiting!).kind, 'sleep');
      assert.deepEqual(view.waitingTasks(), [parent], 'the parent is registered on the child');
      assert.equal(taskView(parent).awaiting, child);
      assert.equal(view.wokenBy(), 'loop');
      // A plain generator (not made by coroutine()) is no wrapper.
      function* plain(): Coroutine<void> {
        yield* sleep(1);
      }
      const p = loop.createTask(plain(), { name: 'plain' });
      assert.ok(!taskView(p).coroutineIsWrapper);
      await ticks(loop, 1);
      assert.equal(taskView(p).frames?.length ?? 0, 1, 'its sleep() is tracked below the untracked root');
      for (const t of loop.allTasks()) t.cancel();
      await ticks(loop, 3);
      loop.close();
    } finally {
      setCoroutineTracking(false);
    }
  });

  test('gather and waitFor: the futures they stand for, woken by the loop', async () => {
    const loop = virtualLoop();
    const a = loop.createTask(sleep(1, 'a'), { name: 'a' });
    const b = loop.createTask(sleep(2, 'b'), { name: 'b' });
    const g = gather(a, b);
    const gv = futureView(g);
    assert.equal(gv.kind, 'gather');
    assert.deepEqual(gv.inner(), [a, b]);
    assert.equal(gv.resource, null, "gather's origin names itself, not a resource");
    assert.equal(gv.wokenBy(), 'loop');
    let waitFut: Future<unknown> | null = null;
    const waiter = loop.createTask(
      coroutine(function* waiter(): Coroutine<string> {
        return yield* waitFor(a, 10);
      })(),
      { name: 'waiter' },
    );
    await ticks(loop, 1);
    waitFut = waiter.awaiting();
    assert.ok(waitFut !== null);
    const wv = futureView(waitFut);
    assert.equal(wv.kind, 'waitFor');
    assert.deepEqual(wv.inner(), [a]);
    await loop.runUntilComplete(g);
    loop.close();
  });
});

describe('resources: who waits, who holds', () => {
  test('Queue: getters, then putters, then join() waiters; held by nobody; woken by the loop', async () => {
    const loop = virtualLoop();
    const empty = new Queue<number>();
    const full = new Queue<number>(1);
    full.putNowait(0);
    const g1 = loop.createTask(empty.get(), { name: 'g1' });
    const g2 = loop.createTask(empty.get(), { name: 'g2' });
    const p1 = loop.createTask(full.put(1), { name: 'p1' });
    const j1 = loop.createTask(full.join(), { name: 'j1' });
    await ticks(loop, 1);
    const view = resourceView(empty);
    assert.equal(view.kind, 'queue');
    assert.equal(view.wokenBy, 'loop');
    assert.deepEqual(view.waiters(), [g1.awaiting(), g2.awaiting()]);
    assert.deepEqual(view.holders(), []);
    assert.equal(resourceAwaitedBy(g1), empty);
    assert.deepEqual(resourceView(full).waiters(), [p1.awaiting(), j1.awaiting()]);
    assert.equal(futureView(j1.awaiting()!).kind, 'queue.join');
    assert.match(view.description(), /^<Queue /);
    empty.putNowait(1);
    empty.putNowait(2);
    full.getNowait();
    full.taskDone();
    await ticks(loop, 2);
    full.getNowait();
    full.taskDone();
    await ticks(loop, 3);
    assert.deepEqual(view.waiters(), []);
    assert.ok([g1, g2, p1, j1].every((t) => t.done()));
    loop.close();
  });

  test('Event: its waiters until set', async () => {
    const loop = virtualLoop();
    const ev = new Event();
    const w1 = loop.createTask(ev.wait(), { name: 'w1' });
    const w2 = loop.createTask(ev.wait(), { name: 'w2' });
    await ticks(loop, 1);
    const view = resourceView(ev);
    assert.equal(view.kind, 'event');
    assert.deepEqual(view.waiters(), [w1.awaiting(), w2.awaiting()]);
    assert.deepEqual(view.holders(), []);
    assert.equal(resourceAwaitedBy(w2), ev);
    ev.set();
    assert.deepEqual(view.waiters(), [], 'set futures are no longer waiters');
    await ticks(loop, 2);
    loop.close();
  });

  test('Lock: its holder (the task that took it) and its waiters in arrival order', async () => {
    const loop = virtualLoop();
    const lock = new Lock();
    const hold = coroutine(function* hold(seconds: number): Coroutine<void> {
      yield* lock.acquire();
      try {
        yield* sleep(seconds);
      } finally {
        lock.release();
      }
    });
    const a = loop.createTask(hold(1), { name: 'a' });
    const b = loop.createTask(hold(1), { name: 'b' });
    const c = loop.createTask(hold(1), { name: 'c' });
    await ticks(loop, 1);
    const view = resourceView(lock);
    assert.equal(view.kind, 'lock');
    assert.equal(view.wokenBy, 'loop');
    assert.deepEqual(view.holders(), [a]);
    assert.deepEqual(view.waiters(), [b.awaiting(), c.awaiting()]);
    await loop.runUntilComplete(a);
    await ticks(loop, 1);
    assert.deepEqual(view.holders(), [b], 'handed on to the first waiter');
    await loop.runUntilComplete(c);
    assert.deepEqual(view.holders(), []);
    assert.deepEqual(view.waiters(), []);
    loop.close();
  });

  test('Semaphore and BoundedSemaphore: the tasks holding slots, and the waiters', async () => {
    for (const sem of [new Semaphore(2), new BoundedSemaphore(2)]) {
      const loop = virtualLoop();
      const hold = coroutine(function* hold(seconds: number): Coroutine<void> {
        yield* sem.acquire();
        try {
          yield* sleep(seconds);
        } finally {
          sem.release();
        }
      });
      const tasks = [1, 5, 1].map((seconds, i) => loop.createTask(hold(seconds), { name: `h${i}` }));
      await ticks(loop, 1);
      const view = resourceView(sem);
      assert.equal(view.kind, 'semaphore');
      assert.deepEqual(view.holders(), [tasks[0], tasks[1]]);
      assert.deepEqual(view.waiters(), [tasks[2]!.awaiting()]);
      await loop.runUntilComplete(tasks[0]!);
      await ticks(loop, 1);
      assert.deepEqual(
        view.holders().map((h) => h?.name),
        ['h1', 'h2'],
      );
      await loop.runUntilComplete(gather(...tasks));
      assert.deepEqual(view.holders(), []);
      loop.close();
    }
  });

  test('sleep: the timer is the resource, its sleeper the waiter, woken from outside the loop', async () => {
    const loop = virtualLoop();
    const t = loop.createTask(sleep(3), { name: 'sleeper' });
    await ticks(loop, 1);
    const fv = futureView(t.awaiting()!);
    assert.equal(fv.kind, 'sleep');
    assert.equal(fv.detail, '3s');
    const timer = resourceView(fv.resource);
    assert.equal(timer.kind, 'timer');
    assert.equal(timer.wokenBy, 'outside');
    assert.deepEqual(timer.waiters(), [t.awaiting()]);
    assert.equal(fv.wokenBy(), 'outside');
    assert.equal(loop[inspect]().pendingTimers(), 1);
    await loop.runUntilComplete(t);
    assert.equal(loop[inspect]().pendingTimers(), 0);
    loop.close();
  });

  test('a socket: the coroutine waiting to read, woken by the network', NET, async (t) => {
    let release: (() => void) | null = null;
    const port = await startServer(t, (conn) => {
      release = () => conn.end('hello');
    });
    const loop = new EventLoop();
    const sock = new Socket();
    sock.setBlocking(false);
    const reader = loop.createTask(
      coroutine(function* reader(): Coroutine<Buffer> {
        yield* sockConnect(sock, ['127.0.0.1', port]);
        return yield* sockRecv(sock, 100);
      })(),
      { name: 'reader' },
    );
    await runUntil(
      loop,
      () => release !== null && reader.awaiting() !== null && futureView(reader.awaiting()!).kind === 'socket.read',
    );
    const view = resourceView(sock);
    assert.equal(view.kind, 'socket');
    assert.equal(view.wokenBy, 'outside');
    assert.deepEqual(view.waiters(), [reader.awaiting()]);
    assert.equal(resourceAwaitedBy(reader), sock);
    assert.ok(loop[inspect]().watchesIo());
    release!();
    await runUntil(loop, () => reader.done());
    assert.equal(reader.result().toString(), 'hello');
    assert.deepEqual(view.waiters(), []);
    sock.close();
    loop.close();
  });

  test('streams: a hand-fed reader and a writer waiting in waitClosed', NET, async (t) => {
    const loop = virtualLoop();
    const { StreamReader } = await import('../../runtime/index');
    const fed = new StreamReader();
    const r = loop.createTask(fed.read(10), { name: 'fed' });
    await ticks(loop, 1);
    const view = resourceView(fed);
    assert.equal(view.kind, 'stream');
    assert.deepEqual(view.waiters(), [r.awaiting()]);
    fed.feedData(Buffer.from('abc'));
    await ticks(loop, 2);
    assert.equal(r.result().toString(), 'abc');
    assert.deepEqual(view.waiters(), []);
    loop.close();

    const port = await startServer(t, () => undefined);
    const real = new EventLoop();
    let writerView: ResourceInspection | null = null;
    let closer: Task<void> | null = null;
    const main = real.createTask(
      coroutine(function* main(): Coroutine<void> {
        const [, writer] = yield* openConnection('127.0.0.1', port);
        writerView = resourceView(writer);
        closer = real.createTask(writer.waitClosed(), { name: 'closer' });
        yield* sleep(0);
        yield* sleep(0);
        assert.deepEqual(writerView.waiters(), [closer.awaiting()]);
        assert.equal(resourceAwaitedBy(closer), writer);
        writer.close();
        yield* closer;
      })(),
      { name: 'main' },
    );
    await runUntil(real, () => main.done());
    main.result();
    assert.deepEqual(writerView!.waiters(), []);
    real.close();
  });
});

describe('the loop', () => {
  test('scheduled steps name the future that woke each task', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    const waiter = loop.createTask(
      coroutine(function* waiter(): Coroutine<number> {
        return yield* fut;
      })(),
      { name: 'waiter' },
    );
    const fresh = loop.createTask(sleep(0), { name: 'fresh' });
    assert.deepEqual(
      loop[inspect]()
        .scheduledSteps()
        .map((s) => [s.task, s.wokenBy]),
      [
        [waiter, null],
        [fresh, null],
      ],
    );
    await ticks(loop, 2);
    fut.setResult(1);
    assert.deepEqual(
      loop[inspect]()
        .scheduledSteps()
        .map((s) => [s.task.name, s.wokenBy]),
      [['waiter', fut]],
    );
    await ticks(loop, 1);
    assert.equal(waiter.result(), 1);
    loop.close();
  });
});

describe('the boundary', () => {
  test('runtime/inspect, runtime/host and runtime/record read no underscore member of another module', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const root = join(__dirname, '..', '..', 'runtime');
    const violations: string[] = [];
    for (const dir of ['inspect', 'host', 'record']) {
      // Recursive: runtime/host/ is split into folders by place of execution.
      for (const name of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
        if (!name.endsWith('.ts')) continue;
        const text = readFileSync(join(root, dir, name), 'utf8');
        // Comments may name fields; code may not reach them.
        const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
        for (const m of code.matchAll(/\.(_[A-Za-z]\w*)/g)) {
          const member = m[1]!;
          // Declared in this very file (its own class or an interface it declares): its own business.
          const declaredHere = new RegExp(`(^|[^.\\w])${member}\\s*[?!]?\\s*[:=(<]`, 'm').test(code);
          if (!declaredHere) violations.push(`runtime/${dir}/${name}: .${member}`);
        }
      }
    }
    assert.deepEqual(violations, [], 'use the inspection interface (runtime/inspection.ts) instead');
  });
});
