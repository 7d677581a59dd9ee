// Handles returned by callSoon / callLater / callAt: a callback with its arguments that the
// loop will run once, unless cancelled first. TimerHandle adds the time it is due.
// Invariant: a cancelled handle never runs; cancelling twice or after it ran is harmless.

import { Future } from './future';
import { inspect, type Inspectable, type ResourceInspection } from './inspection';

export type Callback = (...args: never[]) => unknown;

/** Receives the cancellation of a timer so the loop can count them (heap rebuild). */
export interface TimerCancelListener {
  timerCancelled(handle: TimerHandle): void;
}

export class Handle implements Inspectable {
  /** @internal */ callback: ((...args: unknown[]) => unknown) | null;
  /** @internal */ args: unknown[];
  private _cancelled = false;

  constructor(callback: (...args: unknown[]) => unknown, args: unknown[]) {
    this.callback = callback;
    this.args = args;
  }

  cancel(): void {
    if (this._cancelled) return;
    this._cancelled = true;
    // Drop references so a cancelled handle keeps nothing alive.
    this.callback = null;
    this.args = [];
  }

  cancelled(): boolean {
    return this._cancelled;
  }

  /** @internal Runs the callback (the loop calls this; errors go to its exception handler). */
  run(): void {
    const cb = this.callback;
    if (cb !== null) cb(...this.args);
  }

  /** Inspection: a timer (sleep's) wakes the futures it was given as arguments. */
  [inspect](): ResourceInspection {
    return {
      role: 'resource',
      kind: 'timer',
      wokenBy: 'outside',
      description: () => this.toString(),
      waiters: () => this.args.filter((a): a is Future<unknown> => a instanceof Future && !a.done()),
      holders: () => [],
    };
  }

  toString(): string {
    const name = this.callback ? this.callback.name || '<anonymous>' : '<cancelled>';
    return `<Handle ${name}${this._cancelled ? ' cancelled' : ''}>`;
  }
}

export class TimerHandle extends Handle {
  /** When it is due, in the loop's time (seconds). */
  readonly when: number;
  /** @internal FIFO order among handles due at the same time. */
  readonly seq: number;
  /** @internal True while it sits in the loop's timer heap. */
  scheduled = true;
  private readonly owner: TimerCancelListener | null;

  constructor(
    when: number,
    seq: number,
    callback: (...args: unknown[]) => unknown,
    args: unknown[],
    owner: TimerCancelListener | null,
  ) {
    super(callback, args);
    this.when = when;
    this.seq = seq;
    this.owner = owner;
  }

  override cancel(): void {
    if (this.cancelled()) return;
    super.cancel();
    if (this.scheduled && this.owner !== null) this.owner.timerCancelled(this);
  }

  override toString(): string {
    return `<TimerHandle when=${this.when.toFixed(3)} ${super.toString()}>`;
  }
}
