// The demo website as data: a pure, deterministic model of every URL the site serves, every
// link on every page, and the outcome a crawler starting at `/` must see: the single source of
// truth that the server, pages.ts, the tests and the CLI all read. Link mix and reachability
// rules: docs/design/cli-and-demo-site.md.
//
// Invariants:
// - The same options give the same routes, links and outcomes everywhere (seeded hash only).
// - Every `/page/N/` is reachable from `/`; links carry no origin, hrefs are double-quoted and
//   free of entities, so a regex extractor and an HTML parser find the same links.
// - `expectedOutcomes()` is a breadth-first walk of this model with WHATWG URL resolution.

/** Options of the site's content (the server adds transport options on top). */
export interface SiteModelOptions {
  /** Number of content pages `/page/1/` .. `/page/N/`. Default 200. */
  readonly pages?: number;
  /** Links on each content page (the first always goes to the next page). Default 8. */
  readonly linksPerPage?: number;
  /** Target size in bytes of each content page body (exact when the content fits). Default 2048. */
  readonly pageBytes?: number;
  /** Seed of every pseudo-random choice (link targets, kinds order, text, binary bytes). Default 1. */
  readonly seed?: number;
  /** Whether the fault routes exist (and are linked from home). Default false. */
  readonly faults?: boolean;
}

export type ResolvedSiteModelOptions = Required<SiteModelOptions>;

export const DEFAULT_SITE_OPTIONS: ResolvedSiteModelOptions = Object.freeze({
  pages: 200,
  linksPerPage: 8,
  pageBytes: 2048,
  seed: 1,
  faults: false,
});

export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';
/** The charset no decoder knows, declared by `/broken/` in its header and its `<meta>`. */
export const BROKEN_CHARSET = 'x-coroscope-unknown';
export const BROKEN_CONTENT_TYPE = `text/html; charset=${BROKEN_CHARSET}`;
export const BINARY_CONTENT_TYPE = 'application/octet-stream';
export const JSON_CONTENT_TYPE = 'application/json';
export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** Size of `/files/data.bin`. */
export const BINARY_BYTES = 8192;
/** How many content pages the home page links to (`/page/1/` .. `/page/min(10, pages)/`). */
export const HOME_PAGE_LINKS = 10;
/** Slow pages `/slow/1/` .. `/slow/SLOW_PAGE_COUNT/`, all linked from home. */
export const SLOW_PAGE_COUNT = 2;
/** Number of `#section-K` anchors on a content page (fragment links use 1..this). */
export const SECTIONS_PER_PAGE = 3;
/** Text of the `<title>` of `/titles/markup/` once decoded; the HTML carries it escaped. */
export const MARKUP_TITLE_TEXT = '<img src=x onerror=alert(1)> & "quotes"';
/** External link targets (the `.invalid` TLD never resolves, RFC 2606). */
export const EXTERNAL_URLS: readonly string[] = Object.freeze([
  'http://example.invalid/x',
  'https://www.example.invalid/articles/coroutines',
  'http://mirror.example.invalid/500lines/crawler/',
]);

/** Fixed paths of the site. */
export const SITE_PATHS = Object.freeze({
  home: '/',
  binary: '/files/data.bin',
  broken: '/broken/',
  markupTitle: '/titles/markup/',
  robots: '/robots.txt',
  private: '/private/secret/',
  /** The prefix `/robots.txt` disallows. */
  disallowed: '/private/',
  api: '/api/pages.json',
});

export function contentPagePath(n: number): string {
  return `/page/${n}/`;
}

export function slowPagePath(n: number): string {
  return `/slow/${n}/`;
}

/** Fault routes that break the HTTP exchange itself (served by faults.ts). */
export type StreamFault = 'reset' | 'stall' | 'bad-chunk' | 'endless' | 'no-location' | 'wrong-length';
/** Every fault route linked from home when `faults` is on. */
export type FaultName = StreamFault | 'redirect-loop';

export const FAULT_NAMES: readonly FaultName[] = Object.freeze([
  'reset',
  'stall',
  'bad-chunk',
  'endless',
  'redirect-loop',
  'no-location',
  'wrong-length',
] as const);

export function faultPath(fault: FaultName): string {
  return `/fault/${fault}`;
}

/** The second hop of the redirect loop: `/fault/redirect-loop` → this → `/fault/redirect-loop`. */
export const REDIRECT_LOOP_B_PATH = '/fault/redirect-loop/b';

/** What the server does with each fault route, and the status line it sends first. */
export const FAULT_BEHAVIOUR: Readonly<
  Record<StreamFault, { readonly status: 200 | 301; readonly description: string }>
