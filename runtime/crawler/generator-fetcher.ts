// Stage 2 of the crawler: coroutines made by hand from generators, a minimal future and a
// minimal task, on the same selector loop as stage 1. Independent of the runtime's
// EventLoop, Future and Task on purpose: this is the chapter's "build it from first
// principles" step, small enough to read in one sitting.
//
// - SimpleFuture: a result that is not there yet, and the callbacks to call when it is.
//   Its iterator yields the future itself and then returns its result, so a coroutine waits
//   for it with `const x = yield* future` (the chapter's `__iter__` and `yield from`).
// - SimpleTask: drives one coroutine. Each `step` sends the result of the last future into
//   the generator with `next()`; the generator runs to its next `yield` and hands over the
//   future it now waits for, on which the task registers its own `step`.
// - `connect`, `read`, `readAll`, `fetch`: the fetch as one straight-line generator, factored
//   into sub-coroutines with `yield*` (the chapter's `yield from`). The selector's callbacks
//   shrink to "resolve this future"; the state lives in the generators' local variables.
//
// Because a fetch is now one chain of generator frames, an error in it carries them all:
// the UnknownCharsetError of a broken page shows `fetch` (and the step that resumed it),
// where stage 1's trace shows only loop → readResponse. The errors are kept in `errors`,
// as in stage 1.
//
// Invariants:
// - `fetch` catches everything its URL can go wrong with and records it once; its `finally`
//   closes the socket. A task never throws into the loop.
// - A timeout is delivered by throwing a TimeoutError into the task's generator at its
//   suspension point (`SimpleTask.throwInto`); `read`/`connect` unregister in `finally`.
// - These generators are not wrapped with the runtime's `coroutine()`: they never run in a
//   runtime Task, and this stage is meant to stand alone.

import { BlockingIOError, TimeoutError } from '../errors';
import { EVENT_READ, EVENT_WRITE } from '../selector';
import { Socket, type SocketAddress } from '../socket';
import { parseHttp10Response, type Http10Response } from './http10-response';
import {
  ResponseTooLargeError,
  TeachingCrawl,
  type FetchTarget,
  type TeachingCrawlOptions,
  type TeachingCrawlResult,
} from './teaching-crawl';

export type { TeachingCrawlOptions as GeneratorCrawlOptions, TeachingCrawlResult as GeneratorCrawlResult } from './teaching-crawl';

/** How many bytes `read` asks for, as in the chapter. */
export const CHUNK_SIZE = 4096;

/** A result to come. Callbacks run synchronously in `setResult`, as in the chapter's sketch. */
export class SimpleFuture<T> {
  result: T | undefined = undefined;
  done = false;
  /** Each callback already bound to this future (keeps T out of a contravariant spot). */
  private readonly callbacks: Array<() => void> = [];

  /** Calls `fn` when the result is set (at once if it already is, so no waiter is lost). */
  addDoneCallback(fn: (future: SimpleFuture<T>) => void): void {
    if (this.done) fn(this);
    else this.callbacks.push(() => fn(this));
  }

  setResult(result: T): void {
    if (this.done) throw new Error('SimpleFuture: result already set');
    this.result = result;
    this.done = true;
    for (const call of this.callbacks) call();
    this.callbacks.length = 0;
  }

  /** `yield* future`: hand this future to the task, and evaluate to its result once resumed. */
  *[Symbol.iterator](): Generator<SimpleFuture<T>, T, unknown> {
    yield this;
    return this.result as T;
  }
}

/** A coroutine of this stage: it yields the futures it waits for and returns R. */
export type SimpleCoroutine<R> = Generator<SimpleFuture<unknown>, R, unknown>;

/** Drives a coroutine: resume it with each awaited future's result until it returns. */
export class SimpleTask {
  private readonly coro: SimpleCoroutine<void>;
  private readonly onDone: (() => void) | null;
  done = false;

  /** Starts the coroutine at once (the first step sends in nothing). */
  constructor(coro: SimpleCoroutine<void>, onDone: (() => void) | null = null) {
    this.coro = coro;
    this.onDone = onDone;
    const start = new SimpleFuture<undefined>();
    start.setResult(undefined);
    this.step(start);
  }

  /** Sends `future`'s result in; waits on whatever future the coroutine yields next. */
  step(future: SimpleFuture<unknown>): void {
    if (this.done) return;
    this.advance(this.coro.next(future.result));
  }

  /** Raises `error` inside the coroutine where it is suspended (how a timeout gets in). */
  throwInto(error: Error): void {
    if (this.done) return;
    this.advance(this.coro.throw(error));
  }

  private advance(next: IteratorResult<SimpleFuture<unknown>, void>): void {
    if (next.done === true) {
      this.done = true;
      this.onDone?.();
      return;
    }
    next.value.addDoneCallback((future) => this.step(future));
  }
}

/** What a readable socket gave: a chunk (empty at EOF) or the connection's failure. */
type ReadOutcome = { chunk: Buffer } | { error: unknown };

/** The state of a generator crawl, and the coroutines that fetch with its selector. */
export class GeneratorCrawl extends TeachingCrawl {
  protected override readonly loopTitle = "the generator crawl's select loop (Future + Task)";

