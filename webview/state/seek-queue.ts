// Coalesces the scrubber's seeks: at most one seek in flight, and only the latest tick asked
// meanwhile follows it. Each seek carries a moment id of its own (protocol/moment-ids.ts), so the
// panel tells its own answer from another view's move. Pure: the sending is given.
//
// Invariants: after the last ask settles, the last tick sent is the last tick asked; a failed
// seek is reported once and does not stop the next; `wanted` (what the scrubber shows) stays until
// the status shows the last seek's own moment, the seek failed or carried no id, and never
// longer than SHOWN_WAIT_MS after the answer; another view's moment never ends it.

import { MomentIds } from '../../protocol/moment-ids';

export type SeekTarget = number | null;

/** How long after its answer a seek's own moment is waited for on the status, at most. */
export const SHOWN_WAIT_MS = 2_000;

/** Calls `fn` once after `ms` (the timer is given: tests run it by hand). */
export type Later = (ms: number, fn: () => void) => void;

/** What the extension answers a seek (PanelMethods.seek's result); `moment` echoes the id sent. */
export interface SeekAnswer {
  tick?: number | null;
  moment?: string;
}

export class SeekQueue {
  private inFlight = false;
  private pending: { tick: SeekTarget } | null = null;
  private lastSent: { tick: SeekTarget; moment: string; shown: boolean } | null = null;
  /** The latest tick asked for (undefined: none asked since the last seek was shown). */
  wanted: SeekTarget | undefined = undefined;

  constructor(
    private readonly send: (tick: SeekTarget, moment: string) => Promise<SeekAnswer | void>,
    private readonly failed: (error: unknown) => void,
    /** This panel's ids: a name no other view of the run uses. */
    private readonly ids: MomentIds = new MomentIds('webview'),
    private readonly later: Later = (ms, fn) => void setTimeout(fn, ms),
  ) {}

  ask(tick: SeekTarget): void {
    this.wanted = tick;
    if (this.inFlight) {
      this.pending = { tick };
      return;
    }
    void this.run(tick);
  }

  /** True while a seek is on its way. */
  get busy(): boolean {
    return this.inFlight;
  }

  /** True when `momentId` names a seek of this queue (the moment shown is the panel's own). */
  isOwn(momentId: string | undefined): boolean {
    return this.ids.isOwn(momentId);
  }

  /** The status says the moment shown and whose request made it: the last seek's own ends the wait. */
  shown(momentId: string | undefined): void {
    const last = this.lastSent;
    if (last === null || momentId !== last.moment) return;
    last.shown = true;
    if (!this.inFlight && this.pending === null) this.wanted = undefined;
  }

  /** A new run (or none) shown: nothing of the previous one's seeks is waited for. */
  reset(): void {
    this.pending = null;
    this.lastSent = null;
    this.wanted = undefined;
  }

  private async run(tick: SeekTarget): Promise<void> {
    this.inFlight = true;
    const sent = { tick, moment: this.ids.next(), shown: false };
    this.lastSent = sent;
    let settled = false;
    try {
      const answer = await this.send(tick, sent.moment);
      // A host that does not echo ids: its answer is all there is to wait for.
      settled = sent.shown || answer?.moment !== sent.moment;
    } catch (e) {
      this.failed(e);
      settled = true;
    } finally {
      this.inFlight = false;
    }
    const next = this.pending;
    this.pending = null;
    if (next !== null && next.tick !== sent.tick) void this.run(next.tick);
    else if (settled) this.wanted = undefined;
    else this.later(SHOWN_WAIT_MS, () => this.giveUpWaiting(sent));
  }

  /** The status never named seek `sent` (answered): unless another seek followed it, the wait ends. */
  private giveUpWaiting(sent: { moment: string; shown: boolean }): void {
    if (this.lastSent !== sent || sent.shown || this.inFlight || this.pending !== null) return;
    sent.shown = true;
    this.wanted = undefined;
  }
}
