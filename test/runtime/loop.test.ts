// Tests of runtime/loop.ts: the event loop's scheduling rules (callSoon FIFO, timers by
// time then FIFO, one tick = the callbacks ready when it began), running and stopping,
// misuse errors, the exception handler, debug mode's slow-callback report, close() reports
// and the guest-run model on top of Node's loop. Timers use the virtual clock, so every
// time asserted is exact.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  MonotonicClock,
  VirtualClock,
  RuntimeError,
  CancelledError,
  coroutine,
  sleep,
  currentTask,
  allTasks,
  ValueError,
  type Coroutine,
  type ExceptionContext,
  type LoopLogger,
  type LoopObserver,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

/** A logger that records instead of printing. */
function recordingLogger(): LoopLogger & { warnings: string[]; errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  return { warnings, errors, warn: (m) => warnings.push(m), error: (m) => errors.push(m) };
}

describe('callSoon', () => {
  test('runs callbacks in FIFO order with their arguments, on the next tick, not synchronously', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    loop.callSoon((x: string) => log.push(x), 'a');
    loop.callSoon((x: string, y: string) => log.push(x + y), 'b', 'c');
    loop.callSoon(() => log.push('d'));
    assert.deepEqual(log, []);
    await loop.runOnce();
    assert.deepEqual(log, ['a', 'bc', 'd']);
    loop.close();
  });

  test('one tick runs exactly the callbacks ready when it began; callbacks added during it wait for the next', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    loop.callSoon(() => {
      log.push('a');
      loop.callSoon(() => log.push('c'));
    });
    loop.callSoon(() => log.push('b'));
    await loop.runOnce();
    assert.deepEqual(log, ['a', 'b']);
    assert.equal(loop.readyCount(), 1);
    await loop.runOnce();
    assert.deepEqual(log, ['a', 'b', 'c']);
    assert.equal(loop.readyCount(), 0);
    loop.close();
  });

  test('a cancelled handle never runs; cancel() twice or after running is harmless', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const h1 = loop.callSoon(() => log.push('one'));
    const h2 = loop.callSoon(() => log.push('two'));
    h1.cancel();
    h1.cancel();
    assert.equal(h1.cancelled(), true);
    assert.equal(h2.cancelled(), false);
    await loop.runOnce();
    assert.deepEqual(log, ['two']);
    h2.cancel();
    assert.equal(h2.cancelled(), true);
    loop.close();
  });

  test('a handle cancelled by an earlier callback of the same tick does not run', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    loop.callSoon(() => {
      log.push('first');
      second.cancel();
    });
    const second = loop.callSoon(() => log.push('second'));
    await loop.runOnce();
    assert.deepEqual(log, ['first']);
    loop.close();
  });

  test('rejects a non-function with TypeError', () => {
    const loop = virtualLoop();
    assert.throws(() => loop.callSoon(42 as unknown as () => void), TypeError);
    loop.close();
  });
});

