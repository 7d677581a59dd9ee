// wait(): wait for some of several futures, as asyncio.wait. Evaluates to [done, pending],
// two Sets of the futures given, when the condition named by `returnWhen` holds or the
// timeout passes: FIRST_COMPLETED (any one done), FIRST_EXCEPTION (any one failed, or all
// done), ALL_COMPLETED (all done, the default). It never raises TimeoutError and never
// cancels anything: what is not done is returned as pending, still running.
//
// As in asyncio 3.11, coroutines are refused (wrap them in tasks first: a coroutine has no
// identity to find in the result sets), and so are an empty iterable and a single future.

import { coroutine } from './coroutine';
import { ValueError } from './errors';
import { Future, describeValue } from './future';
import type { EventLoop } from './loop';
import { getRunningLoop } from './running-loop';
import { isCoroutine, type Coroutine } from './task';

export const FIRST_COMPLETED = 'FIRST_COMPLETED';
export const FIRST_EXCEPTION = 'FIRST_EXCEPTION';
export const ALL_COMPLETED = 'ALL_COMPLETED';
export type ReturnWhen = typeof FIRST_COMPLETED | typeof FIRST_EXCEPTION | typeof ALL_COMPLETED;

export interface WaitOptions {
  /** Seconds; null or absent: no limit. */
  timeout?: number | null;
  returnWhen?: ReturnWhen;
}

/** `const [done, pending] = yield* wait(tasks, { returnWhen: FIRST_COMPLETED })`. */
export function wait<F extends Future<unknown>>(
  fs: Iterable<F>,
  options: WaitOptions = {},
): Coroutine<[Set<F>, Set<F>]> {
  if (fs instanceof Future || isCoroutine(fs))
    throw new TypeError(`wait() expects an iterable of futures, not ${describeValue(fs)}`);
  const returnWhen = options.returnWhen ?? ALL_COMPLETED;
  if (returnWhen !== FIRST_COMPLETED && returnWhen !== FIRST_EXCEPTION && returnWhen !== ALL_COMPLETED) {
    throw new ValueError(`Invalid returnWhen value: ${String(returnWhen)}`);
  }
  const set = new Set(fs);
  if (set.size === 0) throw new ValueError('Set of Tasks/Futures is empty.');
  for (const f of set) {
    if (isCoroutine(f)) throw new TypeError('Passing coroutines is forbidden, use tasks explicitly.');
    if (!((f as unknown) instanceof Future)) throw new TypeError(`wait() expects futures, got ${describeValue(f)}`);
  }
  return waitUntil(set, options.timeout ?? null, returnWhen);
}

/** What wait() suspends on without a timeout: for inspection it stands for the futures waited for. */
class WaitingFor extends Future<void> {
  constructor(
    loop: EventLoop,
    private readonly _fs: ReadonlySet<Future<unknown>>,
    returnWhen: ReturnWhen,
  ) {
    super(loop);
    this._origin = { kind: 'wait', detail: `${returnWhen}, ${_fs.size} futures` };
  }

  protected override _innerFutures(): readonly Future<unknown>[] {
    return [...this._fs].filter((f) => !f.done());
  }
}

const waitUntil = coroutine(function* wait<F extends Future<unknown>>(
  fs: Set<F>,
  timeout: number | null,
  returnWhen: ReturnWhen,
): Coroutine<[Set<F>, Set<F>]> {
  const loop = getRunningLoop();
  // With a timeout its timer (an outside waker) is what it stands for; without, the futures.
  const waiter: Future<void> = timeout === null ? new WaitingFor(loop, fs, returnWhen) : loop.createFuture<void>();
  const release = (): void => {
    if (!waiter.done()) waiter.setResult(undefined);
  };
  const timeoutHandle = timeout === null ? null : loop.callLater(timeout, release);
  if (timeoutHandle !== null)
    waiter._origin = {
      kind: 'wait',
      target: timeoutHandle,
      detail: `${returnWhen}, ${fs.size} futures, timeout ${timeout}s`,
    };
  let counter = fs.size;
  const onCompletion = (f: Future<unknown>): void => {
    counter--;
    if (
      counter <= 0 ||
      returnWhen === FIRST_COMPLETED ||
      (returnWhen === FIRST_EXCEPTION && !f.cancelled() && f.exception() !== undefined)
    ) {
      timeoutHandle?.cancel();
      release();
    }
  };
  for (const f of fs) f.addDoneCallback(onCompletion);
  try {
    yield* waiter;
  } finally {
    timeoutHandle?.cancel();
    for (const f of fs) f.removeDoneCallback(onCompletion);
  }
  const done = new Set<F>();
  const pending = new Set<F>();
  for (const f of fs) (f.done() ? done : pending).add(f);
  return [done, pending];
});
