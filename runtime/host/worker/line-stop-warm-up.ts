// Runs on a live runtime host's line debugger worker thread. LineStopWarmUp: the warm-up of a
// line stop's past: once the stop has been shown a moment, the stop's replay host is given its
// recording and parks replays at the ticks its walks start from (pastWarm), so a first Step Back
// or past list does not wait for them. ReplayHosts owns it and schedules it at each recorded stop.
//
// Invariants: a warm-up never runs beside a client's request (other than a read-only query): it
// starts only while none is served, and a request begun meanwhile waits for it; a newer line stop,
// the run going on, or the stop's replay host ending cancels a warm-up not started yet.

import type { LineDebugger } from './line-debugger';
import type { LineReplayHost } from './line-replay-host';

/**
 * A line stop still shown this long (ms) has its past prepared (its recording handed over, replays parked ahead
 * of its walks: warmStop); a quicker step on (F10 held) prepares none.
 */
const WARM_AFTER_MS = 150;

export class LineStopWarmUp {
  /** The warm-up of the current line stop, pending (warmStop); the stops seen so far (a newer one supersedes it). */
  private warmTimer: ReturnType<typeof setTimeout> | null = null;
  private stops = 0;
  /** The warm-up under way, hand-over and replays (warmStop), until it has ended. */
  private warming: Promise<void> | null = null;
  /** Client requests being served (serving): no warm-up starts meanwhile. */
  private routing = 0;

  constructor(
    /** The stop's replay host, given the current line stop's past (ReplayHosts.ofStop). */
    private readonly ofStop: (method: string) => Promise<LineReplayHost>,
    private readonly lineDebugger: () => LineDebugger,
  ) {}

  /** A recorded line stop: its warm-up is scheduled (an earlier stop's, pending, is cancelled). */
  schedule(): void {
    this.cancel();
    const stop = ++this.stops;
    this.scheduleWarm(stop);
  }

  /**
   * No warm-up pending starts (the stop's past is forgotten or ended; before the live thread moves on from a
   * line stop: a line step, continue). One under way has ended already: the request waits for it
   * (beginServing), so a step never starts under it.
   */
  cancel(): void {
    this.stops++;
    if (this.warmTimer !== null) clearTimeout(this.warmTimer);
    this.warmTimer = null;
  }

  /**
   * A client's request (not a read-only query) is served from now until endServing: no warm-up starts
   * meanwhile (scheduleWarm). The warm-up under way, if any, which the request waits for; null: none (the
   * request is routed at once, in order).
   */
  beginServing(): Promise<void> | null {
    this.routing++;
    return this.warming;
  }

  endServing(): void {
    this.routing--;
  }

  /**
   * The line stop `stop` still held: its replay host is given its recording (as at its first use) and parks
   * replays at the ticks its walks start from (pastWarm), in its own process: the live program, held, is not
   * touched. Nothing when the run has gone on or stopped again meanwhile.
   */
  private async warmStop(stop: number): Promise<void> {
    this.warmTimer = null;
    if (stop !== this.stops || !this.lineDebugger().isStopped()) return;
    const r = await this.ofStop('pastWarm');
    if (stop !== this.stops || !r.hasLiveStop()) return;
    await r.warm();
  }

  /**
   * The warm-up of line stop `stop`, in WARM_AFTER_MS, and never beside a client's request (`routing`): a
   * warm-up runs alone, as its hand-over asks the held main thread and its replays share the replay host's
   * queue; a list or walk begun beside it could wait on it forever (seen: a past logpoint list at a line
   * stop hung 1 run in 10 under load). Put off while a request is served.
   */
  private scheduleWarm(stop: number): void {
    this.warmTimer = setTimeout(() => {
      this.warmTimer = null;
      if (stop !== this.stops) return;
      if (this.routing > 0) return this.scheduleWarm(stop);
      const warming = this.warmStop(stop).catch(() => undefined);
      this.warming = warming;
      void warming.finally(() => {
        if (this.warming === warming) this.warming = null;
      });
    }, WARM_AFTER_MS);
    this.warmTimer.unref?.();
  }
}
