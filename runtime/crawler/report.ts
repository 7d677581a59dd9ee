// The crawl report: what the chapter's crawler prints when it is done, as pure functions
// over the list of per-URL statistics the crawler records (one `FetchStatistic` per URL
// fetched, whether it ended in a page, a redirect or an exception).
//
// `formatReport` gives the text: one line per URL sorted by URL, then the counters, then
// the totals and the rate in urls/sec/task. `summarize` gives the same counters as data,
// for the inspector and the CLI's JSON output.
//
// Invariants: pure (no clock, no I/O: the caller passes the elapsed time and the queue
// state), total (any list, including an empty one, gives a report), and the input is not
// modified (sorting works on a copy).

/** What happened to one URL, as the crawler records it (the chapter's `FetchStatistic`). */
export interface FetchStatistic {
  url: string;
  /** The redirect target when the response was a redirect, else null. */
  nextUrl: string | null;
  status: number | null;
  /** The error that ended the fetch as `Name: message` (`String(error)`), else null. */
  exception: string | null;
  size: number;
  contentType: string | null;
  encoding: string | null;
  /** Links found on the page. */
  numUrls: number;
  /** Of those, the ones not seen before (queued by this page). */
  numNewUrls: number;
  /** The page's `<title>` text, when it is HTML and has one (as text: never markup). */
  title?: string;
  /** For a failure: how many times the URL was tried. */
  tries?: number;
  /** For a failure: why it was (not) tried again (see retry-policy.ts). */
  retry?: string;
}

/** The crawl's state when the report is made. */
export interface ReportTotals {
  /** Seconds from the start of the crawl to its end (or to now, for a report mid-crawl). */
  seconds: number;
  /** URLs still waiting in the queue. */
  todo: number;
  /** URLs being fetched. */
  busy: number;
  maxTasks: number;
  /**
   * When the crawl was interrupted: the URLs it was fetching (cancelled) and those still
   * queued (never fetched). Each gets a line, so the report accounts for every URL seen.
   */
  interrupted?: { inFlight: readonly string[]; queued: readonly string[] };
  /** Notices to print before the counters (robots.txt that stopped a root, ...). */
  notices?: readonly string[];
}

/** Pages of one content type. */
export interface ContentTypeCount {
  count: number;
  bytes: number;
}

/** The counters of a crawl. Record keys are in sorted order. */
export interface CrawlSummary {
  /** Statistics in the list (URLs done). */
  urls: number;
  /** Responses that were neither redirects nor errors, whatever their status. */
  pages: number;
  redirects: number;
  /** Fetches that ended in an exception. */
  failures: number;
  /** Body bytes of the pages. */
  bytes: number;
  /** Links found on the pages, and how many of them were new. */
  linksFound: number;
  newLinks: number;
  /**
   * Responses by status class: `2xx`, `3xx`, `4xx`, `5xx` (and `1xx`/`other` if ever),
   * counting every statistic with a status, including a response whose processing then
   * failed (a 200 page with an unknown charset is both a `2xx` and a failure).
   */
  byStatusClass: Record<string, number>;
  /** Responses by exact status code. */
  byStatus: Record<string, number>;
  /** Pages by media type (parameters dropped, lowercased; `unknown` when absent). */
  byContentType: Record<string, ContentTypeCount>;
  /** Failures by kind: the exception's name (`TimeoutError`, `UnknownCharsetError`, ...). */
  errorsByKind: Record<string, number>;
}

/** How a statistic is reported. */
type Outcome = 'error' | 'redirect' | 'page';

function outcomeOf(stat: FetchStatistic): Outcome {
  if (stat.exception !== null) return 'error';
  if (stat.nextUrl !== null) return 'redirect';
  return 'page';
}

const EXCEPTION_NAME = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?::|$)/;

/** The kind of an exception string: the name before its first colon, else `Error`. */
export function exceptionKind(exception: string): string {
  const match = EXCEPTION_NAME.exec(exception.trim());
  return match === null ? 'Error' : match[1];
}

function statusClass(status: number): string {
  return status >= 100 && status <= 599 ? `${Math.floor(status / 100)}xx` : 'other';
}

