// coroutine(): marks a generator function as a coroutine, as @asyncio.coroutine did, and is how
// the inspector reaches every frame of a `yield*` chain (which hides inner generators).
//
// Invariants:
// - Tracking off (the default): one extra call and flag test; the generator is returned as is.
// - Tracking on: a call returns a TrackedFrame, at once the iterator `yield*` drives (every
//   resume passed on, as `return yield* gen` would) and the frame record the inspector reads. It
//   joins the running task's frame stack at its first resume and leaves it when its generator
//   returns or throws. A stack is linked through its frames, its head held by the task's root
//   frame (a FrameStack beside a task driving a plain generator); V8 keeps suspended locals.
// - A frame's fields are private: a program's local holding one reads as a generator.
// How and why: docs/design/runtime-core.md ("Coroutine tracking").

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

/** Where a TrackedFrame is in a generator's life (a generator's own states). */
const enum FrameState {
  /** Not resumed yet: not on any stack. */
  Fresh,
  /** On its task's stack, its generator suspended. */
  Suspended,
  /** Inside a resume of its generator. */
  Running,
  /** Its generator returned or threw (or it was closed before it started): off the stack. */
  Done,
}

/**
 * The head of a task's frame stack when no root frame of the task holds it (see the header);
 * made with the first frame of such a task, kept beside it.
 */
class FrameStack {
  innermost: TrackedFrame | null = null;
}

/** The stacks of the tasks whose root is not a TrackedFrame started in them (a plain generator's task). */
const stacksBesideTasks = new WeakMap<Task<unknown>, FrameStack>();

/**
 * The frame below each frame that a frame leaving from the middle of its stack relinked (its
 * parent otherwise); null until the first such leave, so the common path tests one variable.
 */
let relinkedBelow: WeakMap<TrackedFrame, TrackedFrame | null> | null = null;

const ALREADY_RUNNING = 'Generator is already running';

/** The iterator a tracked coroutine call returns, and the record of its frame (see the header). */
class TrackedFrame implements CoroutineFrame, Coroutine<unknown> {
  readonly #gen: Coroutine<unknown>;
  readonly #fn: (...args: never[]) => Coroutine<unknown>;
  #task: Task<unknown> | null = null;
  #parent: TrackedFrame | null = null;
  #depth = 0;
  #state = FrameState.Fresh;
  /** When this frame is its task's root: the task's innermost frame (the head of its stack). */
  #innermost: TrackedFrame | null = null;

  constructor(gen: Coroutine<unknown>, fn: (...args: never[]) => Coroutine<unknown>) {
    this.#gen = gen;
    this.#fn = fn;
  }

  static is(x: unknown): x is TrackedFrame {
    return typeof x === 'object' && x !== null && #state in x;
  }

  /** The frame that holds `task`'s stack head: its coroutine, when that is a frame started in it; else null. */
  static rootOf(task: Task<unknown>): TrackedFrame | null {
    const root = task._coro;
    return TrackedFrame.is(root) && root.#task === task ? root : null;
  }

  /** `task`'s innermost frame; undefined when no frame was tracked in it yet. */
  static innermostOf(task: Task<unknown>): TrackedFrame | null | undefined {
    const root = TrackedFrame.rootOf(task);
    return root !== null ? root.#innermost : stacksBesideTasks.get(task)?.innermost;
  }

  /** The frame below `frame` on its task's stack. */
  static below(frame: TrackedFrame): TrackedFrame | null {
    if (relinkedBelow !== null) {
      const relinked = relinkedBelow.get(frame);
      if (relinked !== undefined || relinkedBelow.has(frame)) return relinked ?? null;
    }
    return frame.#parent;
  }

  /** The head of a stack once `frame` has left it, from wherever it is in it (`head`: its head now). */
  static without(head: TrackedFrame | null, frame: TrackedFrame): TrackedFrame | null {
    if (head === frame) return TrackedFrame.below(frame);
    let above = head;
    while (above !== null && TrackedFrame.below(above) !== frame) above = TrackedFrame.below(above);
    if (above !== null) (relinkedBelow ??= new WeakMap()).set(above, TrackedFrame.below(frame));
    return head;
  }

  get gen(): Coroutine<unknown> {
    return this.#gen;
  }

  get fn(): (...args: never[]) => Coroutine<unknown> {
    return this.#fn;
  }

  get task(): Task<unknown> | null {
    return this.#task;
  }

  get parent(): TrackedFrame | null {
    return this.#parent;
  }

  get depth(): number {
    return this.#depth;
  }

