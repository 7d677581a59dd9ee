// Peer crawler: the chapter's crawler algorithm written the ordinary modern Node way, with
// async/await, undici's keep-alive connection pool and htmlparser2. Coroscope's generator
// crawler is measured against it, so it is meant to be a good, lean implementation, not a
// straw man: one pooled Agent (keep-alive, up to maxTasks sockets per origin), no redirect
// following inside the client, one htmlparser2 pass per page, no work the algorithm does not
// need. Like aiohttp and Coroscope's client it asks for gzip (Accept-Encoding) and undoes it
// (undici's request() leaves Content-Encoding to the caller), so compressing sites cost
// every crawler the same.
//
// Semantics (the chapter's, with the same knobs as Coroscope's Crawler):
// - A FIFO queue of {url, maxRedirect}; `maxTasks` workers take items until the queue's count
//   of unfinished items drops to zero, then they are told to stop.
// - `seenUrls` holds every URL ever queued; a URL is fetched at most once.
// - fetch: up to `maxTries` attempts to get a response (connection errors are retried);
//   a 300/301/302/303/307/308 answer is a redirect: its Location, resolved against the URL, is
//   queued with one redirect fewer unless already seen (redirect coalescing) or the budget is
//   spent; any other answer is read, and if it is 200 text/html (or application/xml) its
//   <a href> links are resolved, defragmented, filtered and the unseen ones queued with the
//   full redirect budget (links: the href of <a>, <area> and <link>, as Coroscope's crawler).
// - A link is allowed if it is http(s), does not match `exclude`, and its host is one of the
//   roots' hosts: in strict mode the same host or its www. twin; in lenient mode the same
//   last two labels. IP addresses must match exactly. Redirect targets are checked the same
//   way, so a redirect never leads the crawl off its hosts.
// - Every URL taken from the queue counts once in `fetched` and once in `byStatus`, under its
//   HTTP status or under "error" when every try failed.
//
// CLI: node --import tsx bench/peers/undici-crawler.ts URL... [--max-tasks N] [--max-tries N]
//        [--max-redirect N] [--exclude REGEX] [--lenient]
// prints one JSON line: {fetched, seconds, rate, byStatus, distinctUrls, cpuSeconds}.
import * as zlib from 'node:zlib';
import { Agent } from 'undici';
import { Parser } from 'htmlparser2';

export interface UndiciCrawlOptions {
  /** Redirects followed from any one link (default 10). */
  maxRedirect?: number;
  /** Attempts to get a response for one URL (default 4). */
  maxTries?: number;
  /** Concurrent workers, and the most sockets opened per origin (default 100). */
  maxTasks?: number;
  /** URLs matching this are neither queued nor fetched. */
  exclude?: RegExp | string;
  /** Strict host matching (default true). */
  strict?: boolean;
}

export interface UndiciCrawlResult {
  /** URLs taken from the queue and fetched (including the ones whose every try failed). */
  fetched: number;
  /** Wall-clock seconds from the first worker's start to the queue's drain. */
  seconds: number;
  /** fetched / seconds. */
  rate: number;
  /** Count of fetched URLs by HTTP status ("200", "301", ...) or "error". */
  byStatus: Record<string, number>;
  /** Every URL fetched. */
  urls: Set<string>;
}

interface WorkItem {
  url: string;
  maxRedirect: number;
}

const REDIRECT_STATUSES = new Set([300, 301, 302, 303, 307, 308]);
const PARSED_CONTENT_TYPES = new Set(['text/html', 'application/xml']);
const IP_ADDRESS = /^(\d+\.){3}\d+$|^\[[0-9a-f:.]+\]$/i;

/**
 * An unbounded FIFO work queue with join(), as asyncio.Queue: every put() counts as unfinished
 * until its taskDone(). close() releases waiting getters with `undefined`.
 */
class WorkQueue<T> {
  private items: T[] = [];
  private head = 0;
  private readonly getters: Array<(item: T | undefined) => void> = [];
  private unfinished = 0;
  private closed = false;
  private joiners: Array<() => void> = [];

  put(item: T): void {
    this.unfinished++;
    const getter = this.getters.pop();
    if (getter !== undefined) getter(item);
    else this.items.push(item);
  }

  /** The next item, or undefined once the queue is closed. */
  get(): T | undefined | Promise<T | undefined> {
    if (this.head < this.items.length) {
      const item = this.items[this.head++];
      if (this.head === this.items.length) {
        this.items = [];
        this.head = 0;
      }
      return item;
    }
    if (this.closed) return undefined;
    return new Promise((resolve) => this.getters.push(resolve));
  }

