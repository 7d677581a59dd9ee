// Crawler: the chapter's third stage, the queue-and-workers crawler, on the runtime's
// Queue, Tasks and keep-alive ClientSession.
//
// crawl() starts maxTasks workers at once; each takes (url, maxRedirect, depth) items from
// the queue, fetches the URL (with maxTries tries), records one FetchStatistic, and queues
// the new links it found. crawl() waits on the queue's join() and then cancels the workers,
// which are all idle in get() by then.
//
// Invariants:
// - A URL is queued at most once: `seenUrls` holds every URL ever queued. A redirect whose
//   target was already seen is recorded and goes no further (redirect coalescing).
// - Every URL seen ends fetched (a statistic with a status), failed (a statistic with an
//   exception) or excluded (with its reason): a worker that hits an unexpected error
//   records the URL as failed and still calls taskDone(), so join() always returns (the
//   published code would hang there). A crawl that is cancelled (interrupted) also notes
//   the URLs it was fetching and those still queued, so its report still names every URL.
// - A failed fetch is tried again only when another try can turn out differently
//   (retry-policy.ts); the statistic says how many tries were made and why no more.
// - Options are checked against their documented bounds (protocol/crawl-option-bounds.ts):
//   RangeError for a value outside them, before anything is allocated.
// - A robots.txt that keeps a root from being fetched (a 5xx answer, which RFC 9309 says to
//   read as "disallow everything", or rules that disallow the root) is said in a notice.
// - Links are only queued when allowed: http(s), on a root's host (strict: the same host,
//   `www.` equivalent; lenient: also subdomains), not matching `exclude`, within maxDepth
//   and maxPages, and not disallowed by the host's robots.txt (unless robots is off).

import { coroutine } from '../coroutine';
import { CancelledError } from '../errors';
import type { Future } from '../future';
import { ClientSession, type ClientSessionOptions, type ClientResponse } from '../http/index';
import { HttpProtocolError } from '../http/errors';
import { isRedirectStatus } from '../http/redirect-statuses';
import { Queue } from '../queue';
import { shield } from '../shield';
import { gather } from '../gather';
import { getRunningLoop } from '../running-loop';
import type { EventLoop } from '../loop';
import type { Coroutine, Task } from '../task';
import { HostMatcher } from './hosts';
import { extractLinks } from './links';
import { formatReport, summarize, type CrawlSummary, type FetchStatistic } from './report';
import { RobotsRules } from './robots';
import { retryVerdict } from './retry-policy';
import { parseRoot } from './roots';
import { crawlOptionProblem, type CrawlOptionName } from '../../protocol/crawl-option-bounds';

export interface CrawlerOptions {
  /** Redirects followed from one URL (the chapter's max_redirect). Default 10. */
  maxRedirect?: number;
  /** Tries per URL on connection, timeout and protocol errors. Default 4. */
  maxTries?: number;
  /** Worker tasks. Default 100. */
  maxTasks?: number;
  /** URLs matching this are not crawled. */
  exclude?: RegExp | string | null;
  /** Strict host matching (default) or lenient (subdomains too). */
  strict?: boolean;
  /** Stop queuing new URLs once this many were seen (0: no limit). */
  maxPages?: number;
  /** Links deeper than this from a root are not followed (null: no limit). */
  maxDepth?: number | null;
  /** Respect robots.txt (default true). */
  robots?: boolean;
  /** Options of the HTTP session (timeouts, body limits, pool). */
  session?: ClientSessionOptions;
  /** Called on every URL finished (progress displays). */
  onStatistic?: (stat: FetchStatistic) => void;
}

export type ExclusionReason = 'host' | 'exclude' | 'scheme' | 'robots' | 'maxDepth' | 'maxPages' | 'redirectLimit';

interface WorkItem {
  url: string;
  maxRedirect: number;
  depth: number;
}

const NO_REDIRECTS = { allowRedirects: false } as const;

/** `value` if within the option's documented bounds, else RangeError naming them. */
function bounded(name: CrawlOptionName, value: number): number {
  const problem = crawlOptionProblem(name, value, `Crawler option ${name}`);
  if (problem !== null) throw new RangeError(problem);
  return value;
}

function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

