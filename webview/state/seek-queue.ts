// Coalesces the scrubber's seeks: a drag asks for a tick per pointer move, the host answers
// each in some milliseconds, so at most one seek is in flight and only the latest tick asked
// meanwhile follows it (the ticks in between are never sent). Pure: the sending is given.
//
// Invariants: after the last ask settles, the last tick sent is the last tick asked; a failed
// seek is reported once and does not stop the next one; `wanted` is what the scrubber shows
// while the host catches up.

export type SeekTarget = number | null;

export class SeekQueue {
  private inFlight = false;
  private pending: { tick: SeekTarget } | null = null;
  private lastSent: { tick: SeekTarget } | null = null;
  /** The latest tick asked for (undefined: none asked since the last settle). */
  wanted: SeekTarget | undefined = undefined;

  constructor(
    private readonly send: (tick: SeekTarget) => Promise<unknown>,
    private readonly failed: (error: unknown) => void,
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

  private async run(tick: SeekTarget): Promise<void> {
    this.inFlight = true;
    this.lastSent = { tick };
    try {
      await this.send(tick);
    } catch (e) {
      this.failed(e);
    } finally {
      this.inFlight = false;
    }
    const next = this.pending;
    this.pending = null;
    if (next !== null && (this.lastSent === null || next.tick !== this.lastSent.tick)) void this.run(next.tick);
    else this.wanted = undefined;
  }
}
