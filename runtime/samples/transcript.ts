// Transcript: what a sample prints and whether what it printed is what it meant to show.
//
// Invariants: every line goes to the context's log as soon as it is written and is kept, in
// order, for the outcome; a failed check prints a `CHECK FAILED:` line (so a learner sees why
// the sample is not ok) and makes the outcome not ok; numbers are kept by name.

import type { SampleContext, SampleOutcome } from './sample';

export class Transcript {
  readonly lines: string[] = [];
  readonly numbers: Record<string, number> = {};
  private failures = 0;
  private readonly ctx: SampleContext;

  constructor(ctx: SampleContext) {
    this.ctx = ctx;
  }

  log(line: string): void {
    this.lines.push(line);
    this.ctx.log(line);
  }

  /** Records a measurement; returns it. */
  note(name: string, value: number): number {
    this.numbers[name] = value;
    return value;
  }

  /** Marks the outcome not ok, with a line saying which expectation did not hold. */
  check(condition: boolean, expectation: string): boolean {
    if (!condition) {
      this.failures++;
      this.log(`CHECK FAILED: ${expectation}`);
    }
    return condition;
  }

  outcome(): SampleOutcome {
    return { ok: this.failures === 0, lines: [...this.lines], numbers: { ...this.numbers } };
  }
}

/** Seconds with two decimals, the way the samples print durations. */
export function secs(seconds: number): string {
  return `${seconds.toFixed(2)} s`;
}