export class Crawler {
  readonly roots: string[];
  readonly maxRedirect: number;
  readonly maxTries: number;
  readonly maxTasks: number;
  readonly exclude: RegExp | null;
  readonly strict: boolean;
  readonly maxPages: number;
  readonly maxDepth: number | null;
  readonly respectRobots: boolean;
  /** The work queue of the chapter: (url, maxRedirect) items, plus the depth. */
  readonly q = new Queue<WorkItem>();
  /** Every URL ever queued. */
  readonly seenUrls = new Set<string>();
  /** One statistic per URL finished, in finishing order (the chapter's `done`). */
  readonly done: FetchStatistic[] = [];
  /** URLs seen but not crawled, with why. */
  readonly excluded = new Map<string, ExclusionReason>();
  /** The errors behind failed statistics, with their stacks (the inspector shows them). */
  readonly errors: Array<{ url: string; error: unknown }> = [];
  readonly session: ClientSession;
  private readonly hosts: HostMatcher;
  /** `scheme://host:port/` of each root: links starting so are on a root's host. */
  private readonly rootOrigins: string[];
  private readonly robotsByOrigin = new Map<string, Future<RobotsRules>>();
  private readonly onStatistic: ((stat: FetchStatistic) => void) | null;
  private t0 = 0;
  private t1: number | null = null;
  /** The loop crawl() runs on: elapsed() reads its clock from outside a step too (progress displays). */
  private clock: EventLoop | null = null;
  private busy = 0;
  private workers: Task<void>[] = [];
  /** URLs the workers are fetching now. */
  private readonly fetching = new Set<string>();
  /** Set when the crawl was cancelled: what it was fetching and what was still queued. */
  interrupted: { inFlight: string[]; queued: string[] } | null = null;
  /** The status robots.txt answered with, by origin (null: it could not be fetched). */
  private readonly robotsStatus = new Map<string, number | null>();

  constructor(roots: string[], options: CrawlerOptions = {}) {
    if (roots.length === 0) throw new TypeError('the crawler needs at least one root URL');
    this.maxRedirect = bounded('maxRedirect', options.maxRedirect ?? 10);
    this.maxTries = bounded('maxTries', options.maxTries ?? 4);
    this.maxTasks = bounded('maxTasks', options.maxTasks ?? 100);
    this.exclude = options.exclude == null || options.exclude === '' ? null : typeof options.exclude === 'string' ? new RegExp(options.exclude) : options.exclude;
    this.strict = options.strict ?? true;
    this.maxPages = bounded('maxPages', options.maxPages ?? 0);
    this.maxDepth = options.maxDepth == null ? null : bounded('maxDepth', options.maxDepth);
    this.respectRobots = options.robots ?? true;
    this.onStatistic = options.onStatistic ?? null;
    this.session = new ClientSession({ timeout: { connect: 10, read: 15, total: 30 }, ...options.session });
    this.roots = roots.map((r) => parseRoot(r));
    this.hosts = new HostMatcher(this.roots, this.strict);
    this.rootOrigins = [...new Set(this.roots.map((r) => new URL(r).origin + '/'))];
    for (const root of this.roots) this.addUrl(root, this.maxRedirect, 0);
  }

  /** Crawls until every queued URL is done; then cancels the workers. */
  @coroutine
  *crawl(): Coroutine<void> {
    const loop = getRunningLoop();
    this.clock = loop;
    // The loop's time stands still while a view holds the loop: a crawl held paused in the
    // inspector is not slower for it.
    this.t0 = loop.time();
    this.workers = [];
    for (let i = 0; i < this.maxTasks; i++) this.workers.push(loop.createTask(this.work(), { name: `worker-${i + 1}` }));
    let finished = false;
    try {
      yield* this.q.join();
      finished = true;
    } finally {
      this.t1 = loop.time();
      if (!finished) this.noteInterrupted();
      for (const w of this.workers) w.cancel();
      // A robots.txt task is every worker's, shielded from one worker's cancel: the crawl's end cancels it.
      const robots = [...this.robotsByOrigin.values()].filter((r) => !r.done());
      for (const r of robots) r.cancel();
      // Let the workers unwind (closing the connections they hold) before the crawl ends.
      const unwinding: Array<Future<unknown>> = [...this.workers, ...robots];
      if (unwinding.length > 0) yield* gather(...unwinding, { returnExceptions: true });
      this.session.close();
    }
  }

