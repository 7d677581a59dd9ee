// Runs on a runtime host's main thread (a live host's, and a line replay host's).
//
// A crawl's progress as the protocol's CrawlProgress: the crawler's counts, the seconds of
// its loop's own work and the rate, and the errors counted by kind. One counter per crawler
// (the present of a run, or a past moment of it), counting each error once.
//
// Invariant: errorsByKind covers exactly the crawler's errors so far; each call counts only
// the errors added since the previous one.

import type { CrawlProgress } from '../../../protocol/host-protocol';
import type { Crawler } from '../../crawler/crawler';
import { exceptionKind } from '../../crawler/report';

export class CrawlProgressCounter {
  private counted = 0;
  private readonly byKind: Record<string, number> = {};

  constructor(private readonly crawler: Crawler) {}

  /** `seconds`: the crawl's elapsed time (the caller says which clock). */
  progress(seconds: number): CrawlProgress {
    const c = this.crawler;
    const p = c.progress();
    for (; this.counted < c.errors.length; this.counted++) {
      const e = c.errors[this.counted]!.error;
      const kind = e instanceof Error ? e.name : exceptionKind(String(e));
      this.byKind[kind] = (this.byKind[kind] ?? 0) + 1;
    }
    return { ...p, seconds, rate: seconds > 0 ? p.done / seconds : 0, errorsByKind: { ...this.byKind } };
  }
}
