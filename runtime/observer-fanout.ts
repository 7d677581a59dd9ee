// ObserverFanout: one LoopObserver that forwards every hook to several observers (loop
// control, lints, the task recorder, the run recorder, the host's event feed), since a loop
// has a single observer slot that its hot path tests. The loop's addObserver/removeObserver
// build one from the observers added; it is the only way observers share the slot.
//
// Invariants:
// - Hooks are resolved once, at construction: a hook none of the parts implements stays
//   undefined on the fanout, so the loop's `observer?.hook?.()` pays nothing for it.
// - Parts are called in the order given; a part that throws is not allowed to break the
//   loop's bookkeeping: the error goes to `onError` and the other parts still run.

import type { ExceptionContext, LoopObserver } from './loop';
import type { Task } from './task';
import type { Future } from './future';
import type { TimerHandle } from './handle';
import type { CancelRequest } from './cancel-request';

type HookName = keyof LoopObserver;
const HOOKS: readonly HookName[] = [
  'taskCreated',
  'taskStepStart',
  'taskStepEnd',
  'taskSuspended',
  'taskWoken',
  'taskDone',
  'taskCancelRequested',
  'taskUncancelled',
  'tickStart',
  'tickEnd',
  'timerFired',
  'slowCallback',
  'callbackError',
];

type AnyHook = (...args: never[]) => void;

export class ObserverFanout implements LoopObserver {
  taskCreated?: (task: Task<unknown>) => void;
  taskStepStart?: (task: Task<unknown>) => void;
  taskStepEnd?: (task: Task<unknown>) => void;
  taskSuspended?: (task: Task<unknown>, fut: Future<unknown>) => void;
  taskWoken?: (task: Task<unknown>, fut: Future<unknown>) => void;
  taskDone?: (task: Task<unknown>) => void;
  taskCancelRequested?: (task: Task<unknown>, by: Task<unknown> | null, request: CancelRequest) => void;
  taskUncancelled?: (task: Task<unknown>, request: CancelRequest) => void;
  tickStart?: (tick: number) => void;
  tickEnd?: (tick: number, callbacksRun: number) => void;
  timerFired?: (handle: TimerHandle) => void;
  slowCallback?: (description: string, seconds: number, task: Task<unknown> | null) => void;
  callbackError?: (context: ExceptionContext) => void;

  constructor(parts: readonly LoopObserver[], onError: (error: unknown, hook: string) => void = () => undefined) {
    for (const name of HOOKS) {
      const fns: Array<(a: unknown, b: unknown, c: unknown) => void> = [];
      for (const part of parts) {
        const hook = part[name] as AnyHook | undefined;
        if (typeof hook === 'function') fns.push((hook as (a: unknown, b: unknown, c: unknown) => void).bind(part));
      }
      if (fns.length === 0) continue;
      // Every hook takes at most three arguments (slowCallback): fixed arity, no rest arrays on the hot path.
      let fanned: (a: unknown, b: unknown, c: unknown) => void;
      if (fns.length === 1) {
        const f0 = fns[0]!;
        fanned = (a, b, c) => {
          try {
            f0(a, b, c);
          } catch (e) {
            onError(e, name);
          }
        };
      } else {
        fanned = (a, b, c) => {
          for (let i = 0; i < fns.length; i++) {
            try {
              fns[i]!(a, b, c);
            } catch (e) {
              onError(e, name);
            }
          }
        };
      }
      (this as unknown as Record<string, unknown>)[name] = fanned;
    }
  }
}
