// A synthetic loopback website for crawler benchmarks: a "link farm" of numbered pages.
//
// Written independently of runtime/demo-site so that a crawler is never measured only on the
// site its own authors built for it. Every response is rendered once at start-up; serving is
// a map look-up and one write, so the site costs as little CPU as a node:http server can.
//
// Shape of the site (all paths are on one origin, http://127.0.0.1:PORT):
//   /p/N  for 0 <= N < pages   200, text/html; charset=utf-8, with `linksPerPage` listed links
//   /r/N  for 0 <= N < pages   301, Location: /p/N (a relative reference, as many servers send)
//   anything else              404, a small HTML page (the links to missing pages are /p/N, N >= pages)
// Each listed link on a page is either direct (/p/N), through a redirect (/r/N) or to a missing
// page. Every page also carries the same chrome: a same-page fragment link, a home link with a
// fragment (/p/0#top) and a link to another host; a crawler that defragments URLs and keeps to
// its root host sees no extra URLs from them.
//
// Invariants:
// - Deterministic: the same options (and seed) give the same site, whatever the port.
// - Connected: the first links of page N go to pages F*N+1 .. F*N+F (F = min(linksPerPage, 2)),
//   a spanning tree rooted at /p/0 of depth about log2(pages), so a crawl from /p/0 reaches every
//   page and its frontier widens at once. Those tree links are direct or redirects, never missing;
//   `missingFraction` applies to the other links.
// - `expected` is computed by walking the site's own link graph from /p/0 exactly as the
//   chapter's crawler does (defragment, same host only, follow redirects, parse only 200 pages),
//   and lists every distinct URL such a crawl fetches, counted by status.
// - Responses carry Content-Length and keep the connection alive (HTTP/1.1 default).
//
// Standalone: node --import tsx bench/sites/link-farm-site.ts [--port 8080] [--pages 2000]
//   [--links-per-page 10] [--redirect-fraction 0.333] [--missing-fraction 0.02] [--seed N]
// prints the start URL on stdout (one line) and the expected counts on stderr, and serves
// until SIGINT or SIGTERM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LinkFarmOptions {
  /** Number of real pages /p/0 .. /p/(pages-1). */
  pages?: number;
  /** Listed links on each page (the fixed chrome links are extra). */
  linksPerPage?: number;
  /** Share of links that go through a 301 redirect /r/N → /p/N. */
  redirectFraction?: number;
  /** Share of the non-tree links that point to a missing page (404). */
  missingFraction?: number;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  /** PRNG seed; the same seed gives the same site. */
  seed?: number;
}

export interface LinkFarmExpectation {
  /** Distinct URLs answered 200 in a full crawl from /p/0. */
  ok200: number;
  /** Distinct URLs answered 301. */
  redirects301: number;
  /** Distinct URLs answered 404. */
  notFound404: number;
  /** Every distinct absolute URL a full crawl from /p/0 fetches. */
  urls: Set<string>;
}

export interface LinkFarm {
  /** Absolute URL of the start page, http://127.0.0.1:PORT/p/0. */
  url: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  close(): Promise<void>;
  expected: LinkFarmExpectation;
}

/** One listed link on a page: the path its href names and the anchor text. */
interface FarmLink {
  path: string;
  label: string;
}

interface PreparedResponse {
  status: number;
  headers: http.OutgoingHttpHeaders;
  body: Buffer;
}

/** 32-bit seeded generator (Mulberry32); returns floats in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILLER_WORDS = (
  'coroutine future task loop selector socket queue worker fetch redirect parse link crawl ' +
  'yield frame stack generator callback event timer buffer stream header status page host'
).split(' ');

/** The link graph: for each page, its listed links. Pure function of the options. */
function buildLinkGraph(pages: number, linksPerPage: number, redirectFraction: number, missingFraction: number, random: () => number): FarmLink[][] {
  const fanOut = Math.min(linksPerPage, 2);
  const pick = (): number => Math.floor(random() * pages);
  const graph: FarmLink[][] = [];
  for (let n = 0; n < pages; n++) {
    const links: FarmLink[] = [];
    for (let slot = 0; slot < linksPerPage; slot++) {
      const child = fanOut * n + slot + 1;
      const isTreeLink = slot < fanOut && child < pages;
      const roll = random();
      if (isTreeLink) {
        const viaRedirect = roll < redirectFraction;
        links.push({ path: `${viaRedirect ? '/r/' : '/p/'}${child}`, label: `page ${child}${viaRedirect ? ' (moved)' : ''}` });
      } else if (roll < missingFraction) {
        // Missing pages live past the last real page; drawing from a range of `pages` ids
        // lets some missing URLs be linked more than once.
        const id = pages + pick();
        links.push({ path: `/p/${id}`, label: `page ${id} (gone)` });
      } else if (roll < missingFraction + redirectFraction) {
        const target = pick();
        links.push({ path: `/r/${target}`, label: `page ${target} (moved)` });
      } else {
        const target = pick();
        links.push({ path: `/p/${target}`, label: `page ${target}` });
      }
    }
    graph.push(links);
  }
  return graph;
}

function fillerParagraph(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(FILLER_WORDS[Math.floor(random() * FILLER_WORDS.length)]);
  return out.join(' ');
}

function htmlResponse(status: number, html: string, extraHeaders: http.OutgoingHttpHeaders = {}): PreparedResponse {
  const body = Buffer.from(html, 'utf8');
  return {
    status,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length, ...extraHeaders },
    body,
  };
}

