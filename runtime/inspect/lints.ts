// Lints: the mistakes asyncio's debug mode and tokio-console point out, as protocol `Lint`s:
// slowCallback, neverAwaited, destroyedPending, neverYields, lostWakeup and deadlock (the await
// graph's). When each is reported, and why so, is in docs/design/lints-and-deadlocks.md.
//
// Invariants: every lint is reported once (`onLint`) and kept (bounded: MAX_LINTS, and at most
// PER_KEY per kind and function/task). A step costs one field test (a task's first step also one
// clock read and one counter read); a tick two field tests while no coroutine waits unstarted. A
// step during which a debugger held the thread is not timed (held-time.ts). The periodic deadlock
// check waits 50 times its last cost before the next (at most 2% of the loop's time).

import type { AwaitGraph, Lint, LintKind, SourcePosition as ProtocolPosition } from '../../protocol/host-protocol';
import type { CoroutineFrame, CoroutineTrackingHooks } from '../coroutine';
import type { Future } from '../future';
import { inspect, inspectResource } from '../inspection';
import type { EventLoop, ExceptionContext, LoopObserver } from '../loop';
import type { Coroutine, Task } from '../task';
import { runningLoopOrNull } from '../running-loop';
import { buildAwaitGraph } from './await-graph';
import { functionLocations, type FunctionLocations } from './function-locations';
import { taskFrames } from './task-snapshot';
import { describeTask, resourceOf } from './task-summaries';
import { holdCount, runningNow } from '../held-time';
import { realNow } from '../outside-values';

export const MAX_LINTS = 1000;
/** The runtime core's own files (runtime/*.ts): not where a program's slowness lives. */
const CORE_FILES = /[\\/]runtime[\\/][^\\/]+\.[cm]?[tj]s$/;
const PER_KEY = 20;
/** Failed tasks kept for the deadlock reports. */
const RECENT_FAILURES = 3;

type CoroutineFn = (...args: never[]) => Coroutine<unknown>;

/** When a sweep first saw a coroutine still unstarted. */
interface FirstSeen {
  readonly tick: number;
  readonly at: number;
}

export interface LintCollectorOptions {
  /** Receives each new lint. */
  onLint?: (lint: Lint) => void;
  /** Wall seconds a coroutine may stay unstarted before it is reported (default 1). */
  neverAwaitedSeconds?: number;
  functions?: FunctionLocations;
  /** Clock in ms (default runningNow(): wall time, a debugger's holds left out; tests give their own). */
  now?: () => number;
}

function toPosition(
  p: { file: string; line: number; column: number } | null | undefined,
): ProtocolPosition | undefined {
  return p === null || p === undefined ? undefined : { file: p.file, line: p.line, column: p.column };
}

export class LintCollector implements LoopObserver, CoroutineTrackingHooks {
  private readonly list: Lint[] = [];
  private readonly perKey = new Map<string, number>();
  /** Coroutines created and not started yet, with their function: one Map entry each, nothing else per creation. */
  private readonly unstarted = new Map<Coroutine<unknown>, CoroutineFn>();
  private readonly firstSeen = new WeakMap<Coroutine<unknown>, FirstSeen>();
  private lastCreated: Coroutine<unknown> | null = null;
  private lastCreatedFn: CoroutineFn | null = null;
  private readonly taskCoroutine = new WeakMap<Task<unknown>, Coroutine<unknown>>();
  /**
   * When a task's first step started, and the debugger's holds of the thread then (holdCount): a held step is
   * not timed.
   */
  private readonly firstStepStart = new WeakMap<Task<unknown>, { readonly at: number; readonly holds: number }>();
  private readonly reportedWakeups = new WeakSet<object>();
  /** The deadlocks reported so far, by their sorted node ids. */
  private readonly reportedDeadlocks = new Set<string>();
  /** The last tasks that failed (newest last), for the deadlock reports. */
  private readonly recentFailures: Task<unknown>[] = [];
  /** When a periodic deadlock check may run again (see the header). */
  private deadlockCheckDue = 0;
  private readonly onLint: (lint: Lint) => void;
  private readonly neverAwaitedMs: number;
  private readonly functionsOption: FunctionLocations | undefined;
  private readonly now: () => number;
  /** Lints dropped because of the bounds. */
  dropped = 0;

