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
// Two ways of answering (`style`):
//   'prepared'  every response carries Content-Length; pages of about 1.5 KB; no compression.
//   'node-app'  answers as a hand-written node:http app does: `res.writeHead(status, headers)`
//               then `res.end(body)`, so every response is chunked; redirects are
//               `res.writeHead(301, {Location}); res.end()` (an empty chunked body); pages of
//               10-100 KB of ordinary markup, gzip-compressed when the request accepts it.
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
// - Responses keep the connection alive (HTTP/1.1 default); 'prepared' ones carry Content-Length.
//
// Standalone: node --import tsx bench/sites/link-farm-site.ts [--port 8080] [--pages 2000]
//   [--links-per-page 10] [--redirect-fraction 0.333] [--missing-fraction 0.02] [--seed N]
//   [--style prepared|node-app]
// prints the start URL on stdout (one line) and the expected counts on stderr, and serves
// until SIGINT or SIGTERM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';

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
  /** How responses are framed and sized (see the header); default 'prepared'. */
  style?: LinkFarmStyle;
}

export type LinkFarmStyle = 'prepared' | 'node-app';

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
  /** TCP connections the server has accepted so far. */
  connections(): number;
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
  /** The body gzip-compressed, sent when the request accepts gzip ('node-app' pages). */
  gzipped?: Buffer;
}

const EMPTY_BODY = Buffer.alloc(0);

/** 32-bit seeded generator (Mulberry32); returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
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
function buildLinkGraph(
  pages: number,
  linksPerPage: number,
  redirectFraction: number,
  missingFraction: number,
  random: () => number,
): FarmLink[][] {
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
        links.push({
          path: `${viaRedirect ? '/r/' : '/p/'}${child}`,
          label: `page ${child}${viaRedirect ? ' (moved)' : ''}`,
        });
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

const SECTION_WORDS = 40;

/**
 * A page of ordinary documentation-like markup padded to about `bytes`: sections of headings,
 * paragraphs with inline elements, code blocks and tables, around the same listed links.
 * Only the listed links and the page chrome are <a href> elements, so the crawl is the same.
 */
function renderLargePage(n: number, links: readonly FarmLink[], random: () => number, bytes: number): string {
  const sections: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const section = `<section id="s${i}">
<h2 class="title">Section ${i} <span class="anchor" title="permalink">&para;</span></h2>
<p>${fillerParagraph(random, SECTION_WORDS)} <em>${fillerParagraph(random, 3)}</em> <code class="literal">${fillerParagraph(random, 2)}()</code> ${fillerParagraph(random, SECTION_WORDS)}</p>
<div class="highlight"><pre><span class="k">def</span> <span class="nf">${FILLER_WORDS[i % FILLER_WORDS.length]}</span>(<span class="n">x</span>): <span class="k">return</span> x &lt; ${i}</pre></div>
<table class="docutils"><tr><th>${fillerParagraph(random, 2)}</th><td>${fillerParagraph(random, 8)}</td></tr></table>
</section>
`;
    sections.push(section);
    size += section.length;
  }
  const items = links
    .map((link) => `<li class="toctree-l1"><a class="farm" href="${link.path}">${link.label}</a></li>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Link farm: page ${n}</title><script src="/static/site.js"></script></head>
<body id="top">
<nav class="related"><a href="#main">skip to content</a> | <a href="/p/0#top">home</a></nav>
<main id="main" class="body" role="main">
<h1>Page ${n}</h1>
<ul class="toc">
${items}
</ul>
${sections.join('')}</main>
<footer class="footer">Generated by the link farm. <a href="http://elsewhere.invalid/about">elsewhere</a></footer>
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
function expectedCrawl(graph: readonly FarmLink[][]): {
  ok: Set<string>;
  redirects: Set<string>;
  missing: Set<string>;
} {
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
  const {
    pages = 2000,
    linksPerPage = 10,
    redirectFraction = 1 / 3,
    missingFraction = 0.02,
    port = 0,
    seed = 0x5eed,
    style = 'prepared',
  } = options;
  if (!Number.isInteger(pages) || pages < 1) throw new RangeError(`pages must be a positive integer, got ${pages}`);
  if (!Number.isInteger(linksPerPage) || linksPerPage < 1)
    throw new RangeError(`linksPerPage must be a positive integer, got ${linksPerPage}`);
  if (!(redirectFraction >= 0 && missingFraction >= 0 && redirectFraction + missingFraction <= 1)) {
    throw new RangeError('redirectFraction and missingFraction must be >= 0 and sum to at most 1');
  }

  const random = seededRandom(seed);
  const graph = buildLinkGraph(pages, linksPerPage, redirectFraction, missingFraction, random);

  const routes = new Map<string, PreparedResponse>();
  const nodeApp = style === 'node-app';
  for (let n = 0; n < pages; n++) {
    if (nodeApp) {
      const body = Buffer.from(renderLargePage(n, graph[n], random, 10_000 + Math.floor(random() * 90_000)), 'utf8');
      routes.set(`/p/${n}`, {
        status: 200,
        headers: { 'Content-Type': 'text/html; charset=utf-8', Vary: 'Accept-Encoding' },
        body,
        gzipped: zlib.gzipSync(body),
      });
      routes.set(`/r/${n}`, { status: 301, headers: { Location: `/p/${n}` }, body: EMPTY_BODY });
    } else {
      routes.set(`/p/${n}`, htmlResponse(200, renderPage(n, graph[n], fillerParagraph(random, 60))));
      routes.set(
        `/r/${n}`,
        htmlResponse(301, `<!doctype html><title>Moved</title><p>Moved to <a href="/p/${n}">page ${n}</a>.</p>\n`, {
          Location: `/p/${n}`,
        }),
      );
    }
  }
  const notFoundHtml = '<!doctype html><title>Not found</title><p>No such page. <a href="/p/0">Home</a>.</p>\n';
  const notFound = nodeApp
    ? { status: 404, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: Buffer.from(notFoundHtml) }
    : htmlResponse(404, notFoundHtml);

  const server = http.createServer((req, res) => {
    const prepared = routes.get(req.url ?? '') ?? notFound;
    if (prepared.gzipped !== undefined && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      res.writeHead(prepared.status, { ...prepared.headers, 'Content-Encoding': 'gzip' });
      res.end(req.method === 'HEAD' ? undefined : prepared.gzipped);
      return;
    }
    res.writeHead(prepared.status, prepared.headers);
    // 'node-app': an empty body is end() with nothing, as such apps write a redirect.
    res.end(req.method === 'HEAD' || prepared.body.length === 0 ? undefined : prepared.body);
  });
  // A benchmark crawl may leave connections idle between bursts; keep them open well past it.
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 35_000;
  server.maxRequestsPerSocket = 0;
  let connections = 0;
  server.on('connection', () => connections++);

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
    connections: () => connections,
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

function parseStyle(raw: string | undefined): LinkFarmStyle | undefined {
  if (raw === undefined || raw === 'prepared' || raw === 'node-app') return raw;
  throw new Error(`--style: prepared or node-app, not ${raw}`);
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
    style: parseStyle(readFlag(argv, '--style')),
  });
  const { ok200, redirects301, notFound404, urls } = farm.expected;
  process.stdout.write(`${farm.url}\n`);
  process.stderr.write(
    `link farm: ${urls.size} URLs in a full crawl (200: ${ok200}, 301: ${redirects301}, 404: ${notFound404})\n`,
  );
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
