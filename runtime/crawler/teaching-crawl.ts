// The bookkeeping shared by the crawler's two teaching stages (stage 1: the callback Fetcher,
// stage 2: hand-made generator coroutines). The stages differ only in how a fetch waits for
// its socket; what a crawl is (which URLs to visit, what each visit recorded, when to stop,
// when a fetch has taken too long) is the same, and lives here so both crawl a site to the
// same result as stage 3.
//
// Invariants:
// - `seenUrls` holds every URL the crawl decided to fetch. Each one ends with exactly one
//   FetchStatistic in `stats`: a response, or a failure whose Error is also kept, as thrown
//   (stack included), in `errors`; or it is excluded, with why, in `exclusions` (the
//   `exclude` pattern, `maxDepth`, robots.txt).
// - robots.txt (option `robots`, as stage 3's): the first URL admitted on an origin starts a
//   fetch of that origin's robots.txt, through the stage's own fetch like any URL, and waits,
//   with every later URL of the origin, until it is recorded; then each is fetched or
//   excluded. The robots.txt fetch itself is no statistic (as in stage 3). 5xx disallows all,
//   other non-200 answers and failures allow all (RFC 9309).
// - Depth: roots are depth 0, a page's links one deeper, a redirect's target as deep as the
//   redirect; links deeper than `maxDepth` are excluded.
// - `inFlight` counts the admitted fetches that have not finished; the crawl is `stopped` when
//   it drops to zero. Fetches are admitted before the fetch that found them finishes, so the
//   count cannot touch zero while links are still being followed.
// - Time is the loop's own monotonic clock (`now()`, seconds). Each fetch has one deadline,
//   `timeout` after it starts; since the timeout is the same for all, deadlines expire in the
//   order they were armed and a FIFO is enough. A loop waits in `select()` at most until the
//   next deadline (`selectTimeout()`) and fires the expired ones (`expireDeadlines()`): a
//   stalled server never blocks anything and never hangs the crawl.
// - Nothing here throws out of a stage's loop: `recordResponse` throws only for its caller (a
//   fetch) to record as that URL's failure.
// - No cap on concurrent fetches, as in the chapter: every new link gets its connection at
//   once. On a site of thousands of pages the connects pile up in the server's accept
//   backlog and the slowest may reach the timeout; stage 3's worker pool is the cure.

import type { ConnectionOptions } from 'node:tls';
import { CoroscopeError } from '../errors';
import { inspect } from '../inspection';
import { announceProgramLoop, callbackName, selectorSockets, type ProgramLoopInspection } from '../program-loops';
import { DefaultSelector, EVENT_READ, type SelectorKey } from '../selector';
import { Socket, type SocketOptions } from '../socket';
import { HostMatcher } from './hosts';
import { isRedirectStatus } from '../http/redirect-statuses';
import { buildHttp10Request, MalformedResponseError, type Http10Response } from './http10-response';
import { extractLinks } from './links';
import type { FetchStatistic } from './report';
import { RobotsRules } from './robots';
import { parseRoot } from './roots';

export interface TeachingCrawlOptions {
  /** Redirects followed from a URL before giving up (the chapter's max_redirect). Default 10. */
  maxRedirect?: number;
  /** Stay on the roots' hosts exactly (true, the default) or also visit their subdomains. */
  strict?: boolean;
  /** Links whose URL matches are not fetched (listed in the result's `excluded`). */
  exclude?: RegExp;
  /** Most URLs fetched; links found beyond it are ignored. Default (and 0): no limit. */
  maxPages?: number;
  /** Seconds a fetch may take, from connect to the last byte. Default 10; Infinity disables. */
  timeout?: number;
  /** Largest response (head and body) read before the fetch fails. Default 16 MiB. */
  maxResponseBytes?: number;
  /** TLS options for https URLs (e.g. `{ ca }` for a private certificate authority). */
  tls?: ConnectionOptions;
  /** Links deeper than this from a root are not followed (default: no limit). */
  maxDepth?: number | null;
  /** Fetch each origin's robots.txt first and skip what it disallows. Default false (the chapter's stages do not). */
  robots?: boolean;
}

/** Why a URL the crawl found was not fetched. */
export type TeachingExclusion = 'exclude' | 'maxDepth' | 'robots';

/** A failure kept as thrown: the inspector shows its stack next to the same failure elsewhere. */
export interface CrawlError {
  url: string;
  error: Error;
}

