// One clock and one count: the moment of a run every view states (panel, status bar, the
// debugger's loop thread, the CLI replay), defined once so they cannot disagree on "now".
// See docs/design/time-travel-and-positions.md.
//
// Invariants: the tick shown is the last tick begun ("after tick N" between ticks, "in tick N" on
// a line); the present's is the newest count any source reported. Elapsed time at tick N is
// the run's clock when tick N began (paused time excluded). A past tick's crawl numbers are that
// snapshot's (null until known), never the live totals. An opened recording has no present.
// Pure: no I/O.

import type { CrawlProgress } from './host-protocol';
import type { RunStatus } from './webview-protocol';

/**
 * What a view shows: the run as it is now, a past tick of a run that has a present, or a tick of an opened
 * recording (which has none).
 */
export type MomentKind = 'present' | 'past' | 'recording';

export interface RunMoment {
  kind: MomentKind;
  /** The tick shown: the last tick begun at the moment (0: before the first). */
  tick: number;
  /** The run's ticks so far (never below `tick`): the range the views count in. */
  lastTick: number;
  /** The moment is on a line, within `tick` (not complete). */
  onLine: boolean;
}

/** An opened recording (nothing runs; no present to go back to), or a live run (finished or not). */
export function isRecordingRun(status: RunStatus): boolean {
  return status.recordingFile !== undefined;
}

/** What a view knows of the run besides its status. */
export interface MomentSources {
  /** The tick of the newest snapshot of the present (null: none yet). */
  presentSnapshotTick?: number | null;
  /** Ticks the timeline holds (0: none, or not recorded). */
  timelineTicks?: number;
  /**
   * The tick a view asked to show and the host has not answered yet (null: the present);
   * undefined: none asked, the status's viewedTick stands.
   */
  wantedTick?: number | null;
}

/** The present's tick: the newest count reported by any source. */
export function presentTick(status: RunStatus, sources: MomentSources = {}): number {
  return Math.max(status.tick, sources.presentSnapshotTick ?? 0, sources.timelineTicks ?? 0);
}

/** The moment a view shows, from the run's status and what the view knows besides. */
export function runMoment(status: RunStatus, sources: MomentSources = {}): RunMoment {
  const present = presentTick(status, sources);
  const viewed = sources.wantedTick !== undefined ? sources.wantedTick : (status.viewedTick ?? null);
  const recording = isRecordingRun(status);
  if (viewed === null) {
    return {
      kind: recording ? 'recording' : 'present',
      tick: present,
      lastTick: present,
      onLine: status.onLine === true,
    };
  }
  // A past line (of a live line stop, or a breakpoint hit found in the past) is within its tick, as the debugger's
  // loop thread says it ("stopped on a line in tick N"); a live line stop's own tick is "of N", never "of N-1".
  return {
    kind: recording ? 'recording' : 'past',
    tick: viewed,
    lastTick: Math.max(present, viewed),
    onLine: sources.wantedTick === undefined && status.viewedLine === true,
  };
}

/** Whether a view offers "Back to present": only a past tick of a run that has a present. */
export function offersPresent(m: RunMoment): boolean {
  return m.kind === 'past';
}

/** "tick 71", "in tick 4 (on a line)", "tick 71 of 724 (past)", "in tick 8 of 12 (past, on a line)" and the like. */
export function tickText(m: RunMoment): string {
  switch (m.kind) {
    case 'present':
      return m.onLine ? `in tick ${m.tick} (on a line)` : `tick ${m.tick}`;
    case 'past':
      return m.onLine
        ? `in tick ${m.tick} of ${m.lastTick} (past, on a line)`
        : `tick ${m.tick} of ${m.lastTick} (past)`;
    case 'recording':
      return m.onLine ? `in tick ${m.tick} of ${m.lastTick} (on a line)` : `tick ${m.tick} of ${m.lastTick}`;
  }
}

/**
 * The event loop's own words for where it stands: "paused after tick 4", "stopped on a line in tick 4",
 * "running, tick 9".
 */
export function loopTickText(tick: number, state: { paused: boolean; onLine?: boolean }): string {
  if (state.onLine === true) return `stopped on a line in tick ${tick}`;
  return state.paused ? `paused after tick ${tick}` : `running, tick ${tick}`;
}

/**
 * Milliseconds of the run's clock at tick `tick`: when it began, since tick 1 began.
 * `tickStartMs(t)` is tick t's start (any origin, t >= 1); `ticks` the ticks known. Tick 0
 * (before the first) and ticks not known (beyond `ticks`) are null.
 */
export function elapsedMsAt(tickStartMs: (tick: number) => number, ticks: number, tick: number): number | null {
  if (!Number.isInteger(tick) || tick < 1 || tick > ticks) return null;
  return Math.max(0, tickStartMs(tick) - tickStartMs(1));
}

/** Seconds of the run's clock at tick `tick`, from a recording's tick times (seconds, tick t at index t - 1). */
export function elapsedSecondsAt(tickTimes: readonly number[], tick: number): number | null {
  const ms = elapsedMsAt((t) => tickTimes[t - 1]! * 1000, tickTimes.length, tick);
  return ms === null ? null : ms / 1000;
}

/**
 * The crawl's numbers a view shows at moment `m`: the present's newest live ones (or, before
 * any, the present snapshot's); a past or recorded tick's its snapshot's (null until known).
 */
export function progressAt(
  m: RunMoment,
  live: CrawlProgress | null,
  ofMoment: CrawlProgress | null,
): CrawlProgress | null {
  return m.kind === 'present' ? (live ?? ofMoment) : ofMoment;
}

/** "172 pages": the pages done, as the header and the status bar say them. */
export function pagesText(p: CrawlProgress): string {
  return `${p.done} pages`;
}