  /** The crawl stopped before its queue was done: keep what was in flight and still queued. */
  private noteInterrupted(): void {
    const queued: string[] = [];
    while (!this.q.empty()) {
      queued.push(this.q.getNowait().url);
      this.q.taskDone();
    }
    this.interrupted = { inFlight: [...this.fetching], queued };
  }

  /** A worker: takes URLs from the queue until cancelled. */
  @coroutine
  *work(): Coroutine<void> {
    try {
      for (;;) {
        const item = yield* this.q.get();
        this.busy++;
        this.fetching.add(item.url);
        try {
          yield* this.fetch(item.url, item.maxRedirect, item.depth);
        } catch (e) {
          if (e instanceof CancelledError) throw e;
          // Anything the fetch did not expect: the URL fails, the crawl goes on.
          this.recordFailure(item.url, e);
        } finally {
          this.busy--;
          this.fetching.delete(item.url);
          this.q.taskDone();
        }
      }
    } catch (e) {
      if (!(e instanceof CancelledError)) throw e;
    }
  }

  /** Fetches one URL with retries, records its statistic and queues its new links. */
  @coroutine
  *fetch(url: string, maxRedirect: number, depth: number): Coroutine<void> {
    if (this.respectRobots && !(this.robotsAllowNow(url) ?? (yield* this.robotsAllow(url)))) {
      this.excluded.set(url, 'robots');
      return;
    }
    let response: ClientResponse | null = null;
    for (let tries = 1; ; tries++) {
      try {
        response = yield* this.session.get(url, NO_REDIRECTS);
        break;
      } catch (e) {
        if (e instanceof CancelledError) throw e;
        const verdict = retryVerdict(e, tries, this.maxTries);
        if (!verdict.retry) {
          this.recordFailure(url, e, null, null, { tries, why: verdict.why });
          return;
        }
      }
    }
    try {
      if (isRedirect(response)) {
        const location = response.headers.get('location')!;
        let nextUrl: string;
        try {
          nextUrl = dropFragment(new URL(location, url).href);
        } catch {
          this.recordFailure(url, new HttpProtocolError(url, `invalid Location ${JSON.stringify(location.slice(0, 100))}`));
          return;
        }
        this.record({ url, nextUrl, status: response.status, exception: null, size: 0, contentType: null, encoding: null, numUrls: 0, numNewUrls: 0 });
        if (this.seenUrls.has(nextUrl)) return;
        if (maxRedirect > 0) this.addLink(nextUrl, maxRedirect - 1, depth);
        else {
          this.seenUrls.add(nextUrl);
          this.excluded.set(nextUrl, 'redirectLimit');
        }
      } else {
        let parsed: { stat: FetchStatistic; links: string[] };
        try {
          parsed = yield* this.parseLinks(response, url);
        } catch (e) {
          if (e instanceof CancelledError) throw e;
          // The response arrived but could not be used: keep its status beside the error.
          this.recordFailure(url, e, response.status, response.headers.get('content-type') ?? null);
          return;
        }
        const { stat, links } = parsed;
        const fresh = links.filter((l) => !this.seenUrls.has(l));
        stat.numNewUrls = 0;
        // parseLinks kept only links on the crawl's sites; what is left to check is the limits.
        for (const link of fresh) if (this.addCheckedLink(link, this.maxRedirect, depth + 1)) stat.numNewUrls++;
        this.record(stat);
      }
    } catch (e) {
      if (e instanceof CancelledError) throw e;
      this.recordFailure(url, e);
    } finally {
      response.release();
    }
  }

  /** Reads a response's body and finds its links. */
  @coroutine
  *parseLinks(response: ClientResponse, url: string): Coroutine<{ stat: FetchStatistic; links: string[] }> {
    const body = yield* response.read();
    let links: string[] = [];
    let encoding: string | null = null;
    let title: string | undefined;
    const contentType = response.headers.get('content-type') ?? null;
    if (response.status === 200 && contentType !== null) {
      const found = extractLinks(body, contentType, response.url);
      encoding = found.charset;
      title = found.title;
      // As the chapter's parse_links: only links the crawl may follow count.
      if (found.isHtml) links = found.links.filter((l) => this.isAllowedLink(l));
    }
    const stat: FetchStatistic = { url, nextUrl: null, status: response.status, exception: null, size: body.length, contentType, encoding, numUrls: links.length, numNewUrls: 0 };
    if (title !== undefined) stat.title = title;
    return { stat, links };
  }

