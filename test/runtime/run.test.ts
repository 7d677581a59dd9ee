// Tests of runtime/run.ts (asyncio.run): a new loop runs the coroutine to completion; the
// tasks still pending are cancelled and allowed to clean up; the loop is then closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  run,
  cancelAllTasks,
  EventLoop,
  VirtualClock,
  CancelledError,
  coroutine,
  getRunningLoop,
  sleep,
  type Coroutine,
  type LoopLogger,
} from '../../runtime/index';

function recordingLogger(): LoopLogger & { warnings: string[]; errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  return { warnings, errors, warn: (m) => warnings.push(m), error: (m) => errors.push(m) };
}

test('resolves with the result of the coroutine and closes its loop', async () => {
  let loop: EventLoop | null = null;
  const main = coroutine(function* main(): Coroutine<string> {
    loop = getRunningLoop();
    yield* sleep(3);
    return `done@${loop.time()}`;
  });
  assert.equal(await run(main(), { clock: new VirtualClock() }), 'done@3');
  assert.equal(loop!.isClosed(), true);
});

test('rejects with the exception of the coroutine, and still closes the loop', async () => {
  const err = new Error('main failed');
  let loop: EventLoop | null = null;
  const main = coroutine(function* main(): Coroutine<void> {
    loop = getRunningLoop();
    yield;
    throw err;
  });
  await assert.rejects(run(main(), { clock: new VirtualClock() }), (e) => e === err);
  assert.equal(loop!.isClosed(), true);
});

test('cancels the tasks left pending and lets their cleanup run before closing', async () => {
  const log: string[] = [];
  const logger = recordingLogger();
  const background = coroutine(function* background(name: string): Coroutine<void> {
    try {
      yield* sleep(100);
    } catch (e) {
      log.push(`${name} got ${(e as Error).name}`);
      throw e;
    } finally {
      yield* sleep(1); // cleanup that itself awaits
      log.push(`${name} cleaned up`);
    }
  });
  const main = coroutine(function* main(): Coroutine<string> {
    const loop = getRunningLoop();
    loop.createTask(background('b1'));
    loop.createTask(background('b2'));
    yield* sleep(1);
    return 'main done';
  });
  assert.equal(await run(main(), { clock: new VirtualClock(), logger }), 'main done');
  assert.deepEqual(log, ['b1 got CancelledError', 'b2 got CancelledError', 'b1 cleaned up', 'b2 cleaned up']);
  assert.deepEqual(logger.errors, [], 'nothing was reported as destroyed while pending');
});

test('a leftover task failing during shutdown is reported through the exception handler', async () => {
  const logger = recordingLogger();
  const background = coroutine(function* background(): Coroutine<void> {
    try {
      yield* sleep(100);
    } catch {
      throw new Error('failed while cancelled');
    }
  });
  const main = coroutine(function* main(): Coroutine<void> {
    getRunningLoop().createTask(background());
    yield;
  });
  await run(main(), { clock: new VirtualClock(), logger });
  assert.equal(logger.errors.length, 1);
  assert.match(logger.errors[0]!, /unhandled exception during run\(\) shutdown/);
  assert.match(logger.errors[0]!, /failed while cancelled/);
});

test('the debug option turns on the loop debug mode', async () => {
  const main = coroutine(function* main(): Coroutine<boolean> {
    yield;
    return getRunningLoop().getDebug();
  });
  assert.equal(await run(main(), { clock: new VirtualClock(), debug: true }), true);
  assert.equal(await run(main(), { clock: new VirtualClock() }), false);
});

test('cancelAllTasks() with nothing pending returns at once', async () => {
  const loop = new EventLoop({ clock: new VirtualClock() });
  await cancelAllTasks(loop);
  const t = loop.createTask(sleep(5));
  await cancelAllTasks(loop);
  assert.equal(t.cancelled(), true);
  assert.throws(() => t.result(), CancelledError);
  loop.close();
});

test('callbacks still queued when main returns run in the shutdown ticks, as with asyncio.run', async () => {
  const log: string[] = [];
  const main = coroutine(function* main(): Coroutine<string> {
    const loop = getRunningLoop();
    loop.callSoon(() => loop.callSoon(() => log.push('depth 2')));
    return 'main';
  });
  assert.equal(await run(main()), 'main');
  assert.deepEqual(log, ['depth 2']);
});

test('run() inside a running loop raises RuntimeError in the caller, which fails with it', async () => {
  const inner = coroutine(function* inner(): Coroutine<string> {
    return 'never';
  });
  const refused = inner();
  const main = coroutine(function* main(): Coroutine<void> {
    void run(refused);
    yield* sleep(0);
  });
  await assert.rejects(
    run(main()),
    (e) =>
      e instanceof Error && e.name === 'RuntimeError' && /cannot be called from a running event loop/.test(e.message),
  );
  assert.deepEqual(refused.next(), { value: undefined, done: true }, 'the refused coroutine was closed, never run');
});