export interface TeachingCrawlResult {
  /** One statistic per URL fetched (or that failed), in the order they finished. */
  stats: FetchStatistic[];
  /** Wall-clock duration of the crawl. */
  seconds: number;
  /** Every failure recorded in `stats`, with the original Error. */
  errors: CrawlError[];
  /** URLs found on the crawled hosts that the `exclude` pattern kept out. */
  excluded: string[];
  /** Every URL found on the crawled hosts and not fetched, with why. */
  exclusions: ReadonlyMap<string, TeachingExclusion>;
}

/** A URL admitted to the crawl, to be fetched with this many redirects left. */
export interface FetchTarget {
  url: string;
  maxRedirect: number;
}

/** Where and what to send for one URL. */
export interface Endpoint {
  host: string;
  port: number;
  tls: boolean;
  request: Buffer;
}

/** A pending deadline; cancel it when the fetch ends first. */
export interface Deadline {
  cancel(): void;
}

/** A redirect chain longer than the crawl's maxRedirect. */
export class RedirectLimitError extends CoroscopeError {}
/** A URL that the teaching stages cannot fetch (not http or https, or not a URL at all). */
export class UnsupportedUrlError extends CoroscopeError {}
/** A response larger than the crawl's maxResponseBytes. */
export class ResponseTooLargeError extends CoroscopeError {}

export const DEFAULT_MAX_REDIRECT = 10;
export const DEFAULT_FETCH_TIMEOUT = 10;
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;


interface DeadlineEntry {
  readonly when: number;
  readonly onExpire: () => void;
  /** What it is the deadline of, for the inspector ("the fetch of URL"). */
  readonly of: string;
  active: boolean;
}

/** `Name: message`, the form a statistic's `exception` takes. */
export function describeError(error: Error): string {
  return `${error.name}: ${error.message}`;
}

/** An Error for whatever was thrown (a non-Error is wrapped, with it as the cause). */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(`non-Error thrown: ${String(thrown)}`, { cause: thrown });
}

/** A root as the crawl names it (see roots.ts), or as given when it is not a URL to crawl (recorded as failed). */
function normalizeRoot(root: string): string {
  try {
    return parseRoot(root);
  } catch {
    return root;
  }
}

