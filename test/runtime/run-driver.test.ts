// Tests of the run driver (runtime/run-driver.ts) as run() uses it (its loops on virtual clocks): installed, run()
// builds its loop with the driver from the program's own options, and the driver hears the outcome (the
// value, or the error) after the loop has closed and before the program's promise settles the same way;
// installing replaces the driver, null removes it (run() makes its own loop again).

import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { type Coroutine, coroutine, EventLoop, run, VirtualClock } from '../../runtime/index';
import type { EventLoopOptions } from '../../runtime/loop';
import { type RunDriver, runDriver, setRunDriver } from '../../runtime/run-driver';

afterEach(() => setRunDriver(null));

/** A driver that builds virtual-clock loops and logs what it is asked, in order. */
function loggingDriver(name: string, log: string[]): RunDriver & { loops: EventLoop[] } {
  const loops: EventLoop[] = [];
  return {
    loops,
    newLoop(options: EventLoopOptions): EventLoop {
      log.push(`${name} newLoop debug=${String(options.debug)}`);
      const loop = new EventLoop({ ...options, clock: new VirtualClock() });
      loops.push(loop);
      return loop;
    },
    ended(loop, outcome) {
      const i = loops.indexOf(loop);
      log.push(
        `${name} ended loop#${i} closed=${loop.isClosed()} ${outcome.ok ? `value ${String(outcome.value)}` : `error ${(outcome.error as Error).message}`}`,
      );
    },
  };
}

const answer = coroutine(function* (n: number): Coroutine<number> {
  return n * 2;
});
const failing = coroutine(function* (): Coroutine<number> {
  throw new Error('boom');
});

test('run() on the driver: its loop from the options, the outcome heard before the promise settles', async () => {
  const log: string[] = [];
  const driver = loggingDriver('a', log);
  setRunDriver(driver);
  assert.equal(runDriver(), driver);
  const value = await run(answer(21), { debug: true });
  log.push(`program got ${value}`);
  await assert.rejects(run(failing()), { message: 'boom' });
  log.push('program saw the error');
  assert.deepEqual(log, [
    'a newLoop debug=true',
    'a ended loop#0 closed=true value 42',
    'program got 42',
    'a newLoop debug=undefined',
    'a ended loop#1 closed=true error boom',
    'program saw the error',
  ]);
});

test('installing replaces the driver; null removes it', async () => {
  const log: string[] = [];
  setRunDriver(loggingDriver('a', log));
  setRunDriver(loggingDriver('b', log));
  await run(answer(1));
  setRunDriver(null);
  assert.equal(runDriver(), null);
  assert.equal(await run(answer(2)), 4);
  assert.deepEqual(log, ['b newLoop debug=undefined', 'b ended loop#0 closed=true value 2']);
});
