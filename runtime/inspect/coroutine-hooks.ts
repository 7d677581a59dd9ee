// CoroutineHooksHub: coroutine tracking has one hooks slot (setCoroutineTracking(on, hooks));
// the hub fills it and forwards `created` / `started` / `finished` to every inspector part
// that listens (lints: never-awaited coroutines; loop control: step out of a frame).
//
// Invariants: turning tracking on through the hub installs the hub itself; listeners are
// called in the order they were added; a listener that throws does not stop the others
// (nor the coroutine being tracked: its error goes to `onError`).

import { setCoroutineTracking, type CoroutineFrame, type CoroutineTrackingHooks } from '../coroutine';
import type { Coroutine } from '../task';

export class CoroutineHooksHub implements CoroutineTrackingHooks {
  private createdFns: Array<NonNullable<CoroutineTrackingHooks['created']>> = [];
  private startedFns: Array<NonNullable<CoroutineTrackingHooks['started']>> = [];
  private finishedFns: Array<NonNullable<CoroutineTrackingHooks['finished']>> = [];
  onError: (error: unknown) => void = () => undefined;

  /** Adds a listener; returns its removal. */
  add(listener: CoroutineTrackingHooks): () => void {
    const created = listener.created?.bind(listener);
    const started = listener.started?.bind(listener);
    const finished = listener.finished?.bind(listener);
    if (created) this.createdFns = [...this.createdFns, created];
    if (started) this.startedFns = [...this.startedFns, started];
    if (finished) this.finishedFns = [...this.finishedFns, finished];
    return () => {
      this.createdFns = this.createdFns.filter((f) => f !== created);
      this.startedFns = this.startedFns.filter((f) => f !== started);
      this.finishedFns = this.finishedFns.filter((f) => f !== finished);
    };
  }

  /** Turns coroutine tracking on (with this hub as its hooks) or off. */
  enable(on: boolean): void {
    setCoroutineTracking(on, on ? this : null);
  }

  created(gen: Coroutine<unknown>, fn: (...args: never[]) => Coroutine<unknown>): void {
    const fns = this.createdFns;
    if (fns.length === 1) {
      // The common case, on the hot path: one listener.
      try {
        fns[0]!(gen, fn);
      } catch (e) {
        this.onError(e);
      }
      return;
    }
    for (const f of fns) {
      try {
        f(gen, fn);
      } catch (e) {
        this.onError(e);
      }
    }
  }

  started(frame: CoroutineFrame): void {
    for (const f of this.startedFns) {
      try {
        f(frame);
      } catch (e) {
        this.onError(e);
      }
    }
  }

  finished(frame: CoroutineFrame): void {
    for (const f of this.finishedFns) {
      try {
        f(frame);
      } catch (e) {
        this.onError(e);
      }
    }
  }
}
