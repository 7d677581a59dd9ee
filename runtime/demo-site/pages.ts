// Content of the demo website: renders every body the site serves (HTML pages, robots.txt,
// the JSON API, the binary file) from the SiteModel.
//
// Invariants:
// - Pure and deterministic: no dates, host or port in any body.
// - An HTML page's hrefs are exactly the model's `linksAt` for the route, in order, each once as
//   `<a href="...">`; nothing else looks like a link (a regex and a parser see the same links).
// - A content page is exactly `pageBytes` bytes (UTF-8) when its content fits, padded.
// - Non-200 bodies carry no links but a redirect's own target.

import {
  BINARY_BYTES,
  BROKEN_CHARSET,
  FAULT_BEHAVIOUR,
  DeterministicRandom,
  MARKUP_TITLE_TEXT,
  RANDOM_STREAM,
  SECTIONS_PER_PAGE,
  SITE_PATHS,
  contentPagePath,
  type PageLink,
  type SiteModel,
  type SiteRoute,
} from './site-model';

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const SITE_NAME = 'Coroscope demo site';

// ---------------------------------------------------------------------------------------------
// Generated prose: sentences about the chapter's subject, built from seeded choices.

const SUBJECTS = [
  'The event loop',
  'A coroutine',
  'The crawler',
  'Each fetcher',
  'The selector',
  'A future',
  'The work queue',
  'Every task',
  'The HTTP client',
  'A plain callback',
  'The scheduler',
  'One worker',
];
const VERBS = [
  'waits for',
  'resumes',
  'registers',
  'reads',
  'parses',
  'schedules',
  'yields to',
  'cancels',
  'wakes',
  'delegates to',
  'records',
  'returns',
];
const OBJECTS = [
  'the socket',
  'a readable event',
  'the next URL',
  'its result',
  'the response headers',
  'a chunk of the body',
  'the done callbacks',
  'the task queue',
  'a redirect',
  'the stack of frames',
  'the connection pool',
  "the selector's key",
];
const TAILS = [
  '',
  ' before the timeout expires',
  ' without blocking the loop',
  ' as soon as the data arrives',
  ' while other fetches proceed',
  ' in a single thread',
  ' one step at a time',
  ' through yield*',
  ' when the future resolves',
  ' and then yields again',
];
/** Short sentences to fill the last gap of a padded page, shortest last. */
const SHORT_SENTENCES = ['Then it resumes.', 'Nothing blocks.', 'Data arrives.', 'The loop runs.', 'It waits.', 'So.'];
const HEADINGS = [
  'Fetching a page',
  'Waiting on the selector',
  'Parsing the links',
  'Following redirects',
  'Coordinating the workers',
  'Counting what was fetched',
  'Where the stack goes',
  'Generators as coroutines',
  'Cancelling a crawl',
  'Keeping connections alive',
];

function sentence(rng: DeterministicRandom): string {
  return `${rng.pick(SUBJECTS)} ${rng.pick(VERBS)} ${rng.pick(OBJECTS)}${rng.pick(TAILS)}.`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/**
 * ASCII prose of exactly `budget` bytes (paragraphs of sentences, then spaces for a gap
 * shorter than the shortest sentence). Empty when the budget is not positive.
 */
function filler(rng: DeterministicRandom, budget: number): string {
  const open = '<p>';
  const close = '</p>\n';
  let out = '';
  for (;;) {
    const room = budget - out.length - open.length - close.length;
    if (room < SHORT_SENTENCES[SHORT_SENTENCES.length - 1].length) break;
    // A paragraph of 200..420 bytes, or all that is left when less would remain after it.
    let want = rng.int(200, 420);
    if (room - want < 120) want = room;
    let paragraph = '';
    while (paragraph.length < want) {
      const separator = paragraph === '' ? '' : ' ';
      const space = room - paragraph.length - separator.length;
      let next = sentence(rng);
      if (next.length > space) {
        const short = SHORT_SENTENCES.find((s) => s.length <= space);
        if (short === undefined) break;
        next = short;
      }
      paragraph += separator + next;
    }
    if (paragraph === '') break;
    out += open + paragraph + close;
  }
  return out + ' '.repeat(Math.max(0, budget - out.length));
}

// ---------------------------------------------------------------------------------------------
// HTML pages.

function documentStart(title: string, charset = 'utf-8'): string {
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n' +
    `<meta charset="${charset}">\n<title>${title}</title>\n</head>\n<body>\n<main>\n`
  );
}

function documentEnd(footer: string): string {
  return `</main>\n<footer><p>${footer}</p></footer>\n</body>\n</html>\n`;
}

