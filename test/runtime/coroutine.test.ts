// Tests of runtime/coroutine.ts: coroutine() keeps the function's name and arguments; with
// tracking off (the default) it adds nothing; with setCoroutineTracking(true) a task's
// `_frames` lists the generators of its `yield*` chain, root first, while it is suspended,
// and frames pop as they return or throw.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  coroutine,
  isCoroutineFunction,
  setCoroutineTracking,
  sleep,
  currentTask,
  type Coroutine,
  type Task,
} from '../../runtime/index';
import { isCoroutineTrackingOn, unwrapCoroutineFunction, type CoroutineFrame } from '../../runtime/coroutine';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

function frameNames(task: Task<unknown>): string[] {
  return (task._frames ?? []).map((f: CoroutineFrame) => f.fn.name);
}

afterEach(() => setCoroutineTracking(false));

describe('coroutine()', () => {
  test('keeps the name and arity and is recognised as a coroutine function', () => {
    function* fetchPage(url: string, tries: number): Coroutine<string> {
      yield;
      return `${url}${tries}`;
    }
    const wrapped = coroutine(fetchPage);
    assert.equal(wrapped.name, 'fetchPage');
    assert.equal(wrapped.length, 2);
    assert.equal(isCoroutineFunction(wrapped), true);
    assert.equal(isCoroutineFunction(fetchPage), false);
    assert.equal(unwrapCoroutineFunction(wrapped), fetchPage);
  });

  test('passes arguments and `this` through, and works as a method', async () => {
    const loop = virtualLoop();
    class Counter {
      n = 10;
      add = coroutine(function* add(this: Counter, k: number): Coroutine<number> {
        yield;
        return this.n + k;
      });
    }
    const c = new Counter();
    assert.equal(await loop.runUntilComplete(c.add(5)), 15);
    loop.close();
  });

  test('tracking is off by default: the generator is returned as is and no frames are kept', async () => {
    assert.equal(isCoroutineTrackingOn(), false);
    const loop = virtualLoop();
    function* plain(): Coroutine<void> {
      yield* sleep(1);
    }
    const wrapped = coroutine(plain);
    const gen = wrapped();
    assert.equal(Object.getPrototypeOf(gen), plain.prototype, 'the very generator of the wrapped function');
    const task = loop.createTask(gen);
    await loop.runOnce();
    assert.equal(task._frames, null);
    await loop.runUntilComplete(task);
    loop.close();
  });
});

describe('frame tracking', () => {
  test('lists the yield* chain root first while suspended, and pops frames as they return', async () => {
    setCoroutineTracking(true);
    const loop = virtualLoop();
    const snapshots: string[][] = [];
    const leaf = coroutine(function* leaf(): Coroutine<number> {
      yield* sleep(1);
      return 1;
    });
    const middle = coroutine(function* middle(): Coroutine<number> {
      const a = yield* leaf();
      snapshots.push(frameNames(currentTask()!));
      yield* sleep(1);
      return a + 1;
    });
    const root = coroutine(function* root(): Coroutine<number> {
      const v = yield* middle();
      snapshots.push(frameNames(currentTask()!));
      yield* sleep(1);
      return v;
    });
    const task = loop.createTask(root());
    await loop.runOnce();
    // Suspended in leaf's sleep: root → middle → leaf → sleep.
    assert.deepEqual(frameNames(task), ['root', 'middle', 'leaf', 'sleep']);
    const frames = task._frames!;
    assert.deepEqual(
      frames.map((f) => f.depth),
      [0, 1, 2, 3],
    );
    assert.equal(frames[0]!.parent, null);
    assert.equal(frames[2]!.parent, frames[1]);
    assert.ok(frames.every((f) => f.task === task));
    await loop.runOnce(); // the clock jumps to 1: the timer completes the sleep's future
    assert.deepEqual(frameNames(task), ['root', 'middle', 'leaf', 'sleep']);
    await loop.runOnce(); // the task wakes: leaf returns, middle goes on to its own sleep
    assert.deepEqual(frameNames(task), ['root', 'middle', 'sleep']);
    await loop.runOnce();
    await loop.runOnce();
    assert.deepEqual(frameNames(task), ['root', 'sleep']);
    assert.equal(await loop.runUntilComplete(task), 2);
    assert.deepEqual(snapshots, [['root', 'middle'], ['root']]);
    assert.deepEqual(frameNames(task), []);
    loop.close();
  });

  test('frames pop when an exception unwinds them', async () => {
    setCoroutineTracking(true);
    const loop = virtualLoop();
    let afterCatch: string[] = [];
    const failing = coroutine(function* failing(): Coroutine<void> {
      yield* sleep(1);
      throw new Error('x');
    });
    const root = coroutine(function* root(): Coroutine<void> {
      try {
        yield* failing();
      } catch {
        afterCatch = frameNames(currentTask()!);
      }
    });
    await loop.runUntilComplete(root());
    assert.deepEqual(afterCatch, ['root']);
    loop.close();
  });

  test('a coroutine created in one task and run by another lands in the task that runs it', async () => {
    setCoroutineTracking(true);
    const loop = virtualLoop();
    const child = coroutine(function* child(): Coroutine<void> {
      yield* sleep(5);
    });
    let childTask: Task<void> | null = null;
    const parent = coroutine(function* parent(): Coroutine<void> {
      childTask = loop.createTask(child(), { name: 'child' });
      yield* sleep(1);
    });
    const parentTask = loop.createTask(parent(), { name: 'parent' });
    await loop.runOnce();
    await loop.runOnce();
    assert.deepEqual(frameNames(parentTask), ['parent', 'sleep']);
    assert.deepEqual(frameNames(childTask!), ['child', 'sleep']);
    await loop.runUntilComplete(childTask!);
    loop.close();
  });

  test('the hooks see frames start and finish', async () => {
    const started: string[] = [];
    const finished: string[] = [];
    setCoroutineTracking(true, {
      started: (f) => started.push(f.fn.name),
      finished: (f) => finished.push(f.fn.name),
    });
    const loop = virtualLoop();
    const inner = coroutine(function* inner(): Coroutine<void> {
      yield;
    });
    const outer = coroutine(function* outer(): Coroutine<void> {
      yield* inner();
    });
    await loop.runUntilComplete(outer());
    assert.deepEqual(started, ['outer', 'inner']);
    assert.deepEqual(finished, ['inner', 'outer']);
    loop.close();
  });

  test('turning tracking off again stops tracking new coroutines', async () => {
    setCoroutineTracking(true);
    setCoroutineTracking(false);
    const loop = virtualLoop();
    const task = loop.createTask(sleep(1));
    await loop.runOnce();
    assert.equal(task._frames, null);
    await loop.runUntilComplete(task);
    loop.close();
  });
});
