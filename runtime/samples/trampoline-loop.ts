// A coroutine loop with explicit stacks, the third program of the asyncio-vs-Node article
// (after PEP 342's "trampoline"): what `yield*` does, done by hand.
//
// A coroutine here calls another by yielding the callee's generator object (`yield child()`,
// not `yield* child()`). The loop then keeps, per task, the stack of callers waiting for a
// result: it pushes the caller and runs the callee; when the callee returns, it pops the
// caller and sends it the return value; when the callee throws, it pops the caller and throws
// the error into it, at its `yield`. A coroutine that yields a SleepFor is resumed once the
// time has passed; one that yields undefined is resumed after the others (it gives way).
//
// Invariants: one step of one coroutine at a time; every bounce (a resume of a generator) is
// counted, and the deepest stack seen is kept; a task whose outermost coroutine throws ends with
// that error (reported by `failures`), it never escapes the loop. Every BOUNCES_PER_TURN bounces
// the loop lets Node run one turn, so it never holds the thread for long.

import { inspect } from '../inspection';
import { whileAnnounced, type InspectableProgramLoop, type ProgramLoopInspection } from '../program-loops';

export class SleepFor {
  readonly seconds: number;
  constructor(seconds: number) {
    this.seconds = seconds;
  }
}

export type TrampolineCoroutine = Generator<unknown, unknown, unknown>;

type Resumption = { value: unknown } | { error: unknown };

interface Step {
  /** The task it belongs to (1, 2, ... in spawn order), for the inspector. */
  task: number;
  coro: TrampolineCoroutine;
  send: Resumption;
  /** The callers waiting for `coro`'s result, outermost first. */
  stack: TrampolineCoroutine[];
}

const BOUNCES_PER_TURN = 2000;

function isGenerator(v: unknown): v is TrampolineCoroutine {
  return typeof v === 'object' && v !== null && typeof (v as TrampolineCoroutine).next === 'function' && typeof (v as TrampolineCoroutine).throw === 'function';
}

export class TrampolineLoop implements InspectableProgramLoop {
  private ready: Step[] = [];
  private running: Step | null = null;
  private spawned = 0;
  private sleeping: Array<{ when: number; step: Step }> = [];
  private readonly t0 = performance.now();
  /** Resumes of generators so far. */
  bounces = 0;
  /** The deepest stack of waiting callers seen. */
  deepestStack = 0;
  /** Errors that came out of a task's outermost coroutine. */
  readonly failures: unknown[] = [];

  time(): number {
    return (performance.now() - this.t0) / 1000;
  }

  /** Starts a task running `coro`. */
  spawn(coro: TrampolineCoroutine): void {
    this.ready.push({ task: ++this.spawned, coro, send: { value: undefined }, stack: [] });
  }

  /** One resume of one coroutine, and what its yield (or return, or throw) asks for. */
  private bounce(step: Step): void {
    this.bounces++;
    let r: IteratorResult<unknown, unknown>;
    try {
      r = 'error' in step.send ? step.coro.throw(step.send.error) : step.coro.next(step.send.value);
    } catch (error) {
      // The callee failed: the caller gets the error thrown in at its yield.
      const caller = step.stack.pop();
      if (caller === undefined) this.failures.push(error);
      else this.ready.push({ task: step.task, coro: caller, send: { error }, stack: step.stack });
      return;
    }
    if (r.done === true) {
      // The callee returned: its value goes to the caller.
      const caller = step.stack.pop();
      if (caller !== undefined) this.ready.push({ task: step.task, coro: caller, send: { value: r.value }, stack: step.stack });
      return;
    }
    const yielded = r.value;
    if (isGenerator(yielded)) {
      // A call: the caller waits on the stack while the callee runs.
      step.stack.push(step.coro);
      this.deepestStack = Math.max(this.deepestStack, step.stack.length);
      this.ready.push({ task: step.task, coro: yielded, send: { value: undefined }, stack: step.stack });
    } else if (yielded instanceof SleepFor) {
      this.sleeping.push({ when: this.time() + yielded.seconds, step: { task: step.task, coro: step.coro, send: { value: undefined }, stack: step.stack } });
      this.sleeping.sort((a, b) => a.when - b.when);
    } else if (yielded === undefined) {
      this.ready.push({ task: step.task, coro: step.coro, send: { value: undefined }, stack: step.stack });
    } else {
      this.ready.push({ task: step.task, coro: step.coro, send: { error: new TypeError(`the trampoline cannot wait on ${String(yielded)}`) }, stack: step.stack });
    }
  }

  /** Runs until no task is left. */
  async run(): Promise<void> {
    await whileAnnounced(this, () => this.bounceUntilDone());
  }

  /** The program loop's view of this loop (runtime/program-loops.ts). */
  [inspect](): ProgramLoopInspection {
    const now = this.time();
    const describe = (step: Step): string => `task ${step.task}: ${'error' in step.send ? 'an error thrown in' : 'a resume'}, ${step.stack.length} caller${step.stack.length === 1 ? '' : 's'} waiting on its stack`;
    const running = this.running;
    return {
      kind: 'trampoline',
      title: 'a coroutine loop with explicit stacks (TrampolineLoop)',
      running: () => (running === null ? null : describe(running)),
      ready: () => this.ready.map(describe),
      sockets: () => [],
      timers: () => this.sleeping.map((s) => ({ dueInMs: Math.max(0, (s.when - now) * 1000), callback: `resume task ${s.step.task} (SleepFor)` })),
      workers: () => [],
      notes: () => [`${this.bounces} bounces, deepest stack ${this.deepestStack}`],
    };
  }

  private async bounceUntilDone(): Promise<void> {
    let sinceTurn = 0;
    for (;;) {
      const now = this.time();
      while (this.sleeping.length > 0 && this.sleeping[0]!.when <= now) this.ready.push(this.sleeping.shift()!.step);
      const step = this.ready.shift();
      if (step !== undefined) {
        this.running = step;
        this.bounce(step);
        this.running = null;
        if (++sinceTurn >= BOUNCES_PER_TURN) {
          sinceTurn = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        continue;
      }
      if (this.sleeping.length === 0) return;
      const waitMs = Math.max(0, (this.sleeping[0]!.when - this.time()) * 1000);
      await new Promise<void>((resolve) => setTimeout(resolve, Math.ceil(waitMs)));
    }
  }
}
