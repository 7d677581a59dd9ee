// The run driver: how a tool that runs a user's program (the CLI's `coroscope run`) takes
// over the loops the program's own run() calls make, so a program written for plain Node
// (`run(main())` at its end) is recorded, inspected and reported on by the tool unchanged.
//
// Invariants: at most one driver is installed (installing replaces, null removes); without
// one, run() makes and closes its own loop as asyncio.run does. A driver only chooses how the
// loop is built and watched: it must run the coroutine with runOnLoop (the same shutdown
// ticks, the same close), so a program behaves the same with and without it.

import type { EventLoop, EventLoopOptions } from './loop';

export interface RunDriver {
  /** The loop a run() call runs on (built from the program's own options, which it may extend). */
  newLoop(options: EventLoopOptions): EventLoop;
  /** Told once the run() on `loop` has ended (its loop closed), with its outcome. */
  ended?(
    loop: EventLoop,
    outcome: { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown },
  ): void;
}

let installed: RunDriver | null = null;

/** @internal Installs the driver run() uses from now on (null: none, the default). */
export function setRunDriver(driver: RunDriver | null): void {
  installed = driver;
}

/** @internal The driver run() uses, or null. */
export function runDriver(): RunDriver | null {
  return installed;
}