  // next, throw and return are written out alike on purpose: every resume of a tracked coroutine passes
  // here, and a shared helper taking the generator's call as a closure costs each resume one more call.
  next(value?: unknown): IteratorResult<unknown, unknown> {
    if (this.#state !== FrameState.Suspended) {
      if (this.#state === FrameState.Done) return { value: undefined, done: true };
      if (this.#state === FrameState.Running) throw new TypeError(ALREADY_RUNNING);
      this._start();
      // A generator's first resume takes no value: `yield*` starts the inner one with none.
      value = undefined;
    }
    this.#state = FrameState.Running;
    let r: IteratorResult<unknown, unknown>;
    try {
      r = this.#gen.next(value);
    } catch (e) {
      this._finish();
      throw e;
    }
    if (r.done === true) this._finish();
    else this.#state = FrameState.Suspended;
    return r;
  }

  throw(error: unknown): IteratorResult<unknown, unknown> {
    if (this.#state !== FrameState.Suspended) {
      if (this.#state === FrameState.Running) throw new TypeError(ALREADY_RUNNING);
      // Thrown into before it started, it ends without running, as a generator does.
      this.#state = FrameState.Done;
      throw error;
    }
    this.#state = FrameState.Running;
    let r: IteratorResult<unknown, unknown>;
    try {
      r = this.#gen.throw(error);
    } catch (e) {
      this._finish();
      throw e;
    }
    if (r.done === true) this._finish();
    else this.#state = FrameState.Suspended;
    return r;
  }

  return(value: unknown): IteratorResult<unknown, unknown> {
    if (this.#state !== FrameState.Suspended) {
      if (this.#state === FrameState.Running) throw new TypeError(ALREADY_RUNNING);
      // Closed before it started (or after it ended), it ends without running, as a generator does.
      this.#state = FrameState.Done;
      return { value, done: true };
    }
    this.#state = FrameState.Running;
    let r: IteratorResult<unknown, unknown>;
    try {
      r = this.#gen.return(value);
    } catch (e) {
      this._finish();
      throw e;
    }
    if (r.done === true) this._finish();
    else this.#state = FrameState.Suspended;
    return r;
  }

  [Symbol.iterator](): this {
    return this;
  }

  /** As Object.prototype.toString names a generator. */
  get [Symbol.toStringTag](): string {
    return 'Generator';
  }

  /** Printed (console.log, util.inspect) as the generator the program wrote. */
  [Symbol.for('nodejs.util.inspect.custom')](): Coroutine<unknown> {
    return this.#gen;
  }

  // _start and _finish are methods, not #private ones: V8 names a #method in a stack without its
  // class, and traces.ts drops the wrapper's frames by the class name.

  /** @internal First resume: onto the running task's stack, below it the task's innermost frame. */
  _start(): void {
    const task = runningLoopOrNull()?.currentTask() ?? null;
    this.#task = task;
    if (task !== null) {
      // Its task's root when the task drives it: then it holds the task's stack head itself.
      const root = TrackedFrame.rootOf(task);
      let parent: TrackedFrame | null;
      if (root !== null) {
        parent = root.#innermost;
        root.#innermost = this;
      } else {
        let stack = stacksBesideTasks.get(task);
        if (stack === undefined) {
          stack = new FrameStack();
          stacksBesideTasks.set(task, stack);
        }
        parent = stack.innermost;
        stack.innermost = this;
      }
      this.#parent = parent;
      this.#depth = parent === null ? 0 : parent.#depth + 1;
    }
    // Done until the hook has returned: a hook that throws ends the coroutine, its frame kept.
    this.#state = FrameState.Done;
    hooks?.started?.(this);
  }

  /** @internal The generator returned or threw: off its task's stack, wherever in it. */
  _finish(): void {
    this.#state = FrameState.Done;
    const task = this.#task;
    if (task !== null) {
      const root = TrackedFrame.rootOf(task);
      if (root !== null) root.#innermost = TrackedFrame.without(root.#innermost, this);
      else {
        const stack = stacksBesideTasks.get(task);
        if (stack !== undefined) stack.innermost = TrackedFrame.without(stack.innermost, this);
      }
    }
    hooks?.finished?.(this);
  }
}

/** @internal The frames of `task`'s `yield*` chain, root first (Task._frames), null if none was tracked. */
export function trackedFramesOf(task: Task<unknown>): CoroutineFrame[] | null {
  const innermost = TrackedFrame.innermostOf(task);
  if (innermost === undefined) return null;
  let n = 0;
  for (let f = innermost; f !== null; f = TrackedFrame.below(f)) n++;
  const frames = new Array<CoroutineFrame>(n);
  for (let f = innermost; f !== null; f = TrackedFrame.below(f)) frames[--n] = f;
  return frames;
}

/**
 * @internal An inert frame of `gen` (never resumed, on no stack), for shape-anchors.ts: it keeps
 * the frames' hidden class alive when no tracked coroutine is.
 */
export function inertTrackedFrame(gen: Coroutine<unknown>, fn: (...args: never[]) => Coroutine<unknown>): object {
  return new TrackedFrame(gen, fn);
}

/**
 * True if `gen` is coroutine()'s tracking wrapper around a generator of the program (the
 * inspector shows the generator it wraps, the wrapper being its CoroutineFrame).
 */
export function isTrackingWrapper(gen: unknown): boolean {
  return TrackedFrame.is(gen);
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
    return new TrackedFrame(gen as Coroutine<unknown>, anyFn) as unknown as Coroutine<R>;
  } as unknown as GeneratorFunction<This, A, R>;
  Object.defineProperty(wrapped, 'name', { value: fn.name, configurable: true });
  Object.defineProperty(wrapped, 'length', { value: fn.length, configurable: true });
  Object.defineProperty(wrapped, COROUTINE_FUNCTION, { value: true });
  Object.defineProperty(wrapped, ORIGINAL, { value: fn });
  return wrapped;
}