describe('callLater and callAt', () => {
  test('run in order of time, at exactly their virtual time', async () => {
    const loop = virtualLoop();
    const log: Array<[string, number]> = [];
    const note = (name: string): void => {
      log.push([name, loop.time()]);
    };
    loop.callLater(0.3, note, 'c');
    loop.callLater(0.1, note, 'a');
    loop.callAt(0.2, note, 'b');
    loop.callLater(0.5, () => loop.stop());
    await loop.runForever();
    assert.deepEqual(log, [
      ['a', 0.1],
      ['b', 0.2],
      ['c', 0.3],
    ]);
    assert.equal(loop.time(), 0.5);
    loop.close();
  });

  test('timers due at the same time run in the order they were scheduled', async () => {
    const loop = virtualLoop();
    const log: number[] = [];
    for (let i = 0; i < 10; i++) loop.callAt(5, () => log.push(i));
    loop.callLater(5, () => log.push(10));
    loop.callAt(6, () => loop.stop());
    await loop.runForever();
    assert.deepEqual(log, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    loop.close();
  });

  test('due timers run after the callbacks already ready in the same tick', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    loop.callLater(0, () => log.push('timer'));
    loop.callSoon(() => log.push('soon'));
    await loop.runOnce();
    assert.deepEqual(log, ['soon', 'timer']);
    loop.close();
  });

  test('a cancelled timer never runs, and the heap survives many cancellations', async () => {
    const loop = virtualLoop();
    const log: number[] = [];
    const handles = [];
    for (let i = 0; i < 300; i++) handles.push(loop.callLater(i + 1, () => log.push(i)));
    for (let i = 0; i < 300; i++) if (i % 3 !== 0) handles[i]!.cancel();
    loop.callLater(1000, () => loop.stop());
    await loop.runForever();
    assert.deepEqual(
      log,
      Array.from({ length: 100 }, (_, k) => 3 * k),
    );
    assert.equal(loop.time(), 1000);
    loop.close();
  });

  test('a timer in the past runs at the next tick; a negative delay too', async () => {
    const loop = new EventLoop({ clock: new VirtualClock(10) });
    const log: string[] = [];
    loop.callAt(3, () => log.push('past'));
    loop.callLater(-1, () => log.push('negative'));
    await loop.runOnce();
    assert.deepEqual(log, ['past', 'negative']);
    assert.equal(loop.time(), 10);
    loop.close();
  });

  test('runOnce with nothing ready jumps the virtual clock to the next timer', async () => {
    const loop = virtualLoop();
    const log: number[] = [];
    loop.callLater(7, () => log.push(loop.time()));
    await loop.runOnce();
    assert.deepEqual(log, [7]);
    loop.close();
  });

  test('reject a delay or time that is not a number', () => {
    const loop = virtualLoop();
    assert.throws(() => loop.callLater(Number.NaN, () => undefined), TypeError);
    assert.throws(() => loop.callAt('soon' as unknown as number, () => undefined), TypeError);
    assert.throws(() => loop.callAt(1, null as unknown as () => void), TypeError);
    loop.close();
  });

  test('timer handles expose when; TimerHandle.cancel() works before it is due', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const h = loop.callLater(2, () => log.push('x'));
    assert.equal(h.when, 2);
    loop.callLater(1, () => h.cancel());
    loop.callLater(3, () => loop.stop());
    await loop.runForever();
    assert.deepEqual(log, []);
    assert.equal(h.cancelled(), true);
    loop.close();
  });
});