function anchor(link: PageLink, text: string): string {
  return `<a href="${link.href}">${text}</a>`;
}

/** The sentence that carries one link of a content page. */
function linkSentence(link: PageLink, rng: DeterministicRandom): string {
  const t = String(link.target ?? '');
  switch (link.kind) {
    case 'next':
      return `Continue reading on ${anchor(link, `page ${t}`)}.`;
    case 'page':
      return `See ${anchor(link, `page ${t}`)} for how ${lowerFirst(rng.pick(SUBJECTS))} ${rng.pick(VERBS)} ${rng.pick(OBJECTS)}.`;
    case 'slashless':
      return `The old address ${anchor(link, link.href)} still works, through a redirect.`;
    case 'relative':
      return `Its sibling, ${anchor(link, `page ${t}`)}, is linked with a relative URL.`;
    case 'fragment':
      return `Jump straight to ${anchor(link, `section ${String(link.section)} of page ${t}`)}.`;
    case 'missing':
      return `An ${anchor(link, 'older article')} was removed from the site.`;
    case 'external':
      return `Background reading lives on ${anchor(link, 'another site')}.`;
    case 'private':
      return `Staff notes are kept in ${anchor(link, 'the private area')}.`;
    default:
      return `Back to ${anchor(link, 'the home page')}.`;
  }
}

/** `/page/N/`: sections of prose carrying the page's links, padded to `pageBytes`. */
export function renderContentPage(model: SiteModel, n: number): string {
  const rng = new DeterministicRandom(RANDOM_STREAM.pageText, model.seed, n);
  const links = model.linksOf(n);
  let body = documentStart(`Page ${n} · ${SITE_NAME}`) + `<h1>Page ${n}</h1>\n`;
  const headings = HEADINGS.slice();
  for (let s = 0; s < SECTIONS_PER_PAGE; s++) {
    const heading = headings.splice(rng.int(0, headings.length - 1), 1)[0];
    body += `<h2 id="section-${s + 1}">${heading}</h2>\n<p>${sentence(rng)}`;
    links.forEach((link, i) => {
      if (Math.floor((i * SECTIONS_PER_PAGE) / links.length) === s)
        body += ` ${sentence(rng)} ${linkSentence(link, rng)}`;
    });
    body += '</p>\n';
  }
  const end = documentEnd(`Page ${n} of ${model.pages} · seed ${model.seed}`);
  const budget = model.options.pageBytes - Buffer.byteLength(body) - Buffer.byteLength(end);
  return body + filler(rng, budget) + end;
}

/** `/`: introduction, the first content pages and the special pages. */
export function renderHomePage(model: SiteModel): string {
  const rng = new DeterministicRandom(RANDOM_STREAM.homeText, model.seed);
  const pages: string[] = [];
  const specials: string[] = [];
  const faults: string[] = [];
  for (const link of model.homeLinks()) {
    switch (link.kind) {
      case 'page':
        pages.push(`<li>${anchor(link, `Page ${String(link.target)}`)}</li>`);
        break;
      case 'binary':
        specials.push(`<li>${anchor(link, 'data.bin')}: ${BINARY_BYTES} bytes of application/octet-stream.</li>`);
        break;
      case 'slow':
        specials.push(`<li>${anchor(link, `Slow page ${String(link.target)}`)}: answered after a delay.</li>`);
        break;
      case 'broken':
        specials.push(`<li>${anchor(link, 'A broken page')}: declares a character encoding no decoder knows.</li>`);
        break;
      case 'markup-title':
        specials.push(`<li>${anchor(link, 'A title with markup')}: its title must be shown as text.</li>`);
        break;
      case 'fault': {
        const fault = link.fault ?? 'reset';
        const description =
          fault === 'redirect-loop' ? 'two redirects that point at each other' : FAULT_BEHAVIOUR[fault].description;
        faults.push(`<li>${anchor(link, escapeHtml(fault))}: ${escapeHtml(description)}.</li>`);
        break;
      }
      default:
        specials.push(`<li>${anchor(link, escapeHtml(link.href))}</li>`);
    }
  }
  const { pages: count, linksPerPage, seed } = model.options;
  let body =
    documentStart(SITE_NAME) +
    `<h1>${SITE_NAME}</h1>\n` +
    '<p>This site is served on the loopback interface by Coroscope, so that the crawler of ' +
    '&ldquo;A Web Crawler With asyncio Coroutines&rdquo; can run without a network. ' +
    `It has ${count} pages of ${linksPerPage} links each, generated from seed ${seed}. ` +
    `${sentence(rng)} ${sentence(rng)}</p>\n` +
    `<p>Also here, not linked: <code>${SITE_PATHS.robots}</code> and <code>${SITE_PATHS.api}</code>.</p>\n` +
    `<h2>Pages</h2>\n<ul>\n${pages.join('\n')}\n</ul>\n` +
    `<h2>Special pages</h2>\n<ul>\n${specials.join('\n')}\n</ul>\n`;
  if (faults.length > 0) body += `<h2>Fault routes</h2>\n<ul>\n${faults.join('\n')}\n</ul>\n`;
  return body + documentEnd(`${SITE_NAME} · seed ${seed}`);
}

