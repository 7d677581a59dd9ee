// The inspection interface of the runtime core: what the inspector (runtime/inspect) and the host
// may know about futures, tasks and resources without reading a private field. Each primitive
// implements `Inspectable` (one method under the `inspect` symbol), so a new primitive needs no
// edit in the inspector.
//
// Invariants:
// - Inspection never changes what it looks at (no exception marked retrieved, no reordering).
// - It costs nothing while nobody inspects: answers are built only when called, never hot.
// - `wokenBy` is what deadlock detection relies on: 'loop' means only the loop's own code can
//   complete the waiters; 'outside' means I/O, a timer or foreign code still may.

import type { CoroutineFrame } from './coroutine';
import type { Future } from './future';
import type { Coroutine, Task } from './task';
import type { CancelRequest } from './cancel-request';
import type { CapturedStack } from './creation-sites';

/** The method every inspectable object has (a symbol: it never clashes with a program's names). */
export const inspect: unique symbol = Symbol('coroscope.inspect');

/** Who completes the waiters of a primitive (see the header). */
export type WokenBy = 'loop' | 'outside';

/** What a resource (anything a future's origin names as its target) says of itself. */
export interface ResourceInspection {
  readonly role: 'resource';
  /** 'queue', 'lock', 'event', 'semaphore', 'socket', 'stream', 'http.pool', 'timer', ... */
  readonly kind: string;
  readonly wokenBy: WokenBy;
  /** A bounded one-line description (its toString). */
  description(): string;
  /** The pending futures of the tasks waiting on it, in the order they will be served (a copy). */
  waiters(): Future<unknown>[];
  /** The tasks holding it (a Lock's owner, a Semaphore's slot holders; null: taken outside any task). */
  holders(): Array<Task<unknown> | null>;
  /**
   * Where each holder took it, in holders()' order (a Lock's one holder, a Semaphore's slot holders): the
   * stack captured then (null: taken while coroutine tracking was off).
   */
  heldSince?(): Array<CapturedStack | null>;
}

/** How a future ended, read without marking an exception as retrieved. */
export type FutureOutcome =
  | { readonly state: 'pending' }
  | { readonly state: 'result'; readonly value: unknown }
  | { readonly state: 'exception'; readonly error: unknown }
  | { readonly state: 'cancelled'; readonly message: string | undefined };

/** What a future says of itself. */
export interface FutureInspection {
  readonly role: 'future' | 'task';
  /** Its origin's kind ('sleep', 'queue.get', 'gather', 'waitFor', ...), 'task' for a task, 'future' when unknown. */
  readonly kind: string;
  /** Its origin's detail (a delay, a socket peer, a pool key), or null. */
  readonly detail: string | null;
  /** The resource it belongs to (the Queue, the Lock, the socket, the timer), or null. */
  readonly resource: Inspectable | null;
  /**
   * The futures it stands for in turn: gather's children, waitFor's and shield's inner awaitable (not a copy:
   * do not change it).
   */
  inner(): readonly Future<unknown>[];
  /** The tasks suspended on it (registered as its waiters), in registration order. */
  waitingTasks(): Task<unknown>[];
  outcome(): FutureOutcome;
  /**
   * The task that was running when loop.createFuture() made it (null: made outside any task, or not by
   * createFuture).
   */
  createdBy(): Task<unknown> | null;
  /** Who will complete it: a task or the resource's owner inside the loop, or the outside world. */
  wokenBy(): WokenBy;
}

/** What a task says of itself, beyond what it says as a future. */
export interface TaskInspection extends FutureInspection {
  readonly role: 'task';
  /** The future it is suspended on, or null (scheduled, running or done). */
  readonly awaiting: Future<unknown> | null;
  /** Resumes run so far. */
  readonly steps: number;
  /**
   * The tracked `yield*` chain, root first (null: tracking off, or never stepped). Made at each read from the
   * runtime's links between the frames: a later read sees a later chain.
   */
  readonly frames: readonly CoroutineFrame[] | null;
  /** The coroutine the task drives. */
  readonly coroutine: Coroutine<unknown>;
  /** True when that coroutine is coroutine()'s tracking wrapper: the program's generator it wraps is frames[0]. */
  readonly coroutineIsWrapper: boolean;
  /** The cancel that took effect (Task.cancelInEffect()): a request withdrawn by uncancel() is never it; null: none. */
  readonly cancelInEffect: CancelRequest | null;
}

export type Inspection = ResourceInspection | FutureInspection | TaskInspection;

/** One task step waiting on the loop's ready queue. */
export interface ScheduledStep {
  readonly task: Task<unknown>;
  /** The future whose completion scheduled it (null: a first step, a bare yield, an error thrown in). */
  readonly wokenBy: Future<unknown> | null;
}

/** What an event loop says of itself (EventLoop's `[inspect]()`). */
export interface LoopInspection {
  /** The task steps the next tick will run, in order. */
  scheduledSteps(): ScheduledStep[];
  /** Timers due later and not cancelled. */
  pendingTimers(): number;
  /** True while a socket is registered with the selector (something may still arrive). */
  watchesIo(): boolean;
}

/** Implemented by every Future, Task and resource of the runtime. */
export interface Inspectable {
  [inspect](): Inspection;
}

/** True for anything implementing the interface. */
export function isInspectable(x: unknown): x is Inspectable {
  return (
    (typeof x === 'object' || typeof x === 'function') &&
    x !== null &&
    typeof (x as Partial<Inspectable>)[inspect] === 'function'
  );
}

/** The exception a done future failed with, read without marking it retrieved; undefined if none. */
export function exceptionOf(fut: Future<unknown>): unknown {
  const outcome = fut[inspect]().outcome();
  return outcome.state === 'exception' ? outcome.error : undefined;
}

/** The resource view of `x`, or null when `x` is not an inspectable resource. */
export function inspectResource(x: unknown): ResourceInspection | null {
  if (!isInspectable(x)) return null;
  const view = x[inspect]();
  return view.role === 'resource' ? view : null;
}