  /** Starts fetching `url` in a new task, with a deadline that throws into it. */
  startFetch(url: string, maxRedirect: number = this.maxRedirect): SimpleTask {
    let task: SimpleTask | null = null;
    const deadline = this.armDeadline(() => task?.throwInto(new TimeoutError(`no complete response from ${url} within ${this.timeout} s`)), `the fetch of ${url}`);
    task = new SimpleTask(this.fetch(url, maxRedirect), () => deadline.cancel());
    return task;
  }

  /** Connects `sock` to `address`; returns once connected, throws why it could not. */
  *connect(sock: Socket, address: SocketAddress): SimpleCoroutine<void> {
    try {
      sock.connect(address);
    } catch (error) {
      if (!(error instanceof BlockingIOError)) throw error;
    }
    const writable = new SimpleFuture<null>();
    this.selector.register(sock, EVENT_WRITE, () => writable.setResult(null));
    try {
      yield* writable;
    } finally {
      this.selector.unregister(sock);
    }
    const failure = sock.error();
    if (failure !== null) throw failure;
  }

  /** Sends all of `data`, waiting for room in the send buffer when it is full. */
  *sendAll(sock: Socket, data: Buffer): SimpleCoroutine<void> {
    let unsent = data;
    for (;;) {
      try {
        unsent = unsent.subarray(sock.send(unsent));
      } catch (error) {
        if (!(error instanceof BlockingIOError)) throw error;
      }
      if (unsent.length === 0) return;
      const writable = new SimpleFuture<null>();
      this.selector.register(sock, EVENT_WRITE, () => writable.setResult(null));
      try {
        yield* writable;
      } finally {
        this.selector.unregister(sock);
      }
    }
  }

  /** One chunk from `sock` (empty at EOF), once it is readable. */
  *read(sock: Socket): SimpleCoroutine<Buffer> {
    const readable = new SimpleFuture<ReadOutcome>();
    const onReadable = (): void => {
      let outcome: ReadOutcome;
      try {
        outcome = { chunk: sock.recv(CHUNK_SIZE) };
      } catch (error) {
        if (error instanceof BlockingIOError) return; // not readable after all: keep waiting
        outcome = { error };
      }
      readable.setResult(outcome);
    };
    this.selector.register(sock, EVENT_READ, onReadable);
    let outcome: ReadOutcome;
    try {
      outcome = yield* readable;
    } finally {
      this.selector.unregister(sock);
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.chunk;
  }

  /** Every byte until the server closes (bounded by maxResponseBytes). */
  *readAll(sock: Socket): SimpleCoroutine<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    let chunk = yield* this.read(sock);
    while (chunk.length > 0) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > this.maxResponseBytes) throw new ResponseTooLargeError(`response larger than ${this.maxResponseBytes} bytes`);
      chunk = yield* this.read(sock);
    }
    return Buffer.concat(chunks, size);
  }

  /** Fetches one URL, records what came of it, and starts a task for each new URL. */
  *fetch(url: string, maxRedirect: number = this.maxRedirect): SimpleCoroutine<void> {
    let sock: Socket | null = null;
    let response: Http10Response | null = null;
    let targets: FetchTarget[] = [];
    try {
      const endpoint = this.endpointOf(url);
      sock = new Socket(this.socketOptionsFor(endpoint));
      sock.setBlocking(false);
      yield* this.connect(sock, [endpoint.host, endpoint.port]);
      yield* this.sendAll(sock, endpoint.request);
      const raw = yield* this.readAll(sock);
      response = parseHttp10Response(raw);
      targets = this.recordResponse(url, maxRedirect, response);
    } catch (error) {
      targets = this.recordFailure(url, error, response);
    } finally {
      sock?.close();
    }
    for (const target of targets) this.startFetch(target.url, target.maxRedirect);
    this.fetchFinished();
  }
}

/**
 * The event loop of this stage, the same as stage 1's: a registration's data is now a
 * callback that resolves a future, which resumes a task.
 */
export async function runGeneratorLoop(crawl: GeneratorCrawl): Promise<void> {
  const selector = crawl.selector;
  while (!crawl.stopped) {
    const events = await selector.select(crawl.selectTimeout());
    for (const [i, [key]] of events.entries()) {
      // A callback earlier in this batch may have ended this registration.
      if (selector.getKey(key.fd) !== key) continue;
      crawl.nowRunning(events, i); // for the inspector: this callback runs, the rest wait
      const callback = key.data as () => void;
      callback();
    }
    crawl.nowRunning([], 0);
    crawl.expireDeadlines();
    if (events.length === 0 && crawl.isWedged()) throw new Error('generator crawl: fetches in flight but nothing to wait for');
  }
}

/** Crawls from `roots` with stage 2's hand-made coroutines; same result shape as stage 1. */
export function crawlWithGenerators(roots: string[], options: TeachingCrawlOptions = {}): Promise<TeachingCrawlResult> {
  let crawl: GeneratorCrawl;
  try {
    crawl = new GeneratorCrawl(roots, options);
  } catch (error) {
    return Promise.reject(error);
  }
  for (const root of crawl.admitRoots()) crawl.startFetch(root.url, root.maxRedirect);
  return runGeneratorLoop(crawl).then(
    () => {
      crawl.close();
      return crawl.result();
    },
    (error: unknown) => {
      crawl.close();
      throw error;
    },
  );
}