  taskDone(): void {
    if (--this.unfinished === 0) {
      const joiners = this.joiners;
      this.joiners = [];
      for (const resolve of joiners) resolve();
    }
  }

  join(): Promise<void> {
    if (this.unfinished === 0) return Promise.resolve();
    return new Promise((resolve) => this.joiners.push(resolve));
  }

  close(): void {
    this.closed = true;
    for (const getter of this.getters.splice(0)) getter(undefined);
  }
}

/** "example.co.uk" → "couk": the lenient host key (the last two labels). */
function lenientHostKey(host: string): string {
  return host.split('.').slice(-2).join('');
}

function mediaType(contentType: string | string[] | undefined): string {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  if (value === undefined) return '';
  const semicolon = value.indexOf(';');
  return (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
}

const REQUEST_HEADERS = { 'accept-encoding': 'gzip, deflate' };

/** The body as UTF-8 text, gzip or deflate undone. */
async function bodyText(
  body: { arrayBuffer(): Promise<ArrayBuffer>; text(): Promise<string> },
  contentEncoding: string | string[] | undefined,
): Promise<string> {
  const coding = (Array.isArray(contentEncoding) ? contentEncoding[0] : contentEncoding)?.trim().toLowerCase();
  if (coding === undefined || coding === '' || coding === 'identity') return body.text();
  const raw = Buffer.from(await body.arrayBuffer());
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync(raw).toString('utf8');
  if (coding === 'deflate') return zlib.inflateSync(raw).toString('utf8');
  throw new Error(`unsupported Content-Encoding ${coding}`);
}

/** Elements whose href is a link, as Coroscope's crawler (and the chapter's regex) follow. */
const LINK_ELEMENTS = new Set(['a', 'area', 'link']);

/** The distinct raw href values of <a>, <area> and <link> elements in an HTML document. */
function extractHrefs(html: string): Set<string> {
  const hrefs = new Set<string>();
  const parser = new Parser({
    onopentag(name, attributes) {
      if (LINK_ELEMENTS.has(name)) {
        const href = attributes.href;
        if (href !== undefined && href !== '') hrefs.add(href);
      }
    },
  });
  parser.end(html);
  return hrefs;
}

function defragmented(url: URL): string {
  const href = url.href;
  const hash = href.indexOf('#');
  return hash < 0 ? href : href.slice(0, hash);
}

export async function crawlWithUndici(
  roots: readonly string[],
  opts: UndiciCrawlOptions = {},
): Promise<UndiciCrawlResult> {
  const { maxRedirect = 10, maxTries = 4, maxTasks = 100, strict = true } = opts;
  // A global or sticky RegExp keeps state between test() calls; use a stateless copy.
  const exclude =
    opts.exclude === undefined
      ? undefined
      : typeof opts.exclude === 'string'
        ? new RegExp(opts.exclude)
        : new RegExp(opts.exclude.source, opts.exclude.flags.replace(/[gy]/g, ''));

  const rootHosts = new Set<string>();
  for (const root of roots) {
    const host = new URL(root).hostname.toLowerCase();
    if (host === '') continue;
    rootHosts.add(IP_ADDRESS.test(host) || strict ? host : lenientHostKey(host));
  }

  const hostAllowed = (host: string): boolean => {
    const lower = host.toLowerCase();
    if (rootHosts.has(lower)) return true;
    if (IP_ADDRESS.test(lower)) return false;
    if (strict) return rootHosts.has(lower.startsWith('www.') ? lower.slice(4) : `www.${lower}`);
    return rootHosts.has(lenientHostKey(lower));
  };

  const urlAllowed = (url: URL, href: string): boolean => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (exclude !== undefined && exclude.test(href)) return false;
    return hostAllowed(url.hostname);
  };

  const agent = new Agent({ connections: maxTasks, pipelining: 1, keepAliveTimeout: 30_000 });
  const queue = new WorkQueue<WorkItem>();
  const seenUrls = new Set<string>();
  const fetchedUrls = new Set<string>();
  const byStatus: Record<string, number> = {};
  const record = (url: string, status: string): void => {
    fetchedUrls.add(url);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  };

  const addUrl = (url: string, redirectsLeft: number): void => {
    seenUrls.add(url);
    queue.put({ url, maxRedirect: redirectsLeft });
  };

  const fetchOne = async ({ url, maxRedirect: redirectsLeft }: WorkItem): Promise<void> => {
    const target = new URL(url);
    const path = target.pathname + target.search;
    let response: Awaited<ReturnType<Agent['request']>> | undefined;
    for (let tries = 0; tries < maxTries && response === undefined; tries++) {
      try {
        response = await agent.request({ origin: target.origin, path, method: 'GET', headers: REQUEST_HEADERS });
      } catch {
        // A failed connection or a reset socket: try again, up to maxTries.
      }
    }
    if (response === undefined) {
      record(url, 'error');
      return;
    }
    const { statusCode, headers, body } = response;
    try {
      if (REDIRECT_STATUSES.has(statusCode)) {
        await body.dump();
        record(url, String(statusCode));
        const location = Array.isArray(headers.location) ? headers.location[0] : headers.location;
        if (location === undefined || redirectsLeft <= 0) return;
        const next = new URL(location, target);
        const nextUrl = defragmented(next);
        // Coalescing: another path already led here, so this one stops.
        if (seenUrls.has(nextUrl) || !urlAllowed(next, nextUrl)) return;
        addUrl(nextUrl, redirectsLeft - 1);
        return;
      }
      if (statusCode !== 200 || !PARSED_CONTENT_TYPES.has(mediaType(headers['content-type']))) {
        await body.dump();
        record(url, String(statusCode));
        return;
      }
      const html = await bodyText(body, headers['content-encoding']);
      record(url, String(statusCode));
      for (const href of extractHrefs(html)) {
        let link: URL;
        try {
          link = new URL(href, target);
        } catch {
          continue; // Not a URL (e.g. "http://[broken").
        }
        const linkUrl = defragmented(link);
        if (!seenUrls.has(linkUrl) && urlAllowed(link, linkUrl)) addUrl(linkUrl, maxRedirect);
      }
    } catch {
      if (!fetchedUrls.has(url)) record(url, 'error');
    }
  };

  const work = async (): Promise<void> => {
    for (;;) {
      const item = await queue.get();
      if (item === undefined) return;
      try {
        await fetchOne(item);
      } finally {
        queue.taskDone();
      }
    }
  };

  const t0 = performance.now();
  for (const root of roots) addUrl(root, maxRedirect);
  const workers = Array.from({ length: maxTasks }, work);
  try {
    await queue.join();
  } finally {
    queue.close();
    await Promise.all(workers);
  }
  const seconds = (performance.now() - t0) / 1000;
  await agent.close();
  return { fetched: fetchedUrls.size, seconds, rate: fetchedUrls.size / seconds, byStatus, urls: fetchedUrls };
}