describe('running and stopping', () => {
  test('runForever runs until stop(); stop() lets the current tick finish', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    loop.callSoon(() => {
      log.push('a');
      loop.stop();
      loop.callSoon(() => log.push('next tick'));
    });
    loop.callSoon(() => log.push('b'));
    await loop.runForever();
    assert.deepEqual(log, ['a', 'b']);
    assert.equal(loop.isRunning(), false);
    // The callback added during the stopping tick runs when the loop runs again.
    loop.callSoon(() => loop.stop());
    await loop.runForever();
    assert.deepEqual(log, ['a', 'b', 'next tick']);
    loop.close();
  });

  test('stop() before runForever runs exactly one tick', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    loop.callSoon(() => {
      log.push('one');
      loop.callSoon(() => log.push('two'));
    });
    loop.stop();
    await loop.runForever();
    assert.deepEqual(log, ['one']);
    loop.close();
  });

  test('isRunning() is true inside callbacks', async () => {
    const loop = virtualLoop();
    let inside = false;
    loop.callSoon(() => {
      inside = loop.isRunning();
      loop.stop();
    });
    assert.equal(loop.isRunning(), false);
    await loop.runForever();
    assert.equal(inside, true);
    loop.close();
  });

  test('runUntilComplete resolves with the coroutine result', async () => {
    const loop = virtualLoop();
    const main = coroutine(function* main(): Coroutine<string> {
      yield* sleep(2);
      return 'done';
    });
    assert.equal(await loop.runUntilComplete(main()), 'done');
    assert.equal(loop.time(), 2);
    loop.close();
  });

  test('runUntilComplete rejects with the very exception the task raised', async () => {
    const loop = virtualLoop();
    const boom = new Error('boom');
    const main = coroutine(function* main(): Coroutine<void> {
      yield* sleep(1);
      throw boom;
    });
    await assert.rejects(loop.runUntilComplete(main()), (e) => e === boom);
    loop.close();
  });

  test('runUntilComplete accepts a Future completed by a timer', async () => {
    const loop = virtualLoop();
    const fut = loop.createFuture<number>();
    loop.callLater(3, () => fut.setResult(42));
    assert.equal(await loop.runUntilComplete(fut), 42);
    assert.equal(loop.time(), 3);
    loop.close();
  });

  test('runUntilComplete rejects with CancelledError for a cancelled task', async () => {
    const loop = virtualLoop();
    const task = loop.createTask(sleep(10));
    loop.callLater(1, () => task.cancel());
    await assert.rejects(loop.runUntilComplete(task), CancelledError);
    loop.close();
  });

  test('runUntilComplete rejects with RuntimeError if the loop stops before the future is done', async () => {
    const loop = virtualLoop();
    loop.callLater(1, () => loop.stop());
    await assert.rejects(
      loop.runUntilComplete(sleep(5)),
      (e) => e instanceof RuntimeError && /stopped before/.test(e.message),
    );
    loop.close();
  });

  test('runUntilComplete on a closed loop raises RuntimeError and closes the coroutine', async () => {
    const loop = virtualLoop();
    loop.close();
    const log: string[] = [];
    const main = coroutine(function* main(): Coroutine<void> {
      log.push('ran');
      yield;
    });
    const coro = main();
    assert.throws(
      () => loop.runUntilComplete(coro),
      (e) => e instanceof RuntimeError && /closed/.test(e.message),
    );
    assert.deepEqual(coro.next(), { value: undefined, done: true });
    assert.deepEqual(log, []);
    assert.throws(() => loop.runForever(), RuntimeError);
    await assert.rejects(loop.runOnce(), RuntimeError);
    assert.throws(() => loop.callSoon(() => undefined), RuntimeError);
    assert.throws(() => loop.callLater(1, () => undefined), RuntimeError);
  });

  test('running a loop that is already running raises RuntimeError at the call (runOnce rejects)', async () => {
    const loop = virtualLoop();
    const errors: unknown[] = [];
    const nested = coroutine(function* nested(): Coroutine<void> {
      yield;
    });
    const leftOver = nested();
    const main = coroutine(function* main(): Coroutine<void> {
      for (const call of [() => loop.runUntilComplete(leftOver), () => loop.runForever()]) {
        try {
          void call();
        } catch (e) {
          errors.push(e);
        }
      }
      loop.runOnce().catch((e: unknown) => errors.push(e));
      yield* sleep(1);
    });
    await loop.runUntilComplete(main());
    assert.equal(errors.length, 3);
    for (const e of errors)
      assert.ok(e instanceof RuntimeError && /already running|running/.test(e.message), String(e));
    assert.deepEqual(leftOver.next(), { value: undefined, done: true }, 'the refused coroutine was closed, never run');
    loop.close();
  });

  // CPython's test_base_events.test_run_until_complete_nesting: the RuntimeError is raised in
  // the coroutine that made the nested call, so it fails, and the outer run fails with it.
  test('runUntilComplete inside the running loop fails the calling coroutine and the outer run', async () => {
    const loop = virtualLoop();
    const coro1 = coroutine(function* coro1(): Coroutine<void> {
      yield* sleep(0);
    });
    const coro2 = coroutine(function* coro2(): Coroutine<void> {
      assert.ok(loop.isRunning());
      void loop.runUntilComplete(coro1());
      yield* sleep(0);
    });
    await assert.rejects(
      loop.runUntilComplete(coro2()),
      (e) => e instanceof RuntimeError && /already running/.test(e.message),
    );
    assert.equal(loop.isRunning(), false);
    loop.close();
  });

  test('close() while running throws RuntimeError', async () => {
    const loop = virtualLoop();
    let err: unknown;
    loop.callSoon(() => {
      try {
        loop.close();
      } catch (e) {
        err = e;
      }
      loop.stop();
    });
    await loop.runForever();
    assert.ok(err instanceof RuntimeError);
    assert.equal(loop.isClosed(), false);
    loop.close();
    assert.equal(loop.isClosed(), true);
    loop.close(); // twice is harmless
  });

  test('the virtual clock is jumped straight to the next timer (1000 s of timers is instant)', async () => {
    const loop = virtualLoop();
    const main = coroutine(function* main(): Coroutine<number> {
      let n = 0;
      for (let i = 0; i < 1000; i++) {
        yield* sleep(1);
        n++;
      }
      return n;
    });
    assert.equal(await loop.runUntilComplete(main()), 1000);
    assert.equal(loop.time(), 1000);
    loop.close();
  });

  test('currentTask() is the running task and allTasks() lists pending tasks', async () => {
    const loop = virtualLoop();
    const seen: Array<string | null> = [];
    const child = coroutine(function* child(): Coroutine<void> {
      yield* sleep(1);
    });
    const main = coroutine(function* main(): Coroutine<number> {
      seen.push(currentTask()?.name ?? null);
      loop.createTask(child(), { name: 'child' });
      const names = allTasks().map((t) => t.name);
      yield* sleep(2);
      seen.push(...names);
      return allTasks().length;
    });
    loop.callSoon(() => seen.push(loop.currentTask() === null ? 'no task in a plain callback' : 'task?'));
    assert.equal(await loop.runUntilComplete(loop.createTask(main(), { name: 'main' })), 1);
    assert.deepEqual(seen, ['no task in a plain callback', 'main', 'main', 'child']);
    loop.close();
  });
});