  constructor(
    readonly loop: EventLoop,
    options: LintCollectorOptions = {},
  ) {
    this.onLint = options.onLint ?? (() => undefined);
    this.neverAwaitedMs = (options.neverAwaitedSeconds ?? 1) * 1000;
    this.functionsOption = options.functions;
    this.now = options.now ?? runningNow;
  }

  private get functions(): FunctionLocations {
    return this.functionsOption ?? functionLocations();
  }

  /**
   * The coroutine function a task will start at its first step, while that step has not run (entry-frame.ts);
   * null otherwise.
   */
  unstartedFunctionOf(task: Task<unknown>): CoroutineFn | null {
    const coro = this.taskCoroutine.get(task);
    if (coro === undefined) return null;
    if (coro === this.lastCreated) return this.lastCreatedFn;
    return this.unstarted.get(coro) ?? null;
  }

  /** Every lint so far, oldest first. */
  lints(): Lint[] {
    return this.list.slice();
  }

  private report(kind: LintKind, key: string, lint: Omit<Lint, 'kind' | 'tick'>): void {
    const k = `${kind}:${key}`;
    const n = this.perKey.get(k) ?? 0;
    if (n >= PER_KEY || this.list.length >= MAX_LINTS) {
      this.dropped++;
      return;
    }
    this.perKey.set(k, n + 1);
    const full: Lint = { kind, tick: this.loop.tickCount(), ...lint };
    this.list.push(full);
    this.onLint(full);
  }

  // --- loop observer ---------------------------------------------------------------------------

  slowCallback(description: string, seconds: number, task: Task<unknown> | null): void {
    let position: ProtocolPosition | undefined;
    if (task !== null && !task.done()) {
      try {
        // The innermost frame of the program's own code (the runtime core's sleep, queue get,
        // socket wait below it say little about what was slow).
        const frames = taskFrames(task).filter((f) => f.file !== null && f.line !== null);
        const own = frames.filter((f) => !CORE_FILES.test(f.file!));
        const inner = own[own.length - 1] ?? frames[frames.length - 1];
        if (inner !== undefined) position = { file: inner.file!, line: inner.line!, column: inner.column ?? 1 };
      } catch {
        position = undefined;
      }
    }
    const where = position !== undefined ? ` (it then suspended at ${position.file}:${position.line})` : '';
    const lint: Omit<Lint, 'kind' | 'tick'> = {
      message: `Executing ${description} took ${seconds.toFixed(3)} seconds: the loop was blocked${where}`,
      seconds,
    };
    if (task !== null) lint.taskId = task.id;
    if (position !== undefined) lint.position = position;
    this.report('slowCallback', task !== null ? `task:${task.name}` : description, lint);
  }

  callbackError(context: ExceptionContext): void {
    const task = context.task;
    if (task === undefined || !/destroyed but it is pending/i.test(context.message)) return;
    const frames = task[inspect]().frames;
    const chain = frames !== null && frames.length > 0 ? ` in ${frames.map((f) => f.fn.name).join(' → ')}` : '';
    this.report('destroyedPending', `task:${task.id}`, {
      message: `${describeTask(task)} was destroyed but it is pending${chain}: the loop closed before it finished`,
      taskId: task.id,
    });
  }

  taskCreated(task: Task<unknown>): void {
    // The coroutine created just before the task is (in the createTask(work()) pattern) the
    // task's own: it starts at the task's first step, unless the task is cancelled before.
    if (this.lastCreated !== null) {
      this.taskCoroutine.set(task, this.lastCreated);
      this.flushSlot();
    }
  }

  tickEnd(): void {
    if (this.lastCreated === null && this.unstarted.size === 0) return;
    this.sweep();
  }

  taskStepStart(task: Task<unknown>): void {
    if (task.steps() === 0) this.firstStepStart.set(task, { at: this.now(), holds: holdCount() });
  }