function checkCount(name: string, value: number, min: number, allowInfinity: boolean): number {
  if (!(Number.isSafeInteger(value) || (allowInfinity && value === Infinity)) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}${allowInfinity ? ' (or Infinity)' : ''}, got ${String(value)}`);
  }
  return value;
}

export class TeachingCrawl {
  readonly selector = new DefaultSelector();
  readonly seenUrls = new Set<string>();
  readonly stats: FetchStatistic[] = [];
  readonly errors: CrawlError[] = [];
  readonly excluded = new Map<string, TeachingExclusion>();
  /** Set when no fetch is in flight any more: the loop stops. */
  stopped = false;

  /** The roots as given; `admitRoots()` admits them. */
  readonly roots: readonly string[];
  readonly maxRedirect: number;
  readonly maxPages: number;
  readonly timeout: number;
  readonly maxResponseBytes: number;
  private readonly matcher: HostMatcher;
  private readonly exclude: RegExp | undefined;
  private readonly tlsOptions: ConnectionOptions | undefined;
  readonly maxDepth: number | null;
  readonly respectRobots: boolean;
  /** Depth of each URL seen (roots 0). */
  private readonly depths = new Map<string, number>();
  /** Per origin: its robots.txt rules, or the targets waiting for them. */
  private readonly robotsByOrigin = new Map<string, RobotsRules | FetchTarget[]>();
  /** robots.txt URLs being fetched, with their origin. */
  private readonly robotsFetches = new Map<string, string>();
  private inFlightCount = 0;
  private readonly startedAt: number;
  /** Deadlines in arming order (= expiry order); entries before `deadlineHead` are gone. */
  private deadlines: DeadlineEntry[] = [];
  private deadlineHead = 0;
  /** The batch of ready sockets the loop is running, and the index of the one running. */
  private batch: ReadonlyArray<readonly [SelectorKey, number]> = [];
  private batchIndex = 0;
  /** What the inspector calls this crawl's loop. */
  protected readonly loopTitle: string = 'a select loop';
  private readonly withdrawLoop: () => void;

  constructor(roots: readonly string[], options: TeachingCrawlOptions = {}) {
    this.roots = [...roots];
    this.maxRedirect = checkCount('maxRedirect', options.maxRedirect ?? DEFAULT_MAX_REDIRECT, 0, false);
    const maxPages = checkCount('maxPages', options.maxPages ?? 0, 0, true);
    this.maxPages = maxPages === 0 ? Infinity : maxPages;
    this.maxResponseBytes = checkCount('maxResponseBytes', options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, 1, false);
    const timeout = options.timeout ?? DEFAULT_FETCH_TIMEOUT;
    if (!(timeout > 0)) throw new RangeError(`timeout must be a number of seconds > 0, got ${String(timeout)}`);
    this.timeout = timeout;
    this.matcher = new HostMatcher(roots.map(normalizeRoot), options.strict ?? true);
    this.exclude = options.exclude;
    this.tlsOptions = options.tls;
    this.maxDepth = options.maxDepth == null ? null : checkCount('maxDepth', options.maxDepth, 0, false);
    this.respectRobots = options.robots ?? false;
    this.startedAt = this.now();
    // Last: a crawl whose options are refused above is never announced.
    this.withdrawLoop = announceProgramLoop(this);
  }

  /** The loop's clock: monotonic seconds. */
  now(): number {
    return performance.now() / 1000;
  }

  /** Fetches admitted and not finished yet. */
  get inFlight(): number {
    return this.inFlightCount;
  }

  // --- which URLs are fetched ------------------------------------------------------------

  /**
   * Admits the roots; returns those to fetch. A root that is not an http(s) URL is recorded
   * as a failure right away. Roots are fetched even if `exclude` matches them.
   */
  admitRoots(): FetchTarget[] {
    const targets: FetchTarget[] = [];
    for (const root of this.roots) {
      const url = normalizeRoot(root);
      if (this.seenUrls.has(url)) continue;
      if (!isHttpUrl(url)) {
        this.seenUrls.add(url);
        this.recordFailure(url, new UnsupportedUrlError(`not an http or https URL: ${JSON.stringify(root)}`), null);
        continue;
      }
      if (this.admit(url, 0)) targets.push(...this.afterRobots({ url, maxRedirect: this.maxRedirect }));
    }
    if (this.inFlightCount === 0) this.stopped = true;
    return targets;
  }

  /**
   * An admitted target as it may go ahead: itself when robots.txt is off or allows it, none
   * when it disallows it (excluded) or is not known yet (the target waits; the first to wait
   * on an origin starts the fetch of its robots.txt, which is returned instead).
   */
  private afterRobots(target: FetchTarget): FetchTarget[] {
    if (!this.respectRobots) return [target];
    let origin: string;
    try {
      origin = new URL(target.url).origin;
    } catch {
      return [target];
    }
    const state = this.robotsByOrigin.get(origin);
    if (state instanceof RobotsRules) return this.robotsVerdict(state, target);
    if (state !== undefined) {
      state.push(target);
      return [];
    }
    this.robotsByOrigin.set(origin, [target]);
    const robotsUrl = `${origin}/robots.txt`;
    this.robotsFetches.set(robotsUrl, origin);
    this.inFlightCount++;
    return [{ url: robotsUrl, maxRedirect: 0 }];
  }

  private robotsVerdict(rules: RobotsRules, target: FetchTarget): FetchTarget[] {
    if (rules.isAllowed(target.url)) return [target];
    this.excluded.set(target.url, 'robots');
    // It was admitted (in flight) and ends here.
    this.fetchFinished();
    return [];
  }

  /** A robots.txt fetch ended: the targets waiting for its origin go ahead (or are excluded). */
  private robotsLoaded(robotsUrl: string, rules: RobotsRules): FetchTarget[] {
    const origin = this.robotsFetches.get(robotsUrl)!;
    this.robotsFetches.delete(robotsUrl);
    const waiting = this.robotsByOrigin.get(origin);
    this.robotsByOrigin.set(origin, rules);
    const targets: FetchTarget[] = [];
    if (Array.isArray(waiting)) for (const target of waiting) targets.push(...this.robotsVerdict(rules, target));
    return targets;
  }

  /** Whether a URL found by the crawl may be fetched; excluded ones are noted. */
  private allowed(url: string): boolean {
    if (!this.matcher.matches(url)) return false;
    if (this.exclude !== undefined && url.search(this.exclude) >= 0) {
      this.excluded.set(url, 'exclude');
      return false;
    }
    return true;
  }

  /**
   * Marks `url` seen and in flight at `depth`, unless it was seen already, the page budget
   * is spent, or it is deeper than maxDepth (then excluded).
   */
  private admit(url: string, depth: number): boolean {
    if (this.seenUrls.has(url) || this.seenUrls.size >= this.maxPages) return false;
    if (this.maxDepth !== null && depth > this.maxDepth) {
      if (!this.excluded.has(url)) this.excluded.set(url, 'maxDepth');
      return false;
    }
    this.seenUrls.add(url);
    this.depths.set(url, depth);
    this.inFlightCount++;
    return true;
  }

  /** A fetch of an admitted URL ended (recorded one way or the other). */
  fetchFinished(): void {
    this.inFlightCount--;
    if (this.inFlightCount <= 0) this.stopped = true;
  }

  // --- what a fetch sends ----------------------------------------------------------------

  /** Host, port and request of an http(s) URL. */
  endpointOf(url: string): Endpoint {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UnsupportedUrlError(`not a URL: ${JSON.stringify(url)}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new UnsupportedUrlError(`only http and https URLs can be fetched, not ${JSON.stringify(url)}`);
    }
    const tls = parsed.protocol === 'https:';
    const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
    const port = parsed.port === '' ? (tls ? 443 : 80) : Number(parsed.port);
    return { host, port, tls, request: buildHttp10Request(parsed) };
  }

  /** Options of the socket for an endpoint: TLS for https (verified; see `tls` option). */
  socketOptionsFor(endpoint: Endpoint): SocketOptions {
    return endpoint.tls ? { tls: this.tlsOptions ?? true } : {};
  }

  // --- what a fetch records --------------------------------------------------------------

  /**
   * Records a complete response and admits what it leads to: the Location of a redirect, or
   * the allowed links of a 200 HTML page. Returns the admitted URLs, for the caller to fetch.
   * Throws (records nothing) when the response cannot be used: a redirect without a usable
   * Location, or a page whose links cannot be extracted (UnknownCharsetError); the caller
   * records that with `recordFailure`.
   */
  recordResponse(url: string, maxRedirect: number, response: Http10Response): FetchTarget[] {
    if (this.robotsFetches.has(url)) {
      // As stage 3: 5xx disallows all, any other non-200 allows all (RFC 9309).
      const status = response.status;
      const rules = status >= 500 ? RobotsRules.disallowAll() : status === 200 ? RobotsRules.parse(response.body.toString('utf-8')) : RobotsRules.allowAll();
      return this.robotsLoaded(url, rules);
    }
    const depth = this.depths.get(url) ?? 0;
    const contentType = response.headers.get('content-type') ?? null;
    const stat: FetchStatistic = {
      url,
      nextUrl: null,
      status: response.status,
      exception: null,
      size: response.body.length,
      contentType,
      encoding: null,
      numUrls: 0,
      numNewUrls: 0,
    };
    const targets: FetchTarget[] = [];
    if (isRedirectStatus(response.status)) {
      const nextUrl = this.locationOf(url, response);
      // As the chapter (and stage 3) record a redirect: where it goes, not what it carried.
      stat.nextUrl = nextUrl;
      stat.size = 0;
      stat.contentType = null;
      if (!this.seenUrls.has(nextUrl)) {
        if (maxRedirect <= 0) {
          const error = new RedirectLimitError(`redirect limit (${this.maxRedirect}) reached: ${url} redirects to ${nextUrl}`);
          stat.exception = describeError(error);
          this.errors.push({ url, error });
        } else if (this.allowed(nextUrl) && this.admit(nextUrl, depth)) {
          targets.push(...this.afterRobots({ url: nextUrl, maxRedirect: maxRedirect - 1 }));
        }
      }
    } else if (response.status === 200) {
      const page = extractLinks(response.body, contentType ?? undefined, url);
      // As in the chapter: the declared charset (utf-8 by default) of any 200 response.
      stat.encoding = page.charset;
      let numUrls = 0;
      let numNewUrls = 0;
      for (const link of page.links) {
        if (!this.allowed(link)) continue;
        numUrls++;
        if (this.admit(link, depth + 1)) {
          numNewUrls++;
          targets.push(...this.afterRobots({ url: link, maxRedirect: this.maxRedirect }));
        }
      }
      stat.numUrls = numUrls;
      stat.numNewUrls = numNewUrls;
    }
    this.stats.push(stat);
    return targets;
  }

  /** The absolute, defragmented target of a redirect. */
  private locationOf(url: string, response: Http10Response): string {
    const location = response.headers.get('location');
    if (location === undefined || location === '') {
      throw new MalformedResponseError(`${response.status} redirect without a Location header`);
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new MalformedResponseError(`redirect to an invalid Location: ${JSON.stringify(location.slice(0, 200))}`);
    }
    next.hash = '';
    return next.href;
  }

  /**
   * Records the failure of a fetch; `response` is what was parsed before it failed, if
   * anything. Returns what may be fetched now (the URLs that waited for a robots.txt that
   * could not be fetched: it allows all), for the caller to fetch.
   */
  recordFailure(url: string, thrown: unknown, response: Http10Response | null): FetchTarget[] {
    if (this.robotsFetches.has(url)) return this.robotsLoaded(url, response !== null && response.status >= 500 ? RobotsRules.disallowAll() : RobotsRules.allowAll());
    const error = asError(thrown);
    this.stats.push({
      url,
      nextUrl: null,
      status: response === null ? null : response.status,
      exception: describeError(error),
      size: response === null ? 0 : response.body.length,
      contentType: response === null ? null : (response.headers.get('content-type') ?? null),
      encoding: null,
      numUrls: 0,
      numNewUrls: 0,
    });
    this.errors.push({ url, error });
    return [];
  }

  // --- deadlines on the loop's clock -----------------------------------------------------

  /** Calls `onExpire` from the loop once `timeout` seconds have passed, unless cancelled. */
  armDeadline(onExpire: () => void, of = 'a fetch'): Deadline {
    if (this.timeout === Infinity) return { cancel: () => undefined };
    const entry: DeadlineEntry = { when: this.now() + this.timeout, onExpire, of, active: true };
    this.deadlines.push(entry);
    return {
      cancel: () => {
        entry.active = false;
      },
    };
  }

  /** Seconds `select()` may wait before the next deadline; null when there is none. */
  selectTimeout(): number | null {
    const next = this.nextDeadline();
    return next === undefined ? null : Math.max(0, next.when - this.now());
  }

  /** Fires every deadline that has passed (the loop calls this after each select). */
  expireDeadlines(): void {
    const now = this.now();
    for (let next = this.nextDeadline(); next !== undefined && next.when <= now; next = this.nextDeadline()) {
      this.deadlineHead++;
      next.active = false;
      next.onExpire();
    }
  }

  private nextDeadline(): DeadlineEntry | undefined {
    const list = this.deadlines;
    while (this.deadlineHead < list.length && !list[this.deadlineHead]!.active) this.deadlineHead++;
    if (this.deadlineHead > 1024 && this.deadlineHead * 2 > list.length) {
      this.deadlines = list.slice(this.deadlineHead);
      this.deadlineHead = 0;
    }
    return this.deadlines[this.deadlineHead];
  }

  /**
   * True when fetches are in flight yet nothing could ever wake the loop (no socket watched,
   * no deadline): a bug of a stage, which its loop reports instead of spinning forever.
   */
  isWedged(): boolean {
    return !this.stopped && this.selector.getMap().size === 0 && this.nextDeadline() === undefined;
  }

  // --- the end -----------------------------------------------------------------------------

  result(): TeachingCrawlResult {
    return {
      stats: this.stats,
      seconds: this.now() - this.startedAt,
      errors: this.errors,
      excluded: [...this.excluded].filter(([, why]) => why === 'exclude').map(([url]) => url),
      exclusions: new Map(this.excluded),
    };
  }

  /** Closes the selector and any socket still registered with it (after a stage's bug). */
  /**
   * The loop runs callback `index` of a batch select() returned (the rest of the batch is
   * the ready list the inspector shows); `nowRunning([], 0)` once the batch is done.
   */
  nowRunning(batch: ReadonlyArray<readonly [SelectorKey, number]>, index: number): void {
    this.batch = batch;
    this.batchIndex = index;
  }

  /** The program loop's view of this crawl (runtime/program-loops.ts). */
  [inspect](): ProgramLoopInspection {
    const now = this.now();
    const keyText = ([key, mask]: readonly [SelectorKey, number]): string => `fd ${key.fd} ${mask & EVENT_READ ? 'readable' : 'writable'}: ${callbackName(key.data)}`;
    const running = this.batch[this.batchIndex];
    return {
      kind: 'selector',
      title: this.loopTitle,
      running: () => (running === undefined ? null : keyText(running)),
      ready: () => this.batch.slice(this.batchIndex + 1).map(keyText),
      sockets: () => selectorSockets(this.selector),
      timers: () => this.deadlines.slice(this.deadlineHead).filter((d) => d.active).map((d) => ({ dueInMs: Math.max(0, (d.when - now) * 1000), callback: `timeout of ${d.of}` })),
      workers: () => [],
      notes: () => [`${this.stats.length} URLs done, ${this.inFlightCount} in flight, ${this.seenUrls.size} seen`],
    };
  }

  close(): void {
    this.withdrawLoop();
    for (const key of [...this.selector.getMap().values()]) {
      if (key.fileobj instanceof Socket) key.fileobj.close();
    }
    this.selector.close();
  }
}

/** Whether `url` parses as an http(s) URL with a host. */
function isHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}
