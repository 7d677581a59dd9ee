// The two clocks of a recorded run. RecordingClock wraps the loop's clock: within a tick every
// reading gives the tick's start (one sample, written in the tick's record); readings between
// ticks are live and written to the log's side stream. ReplayClock gives back what was
// recorded, then repeats the last reading of a gap (extra readings by an inspector are harmless).
//
// Invariants: both clocks never go backwards and never sleep; real time is rounded up to the
// microsecond grid; holds pass through to the wrapped clock (what is written is the time the
// run saw), and a ReplayClock ignores them.

import type { Clock } from '../clock';

export class ReplayClock implements Clock {
  /** The loop never waits on a replay: it is driven by the recording's ticks. */
  readonly virtual = true;
  private last = 0;
  private tickTime = 0;
  private tickPending = false;
  private gap: readonly number[] = [];
  private gapAt = 0;

  constructor(firstGap: readonly number[], start: number) {
    this.gap = firstGap;
    this.last = start;
  }

  now(): number {
    if (this.tickPending) return this.tickTime;
    if (this.gapAt < this.gap.length) this.last = this.gap[this.gapAt++]!;
    return this.last;
  }

  advanceTo(_when: number): void {
    // Time comes from the recording only.
  }

  /** The feed: the next tick runs at `time`; after it, the readings of the following gap. */
  setTick(time: number, nextGap: readonly number[]): void {
    this.tickTime = time;
    this.tickPending = true;
    this.gap = nextGap;
    this.gapAt = 0;
  }

  /** The recording clock takes the tick's time when the tick starts. */
  takeTickTime(): number {
    this.tickPending = false;
    this.last = this.tickTime;
    return this.tickTime;
  }
}

export class RecordingClock implements Clock {
  /** True between a tick's start and end (the recorder's observer hooks set it). */
  inTick = false;
  private tickTime = 0;
  private readonly quantize: boolean;

  constructor(
    readonly base: Clock,
    /** Told of every reading made between ticks. */
    private readonly onGapRead: (time: number) => void,
  ) {
    this.quantize = !base.virtual;
  }

  get virtual(): boolean {
    return this.base.virtual;
  }

  now(): number {
    if (this.inTick) return this.tickTime;
    const t = this.sample();
    this.onGapRead(t);
    return t;
  }

  advanceTo(when: number): void {
    this.base.advanceTo(when);
  }

  hold(): void {
    this.base.hold?.();
  }

  release(): void {
    this.base.release?.();
  }

  /** A tick starts: sample the time it runs at. */
  startTick(): number {
    this.tickTime = this.base instanceof ReplayClock ? this.base.takeTickTime() : this.sample();
    this.inTick = true;
    return this.tickTime;
  }

  endTick(): void {
    this.inTick = false;
  }

  private sample(): number {
    const t = this.base.now();
    return this.quantize ? Math.ceil(t * 1e6) / 1e6 : t;
  }
}
