// The panel's view of the run's moment (protocol/run-moment.ts defines it): what the panel
// has heard that says where "now" is and what the crawl's numbers are at the moment shown,
// and the words and numbers the header, the scrubber and the dashboard show for it. Pure
// (no DOM), unit-tested; app.ts feeds it the extension's events and the views read it.
//
// Invariants:
// - The crawl's numbers are kept twice: the present's (progress events, snapshots of the
//   present) and the moment shown's (the snapshot of a past tick; null until it says them).
//   Going back to the present shows the present's newest ones, never a past tick's.
// - A snapshot's tick counts for the present only when it is one of the present.
// - Times shown for a moment are the run's clock at its tick (elapsedMsAt over the
//   timeline's tick times); the present's elapsed time is the crawl's own, live.

import type { CrawledPage, CrawlProgress, Snapshot } from '../../protocol/host-protocol';
import {
  elapsedMsAt,
  offersPresent,
  pagesText,
  progressAt,
  runMoment,
  tickText,
  type MomentSources,
  type RunMoment,
} from '../../protocol/run-moment';
import type { ProgressPoint, RunStatus } from '../../protocol/webview-protocol';
import { formatMs } from './format';

/** The timeline's clock, as a moment's times are read from it (TimelineModel). */
export interface TickClock {
  readonly lastTick: number;
  msAt(tick: number): number;
}

export class MomentTracker {
  /** The present's newest crawl numbers. */
  private live: CrawlProgress | null = null;
  /** The crawl numbers of the past moment shown (null: not said yet). */
  private ofMoment: CrawlProgress | null = null;
  private presentSnapshotTick: number | null = null;

  /** A new run (or none): nothing heard yet. */
  reset(live: CrawlProgress | null = null): void {
    this.live = live;
    this.ofMoment = null;
    this.presentSnapshotTick = null;
  }

  /** The status changed: a new moment shown forgets the previous one's numbers. */
  status(prev: RunStatus, next: RunStatus): void {
    if (
      prev.viewedTick !== next.viewedTick ||
      prev.viewedMoment !== next.viewedMoment ||
      prev.viewedReplaying !== next.viewedReplaying
    )
      this.ofMoment = null;
  }

  /** A snapshot: of the moment shown when `past`, else of the present. */
  snapshot(s: Snapshot, past: boolean): void {
    if (past) {
      if (s.progress !== null) this.ofMoment = s.progress;
      return;
    }
    this.presentSnapshotTick = Math.max(this.presentSnapshotTick ?? 0, s.tick);
    if (s.progress !== null && (this.live === null || s.progress.seconds >= this.live.seconds)) this.live = s.progress;
  }

  /** A progress report of the live crawl. */
  progress(p: CrawlProgress): void {
    this.live = p;
  }

  moment(status: RunStatus, sources: Omit<MomentSources, 'presentSnapshotTick'>): RunMoment {
    return runMoment(status, { ...sources, presentSnapshotTick: this.presentSnapshotTick });
  }

  /** The crawl's numbers at `m`. */
  progressAt(m: RunMoment): CrawlProgress | null {
    return progressAt(m, this.live, this.ofMoment);
  }
}

/** The facts the header says after the run's detail: the tick, the live tasks, the pages. */
export function headerFacts(m: RunMoment, liveTasks: number, progress: CrawlProgress | null): string[] {
  const facts = [
    m.kind === 'past' ? `viewing ${tickText(m)}` : tickText(m),
    `${liveTasks} live task${liveTasks === 1 ? '' : 's'}`,
  ];
  if (progress !== null) facts.push(pagesText(progress));
  return facts;
}

/** Milliseconds of the run's clock at the moment's tick (null: not known). */
export function momentElapsedMs(m: RunMoment, clock: TickClock): number | null {
  return elapsedMsAt((t) => clock.msAt(t), clock.lastTick, m.tick);
}

/** The scrubber's words: its label, its slider's value text, and whether it offers "Back to present". */
export function scrubberText(
  m: RunMoment,
  clock: TickClock,
): { label: string; valueText: string; offersPresent: boolean } {
  const ms = momentElapsedMs(m, clock);
  const into = ms === null ? '' : ` · ${formatMs(ms)} into the run`;
  switch (m.kind) {
    case 'past':
      return {
        label: `Viewing ${tickText(m)}${into}`,
        valueText: `tick ${m.tick} of ${m.lastTick}, in the past`,
        offersPresent: offersPresent(m),
      };
    case 'recording':
      return {
        label: `${capitalized(tickText(m))}${into}`,
        valueText: `tick ${m.tick} of ${m.lastTick}`,
        offersPresent: offersPresent(m),
      };
    case 'present':
      return {
        label: `${capitalized(tickText(m))} · the present`,
        valueText: `tick ${m.tick}, the present`,
        offersPresent: offersPresent(m),
      };
  }
}

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * Seconds the dashboard says elapsed at `m`: the crawl's own in the present, the run's clock at a past or
 * recorded tick.
 */
export function dashboardSeconds(m: RunMoment, progress: CrawlProgress, clock: TickClock): number {
  if (m.kind === 'present') return progress.seconds;
  const ms = momentElapsedMs(m, clock);
  return ms === null ? progress.seconds : ms / 1000;
}

/** The chart's points up to moment `m` (all of them in the present). */
export function pointsUpTo(m: RunMoment, points: readonly ProgressPoint[], clock: TickClock): readonly ProgressPoint[] {
  if (m.kind === 'present') return points;
  const ms = momentElapsedMs(m, clock);
  if (ms === null) return points;
  // Tick times are kept to the microsecond: a point of the tick itself is in.
  const seconds = ms / 1000 + 1e-6;
  return points.filter((pt) => pt.t <= seconds);
}

/**
 * The crawled pages finished by moment `m`: the list holds the last `pages.length` of the
 * `liveDone` pages finished so far, oldest first, so a past tick's are its first `done` of
 * them. All of them in the present, or when the counts do not say (no live count, a list
 * longer than it).
 */
export function pagesUpTo<P extends CrawledPage>(
  m: RunMoment,
  pages: readonly P[],
  liveDone: number | null,
  atMoment: CrawlProgress | null,
): readonly P[] {
  if (m.kind === 'present' || atMoment === null || liveDone === null || liveDone < pages.length) return pages;
  const firstNumber = liveDone - pages.length;
  return pages.slice(0, Math.max(0, Math.min(pages.length, atMoment.done - firstNumber)));
}
