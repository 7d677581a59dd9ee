// Tests of a user's program started under the CLI's run driver (runtime/host/main-thread/user-program.ts),
// in process, with small JavaScript programs written to a temp folder (the runtime required by path, on
// virtual clocks): a program that only exports main is run by the driver; one that calls run() itself
// (twice here) has each run numbered, built by the setup and told its end with its outcome and main task,
// the first one's end being firstRun's, and needs no main export; the program sees its path and
// arguments as `node file …args` would give them; a program that throws while loading is refused with it.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { EventLoop, VirtualClock } from '../../../../runtime/index';
import { type ProgramLoopSetup, startUserProgram } from '../../../../runtime/host/main-thread/user-program';
import { setRunDriver } from '../../../../runtime/run-driver';
import type { Task } from '../../../../runtime/task';

const dir = mkdtempSync(join(tmpdir(), 'coroscope-user-program-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const argv = process.argv;
afterEach(() => {
  setRunDriver(null);
  process.argv = argv;
});

const RUNTIME = JSON.stringify(join(__dirname, '..', '..', '..', '..', 'runtime', 'index'));

function program(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `const { coroutine, run } = require(${RUNTIME});\n${body}\n`);
  return path;
}

/** A main task as logged: its result, or the error it raised (null: none). */
function mainOf(main: Task<unknown> | null): string {
  if (main === null) return 'none';
  const error = main.exception();
  return error === undefined ? String(main.result()) : `raised ${(error as Error).message}`;
}

/** A setup logging each run's loop and end, in order. */
function loggingSetup(log: string[]): ProgramLoopSetup {
  return {
    newLoop: (options, n) => {
      log.push(`newLoop ${n}`);
      return new EventLoop({ ...options, clock: new VirtualClock() });
    },
    ended: (_loop, n, outcome, main) =>
      log.push(
        `ended ${n} ${outcome.ok ? `value ${String(outcome.value)}` : `error ${(outcome.error as Error).message}`} main=${mainOf(main)}`,
      ),
  };
}

describe('startUserProgram', () => {
  test('a program that only exports main: run by the driver, its path and arguments as node gives them', async () => {
    const path = program(
      'exports-main.js',
      'exports.main = coroutine(function* main() { return process.argv.slice(1).join(" "); });',
    );
    const log: string[] = [];
    const started = startUserProgram(path, 'main', ['--pages', '3'], loggingSetup(log));
    assert.deepEqual([started.path, started.ranItself], [path, false]);
    const first = await started.firstRun;
    assert.deepEqual(first.outcome, { ok: true, value: `${path} --pages 3` });
    assert.equal(first.main?.result(), `${path} --pages 3`);
    assert.deepEqual(log, ['newLoop 1', `ended 1 value ${path} --pages 3 main=${path} --pages 3`]);
    assert.equal(started.pendingRuns(), 0);
  });

  test('a program that calls run() itself: each run numbered and told its end; no main export needed', async () => {
    const path = program(
      'runs-itself.js',
      [
        'const twice = coroutine(function* twice(n) { yield; return n * 2; });',
        'const fails = coroutine(function* fails() { throw new Error("second run failed"); });',
        'run(twice(21));',
        'run(fails()).catch(() => undefined);',
      ].join('\n'),
    );
    const log: string[] = [];
    const started = startUserProgram(path, 'main', [], loggingSetup(log));
    assert.deepEqual([started.ranItself, started.pendingRuns(), started.pendingLoops().length], [true, 2, 2]);
    const first = await started.firstRun;
    assert.deepEqual(first.outcome, { ok: true, value: 42 });
    while (started.pendingRuns() > 0) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log.slice(0, 2), ['newLoop 1', 'newLoop 2']);
    assert.deepEqual(log.slice(2).sort(), [
      'ended 1 value 42 main=42',
      'ended 2 error second run failed main=raised second run failed',
    ]);
  });

  test('a program that throws while loading: that error, as the loader says it', () => {
    const path = program('throws.js', 'throw new Error("bad program");');
    assert.throws(() => startUserProgram(path, 'main', [], loggingSetup([])), {
      name: 'ProgramLoadError',
      message: `loading ${path} failed: Error: bad program`,
    });
    // Neither a run() of its own nor a main to run: the loader's complaint stands.
    const idle = program('idle.js', 'exports.other = 1;');
    assert.throws(() => startUserProgram(idle, 'main', [], loggingSetup([])), { name: 'ProgramLoadError' });
  });
});
