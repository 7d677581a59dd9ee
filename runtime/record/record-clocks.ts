// The two clocks of a recorded run.
//
// RecordingClock wraps the loop's real clock while a run is recorded. Within a tick every
// reading gives the time sampled when the tick began (one sample per tick, written in the
// tick's record), so a tick's callbacks agree on "now" and observers that read the clock
// (an inspector) cannot change what the run sees. Between ticks readings are live (the
// loop's driver needs them to wait for timers) and each one is written to the log's side
// stream, so a program's reading made before the loop runs (a callLater at start-up)
// replays to the same value. Real time is rounded up to the microsecond grid so it is
// written exactly in a few bytes.
//
// ReplayClock gives back what was recorded: the feed sets each tick's time before the
// tick; between ticks it hands out that gap's recorded readings in order, then repeats the
// last one (readings the replay makes and the recording did not, an inspector's, are
// harmless; readings it skips are dropped at the next tick).
//
// A pause of the loop (hold/release) goes through the RecordingClock to the clock it wraps:
// the real clock stands still while the loop is held (clock.ts), so what is written is the
// time the run saw, holds left out; a ReplayClock ignores holds (its time is the recording's).
//
// Invariants: both clocks never go backwards; neither ever sleeps.

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