function mediaType(contentType: string | null): string {
  if (contentType === null) return 'unknown';
  const semi = contentType.indexOf(';');
  const type = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === '' ? 'unknown' : type;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Status codes sort numerically, the rest by string. */
function compareKeys(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  return Number.isNaN(x) || Number.isNaN(y) ? compareStrings(a, b) : x - y;
}

function sortedRecord<V>(map: Map<string, V>): Record<string, V> {
  const record: Record<string, V> = {};
  for (const [key, value] of [...map].sort(([a], [b]) => compareKeys(a, b))) record[key] = value;
  return record;
}

/** The counters of a crawl, from its statistics. */
export function summarize(stats: readonly FetchStatistic[]): CrawlSummary {
  const byStatusClass = new Map<string, number>();
  const byStatus = new Map<string, number>();
  const byContentType = new Map<string, ContentTypeCount>();
  const errorsByKind = new Map<string, number>();
  let pages = 0;
  let redirects = 0;
  let failures = 0;
  let bytes = 0;
  let linksFound = 0;
  let newLinks = 0;
  for (const stat of stats) {
    if (stat.status !== null) {
      increment(byStatusClass, statusClass(stat.status));
      increment(byStatus, String(stat.status));
    }
    switch (outcomeOf(stat)) {
      case 'error':
        failures++;
        increment(errorsByKind, exceptionKind(stat.exception ?? ''));
        break;
      case 'redirect':
        redirects++;
        break;
      case 'page': {
        pages++;
        bytes += stat.size;
        linksFound += stat.numUrls;
        newLinks += stat.numNewUrls;
        const type = mediaType(stat.contentType);
        const entry = byContentType.get(type);
        if (entry === undefined) byContentType.set(type, { count: 1, bytes: stat.size });
        else {
          entry.count++;
          entry.bytes += stat.size;
        }
        break;
      }
    }
  }
  return {
    urls: stats.length,
    pages,
    redirects,
    failures,
    bytes,
    linksFound,
    newLinks,
    byStatusClass: sortedRecord(byStatusClass),
    byStatus: sortedRecord(byStatus),
    byContentType: sortedRecord(byContentType),
    errorsByKind: sortedRecord(errorsByKind),
  };
}

/**
 * The report line of one URL:
 * `url status content-type size; N/M new urls` for a page (the link counts only for HTML
 * or when links were found), `url redirect -> next` for a redirect, `url error: message`
 * for a failure.
 */
export function formatStatisticLine(stat: FetchStatistic): string {
  switch (outcomeOf(stat)) {
    case 'error':
      return stat.retry === undefined ? `${stat.url} error: ${stat.exception}` : `${stat.url} error: ${stat.exception} [${stat.tries ?? 1} ${stat.tries === 1 ? 'try' : 'tries'}; ${stat.retry}]`;
    case 'redirect':
      return `${stat.url} redirect -> ${stat.nextUrl}`;
    case 'page': {
      const type = stat.contentType === null ? '-' : mediaType(stat.contentType);
      const line = `${stat.url} ${stat.status ?? '-'} ${type} ${stat.size}`;
      return type.includes('html') || stat.numUrls > 0 ? `${line}; ${stat.numNewUrls}/${stat.numUrls} new urls` : line;
    }
  }
}

/** Urls per second per task, 0 when no time passed or there are no tasks. */
export function urlsPerSecondPerTask(urls: number, seconds: number, maxTasks: number): number {
  return seconds > 0 && maxTasks > 0 && Number.isFinite(seconds) ? urls / seconds / maxTasks : 0;
}

function counterLine(count: number, label: string): string {
  return `${String(count).padStart(10)} ${label}`;
}

/** The whole crawl report (lines joined with `\n`, ending with one). */
export function formatReport(stats: readonly FetchStatistic[], totals: ReportTotals): string {
  const { seconds, todo, busy, maxTasks, interrupted, notices } = totals;
  const lines: string[] = ['*** Report ***'];
  const sorted = stats.slice().sort((a, b) => compareStrings(a.url, b.url));
  for (const stat of sorted) lines.push(formatStatisticLine(stat));
  if (interrupted !== undefined && interrupted.inFlight.length + interrupted.queued.length > 0) {
    lines.push('*** Interrupted ***');
    for (const url of interrupted.inFlight.slice().sort(compareStrings)) lines.push(`${url} cancelled: being fetched when the crawl was interrupted`);
    for (const url of interrupted.queued.slice().sort(compareStrings)) lines.push(`${url} not fetched: queued when the crawl was interrupted`);
  }
  if (notices !== undefined && notices.length > 0) {
    lines.push('*** Notices ***');
    lines.push(...notices);
  }

  const summary = summarize(stats);
  lines.push('*** Counters ***');
  lines.push(counterLine(summary.urls, 'urls'));
  lines.push(counterLine(summary.pages, 'pages'));
  lines.push(counterLine(summary.redirects, 'redirects'));
  lines.push(counterLine(summary.failures, 'failures'));
  lines.push(counterLine(summary.bytes, 'bytes'));
  lines.push(counterLine(summary.linksFound, 'links found'));
  lines.push(counterLine(summary.newLinks, 'new links'));
  for (const [label, count] of Object.entries(summary.byStatusClass)) lines.push(counterLine(count, `status ${label}`));
  for (const [type, { count, bytes }] of Object.entries(summary.byContentType)) {
    lines.push(counterLine(count, `content-type ${type} (${bytes} bytes)`));
  }
  for (const [kind, count] of Object.entries(summary.errorsByKind)) lines.push(counterLine(count, `error ${kind}`));

  const elapsed = Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
  const rate = urlsPerSecondPerTask(stats.length, elapsed, maxTasks);
  lines.push(`Finished ${stats.length} urls in ${elapsed.toFixed(3)} secs (max_tasks=${maxTasks}) (${rate.toFixed(3)} urls/sec/task)`);
  lines.push(`Todo: ${todo}`);
  lines.push(`Busy: ${busy}`);
  lines.push(`Done: ${stats.length}`);
  return lines.join('\n') + '\n';
}
