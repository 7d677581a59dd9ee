// The contract of a tutorial sample: real code that runs against the embedded demo site, with
// our own short explanation of what to watch while stepping it.
//
// Invariants:
// - A sample only talks to `ctx.siteUrl` (a running demo site on loopback) and to threads and
//   processes it starts itself; never to the outside network. It stops everything it started
//   (threads, processes, servers, sockets) before `run` settles, even when it fails.
// - Every line a sample prints goes through `ctx.log` and is also returned in `lines`, so the
//   CLI, the panel and the tests see the same transcript.
// - `ok` is the sample's own verdict: its expected output appeared (the right results, in the
//   order the idea predicts). A sample that cannot even run rejects instead.
// - When `ctx.loop` is given (the inspector runs the sample paused, to step it), the sample's
//   runtime coroutines run on that loop and the loop is left open; otherwise the sample makes
//   and closes its own loops. The samples whose point is a loop other than the runtime's
//   (blocking, busy-nonblocking, callbacks, future-task, timers-loop, trampoline) ignore it.
// - What a sample on the runtime's loop measures outside it and runs by (a Fibonacci n fitted
//   to this machine) goes through `measuredBy`, so a replay of its recording runs by the same.

import type { EventLoop } from '../loop';

export interface SampleContext {
  /** The home page of a running demo site, e.g. `http://127.0.0.1:PORT/`. */
  readonly siteUrl: string;
  /** Prints one line of the sample's output. */
  log(line: string): void;
  /** The loop to run the sample's coroutines on (the inspector's, possibly paused). */
  readonly loop?: EventLoop;
  /**
   * A number the sample measures outside the loop (this machine's speed) and runs by: a host's
   * run keeps what it measured with its recording, and a replay of that recording is given the
   * recorded number instead of measuring again (which would make another run). Absent: measured.
   */
  measured?(name: string, measure: () => number): number;
}

/** `measure()`, as the context keeps or gives it (SampleContext.measured). */
export function measuredBy(ctx: SampleContext, name: string, measure: () => number): number {
  return ctx.measured !== undefined ? ctx.measured(name, measure) : measure();
}

export interface SampleOutcome {
  /** Whether the sample saw what it set out to show. */
  ok: boolean;
  /** Every line logged, in order. */
  lines: string[];
  /** What the sample measured (seconds, counts, bytes), by name. */
  numbers: Record<string, number>;
}

export interface Sample {
  /** Short and stable: the CLI's `coroscope sample <id>`. */
  readonly id: string;
  readonly title: string;
  /** Which part of which source document the sample follows. */
  readonly chapter: string;
  /** What to look at when stepping it (our own words, a few sentences). */
  readonly explanation: string;
  /**
   * True for the samples whose point is a loop other than the runtime's (sockets, threads,
   * processes or a hand-made loop): they put no task on `ctx.loop`, so holding the runtime's
   * loop at entry does not hold them: a host held at entry starts them only when told to go.
   */
  readonly ownLoop: boolean;
  run(ctx: SampleContext): Promise<SampleOutcome>;
}

/** The source documents the samples follow (see ../shared/seeds/README.md). */
export const SOURCES = Object.freeze({
  chapter: 'A Web Crawler With asyncio Coroutines (500 Lines or Less)',
  blockingToAsyncio: 'Article: from blocking sockets to asyncio, with timings for 10 pages',
  asyncioVsNode: "Article: asyncio compared with Node's event loop",
});