function renderPage(n: number, links: readonly FarmLink[], filler: string): string {
  const items = links.map((link) => `<li><a class="farm" href="${link.path}">${link.label}</a></li>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link farm: page ${n}</title></head>
<body id="top">
<nav><a href="#main">skip to content</a> | <a href="/p/0#top">home</a></nav>
<main id="main">
<h1>Page ${n}</h1>
<p>${filler}</p>
<ul>
${items}
</ul>
</main>
<footer>Generated by the link farm. <a href="http://elsewhere.invalid/about">elsewhere</a></footer>
</body></html>
`;
}

/** Page numbers that /p/N and /r/N paths name, or -1. */
function pathNumber(path: string, prefix: '/p/' | '/r/'): number {
  if (!path.startsWith(prefix)) return -1;
  const digits = path.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(digits) ? Number(digits) : -1;
}

/** Walks the graph from /p/0 the way the chapter's crawler does; returns paths by status. */
function expectedCrawl(graph: readonly FarmLink[][]): { ok: Set<string>; redirects: Set<string>; missing: Set<string> } {
  const pages = graph.length;
  const ok = new Set<string>();
  const redirects = new Set<string>();
  const missing = new Set<string>();
  const seen = new Set<string>(['/p/0']);
  const todo: string[] = ['/p/0'];
  // The chrome links (same-page fragment, /p/0#top, another host) add nothing after
  // defragmenting and host filtering, so only listed links are walked here.
  while (todo.length > 0) {
    const path = todo.pop() as string;
    const page = pathNumber(path, '/p/');
    const redirect = pathNumber(path, '/r/');
    let next: string[];
    if (page >= 0 && page < pages) {
      ok.add(path);
      next = graph[page].map((link) => link.path);
    } else if (redirect >= 0 && redirect < pages) {
      redirects.add(path);
      next = [`/p/${redirect}`];
    } else {
      missing.add(path);
      next = [];
    }
    for (const target of next) {
      if (!seen.has(target)) {
        seen.add(target);
        todo.push(target);
      }
    }
  }
  return { ok, redirects, missing };
}

export async function startLinkFarm(options: LinkFarmOptions = {}): Promise<LinkFarm> {
  const { pages = 2000, linksPerPage = 10, redirectFraction = 1 / 3, missingFraction = 0.02, port = 0, seed = 0x5eed } = options;
  if (!Number.isInteger(pages) || pages < 1) throw new RangeError(`pages must be a positive integer, got ${pages}`);
  if (!Number.isInteger(linksPerPage) || linksPerPage < 1) throw new RangeError(`linksPerPage must be a positive integer, got ${linksPerPage}`);
  if (!(redirectFraction >= 0 && missingFraction >= 0 && redirectFraction + missingFraction <= 1)) {
    throw new RangeError('redirectFraction and missingFraction must be >= 0 and sum to at most 1');
  }

  const random = seededRandom(seed);
  const graph = buildLinkGraph(pages, linksPerPage, redirectFraction, missingFraction, random);

  const routes = new Map<string, PreparedResponse>();
  for (let n = 0; n < pages; n++) {
    routes.set(`/p/${n}`, htmlResponse(200, renderPage(n, graph[n], fillerParagraph(random, 60))));
    routes.set(
      `/r/${n}`,
      htmlResponse(301, `<!doctype html><title>Moved</title><p>Moved to <a href="/p/${n}">page ${n}</a>.</p>\n`, { Location: `/p/${n}` }),
    );
  }
  const notFound = htmlResponse(404, '<!doctype html><title>Not found</title><p>No such page. <a href="/p/0">Home</a>.</p>\n');

  const server = http.createServer((req, res) => {
    const prepared = routes.get(req.url ?? '') ?? notFound;
    res.writeHead(prepared.status, prepared.headers);
    res.end(req.method === 'HEAD' ? undefined : prepared.body);
  });
  // A benchmark crawl may leave connections idle between bursts; keep them open well past it.
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 35_000;
  server.maxRequestsPerSocket = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: boundPort } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${boundPort}`;

  const walk = expectedCrawl(graph);
  const urls = new Set<string>();
  for (const group of [walk.ok, walk.redirects, walk.missing]) for (const path of group) urls.add(origin + path);

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/p/0`,
    origin,
    expected: { ok200: walk.ok.size, redirects301: walk.redirects.size, notFound404: walk.missing.size, urls },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function readFlag(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  if (at < 0) return undefined;
  const value = argv[at + 1];
  if (value === undefined) throw new Error(`${name} needs a value`);
  return value;
}

async function main(argv: readonly string[]): Promise<void> {
  const numberFlag = (name: string): number | undefined => {
    const raw = readFlag(argv, name);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value)) throw new Error(`${name}: not a number: ${raw}`);
    return value;
  };
  const farm = await startLinkFarm({
    port: numberFlag('--port'),
    pages: numberFlag('--pages'),
    linksPerPage: numberFlag('--links-per-page'),
    redirectFraction: numberFlag('--redirect-fraction'),
    missingFraction: numberFlag('--missing-fraction'),
    seed: numberFlag('--seed'),
  });
  const { ok200, redirects301, notFound404, urls } = farm.expected;
  process.stdout.write(`${farm.url}\n`);
  process.stderr.write(`link farm: ${urls.size} URLs in a full crawl (200: ${ok200}, 301: ${redirects301}, 404: ${notFound404})\n`);
  const stop = (): void => {
    void farm.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Run as a program only when this file itself is the script: `require.main === module` would
// also be true inside an esbuild bundle that merely imports this module.
if (/(^|[\\/])link-farm-site\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
