// A user's program run by the CLI (`coroscope run`, and `coroscope replay` of its recording),
// loaded with program-loader.ts under a run driver (runtime/run-driver.ts) that builds and
// watches every run()'s loop. A program that calls `run(main())` itself and one that only
// exports its main coroutine run alike; the first run() is "the run" recorded and replayed.
//
// Invariants: the driver is installed before the program loads and stays for the process's
// life; the same steps happen in a run and its replay, so a replay meets its recording's clock
// readings and tasks in the same order.

import { resolve } from 'node:path';
import type { EventLoop, EventLoopOptions } from '../../loop';
import { run } from '../../run';
import { setRunDriver, type RunDriver } from '../../run-driver';
import type { Task } from '../../task';
import { loadProgram, ProgramLoadError } from './program-loader';

export type RunOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

export interface ProgramLoopSetup {
  /** The loop of the program's `n`-th run() (1-based), built from the program's options. */
  newLoop(options: EventLoopOptions, n: number): EventLoop;
  /** The `n`-th run() has ended (its loop closed); `main`: its main task (the first task made on its loop). */
  ended?(loop: EventLoop, n: number, outcome: RunOutcome, main: Task<unknown> | null): void;
}

/** A program started: its first run()'s end, and every run() made so far. */
export interface StartedProgram {
  readonly path: string;
  /** Resolves when the program's first run() has ended, with its outcome and main task. */
  readonly firstRun: Promise<{ outcome: RunOutcome; main: Task<unknown> | null }>;
  /** True when the program called run() itself while it was loaded. */
  readonly ranItself: boolean;
  /** run() calls made and not ended yet. */
  pendingRuns(): number;
  /** The loops of the run() calls not ended yet. */
  pendingLoops(): EventLoop[];
}

/**
 * Loads the program at `file` under a driver built on `setup`, with `argv` as its arguments
 * (process.argv as `node file …args` would give them); runs its exported main coroutine
 * function if loading it did not call run(). Throws ProgramLoadError when it cannot be loaded.
 */
export function startUserProgram(
  file: string,
  exportName: string,
  argv: readonly string[],
  setup: ProgramLoopSetup,
): StartedProgram {
  const path = resolve(file);
  let runs = 0;
  const pending = new Set<EventLoop>();
  const mains = new WeakMap<EventLoop, Task<unknown>>();
  let firstEnded: (v: { outcome: RunOutcome; main: Task<unknown> | null }) => void = () => undefined;
  const firstRun = new Promise<{ outcome: RunOutcome; main: Task<unknown> | null }>((r) => (firstEnded = r));
  const numbers = new WeakMap<EventLoop, number>();
  const driver: RunDriver = {
    newLoop(options) {
      const n = ++runs;
      const loop = setup.newLoop(options, n);
      numbers.set(loop, n);
      pending.add(loop);
      // The main task is the first task made on the loop (run() makes it from the coroutine).
      loop.addObserver({ taskCreated: (task) => void (mains.has(loop) || mains.set(loop, task)) });
      return loop;
    },
    ended(loop, outcome) {
      pending.delete(loop);
      const n = numbers.get(loop) ?? 0;
      const main = mains.get(loop) ?? null;
      setup.ended?.(loop, n, outcome, main);
      if (n === 1) firstEnded({ outcome, main });
    },
  };
  setRunDriver(driver);
  process.argv = [process.argv[0]!, path, ...argv];
  let program;
  try {
    program = loadProgram(path, exportName);
  } catch (e) {
    // A program that ran itself need not export a main function: only the loader's complaint
    // that it has none is dropped (a require that threw, a compile error are reported).
    if (!(e instanceof ProgramLoadError) || runs === 0 || !/ has no export | exports nothing$/.test(e.message)) throw e;
    program = null;
  }
  const ranItself = runs > 0;
  if (!ranItself) {
    // Rejections are told through `firstRun` (ended): this promise's own would be a second report.
    run(program!.start()).catch(() => undefined);
  }
  return { path, firstRun, ranItself, pendingRuns: () => pending.size, pendingLoops: () => [...pending] };
}