describe('the exception handler', () => {
  test('receives errors raised by callbacks, and the loop goes on', async () => {
    const loop = virtualLoop();
    const contexts: ExceptionContext[] = [];
    const log: string[] = [];
    loop.setExceptionHandler((l, context) => {
      assert.equal(l, loop);
      contexts.push(context);
    });
    const boom = new Error('boom');
    const h = loop.callSoon(function failing() {
      throw boom;
    });
    loop.callSoon(() => log.push('after'));
    loop.callLater(1, () => {
      throw new TypeError('timer failed');
    });
    loop.callLater(2, () => {
      log.push('still running');
      loop.stop();
    });
    await loop.runForever();
    assert.deepEqual(log, ['after', 'still running']);
    assert.equal(contexts.length, 2);
    assert.equal(contexts[0]!.exception, boom);
    assert.equal(contexts[0]!.handle, h);
    assert.equal(contexts[0]!.message, 'Exception in callback <Handle failing>');
    assert.ok(contexts[1]!.exception instanceof TypeError);
    assert.equal(loop.getExceptionHandler() !== null, true);
    loop.close();
  });

  test('without a handler the default one logs the message and the stack through loop.logger.error', async () => {
    const logger = recordingLogger();
    const loop = new EventLoop({ clock: new VirtualClock(), logger });
    loop.callSoon(function failing() {
      throw new Error('kaboom');
    });
    await loop.runOnce();
    assert.equal(logger.errors.length, 1);
    assert.match(logger.errors[0]!, /Exception in callback/);
    assert.match(logger.errors[0]!, /kaboom/);
    loop.close();
  });

  test('a handler that throws is reported by the default handler', async () => {
    const logger = recordingLogger();
    const loop = new EventLoop({ clock: new VirtualClock(), logger });
    loop.setExceptionHandler(() => {
      throw new Error('handler broke');
    });
    loop.callSoon(() => {
      throw new Error('original');
    });
    await loop.runOnce();
    assert.equal(logger.errors.length, 1);
    assert.match(logger.errors[0]!, /Unhandled error in exception handler/);
    assert.match(logger.errors[0]!, /handler broke/);
    loop.setExceptionHandler(null);
    assert.equal(loop.getExceptionHandler(), null);
    assert.throws(() => loop.setExceptionHandler(5 as unknown as null), TypeError);
    loop.close();
  });
});

