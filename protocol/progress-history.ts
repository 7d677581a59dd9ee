// ProgressHistory: a crawl's progress as a client keeps it: the dashboard chart's points and
// the pages the crawler finished, each list bounded. The extension (RunSession) turns the
// host's progress reports into points here; the webview keeps the same history from the
// points the extension forwards, so both sides trim alike.
//
// Invariants: points go forward in time (a point not later than the last one is dropped) and
// each says something new (a report repeated after the run ended, with a clock of its own,
// would draw a false line); at most MAX_POINTS points and MAX_PAGES pages, the oldest
// dropped first. Pure data: no I/O, no DOM, no vscode.

import type { CrawledPage, CrawlProgress } from './host-protocol';
import type { ProgressPoint } from './webview-protocol';

export const MAX_POINTS = 600;
export const MAX_PAGES = 500;

export class ProgressHistory {
  readonly points: ProgressPoint[] = [];
  readonly pages: CrawledPage[] = [];

  /** The chart point a progress report adds, or null when it adds nothing (see the header). */
  pointOf(p: CrawlProgress): ProgressPoint | null {
    const prev = this.points[this.points.length - 1];
    let rate = p.rate;
    if (prev !== undefined && p.seconds > prev.t) rate = (p.done - prev.done) / (p.seconds - prev.t);
    const point: ProgressPoint = {
      t: p.seconds,
      done: p.done,
      rate: Math.max(0, rate),
      queued: p.queued,
      inFlight: p.inFlight,
    };
    const adds =
      prev === undefined ||
      (p.seconds > prev.t && (p.done !== prev.done || p.queued !== prev.queued || p.inFlight !== prev.inFlight));
    return adds ? point : null;
  }

  /** Keeps `point` (when later than the last one) and the pages `recent` reports. */
  record(point: ProgressPoint | null, recent: readonly CrawledPage[] | undefined): void {
    const last = this.points[this.points.length - 1];
    if (point !== null && (last === undefined || point.t > last.t)) {
      this.points.push(point);
      if (this.points.length > MAX_POINTS) this.points.splice(0, this.points.length - MAX_POINTS);
    }
    if (recent !== undefined && recent.length > 0) {
      this.pages.push(...recent);
      if (this.pages.length > MAX_PAGES) this.pages.splice(0, this.pages.length - MAX_PAGES);
    }
  }

  /** Replaces the history (a new run: empty; a panel opening mid-run: the extension's copy). */
  reset(points: readonly ProgressPoint[] = [], pages: readonly CrawledPage[] = []): void {
    this.points.length = 0;
    this.pages.length = 0;
    this.record(null, pages);
    for (const p of points) this.record(p, undefined);
  }
}