> = Object.freeze({
  reset: { status: 200, description: 'headers and part of the body, then a TCP reset' },
  stall: { status: 200, description: 'headers, then nothing until the client gives up' },
  'bad-chunk': { status: 200, description: 'chunked body with an invalid chunk-size line' },
  endless: { status: 200, description: 'a chunked body that never ends' },
  'no-location': { status: 301, description: 'a 301 redirect without a Location header' },
  'wrong-length': { status: 200, description: 'Content-Length larger than the body, then close' },
});

/** What a request path is, for the server. Paths are compared exactly (no normalisation). */
export type SiteRoute =
  | { readonly kind: 'home' }
  | { readonly kind: 'page'; readonly n: number }
  /** 301 with this root-relative Location (slash-less pages and the redirect loop). */
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'binary' }
  | { readonly kind: 'slow'; readonly n: number }
  | { readonly kind: 'broken' }
  | { readonly kind: 'markup-title' }
  | { readonly kind: 'robots' }
  | { readonly kind: 'private' }
  | { readonly kind: 'api' }
  | { readonly kind: 'fault'; readonly fault: StreamFault }
  | { readonly kind: 'not-found' };

export type LinkKind =
  /** content page: the link to the next page (always first) */
  | 'next'
  | 'page'
  | 'slashless'
  | 'relative'
  | 'fragment'
  | 'missing'
  | 'external'
  | 'private'
  /** home page and special pages */
  | 'home'
  | 'binary'
  | 'slow'
  | 'broken'
  | 'markup-title'
  | 'fault';

/** One `<a href>` of an HTML page, in document order. */
export interface PageLink {
  /** The href exactly as written in the HTML. */
  readonly href: string;
  readonly kind: LinkKind;
  /** The content page, slow page or section it leads to, when there is one. */
  readonly target?: number;
  /** The `#section-K` of a fragment link. */
  readonly section?: number;
  readonly fault?: FaultName;
}

/** What a crawler sees at one URL. `status` is the status line the server sends. */
export type ExpectedOutcome =
  /** An HTML page with links (home, content pages, slow pages, the markup-title page). */
  | { readonly kind: 'page'; readonly status: 200; readonly contentType: typeof HTML_CONTENT_TYPE }
  /** A 301; `location` is absolute (resolved against the URL). */
  | { readonly kind: 'redirect'; readonly status: 301; readonly location: string }
  | { readonly kind: 'missing'; readonly status: 404; readonly contentType: typeof HTML_CONTENT_TYPE }
  | {
      readonly kind: 'binary';
      readonly status: 200;
      readonly contentType: typeof BINARY_CONTENT_TYPE;
      readonly bytes: number;
    }
  /** `/broken/`: decoding its declared charset fails, so link extraction throws. */
  | { readonly kind: 'broken'; readonly status: 200; readonly contentType: typeof BROKEN_CONTENT_TYPE }
  /**
   * Disallowed by `/robots.txt`: a respecting crawler never fetches it. One that ignores robots
   * gets `status` (an HTML page whose only link is `/`), so the reachable set is the same.
   */
  | { readonly kind: 'excluded-by-robots'; readonly status: 200; readonly contentType: typeof HTML_CONTENT_TYPE }
  /** A fault route (only with `faults: true`). */
  | { readonly kind: 'fault'; readonly status: 200 | 301; readonly fault: StreamFault };

// ---------------------------------------------------------------------------------------------
// Seeded pseudo-randomness (integer arithmetic only, so identical on every platform).

/** Salts that separate the independent random streams derived from the seed. */
export const RANDOM_STREAM = Object.freeze({
  kindOrder: 1,
  linkTargets: 2,
  pageText: 3,
  binary: 4,
  homeText: 5,
});

function mix32(h: number, value: number): number {
  let k = Math.imul(value | 0, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalize32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A small seeded generator (mulberry32); the same keys always give the same sequence. */
export class DeterministicRandom {
  private state: number;

  constructor(...keys: number[]) {
    let h = 0x9747b28c;
    for (const key of keys) {
      // Safe integers beyond 32 bits contribute both halves.
      h = mix32(h, key >>> 0);
      h = mix32(h, Math.floor(key / 0x100000000) | 0);
    }
    this.state = finalize32(mix32(h, keys.length));
  }

  /** A uint32. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    return this.nextUint32() / 0x100000000;
  }

  /** An integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }
}

// ---------------------------------------------------------------------------------------------

type RandomLinkKind = 'page' | 'slashless' | 'relative' | 'fragment' | 'missing' | 'external';

/** One period of link kinds: the exact fractions of the site (11/2/3/2/1/1 out of 20). */
const LINK_KIND_PERIOD: readonly RandomLinkKind[] = [
  ...Array<RandomLinkKind>(11).fill('page'),
  ...Array<RandomLinkKind>(2).fill('slashless'),
  ...Array<RandomLinkKind>(3).fill('relative'),
  ...Array<RandomLinkKind>(2).fill('fragment'),
  'missing',
  'external',
];

/** `/missing/K` uses K in 1..MISSING_RANGE. */
const MISSING_RANGE = 999;

function checkInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`demo site: ${name} must be an integer >= ${min}, got ${String(value)}`);
  }
}

