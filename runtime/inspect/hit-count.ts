// HitCount: the one implementation of a breakpoint's hit condition (DAP's: N, >=N, >N, ==N, <N,
// <=N, %N) and of the hits it counts, for every place that counts them: the loop's suspension
// breakpoints, the line debugger's V8 breakpoints, a replay's scan and the search that arms it.
// HitsSince keeps the tick a breakpoint was set in, so a search of the past counts as live did.
//
// Invariants: a hit counts only after the tick its breakpoint was set in (`since`; 0: from the
// run's start); the count goes up at every hit counted, whether the condition lets it through or
// not; a blank hit condition is none; one that does not parse is refused, never read as none.

/** Whether a hit whose count is `count` stops (or is recorded). */
export type HitTest = (count: number) => boolean;

/**
 * When breakpoints are set: before the run or once it has finished ('start': their hits count from its
 * start), stopped in tick `tick`, or while it runs (the tick it was at, once told).
 */
export type BreakpointsSetAt = 'start' | { tick: number } | { telling: Promise<number> };

/**
 * A hit condition set while the run went, as a search of the past is told it: counted after tick `tick`, from
 * `before` (the hits counted live up to that tick's end).
 */
export interface HitsSinceOffset {
  tick: number;
  before: number;
}

/** Parses a DAP-style hit condition; null if it is not one. */
export function parseHitCondition(text: string): HitTest | null {
  const m = /^\s*(>=|<=|==|=|>|<|%)?\s*(\d+)\s*$/.exec(text);
  if (m === null) return null;
  const n = Number(m[2]);
  switch (m[1]) {
    case undefined:
    case '>=':
      return (c) => c >= n;
    case '>':
      return (c) => c > n;
    case '=':
    case '==':
      return (c) => c === n;
    case '<':
      return (c) => c < n;
    case '<=':
      return (c) => c <= n;
    case '%':
      return n === 0 ? null : (c) => c % n === 0;
    default:
      return null;
  }
}

/** A breakpoint's hit condition as set: none (blank or absent), a test, or refused with the reason. */
export function hitConditionOf(text: string | undefined): { test: HitTest | null } | { refused: string } {
  if (text === undefined || text.trim() === '') return { test: null };
  const test = parseHitCondition(text);
  return test === null
    ? { refused: `hit condition ${JSON.stringify(text)} is not one of N, >=N, >N, ==N, <N, <=N, %N` }
    : { test };
}

/** A breakpoint's hits, counted against its hit condition (`test`; null: every hit lets through). */
export class HitCount {
  constructor(
    readonly test: HitTest | null,
    /** Hits counted before (a search's stretch: those before it). */
    private n = 0,
    /** The tick the breakpoint was set in: its hits in ticks up to it do not count (0: from the run's start). */
    readonly since = 0,
  ) {}

  get hits(): number {
    return this.n;
  }

  /** Whether a hit in tick `tick` counts (after the tick the breakpoint was set in). */
  countsIn(tick: number): boolean {
    return tick > this.since;
  }

  /**
   * Counts a hit (in tick `tick`, when known): its count when the hit condition lets it through, else null (a
   * hit before `since` is not counted).
   */
  count(tick = Infinity): number | null {
    if (!this.countsIn(tick)) return null;
    const count = ++this.n;
    return this.test === null || this.test(count) ? count : null;
  }

  /** A new run: counted from its start again. */
  reset(): void {
    this.n = 0;
  }
}

/**
 * Where a hit condition set while the run went counts from, as the live debugger counts it:
 * the tick it was set in (null until the main thread has said it, for one set while it ran),
 * and the ticks of the hits counted live while they may still be in that tick (`open`).
 */
export class HitsSince {
  since: number | null;
  private readonly ticks: number[] = [];
  private isOpen = true;

  private constructor(since: number | null) {
    this.since = since;
  }

  /** The counting of a hit condition set at `setAt` (null: from the run's start). */
  static from(setAt: BreakpointsSetAt): HitsSince | null {
    if (setAt === 'start') return null;
    if ('tick' in setAt) return new HitsSince(setAt.tick);
    const counting = new HitsSince(null);
    void setAt.telling.then(
      (tick) => {
        counting.since = tick;
        if (counting.ticks.some((t) => t > tick)) counting.isOpen = false;
      },
      () => {
        // Not told (the run went away): its hits count from the start.
        counting.isOpen = false;
      },
    );
    return counting;
  }

  /** Hits counted live may still be in the tick it was set in: their ticks are wanted (noteTick). */
  get open(): boolean {
    return this.isOpen;
  }

  /** A hit counted live in tick `tick`. */
  noteTick(tick: number): void {
    this.ticks.push(tick);
    if (this.since !== null && tick > this.since) this.isOpen = false;
  }

  /** As a search of the past is told it (null: the tick is not known, the hits count from the run's start). */
  offset(): HitsSinceOffset | null {
    const since = this.since;
    return since === null ? null : { tick: since, before: this.ticks.filter((t) => t <= since).length };
  }
}

/**
 * How a scan of the past counts an armed breakpoint's hits: its hit condition, the tick it was set in
 * (`since`), the hits before (`before`).
 */
export function scanCounting(b: { hitCondition?: string; hitsSince?: HitsSinceOffset }): {
  hitCondition?: string;
  since?: number;
  before: number;
} {
  if (b.hitCondition === undefined) return { before: 0 };
  return b.hitsSince === undefined
    ? { hitCondition: b.hitCondition, before: 0 }
    : { hitCondition: b.hitCondition, since: b.hitsSince.tick, before: b.hitsSince.before };
}

/**
 * Where a scan that would start at `from` starts: no later than where the hit conditions count from (the
 * run's start, or the tick each was set in).
 */
export function countedFrom(
  breakpoints: ReadonlyArray<{ hitCondition?: string; hitsSince?: HitsSinceOffset }>,
  from: number,
): number {
  let start = from;
  for (const b of breakpoints) if (b.hitCondition !== undefined) start = Math.min(start, b.hitsSince?.tick ?? 0);
  return start;
}

/**
 * A scan's counter of a breakpoint (its hit condition and `since` as scanTicks is given them; `before`: the
 * hits before the stretch).
 */
export function scanCount(b: { hitCondition?: string; since?: number }, before: number): HitCount {
  return new HitCount(
    b.hitCondition === undefined ? null : parseHitCondition(b.hitCondition),
    before,
    b.hitCondition === undefined ? 0 : (b.since ?? 0),
  );
}