  taskDone(task: Task<unknown>): void {
    if (!task.cancelled() && task[inspect]().outcome().state === 'exception') {
      // A starved waiter's producer may be among them (the deadlock report names them).
      this.recentFailures.push(task);
      if (this.recentFailures.length > RECENT_FAILURES) this.recentFailures.shift();
    }
    const coro = this.taskCoroutine.get(task);
    if (coro !== undefined) {
      // Ended without ever running its coroutine (cancelled before its first step): not a lint.
      if (this.lastCreated === coro) this.flushSlot();
      this.unstarted.delete(coro);
      this.taskCoroutine.delete(task);
    }
    const start = this.firstStepStart.get(task);
    if (start !== undefined && task.steps() === 1 && holdCount() === start.holds) {
      const seconds = (this.now() - start.at) / 1000;
      if (seconds >= this.loop.slowCallbackDuration) {
        const name = task[inspect]().frames?.[0]?.fn.name ?? task.name;
        this.report('neverYields', `task:${task.name}`, {
          message: `${describeTask(task)} never yielded: it ran from start to finish in one step of ${seconds.toFixed(3)} seconds (${name}), blocking the loop throughout`,
          taskId: task.id,
          seconds,
        });
      }
    }
  }

  // --- coroutine tracking ------------------------------------------------------------------------

  created(gen: Coroutine<unknown>, fn: (...args: never[]) => Coroutine<unknown>): void {
    // Tracking hooks are process-wide: a coroutine created in another loop's tick (a replay
    // of this run's past, run-rewind.ts) is none of this loop's business.
    const running = runningLoopOrNull();
    if (running !== null && running !== this.loop) return;
    // The hot path (every coroutine call with tracking on). Most coroutines are started right
    // after their creation (`yield* f()`), so the newest one waits in a slot and only goes
    // into the map when another is created before it started: usually no map operation.
    if (this.lastCreated !== null) this.unstarted.set(this.lastCreated, this.lastCreatedFn!);
    this.lastCreated = gen;
    this.lastCreatedFn = fn;
  }

  started(frame: CoroutineFrame): void {
    if (this.lastCreated === frame.gen) {
      this.lastCreated = null;
      this.lastCreatedFn = null;
    } else if (this.unstarted.size > 0) {
      this.unstarted.delete(frame.gen);
    }
  }

  /** Puts the coroutine waiting in the slot into the map (before looking at the map). */
  private flushSlot(): void {
    if (this.lastCreated === null) return;
    this.unstarted.set(this.lastCreated, this.lastCreatedFn!);
    this.lastCreated = null;
    this.lastCreatedFn = null;
  }

  /**
   * Reports coroutines unstarted for long enough (runs at every tick's end while some
   * coroutine waits unstarted; call it also now and then, e.g. every second, for a loop
   * asleep in one long tick). A coroutine is timed from the first sweep that finds it
   * unstarted (creation itself is not timed, to keep it cheap): it is reported by a later
   * sweep at least `neverAwaitedSeconds` after that, once a tick has ended since or the
   * ready queue is empty (see the header).
   */
  sweep(): void {
    this.flushSlot();
    if (this.unstarted.size === 0) return;
    const now = this.now();
    const tick = this.loop.tickCount();
    const noFirstStepPending = this.loop.readyCount() === 0 && this.loop.currentTask() === null;
    for (const [gen, fn] of this.unstarted) {
      const seen = this.firstSeen.get(gen);
      if (seen === undefined) {
        this.firstSeen.set(gen, { tick, at: now });
        continue;
      }
      if (now - seen.at < this.neverAwaitedMs || (tick < seen.tick + 1 && !noFirstStepPending)) continue;
      this.unstarted.delete(gen);
      this.reportNeverAwaited(fn, seen.tick, false);
    }
  }

  /** The loop is closing: every coroutine still unstarted is reported. */
  loopClosing(): void {
    this.flushSlot();
    for (const [gen, fn] of this.unstarted) {
      this.unstarted.delete(gen);
      this.reportNeverAwaited(fn, this.firstSeen.get(gen)?.tick ?? null, true);
    }
  }

