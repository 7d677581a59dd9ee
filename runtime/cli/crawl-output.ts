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
  /** For a failure: tries made, and why no more. */
  tries?: number;
  retry?: string;
}

export interface CrawlJson {
  pages: number;
  fetched: number;
  errors: number;
  redirects: number;
  excluded: number;
  /** Every URL found and not fetched, with why (host, exclude, robots, maxDepth, ...), by URL. */
  excludedUrls: Array<{ url: string; reason: string }>;
  /** When the crawl was interrupted: the URLs being fetched (cancelled) and still queued (not fetched). */
  interrupted?: { cancelled: string[]; notFetched: string[] };
  /** What the report says besides the URLs (a robots.txt that kept a root out). */
  notices: string[];
  seconds: number;
  rate: number;
  stage: string;
  results: CrawlJsonResult[];
}

/**
 * The --json object: counts, timing, one result per URL fetched (redirects and failures
 * included), every URL excluded with its reason, and, when interrupted, those cancelled or
 * never fetched: every URL the crawl saw is in it.
 */
export function crawlJson(
  stats: readonly FetchStatistic[],
  seconds: number,
  excluded: ReadonlyMap<string, string>,
  stage: string,
  interrupted: { inFlight: readonly string[]; queued: readonly string[] } | null = null,
  notices: readonly string[] = [],
): CrawlJson {
  const results: CrawlJsonResult[] = stats
    .slice()
    .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
    .map((s) => {
      const r: CrawlJsonResult = { url: s.url, status: s.status, contentType: s.contentType, bytes: s.size };
      if (s.nextUrl !== null) r.nextUrl = s.nextUrl;
      if (s.exception !== null) r.error = s.exception;
      if (s.tries !== undefined) r.tries = s.tries;
      if (s.retry !== undefined) r.retry = s.retry;
      return r;
    });
  const errors = stats.filter((s) => s.exception !== null).length;
  const redirects = stats.filter((s) => s.exception === null && s.nextUrl !== null).length;
  return {
    pages: stats.length - errors - redirects,
    fetched: stats.length,
    errors,
    redirects,
    excluded: excluded.size,
    excludedUrls: [...excluded]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([url, reason]) => ({ url, reason })),
    ...(interrupted === null
      ? {}
      : { interrupted: { cancelled: [...interrupted.inFlight].sort(), notFetched: [...interrupted.queued].sort() } }),
    notices: [...notices],
    seconds: Number(seconds.toFixed(3)),
    rate: seconds > 0 ? Number((stats.length / seconds).toFixed(1)) : 0,
    stage,
    results,
  };
}

/** One status line: pages done, rate, queue and in-flight counts. */
export function progressLine(
  p: { done: number; queued: number; inFlight: number; errors: number },
  seconds: number,
): string {
  const rate = seconds > 0 ? p.done / seconds : 0;
  return `${p.done} done  ${rate.toFixed(0)} pages/s  queue ${p.queued}  in flight ${p.inFlight}  errors ${p.errors}  ${seconds.toFixed(1)}s`;
}