describe('debug mode', () => {
  test('reports slow callbacks through loop.logger.warn', async () => {
    const logger = recordingLogger();
    const loop = new EventLoop({ clock: new VirtualClock(), logger });
    loop.setDebug(true);
    assert.equal(loop.getDebug(), true);
    // Every callback takes at least 0 s: with a 0 threshold each one is "slow".
    loop.slowCallbackDuration = 0;
    loop.callSoon(function slowOne() {
      /* nothing */
    });
    await loop.runOnce();
    assert.equal(logger.warnings.length, 1);
    assert.match(logger.warnings[0]!, /^Executing <Handle slowOne> took \d+\.\d{3} seconds$/);
    // A task step is reported as such.
    const worker = coroutine(function* worker(): Coroutine<void> {
      yield;
    });
    loop.createTask(worker(), { name: 'w' });
    await loop.runOnce();
    assert.match(logger.warnings[1]!, /step of <Task .*name="w">/);
    loop.close();
  });

  test('is off by default and then reports nothing', async () => {
    const logger = recordingLogger();
    const loop = new EventLoop({ clock: new VirtualClock(), logger });
    loop.slowCallbackDuration = 0;
    assert.equal(loop.getDebug(), false);
    loop.callSoon(() => undefined);
    await loop.runOnce();
    assert.deepEqual(logger.warnings, []);
    loop.close();
  });

  test('the debug option of the constructor turns it on', async () => {
    const logger = recordingLogger();
    const loop = new EventLoop({ clock: new VirtualClock(), logger, debug: true });
    loop.slowCallbackDuration = 0;
    loop.callSoon(() => undefined);
    await loop.runOnce();
    assert.equal(logger.warnings.length, 1);
    loop.close();
  });
});

describe('close()', () => {
  test('reports a pending task: "Task was destroyed but it is pending!"', async () => {
    const loop = virtualLoop();
    const contexts: ExceptionContext[] = [];
    loop.setExceptionHandler((_l, c) => contexts.push(c));
    const task = loop.createTask(sleep(100), { name: 'sleeper' });
    await loop.runOnce();
    loop.close();
    assert.equal(contexts.length, 1);
    assert.equal(contexts[0]!.message, 'Task was destroyed but it is pending!');
    assert.equal(contexts[0]!.task, task);
  });

  test('reports a future whose exception was never retrieved, and not one that was', async () => {
    const loop = virtualLoop();
    const contexts: ExceptionContext[] = [];
    loop.setExceptionHandler((_l, c) => contexts.push(c));
    const lost = loop.createFuture<number>();
    const seen = loop.createFuture<number>();
    const err1 = new Error('nobody looked');
    lost.setException(err1);
    seen.setException(new Error('looked at'));
    assert.ok(seen.exception() instanceof Error);
    loop.close();
    assert.equal(contexts.length, 1);
    assert.equal(contexts[0]!.message, 'Future exception was never retrieved');
    assert.equal(contexts[0]!.exception, err1);
    assert.equal(contexts[0]!.future, lost);
  });

  test('reports a failed task nobody awaited: "Task exception was never retrieved"', async () => {
    const loop = virtualLoop();
    const contexts: ExceptionContext[] = [];
    loop.setExceptionHandler((_l, c) => contexts.push(c));
    const boom = new Error('lost');
    const failing = coroutine(function* failing(): Coroutine<void> {
      yield;
      throw boom;
    });
    const task = loop.createTask(failing());
    await loop.runUntilComplete(sleep(1));
    assert.equal(task.done(), true);
    loop.close();
    assert.equal(contexts.length, 1);
    assert.equal(contexts[0]!.message, 'Task exception was never retrieved');
    assert.equal(contexts[0]!.exception, boom);
    assert.equal(contexts[0]!.future, task);
  });

  test('drops scheduled callbacks and timers', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    loop.callSoon(() => log.push('soon'));
    loop.callLater(1, () => log.push('later'));
    loop.close();
    assert.equal(loop.readyCount(), 0);
    await assert.rejects(loop.runOnce(), RuntimeError);
    assert.deepEqual(log, []);
  });
});