  private reportNeverAwaited(fn: CoroutineFn, tick: number | null, closing: boolean): void {
    const name = fn.name || '<anonymous>';
    const position = toPosition(this.functions.locationOf(fn));
    const since = tick === null ? '' : ` (unstarted since tick ${tick})`;
    const lint: Omit<Lint, 'kind' | 'tick'> = {
      message: `coroutine ${name}() was never awaited: ${closing ? 'still not started when the loop closed' : 'created and not started'}${since}; use yield* ${name}(...) or createTask`,
    };
    if (position !== undefined) lint.position = position;
    this.report('neverAwaited', name, lint);
  }

  // --- deadlocks -----------------------------------------------------------------------------------

  /**
   * Reports each deadlock of the await graph not reported yet, and returns them (the host's
   * Deadlock stop shows them). Call between ticks; `asked`: run even if a periodic check would wait.
   */
  checkDeadlocks(asked = false): AwaitGraph['deadlocks'] {
    const t0 = realNow();
    if (!asked && t0 < this.deadlockCheckDue) return [];
    const { deadlocks } = buildAwaitGraph(this.loop, { failed: this.recentFailures });
    this.deadlockCheckDue = realNow() + 50 * (realNow() - t0);
    const fresh: AwaitGraph['deadlocks'] = [];
    for (const d of deadlocks) {
      const key = [...d.nodes].sort().join(' ');
      if (this.reportedDeadlocks.has(key)) continue;
      this.reportedDeadlocks.add(key);
      fresh.push(d);
      const first = d.nodes.find((id) => id.startsWith('task:'));
      const lint: Omit<Lint, 'kind' | 'tick'> = { message: `deadlock: ${d.reason}` };
      if (first !== undefined) lint.taskId = Number(first.slice('task:'.length));
      if (d.position !== undefined) lint.position = d.position;
      this.report('deadlock', key, lint);
    }
    return fresh;
  }

  // --- lost wake-ups ------------------------------------------------------------------------------

  /** Looks for lost wake-ups among the live tasks and the futures they wait on. Call between ticks. */
  checkWakeups(): void {
    const tasks = this.loop.allTasks();
    const ready = new Set<Task<unknown>>(
      this.loop[inspect]()
        .scheduledSteps()
        .map((s) => s.task),
    );
    const futures = new Set<Future<unknown>>();
    const addFutures = (fut: Future<unknown>, depth = 0): void => {
      if (futures.has(fut) || depth > 8) return;
      futures.add(fut);
      for (const c of fut[inspect]().inner()) addFutures(c, depth + 1);
    };
    const resources = new Set<object>();
    for (const t of tasks) {
      const w = t.awaiting();
      if (w === null || t.done() || this.loop.currentTask() === t) continue;
      addFutures(w);
      const res = resourceOf(w);
      if (res !== null && !resources.has(res)) {
        // Every waiter of a resource once (10k tasks often share one queue).
        resources.add(res);
        for (const f of inspectResource(res)?.waiters() ?? []) addFutures(f);
      }
      if (!w.done()) {
        if (!w[inspect]().waitingTasks().includes(t) && !this.reportedWakeups.has(w)) {
          this.reportedWakeups.add(w);
          this.report('lostWakeup', `task:${t.id}`, {
            message: `${describeTask(t)} is suspended on ${w.toString()} but is not among its waiters: completing that future will not wake it`,
            taskId: t.id,
          });
        }
      } else if (!ready.has(t) && !this.reportedWakeups.has(w)) {
        this.reportedWakeups.add(w);
        this.report('lostWakeup', `task:${t.id}`, {
          message: `${describeTask(t)} is suspended on ${w.toString()}, which is done, but no wake-up is scheduled: the task will never resume`,
          taskId: t.id,
        });
      }
    }
    for (const f of futures) {
      if (f.done()) continue;
      for (const cb of f[inspect]().waitingTasks()) {
        if (cb.done() || cb.awaiting() === f || this.reportedWakeups.has(cb)) continue;
        this.reportedWakeups.add(cb);
        this.report('lostWakeup', `task:${cb.id}`, {
          message: `${f.toString()} lists ${describeTask(cb)} as a waiter, but that task is ${cb.awaiting() === null ? 'not suspended' : `suspended on ${String(cb.awaiting())}`}: completing it would resume the task at the wrong point`,
          taskId: cb.id,
        });
      }
    }
  }
}