export class SiteModel {
  readonly options: ResolvedSiteModelOptions;
  /** The content page that also links to `/private/secret/` (an extra link after its own). */
  readonly privateLinkPage: number;
  private readonly kindOrder: readonly RandomLinkKind[];

  constructor(options: SiteModelOptions = {}) {
    const resolved: ResolvedSiteModelOptions = {
      pages: options.pages ?? DEFAULT_SITE_OPTIONS.pages,
      linksPerPage: options.linksPerPage ?? DEFAULT_SITE_OPTIONS.linksPerPage,
      pageBytes: options.pageBytes ?? DEFAULT_SITE_OPTIONS.pageBytes,
      seed: options.seed ?? DEFAULT_SITE_OPTIONS.seed,
      faults: options.faults ?? DEFAULT_SITE_OPTIONS.faults,
    };
    checkInteger('pages', resolved.pages, 1);
    checkInteger('linksPerPage', resolved.linksPerPage, 1);
    checkInteger('pageBytes', resolved.pageBytes, 0);
    if (!Number.isSafeInteger(resolved.seed)) {
      throw new RangeError(`demo site: seed must be a safe integer, got ${String(resolved.seed)}`);
    }
    this.options = Object.freeze(resolved);
    this.privateLinkPage = Math.ceil(resolved.pages / 2);

    const order = [...LINK_KIND_PERIOD];
    const rng = new DeterministicRandom(RANDOM_STREAM.kindOrder, resolved.seed);
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [order[i], order[j]] = [order[j], order[i]];
    }
    this.kindOrder = order;
  }

  get pages(): number {
    return this.options.pages;
  }

  get seed(): number {
    return this.options.seed;
  }

  /** What the server answers at `pathname` (exact match, query and fragment already removed). */
  route(pathname: string): SiteRoute {
    if (pathname === SITE_PATHS.home) return { kind: 'home' };
    const page = /^\/page\/([1-9][0-9]{0,15})(\/?)$/.exec(pathname);
    if (page !== null) {
      const n = Number(page[1]);
      if (n > this.options.pages) return { kind: 'not-found' };
      return page[2] === '/' ? { kind: 'page', n } : { kind: 'redirect', location: contentPagePath(n) };
    }
    const slow = /^\/slow\/([1-9][0-9]{0,15})\/$/.exec(pathname);
    if (slow !== null) {
      const n = Number(slow[1]);
      return n <= SLOW_PAGE_COUNT ? { kind: 'slow', n } : { kind: 'not-found' };
    }
    switch (pathname) {
      case SITE_PATHS.binary:
        return { kind: 'binary' };
      case SITE_PATHS.broken:
        return { kind: 'broken' };
      case SITE_PATHS.markupTitle:
        return { kind: 'markup-title' };
      case SITE_PATHS.robots:
        return { kind: 'robots' };
      case SITE_PATHS.private:
        return { kind: 'private' };
      case SITE_PATHS.api:
        return { kind: 'api' };
    }
    if (this.options.faults && pathname.startsWith('/fault/')) {
      if (pathname === faultPath('redirect-loop')) return { kind: 'redirect', location: REDIRECT_LOOP_B_PATH };
      if (pathname === REDIRECT_LOOP_B_PATH) return { kind: 'redirect', location: faultPath('redirect-loop') };
      for (const fault of Object.keys(FAULT_BEHAVIOUR) as StreamFault[]) {
        if (pathname === faultPath(fault)) return { kind: 'fault', fault };
      }
    }
    return { kind: 'not-found' };
  }

  /** The links of content page `n`, in document order. */
  linksOf(n: number): readonly PageLink[] {
    const { pages, linksPerPage, seed } = this.options;
    if (!Number.isSafeInteger(n) || n < 1 || n > pages) {
      throw new RangeError(`demo site: no page ${String(n)} (pages are 1..${pages})`);
    }
    const next = n === pages ? 1 : n + 1;
    const links: PageLink[] = [{ href: contentPagePath(next), kind: 'next', target: next }];
    for (let slot = 1; slot < linksPerPage; slot++) {
      const globalIndex = (n - 1) * (linksPerPage - 1) + (slot - 1);
      const kind = this.kindOrder[globalIndex % this.kindOrder.length];
      const rng = new DeterministicRandom(RANDOM_STREAM.linkTargets, seed, n, slot);
      const target = rng.int(1, pages);
      switch (kind) {
        case 'page':
          links.push({ href: contentPagePath(target), kind, target });
          break;
        case 'slashless':
          links.push({ href: `/page/${target}`, kind, target });
          break;
        case 'relative':
          links.push({ href: `../${target}/`, kind, target });
          break;
        case 'fragment': {
          const section = rng.int(1, SECTIONS_PER_PAGE);
          links.push({ href: `${contentPagePath(target)}#section-${section}`, kind, target, section });
          break;
        }
        case 'missing': {
          const k = rng.int(1, MISSING_RANGE);
          links.push({ href: `/missing/${k}`, kind });
          break;
        }
        case 'external':
          links.push({ href: rng.pick(EXTERNAL_URLS), kind });
          break;
      }
    }
    if (n === this.privateLinkPage) links.push({ href: SITE_PATHS.private, kind: 'private' });
    return links;
  }

  /** The links of the home page, in document order. */
  homeLinks(): readonly PageLink[] {
    const links: PageLink[] = [];
    const first = Math.min(HOME_PAGE_LINKS, this.options.pages);
    for (let n = 1; n <= first; n++) links.push({ href: contentPagePath(n), kind: 'page', target: n });
    links.push({ href: SITE_PATHS.binary, kind: 'binary' });
    for (let n = 1; n <= SLOW_PAGE_COUNT; n++) links.push({ href: slowPagePath(n), kind: 'slow', target: n });
    links.push({ href: SITE_PATHS.broken, kind: 'broken' });
    links.push({ href: SITE_PATHS.markupTitle, kind: 'markup-title' });
    if (this.options.faults) {
      for (const fault of FAULT_NAMES) links.push({ href: faultPath(fault), kind: 'fault', fault });
    }
    return links;
  }

  /**
   * The links in the HTML served at a route that has a page with links (home, content, slow,
   * markup-title, broken and private pages; the last two only link back to `/`). Empty for
   * every other route (404, redirect and fault bodies, binary, JSON, robots.txt carry none).
   */
  linksAt(route: SiteRoute): readonly PageLink[] {
    switch (route.kind) {
      case 'home':
        return this.homeLinks();
      case 'page':
        return this.linksOf(route.n);
      case 'slow':
      case 'markup-title':
      case 'broken':
      case 'private':
        return [{ href: SITE_PATHS.home, kind: 'home' }];
      default:
        return [];
    }
  }

  /**
   * Every URL a crawler starting at `origin`/ sees, in breadth-first discovery order, with what
   * the server answers there. Links are resolved against the page URL, stripped of their
   * fragment, and kept only when same-origin; external links are never included. Links are
   * followed on `page` outcomes only (the broken page cannot be parsed; its and the private
   * page's only link is `/` anyway), and redirects add their target.
   */
  expectedOutcomes(origin: string): ReadonlyMap<string, ExpectedOutcome> {
    const root = new URL('/', origin);
    const outcomes = new Map<string, ExpectedOutcome>();
    const queue: string[] = [root.href];
    const seen = new Set<string>(queue);
    const enqueue = (href: string, base: string): void => {
      const url = new URL(href, base);
      url.hash = '';
      if (url.origin !== root.origin || seen.has(url.href)) return;
      seen.add(url.href);
      queue.push(url.href);
    };
    for (let i = 0; i < queue.length; i++) {
      const href = queue[i];
      const route = this.route(new URL(href).pathname);
      const outcome = this.outcomeOf(route, href);
      outcomes.set(href, outcome);
      if (outcome.kind === 'page') {
        for (const link of this.linksAt(route)) enqueue(link.href, href);
      } else if (outcome.kind === 'redirect') {
        enqueue(outcome.location, href);
      }
    }
    return outcomes;
  }

  /** The outcome a crawler sees at `url` served by `route`. */
  private outcomeOf(route: SiteRoute, url: string): ExpectedOutcome {
    switch (route.kind) {
      case 'home':
      case 'page':
      case 'slow':
      case 'markup-title':
        return { kind: 'page', status: 200, contentType: HTML_CONTENT_TYPE };
      case 'redirect':
        return { kind: 'redirect', status: 301, location: new URL(route.location, url).href };
      case 'binary':
        return { kind: 'binary', status: 200, contentType: BINARY_CONTENT_TYPE, bytes: BINARY_BYTES };
      case 'broken':
        return { kind: 'broken', status: 200, contentType: BROKEN_CONTENT_TYPE };
      case 'private':
        return { kind: 'excluded-by-robots', status: 200, contentType: HTML_CONTENT_TYPE };
      case 'fault':
        return { kind: 'fault', status: FAULT_BEHAVIOUR[route.fault].status, fault: route.fault };
      case 'not-found':
        return { kind: 'missing', status: 404, contentType: HTML_CONTENT_TYPE };
      case 'robots':
      case 'api':
        // No page links to robots.txt or the JSON API: reaching one here is a bug of the model.
        throw new Error(`demo site: ${url} is not linked from any page`);
    }
  }
}
