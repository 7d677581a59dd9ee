// coroutine(): marks a generator function as a coroutine, as @asyncio.coroutine did, and is how
// the inspector reaches every frame of a `yield*` chain (which hides inner generators).
//
// Invariants:
// - Tracking off (the default): one extra call and flag test; the generator is returned as is.
// - Tracking on: a frame generator records {generator, function, task, parent} on the running
//   task's frame stack at the first resume (so a coroutine handed to another task lands in the
//   task that runs it) and pops it on return or throw; V8 keeps suspended locals
//   (suspended-locals.ts).

import { runningLoopOrNull } from './running-loop';
import { keepSuspendedLocals } from './suspended-locals';
import type { Coroutine, Task } from './task';

/** One generator of a task's `yield*` chain. */
export interface CoroutineFrame {
  /** The user's generator object (its suspended frame holds the locals). */
  readonly gen: Coroutine<unknown>;
  /** The generator function it came from. */
  readonly fn: (...args: never[]) => Coroutine<unknown>;
  /** The task that runs it (null when resumed outside any task). */
  readonly task: Task<unknown> | null;
  /** The frame that delegated to it with `yield*`, null for a task's root. */
  readonly parent: CoroutineFrame | null;
  /** Depth in the chain: 0 for the root. */
  readonly depth: number;
}

type GeneratorFunction<This, A extends unknown[], R> = (this: This, ...args: A) => Coroutine<R>;

let tracking = false;
/** Called when a tracked generator is created and when it is first resumed (inspector hooks). */
export interface CoroutineTrackingHooks {
  created?(gen: Coroutine<unknown>, fn: (...args: never[]) => Coroutine<unknown>): void;
  started?(frame: CoroutineFrame): void;
  finished?(frame: CoroutineFrame): void;
}
let hooks: CoroutineTrackingHooks | null = null;

/**
 * Turns frame tracking on or off for coroutines created from now on. On, the frames will be
 * read: V8 is told to keep every local of a suspended generator from then on (suspended-locals.ts).
 */
export function setCoroutineTracking(on: boolean, trackingHooks: CoroutineTrackingHooks | null = null): void {
  if (on) keepSuspendedLocals();
  tracking = on;
  hooks = on ? trackingHooks : null;
}

export function isCoroutineTrackingOn(): boolean {
  return tracking;
}

const COROUTINE_FUNCTION = Symbol.for('coroscope.coroutineFunction');

/** True if `fn` was made by coroutine(). */
export function isCoroutineFunction(fn: unknown): boolean {
  return typeof fn === 'function' && (fn as unknown as Record<symbol, unknown>)[COROUTINE_FUNCTION] === true;
}

/** The generator function wrapped by coroutine(), or `fn` itself. */
export function unwrapCoroutineFunction(fn: unknown): unknown {
  const inner = typeof fn === 'function' ? (fn as unknown as Record<symbol, unknown>)[ORIGINAL] : undefined;
  return inner ?? fn;
}
const ORIGINAL = Symbol.for('coroscope.originalFunction');

/**
 * Each tracked task's frame stack, innermost last, made at its first tracked frame. Kept
 * beside the tasks, not in a field of Task: a task without tracking would carry it for nothing.
 */
const framesOfTasks = new WeakMap<Task<unknown>, CoroutineFrame[]>();

/** @internal The frames of `task`'s `yield*` chain (Task._frames), null if none was tracked. */
export function trackedFramesOf(task: Task<unknown>): CoroutineFrame[] | null {
  return framesOfTasks.get(task) ?? null;
}

function* trackedFrame<R>(gen: Coroutine<R>, fn: (...args: never[]) => Coroutine<unknown>): Coroutine<R> {
  const task = runningLoopOrNull()?.currentTask() ?? null;
  let frames: CoroutineFrame[] | null = null;
  let parent: CoroutineFrame | null = null;
  if (task !== null) {
    frames = framesOfTasks.get(task) ?? null;
    parent = frames !== null && frames.length > 0 ? frames[frames.length - 1]! : null;
  }
  const frame: CoroutineFrame = {
    gen: gen as Coroutine<unknown>,
    fn,
    task,
    parent,
    depth: parent === null ? 0 : parent.depth + 1,
  };
  if (frames !== null) frames.push(frame);
  else if (task !== null) {
    // Made with its first frame in it: `[]` then push() would reserve room for 17 frames.
    frames = [frame];
    framesOfTasks.set(task, frames);
  }
  hooks?.started?.(frame);
  try {
    return yield* gen;
  } finally {
    if (frames !== null) {
      const i = frames.lastIndexOf(frame);
      if (i >= 0) frames.splice(i, 1);
    }
    hooks?.finished?.(frame);
  }
}

/** The prototype of every tracking wrapper (the generators trackedFrame makes). */
const TRACKING_WRAPPER: object = trackedFrame.prototype as object;

/**
 * True if `gen` is coroutine()'s tracking wrapper around a generator of the program (the
 * inspector shows the generator it wraps, recorded as a CoroutineFrame, not the wrapper).
 */
export function isTrackingWrapper(gen: unknown): boolean {
  return typeof gen === 'object' && gen !== null && Object.getPrototypeOf(gen) === TRACKING_WRAPPER;
}

/**
 * Marks a generator function as a coroutine. Use `yield*` on what it returns:
 * `const fetch = coroutine(function* fetch(url: string) { ... })`. It is also a method
 * decorator: `@coroutine *fetch(url: string) { ... }` inside a class.
 */
export function coroutine<This, A extends unknown[], R>(
  fn: GeneratorFunction<This, A, R>,
  _decoratorContext?: ClassMethodDecoratorContext,
): GeneratorFunction<This, A, R> {
  const wrapped = function (this: This): Coroutine<R> {
    // `arguments` with apply is optimised by V8 without materialising an array.
    // eslint-disable-next-line prefer-rest-params
    const gen = fn.apply(this, arguments as unknown as A);
    if (!tracking) return gen;
    const anyFn = fn as unknown as (...args: never[]) => Coroutine<unknown>;
    hooks?.created?.(gen as Coroutine<unknown>, anyFn);
    return trackedFrame(gen, anyFn);
  } as unknown as GeneratorFunction<This, A, R>;
  Object.defineProperty(wrapped, 'name', { value: fn.name, configurable: true });
  Object.defineProperty(wrapped, 'length', { value: fn.length, configurable: true });
  Object.defineProperty(wrapped, COROUTINE_FUNCTION, { value: true });
  Object.defineProperty(wrapped, ORIGINAL, { value: fn });
  return wrapped;
}