function parseCli(argv: readonly string[]): { roots: string[]; opts: UndiciCrawlOptions } {
  const roots: string[] = [];
  const opts: UndiciCrawlOptions = {};
  const numberAfter = (i: number, name: string): number => {
    const value = Number(argv[i + 1]);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} needs a non-negative integer`);
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    switch (arg) {
      case '--max-tasks':
        opts.maxTasks = numberAfter(i++, arg);
        break;
      case '--max-tries':
        opts.maxTries = numberAfter(i++, arg);
        break;
      case '--max-redirect':
        opts.maxRedirect = numberAfter(i++, arg);
        break;
      case '--exclude': {
        const pattern = argv[++i];
        if (pattern === undefined) throw new Error('--exclude needs a regular expression');
        opts.exclude = pattern;
        break;
      }
      case '--lenient':
        opts.strict = false;
        break;
      default:
        if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
        roots.push(/^https?:\/\//.test(arg) ? arg : `http://${arg}`);
    }
  }
  if (roots.length === 0)
    throw new Error(
      'usage: undici-crawler.ts URL... [--max-tasks N] [--max-tries N] [--max-redirect N] [--exclude REGEX] [--lenient]',
    );
  return { roots, opts };
}

// Run as a program only when this file itself is the script: `require.main === module` would
// also be true inside an esbuild bundle that merely imports this module.
if (/(^|[\\/])undici-crawler\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  (async () => {
    const { roots, opts } = parseCli(process.argv.slice(2));
    const cpuBefore = process.cpuUsage();
    const { fetched, seconds, rate, byStatus, urls } = await crawlWithUndici(roots, opts);
    const cpu = process.cpuUsage(cpuBefore);
    // CPU seconds of this process during the crawl: steadier than wall time on a busy machine.
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    process.stdout.write(
      `${JSON.stringify({ fetched, seconds, rate, byStatus, distinctUrls: urls.size, cpuSeconds })}\n`,
    );
  })().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