describe('guest run on top of Node', () => {
  test('a callSoon from a foreign Node callback wakes a suspended loop', async () => {
    const loop = new EventLoop();
    const log: string[] = [];
    const t = setTimeout(() => {
      loop.callSoon(() => {
        log.push('woken');
        loop.stop();
      });
    }, 5);
    await loop.runForever();
    clearTimeout(t);
    assert.deepEqual(log, ['woken']);
    loop.close();
  });

  test('a busy loop yields to Node so that Node callbacks still run', async () => {
    const loop = new EventLoop();
    let flag = false;
    let immediate: NodeJS.Immediate | undefined;
    const spinner = coroutine(function* spinner(): Coroutine<number> {
      let ticks = 0;
      // Set once the loop runs (its ticks start from Node's immediates too): Node's turn comes after this slice.
      immediate = setImmediate(() => {
        flag = true;
      });
      // Runs as long as Node has not had a turn: it must not starve Node forever.
      while (!flag) {
        yield;
        ticks++;
      }
      return ticks;
    });
    const ticks = await loop.runUntilComplete(spinner());
    if (immediate !== undefined) clearImmediate(immediate);
    assert.equal(flag, true);
    assert.ok(ticks > 0);
    loop.close();
  });

  test('a task whose every step is heavy (1 ms) still lets Node run its callbacks after a few steps', async () => {
    const loop = new EventLoop();
    let stepsBefore = -1;
    let steps = 0;
    let immediate: NodeJS.Immediate | undefined;
    const heavy = coroutine(function* heavy(): Coroutine<void> {
      // Set once the loop runs, as in the test before.
      immediate = setImmediate(() => {
        stepsBefore = steps;
      });
      // One step = 1 ms of work, as a parse loop's fair share of a fast connection can be.
      for (let i = 0; i < 400 && stepsBefore < 0; i++) {
        const end = performance.now() + 1;
        while (performance.now() < end);
        steps++;
        yield;
      }
    });
    await loop.runUntilComplete(heavy());
    if (immediate !== undefined) clearImmediate(immediate);
    loop.close();
    assert.ok(stepsBefore >= 0, 'Node ran its callback');
    // The 2 ms slice is checked every 8 ticks: Node's turn comes after about 8 steps. Checked
    // only every 256 callbacks, it came after 128 steps (over 100 ms).
    assert.ok(stepsBefore <= 24, `Node's callback waited for ${stepsBefore} steps of 1 ms`);
  });

  test('stop() from a foreign Node callback ends a suspended runForever', async () => {
    const loop = new EventLoop();
    const t = setTimeout(() => loop.stop(), 5);
    await loop.runForever();
    clearTimeout(t);
    assert.equal(loop.isRunning(), false);
    loop.close();
  });

  test('pause() holds the loop after the current tick; runOnce() steps it; resume() goes on', async () => {
    const loop = virtualLoop();
    const log: string[] = [];
    const worker = coroutine(function* worker(): Coroutine<void> {
      for (let i = 0; i < 4; i++) {
        log.push(`step ${i}`);
        if (i === 0) loop.pause();
        yield;
      }
    });
    const task = loop.createTask(worker());
    // runUntilComplete ticks from Node's next immediates, as every later slice: the first tick has run and
    // paused by the time Node's immediates queued after the call have.
    const running = loop.runUntilComplete(task);
    assert.deepEqual(log, []);
    await new Promise((r) => setImmediate(r));
    assert.equal(loop.isPaused(), true);
    assert.deepEqual(log, ['step 0']);
    await loop.runOnce();
    assert.deepEqual(log, ['step 0', 'step 1']);
    loop.resume();
    await running;
    assert.deepEqual(log, ['step 0', 'step 1', 'step 2', 'step 3']);
    loop.close();
  });

  test('a real-clock timer weeks away does not overflow Node timers (no spinning, no warnings)', async () => {
    const loop = new EventLoop();
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      loop.callLater(30 * 24 * 3600, () => undefined);
      const t = setTimeout(() => loop.stop(), 20);
      await loop.runForever();
      clearTimeout(t);
      // Warnings are emitted on the next turn of Node's loop.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings, []);
    loop.close();
  });

  test('real-clock timers fire (no assertion on how late)', async () => {
    const loop = new EventLoop();
    const start = loop.time();
    const fired = loop.createFuture<number>();
    loop.callLater(0.002, () => fired.setResult(loop.time()));
    const at = await loop.runUntilComplete(fired);
    assert.ok(at - start >= 0.002 - 1e-6, `fired after ${at - start}s`);
    loop.close();
  });

  test('runOnce() waits for a real-clock timer when nothing is ready', async () => {
    const loop = new EventLoop();
    const log: string[] = [];
    loop.callLater(0.001, () => log.push('timer'));
    while (log.length === 0) await loop.runOnce();
    assert.deepEqual(log, ['timer']);
    loop.close();
  });
});