  /** The robots.txt verdict when that origin's rules are loaded already, else null. */
  robotsAllowNow(url: string): boolean | null {
    // Crawled URLs are WHATWG hrefs: the origin ends at the first '/' after '//'.
    const slash = url.indexOf('/', url.indexOf('//') + 2);
    if (slash < 0) return null;
    const rules = this.robotsByOrigin.get(url.slice(0, slash));
    if (rules === undefined || !rules.done() || rules.cancelled()) return null;
    return rules.result().isAllowed(url.slice(slash));
  }

  /** Whether robots.txt of the URL's origin lets us fetch it (fetched once per origin). */
  @coroutine
  *robotsAllow(url: string): Coroutine<boolean> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return true;
    }
    let rules = this.robotsByOrigin.get(u.origin);
    if (rules === undefined) {
      rules = getRunningLoop().createTask(this.loadRobots(u.origin), { name: `robots ${u.origin}` });
      this.robotsByOrigin.set(u.origin, rules);
    }
    // Shielded: every worker of the origin awaits this one task, and a cancel of one worker (a
    // view's Cancel Task) must not cancel it for the others, as awaiting it directly would.
    const r = yield* shield(rules);
    return r.isAllowed(u.pathname + u.search);
  }

  /** Fetches and parses robots.txt: 4xx or a network failure allow all; 5xx disallows all (RFC 9309). */
  @coroutine
  *loadRobots(origin: string): Coroutine<RobotsRules> {
    this.robotsStatus.set(origin, null);
    try {
      const response = yield* this.session.get(`${origin}/robots.txt`, { timeout: { total: 15 } });
      this.robotsStatus.set(origin, response.status);
      try {
        if (response.status >= 500) return RobotsRules.disallowAll();
        if (response.status !== 200) return RobotsRules.allowAll();
        return RobotsRules.parse(yield* response.text('utf-8'));
      } finally {
        response.release();
      }
    } catch (e) {
      if (e instanceof CancelledError) throw e;
      return RobotsRules.allowAll();
    }
  }

  /** Queues a URL found as a link (or redirect target) if allowed; records why not otherwise. */
  addLink(url: string, maxRedirect: number, depth: number): boolean {
    if (this.seenUrls.has(url)) return false;
    const reason = this.siteExclusion(url);
    if (reason !== null) {
      this.noteExcluded(url, reason);
      return false;
    }
    return this.addCheckedLink(url, maxRedirect, depth);
  }

  /** Queues a URL already known to be on the crawl's sites, unless a limit says no. */
  private addCheckedLink(url: string, maxRedirect: number, depth: number): boolean {
    const reason = this.limitExclusion(depth);
    if (reason !== null) {
      this.noteExcluded(url, reason);
      return false;
    }
    this.addUrl(url, maxRedirect, depth);
    return true;
  }

  private noteExcluded(url: string, reason: ExclusionReason): void {
    if (!this.excluded.has(url) && !this.seenUrls.has(url)) this.excluded.set(url, reason);
  }

  /** Fast path of host matching: the URL is on the very origin of a root. */
  private onRootOrigin(url: string): boolean {
    for (let i = 0; i < this.rootOrigins.length; i++) if (url.startsWith(this.rootOrigins[i]!)) return true;
    return false;
  }

  /**
   * The chapter's url_allowed: http(s), not excluded, on a root's host. A link that is not
   * is recorded as excluded (unless seen already).
   */
  isAllowedLink(url: string): boolean {
    const reason = this.siteExclusion(url);
    if (reason === null) return true;
    this.noteExcluded(url, reason);
    return false;
  }

  /** Why a URL is not crawled, or null if it is allowed. */
  exclusionReason(url: string, depth: number): ExclusionReason | null {
    return this.siteExclusion(url) ?? this.limitExclusion(depth);
  }

  /** Whether the URL is outside the crawl's sites (scheme, exclude pattern, host). */
  private siteExclusion(url: string): ExclusionReason | null {
    if (!url.startsWith('http://') && !url.startsWith('https://') && !/^https?:/i.test(url)) return 'scheme';
    if (this.exclude !== null && this.exclude.test(url)) return 'exclude';
    if (!this.onRootOrigin(url) && !this.hosts.matches(url)) return 'host';
    return null;
  }

  /** Whether a limit (depth, pages) stops a URL at this depth. */
  private limitExclusion(depth: number): ExclusionReason | null {
    if (this.maxDepth !== null && depth > this.maxDepth) return 'maxDepth';
    if (this.maxPages > 0 && this.seenUrls.size >= this.maxPages) return 'maxPages';
    return null;
  }

  /** Marks a URL seen and queues it (the chapter's add_url). */
  addUrl(url: string, maxRedirect = this.maxRedirect, depth = 0): void {
    this.seenUrls.add(url);
    this.q.putNowait({ url, maxRedirect, depth });
  }

  /**
   * Records a URL as failed (with the status of its response when one arrived, and for a
   * fetch that failed, how many tries it had and why no more).
   */
  recordFailure(url: string, error: unknown, status: number | null = null, contentType: string | null = null, retry?: { tries: number; why: string }): void {
    this.errors.push({ url, error });
    const stat: FetchStatistic = { url, nextUrl: null, status, exception: describeError(error), size: 0, contentType, encoding: null, numUrls: 0, numNewUrls: 0 };
    if (retry !== undefined) {
      stat.tries = retry.tries;
      stat.retry = retry.why;
    }
    this.record(stat);
  }

  /**
   * What the report says besides the URLs: each root that robots.txt kept from being
   * fetched, and why (a 5xx robots.txt, or rules that disallow it).
   */
  notices(): string[] {
    const out: string[] = [];
    for (const root of this.roots) {
      if (this.excluded.get(root) !== 'robots') continue;
      const origin = new URL(root).origin;
      const status = this.robotsStatus.get(origin);
      out.push(
        status != null && status >= 500
          ? `robots.txt of ${origin} answered HTTP ${status}: RFC 9309 reads an unreachable robots.txt as disallowing everything, so nothing there was fetched (--no-robots crawls it anyway)`
          : `robots.txt of ${origin} disallows the root ${root}: it was not fetched (--no-robots crawls it anyway)`,
      );
    }
    return out;
  }

  record(stat: FetchStatistic): void {
    this.done.push(stat);
    this.onStatistic?.(stat);
  }

  /** Seconds since crawl() started (to its end once finished), without the time the loop was held paused. */
  elapsed(): number {
    if (this.t0 === 0) return 0;
    return (this.t1 ?? (this.clock ?? getRunningLoop()).time()) - this.t0;
  }

  /** Live numbers for progress displays. */
  progress(): { done: number; queued: number; inFlight: number; errors: number; seen: number; excluded: number } {
    return { done: this.done.length, queued: this.q.qsize(), inFlight: this.busy, errors: this.errors.length, seen: this.seenUrls.size, excluded: this.excluded.size };
  }

  /** The counters of the crawl so far. */
  get stats(): CrawlSummary {
    return summarize(this.done);
  }

  /** The chapter's report: a line per URL, counters, totals and rate. */
  report(): string {
    const interrupted = this.interrupted;
    let text = formatReport(this.done, {
      seconds: this.t1 === null && this.t0 === 0 ? 0 : this.elapsedSafe(),
      // Interrupted: what was still to do and being done at that moment (the workers have
      // unwound since, so the live counters would say 0).
      todo: interrupted === null ? this.q.qsize() : interrupted.queued.length,
      busy: interrupted === null ? this.busy : interrupted.inFlight.length,
      maxTasks: this.maxTasks,
      ...(interrupted === null ? {} : { interrupted }),
      notices: this.notices(),
    });
    if (this.excluded.size > 0) {
      const byReason = new Map<string, number>();
      for (const reason of this.excluded.values()) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
      text += `${this.excluded.size} urls excluded: ${[...byReason].sort().map(([r, n]) => `${n} ${r}`).join(', ')}\n`;
    }
    return text;
  }

  private elapsedSafe(): number {
    try {
      return this.elapsed();
    } catch {
      return this.t1 !== null ? this.t1 - this.t0 : 0;
    }
  }
}

function isRedirect(response: ClientResponse): boolean {
  return isRedirectStatus(response.status) && response.headers.has('location');
}

function dropFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