/** A short page: a title, some paragraphs, then a paragraph per link of its route. */
function smallPage(
  model: SiteModel,
  route: SiteRoute,
  title: string,
  paragraphs: readonly string[],
  charset?: string,
): string {
  const links = model.linksAt(route).map((link) => `Back to ${anchor(link, 'the home page')}.`);
  return (
    documentStart(title, charset) +
    `<h1>${title}</h1>\n` +
    [...paragraphs, ...links].map((p) => `<p>${p}</p>\n`).join('') +
    documentEnd(SITE_NAME)
  );
}

/** `/slow/N/`: a short page, answered after the server's `slowMs`. */
export function renderSlowPage(model: SiteModel, n: number): string {
  const rng = new DeterministicRandom(RANDOM_STREAM.pageText, model.seed, -n);
  return smallPage(model, { kind: 'slow', n }, `Slow page ${n}`, [
    `The server waits before it answers this page. ${sentence(rng)} ${sentence(rng)}`,
  ]);
}

/** `/broken/`: declares a charset no decoder knows, so decoding it for link extraction fails. */
export function renderBrokenPage(model: SiteModel): string {
  return smallPage(
    model,
    { kind: 'broken' },
    'A broken page',
    [
      `This page declares the character encoding ${BROKEN_CHARSET}, in its Content-Type header and in ` +
        'its meta element. No decoder knows it, so a crawler that decodes the body before it extracts ' +
        'the links fails here, with a traceback worth reading.',
    ],
    BROKEN_CHARSET,
  );
}

/** `/titles/markup/`: a title made of escaped markup, which a UI must show as text. */
export function renderMarkupTitlePage(model: SiteModel): string {
  return smallPage(model, { kind: 'markup-title' }, escapeHtml(MARKUP_TITLE_TEXT), [
    'The title of this page contains markup, escaped. A user interface must show it as text.',
  ]);
}

/** `/private/secret/`: disallowed by robots.txt; a respecting crawler never sees this. */
export function renderPrivatePage(model: SiteModel): string {
  return smallPage(model, { kind: 'private' }, 'Private', [
    `Robots are asked to stay out of ${SITE_PATHS.disallowed}: a crawler that reads this ignored robots.txt.`,
  ]);
}

/** The body of every 404. It carries no links. */
export function renderNotFoundPage(): string {
  return (
    documentStart('404 Not Found') +
    '<h1>Not Found</h1>\n<p>The demo site has no page at this address.</p>\n' +
    documentEnd(SITE_NAME)
  );
}

/** The body of a 301 to the root-relative `location`. */
export function renderRedirectPage(location: string): string {
  const target = escapeHtml(location);
  return (
    documentStart('301 Moved Permanently') +
    `<h1>Moved Permanently</h1>\n<p>This page is now at <a href="${target}">${target}</a>.</p>\n` +
    documentEnd(SITE_NAME)
  );
}

// ---------------------------------------------------------------------------------------------
// Other bodies.

/** `/robots.txt`: disallows `/private/` for every user agent. */
export function renderRobotsTxt(): string {
  return `# ${SITE_NAME}\nUser-agent: *\nDisallow: ${SITE_PATHS.disallowed}\n`;
}

/** `/api/pages.json`: `{ pages, links }`, links being the path of every content page in order. */
export function renderPagesJson(model: SiteModel): string {
  const links: string[] = [];
  for (let n = 1; n <= model.pages; n++) links.push(contentPagePath(n));
  return JSON.stringify({ pages: model.pages, links }) + '\n';
}

/** `/files/data.bin`: BINARY_BYTES seeded pseudo-random bytes. */
export function renderBinaryData(model: SiteModel): Buffer {
  const rng = new DeterministicRandom(RANDOM_STREAM.binary, model.seed);
  const bytes = Buffer.alloc(BINARY_BYTES);
  for (let i = 0; i < BINARY_BYTES; i += 4) bytes.writeUInt32LE(rng.nextUint32(), i);
  return bytes;
}