describe('loops do not nest, as in asyncio', () => {
  test('runUntilComplete and runForever of another loop inside a running one are refused', async () => {
    const outer = virtualLoop();
    const inner = virtualLoop();
    const child = coroutine(function* child(): Coroutine<string> {
      return 'ran';
    });
    const outcomes: string[] = [];
    const main = coroutine(function* main(): Coroutine<void> {
      for (const call of [() => inner.runUntilComplete(child()), () => inner.runForever()]) {
        try {
          void call();
          outcomes.push('returned');
        } catch (e) {
          outcomes.push(e instanceof RuntimeError ? e.message : 'other');
        }
      }
      yield* sleep(0);
    });
    await outer.runUntilComplete(main());
    assert.deepEqual(outcomes, [
      'Cannot run the event loop while another loop is running',
      'Cannot run the event loop while another loop is running',
    ]);
    assert.deepEqual(inner.allTasks(), [], 'no task was left on the refused loop');
    outer.close();
    inner.close();
  });
});

describe("errors in a future's done callbacks", () => {
  test('are reported with a handle naming the callback, and the run goes on', async () => {
    const loop = virtualLoop();
    const contexts: ExceptionContext[] = [];
    loop.setExceptionHandler((_l, c) => contexts.push(c));
    const fut = loop.createFuture<number>();
    const log: string[] = [];
    fut.addDoneCallback(function badCallback() {
      throw new TypeError('x');
    });
    fut.addDoneCallback(() => log.push('next callback ran'));
    fut.setResult(1);
    await loop.runOnce();
    assert.deepEqual(log, ['next callback ran']);
    assert.equal(contexts.length, 1);
    assert.ok(contexts[0]!.exception instanceof TypeError);
    assert.ok(contexts[0]!.handle !== undefined);
    assert.equal(contexts[0]!.message, 'Exception in callback <Handle badCallback>');
    loop.close();
  });
});

