// CoalescingPoll: the one polling loop of a client of the host (RunSession's snapshots, the
// panel's timeline). Pure: no DOM, no node, no vscode; the timers are given.
//
// Invariants:
// - At most one poll in flight; any number of `schedule(0)` asked meanwhile run exactly one more.
// - At most one timer pending; a due poll is never put off (`schedule(0)` polls now).
// - After a poll, the next comes after the delay it answered (null: stops until asked); a poll
//   that throws counts as null. `cancel()` clears the timer and any coalesced ask.

export interface PollTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const GLOBAL_TIMERS: PollTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};

export class CoalescingPoll {
  private timer: unknown = null;
  private pending = false;
  private running = false;
  private again = false;

  constructor(
    /** One poll; resolves to the delay before the next one in ms, or null to stop. */
    private readonly pollOnce: () => Promise<number | null>,
    private readonly timers: PollTimers = GLOBAL_TIMERS,
  ) {}

  /** Whether a poll is in flight now. */
  get inFlight(): boolean {
    return this.running;
  }

  /** Polls after `ms` (sooner if one is already due sooner; right after the one in flight for 0). */
  schedule(ms: number): void {
    if (this.running) {
      if (ms === 0) this.again = true;
      return;
    }
    if (this.pending) {
      if (ms > 0) return;
      this.timers.clearTimeout(this.timer);
    }
    this.pending = true;
    this.timer = this.timers.setTimeout(() => {
      this.pending = false;
      this.timer = null;
      void this.run();
    }, ms);
  }

  /** Clears the pending poll and any ask coalesced behind the one in flight. */
  cancel(): void {
    if (this.pending) this.timers.clearTimeout(this.timer);
    this.pending = false;
    this.timer = null;
    this.again = false;
  }

  private async run(): Promise<void> {
    this.running = true;
    this.again = false;
    let next: number | null = null;
    try {
      next = await this.pollOnce();
    } catch {
      next = null;
    } finally {
      this.running = false;
    }
    if (this.again) this.schedule(0);
    else if (next !== null) this.schedule(next);
  }
}
