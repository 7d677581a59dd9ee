// What `coroscope crawl` prints: the JSON object of --json (stdout holds nothing else) and
// the live progress line on stderr. Pure formatting over the crawl's statistics.

import type { FetchStatistic } from '../crawler/report';

export interface CrawlJsonResult {
  url: string;
  status: number | null;
  contentType: string | null;
  bytes: number;
  nextUrl?: string;
  error?: string;
}

export interface CrawlJson {
  pages: number;
  fetched: number;
  errors: number;
  redirects: number;
  excluded: number;
  seconds: number;
  rate: number;
  stage: string;
  results: CrawlJsonResult[];
}

/** The --json object: counts, timing, and one result per URL fetched (redirects and failures included). */
export function crawlJson(stats: readonly FetchStatistic[], seconds: number, excluded: number, stage: string): CrawlJson {
  const results: CrawlJsonResult[] = stats
    .slice()
    .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
    .map((s) => {
      const r: CrawlJsonResult = { url: s.url, status: s.status, contentType: s.contentType, bytes: s.size };
      if (s.nextUrl !== null) r.nextUrl = s.nextUrl;
      if (s.exception !== null) r.error = s.exception;
      return r;
    });
  const errors = stats.filter((s) => s.exception !== null).length;
  const redirects = stats.filter((s) => s.exception === null && s.nextUrl !== null).length;
  return {
    pages: stats.length - errors - redirects,
    fetched: stats.length,
    errors,
    redirects,
    excluded,
    seconds: Number(seconds.toFixed(3)),
    rate: seconds > 0 ? Number((stats.length / seconds).toFixed(1)) : 0,
    stage,
    results,
  };
}

/** One status line: pages done, rate, queue and in-flight counts. */
export function progressLine(p: { done: number; queued: number; inFlight: number; errors: number }, seconds: number): string {
  const rate = seconds > 0 ? p.done / seconds : 0;
  return `${p.done} done  ${rate.toFixed(0)} pages/s  queue ${p.queued}  in flight ${p.inFlight}  errors ${p.errors}  ${seconds.toFixed(1)}s`;
}