// CPython 3.11, Lib/test/test_asyncio/test_base_events.py and test_tasks.py, rewritten for this runtime.
describe('CPython: a future of another loop', () => {
  test("test_run_until_complete_loop: runUntilComplete of another loop's future is a ValueError", async () => {
    const loop = virtualLoop();
    const other = virtualLoop();
    const fut = loop.createFuture<void>();
    assert.throws(
      () => other.runUntilComplete(fut),
      (e) => e instanceof ValueError && /belongs to a different loop/.test(e.message),
    );
    fut.cancel();
    loop.close();
    other.close();
  });

  test("test_ensure_future_future: ensureFuture keeps its own future and refuses another loop's with ValueError", () => {
    const loop = virtualLoop();
    const other = virtualLoop();
    const fut = loop.createFuture<string>();
    fut.setResult('ko');
    assert.equal(loop.ensureFuture(fut), fut);
    assert.throws(() => other.ensureFuture(fut), ValueError);
    loop.close();
    other.close();
  });
});

describe('observers', () => {
  test('added observers share the slot: each hears every hook, `first` goes first, removal leaves the others', async () => {
    const errors: string[] = [];
    const loop = new EventLoop({
      clock: new VirtualClock(),
      logger: { warn: () => undefined, error: (m) => errors.push(m) },
    });
    const heard: string[] = [];
    const a: LoopObserver = { taskCreated: (t) => heard.push(`a ${t.name}`) };
    const b: LoopObserver = { taskCreated: (t) => heard.push(`b ${t.name}`) };
    const broken: LoopObserver = {
      taskCreated: () => {
        throw new Error('observer bug');
      },
    };
    loop.addObserver(a);
    loop.addObserver(b, { first: true });
    loop.addObserver(broken);
    loop.createTask(sleep(0), { name: 'x' });
    assert.deepEqual(heard, ['b x', 'a x']);
    assert.equal(errors.length, 1, 'a hook that throws is logged; the others still ran');
    assert.match(errors[0]!, /loop observer taskCreated failed: Error: observer bug/);
    loop.removeObserver(b);
    loop.removeObserver(broken);
    assert.ok(loop.hasObserver(a) && !loop.hasObserver(b));
    loop.createTask(sleep(0), { name: 'y' });
    assert.deepEqual(heard, ['b x', 'a x', 'a y']);
    loop.setObserver(null);
    assert.ok(!loop.hasObserver(a));
    await loop.runUntilComplete(sleep(0));
    loop.close();
  });
});

describe("time(): the loop's clock stands still while pause() holds the loop", () => {
  test('on the real clock a hold does not count, the one under way included; pausing twice is one hold; a virtual clock ignores holds', () => {
    let wall = 1000;
    const descriptor = Object.getOwnPropertyDescriptor(performance, 'now');
    Object.defineProperty(performance, 'now', { configurable: true, writable: true, value: () => wall });
    try {
      const loop = new EventLoop({ clock: new MonotonicClock() });
      const t0 = loop.time();
      wall += 2000;
      loop.pause();
      wall += 5000;
      assert.equal(loop.time() - t0, 2, 'a hold under way does not count');
      loop.pause();
      wall += 1000;
      loop.resume();
      assert.equal(loop.time() - t0, 2, 'pausing twice is one hold');
      wall += 3000;
      assert.equal(loop.time() - t0, 5);
      loop.resume();
      assert.equal(loop.time() - t0, 5, 'resuming a running loop changes nothing');
      loop.close();
    } finally {
      if (descriptor === undefined) delete (performance as { now?: unknown }).now;
      else Object.defineProperty(performance, 'now', descriptor);
    }
    const clock = new VirtualClock(100);
    const virtual = new EventLoop({ clock });
    virtual.pause();
    clock.advance(5);
    assert.equal(virtual.time(), 105, 'a virtual clock moves only when told, held or not');
    virtual.close();
  });
});
