// Link extraction for the crawler: the step of the chapter's `parse_links`, done with a real
// (streaming) HTML tokenizer instead of a regular expression.
//
// Given a response body, its Content-Type header and the page URL, `extractLinks` decides
// whether the body is HTML, finds its character encoding, decodes it, and collects the
// targets of `<a href>`, `<area href>` and `<link href>`, resolved against the document's
// base URL (the first `<base href>`, else the page URL), fragments dropped, http(s) only,
// unique, in document order; plus the `<title>` text.
//
// Invariants:
// - Pure and synchronous: no I/O, no state shared between calls (apart from a cache of
//   TextDecoders, which are stateless when used without streaming).
// - Never throws on the markup or on hrefs: a malformed href is skipped. The only error is
//   `UnknownCharsetError`, raised by `decodeBody` when the declared charset has no decoder,
//   so that a crawl shows a real exception trace for such a page.
// - Hot path (runs for every page of a crawl): one decode, one pass of the link scanner
//   (link-scanner.ts: htmlparser2's tokens, found with indexOf), a Parser pass only up to the
//   end of the title, one resolution per distinct href (a string shortcut for simple
//   references, `new URL` for the rest; see `LinkResolver`).

import { Parser } from 'htmlparser2';
import type { Handler } from 'htmlparser2';
import { scanLinks, type RawAttribute } from './link-scanner';
import { TextDecoder } from 'node:util';

/** What `extractLinks` found in one response body. */
export interface LinkExtraction {
  /** Absolute http(s) URLs without fragment, unique, in document order. */
  links: string[];
  /** The charset label used to decode the body (lowercased), `utf-8` when none was declared. */
  charset: string;
  /** The text of the first `<title>` (entities decoded, whitespace collapsed), if any. */
  title?: string;
  /** Whether the content type is HTML (`text/html` or `application/xhtml+xml`). */
  isHtml: boolean;
}

/** The declared charset of a page has no decoder (an unknown WHATWG encoding label). */
export class UnknownCharsetError extends Error {
  override readonly name = 'UnknownCharsetError';
  /** The label as declared by the page or its Content-Type header. */
  readonly charset: string;
  /** The URL of the page that declared it. */
  readonly url: string;

  constructor(charset: string, url: string) {
    super(`unknown charset ${JSON.stringify(charset)} declared by ${url}`);
    this.charset = charset;
    this.url = url;
  }
}

const DEFAULT_CHARSET = 'utf-8';
/** HTML's prescan looks for a `<meta>` charset declaration in the first 1024 bytes. */
const META_PRESCAN_BYTES = 1024;

// ---------------------------------------------------------------------------------------
// Content-Type header

/** The media type of a Content-Type header value, lowercased, without parameters. */
export function mediaTypeOf(contentType: string | undefined | null): string {
  if (!contentType) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** Whether a Content-Type header value names an HTML document. */
export function isHtmlContentType(contentType: string | undefined | null): boolean {
  const type = mediaTypeOf(contentType);
  return type === 'text/html' || type === 'application/xhtml+xml';
}

/** The `charset` parameter of a Content-Type header value (lowercased, unquoted), if any. */
export function charsetFromContentType(contentType: string | undefined | null): string | undefined {
  if (!contentType) return undefined;
  let semi = contentType.indexOf(';');
  while (semi >= 0) {
    const next = contentType.indexOf(';', semi + 1);
    const param = contentType.slice(semi + 1, next < 0 ? undefined : next);
    const eq = param.indexOf('=');
    if (eq > 0 && param.slice(0, eq).trim().toLowerCase() === 'charset') {
      let value = param.slice(eq + 1).trim();
      if (value.length >= 2 && value[0] === '"' && value[value.length - 1] === '"') value = value.slice(1, -1).trim();
      if (value !== '') return value.toLowerCase();
    }
    semi = next;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Charset detection and decoding

const META_TAG = /<meta[\s/][^>]*(?:>|$)/gi;
const META_CHARSET = /charset\s*=\s*["']?\s*([^\s"';>/]+)/i;
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/**
 * The charset declared by a `<meta charset>` or `<meta http-equiv="Content-Type"
 * content="...; charset=...">` within the first 1024 bytes of `body`, lowercased.
 * A declared UTF-16 means UTF-8, as in HTML's prescan (an ASCII-readable meta cannot be UTF-16).
 */
export function sniffMetaCharset(body: Buffer): string | undefined {
  let head = body.toString('latin1', 0, Math.min(body.length, META_PRESCAN_BYTES));
  if (head.indexOf('<!--') >= 0) head = head.replace(COMMENT, '');
  META_TAG.lastIndex = 0;
  for (let tag = META_TAG.exec(head); tag !== null; tag = META_TAG.exec(head)) {
    const found = META_CHARSET.exec(tag[0]);
    if (found) {
      const label = found[1].toLowerCase();
      return label === 'utf-16' || label === 'utf-16le' || label === 'utf-16be' ? DEFAULT_CHARSET : label;
    }
  }
  return undefined;
}

/** The encoding announced by a byte order mark at the start of `body`, if any. */
function bomCharset(body: Buffer): string | undefined {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body.length >= 2) {
    if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
    if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  }
  return undefined;
}

/**
 * The charset of an HTML body: a byte order mark first (it wins, as in browsers), then the
 * Content-Type header's charset, then a `<meta>` declaration, then UTF-8.
 */
export function detectCharset(body: Buffer, contentType: string | undefined | null): string {
  return bomCharset(body) ?? charsetFromContentType(contentType) ?? sniffMetaCharset(body) ?? DEFAULT_CHARSET;
}

/** Decoders by lowercased label; a non-streaming, non-fatal TextDecoder is reusable. */
const decoders = new Map<string, TextDecoder>();

function decoderFor(label: string): TextDecoder | undefined {
  let decoder = decoders.get(label);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(label, { fatal: false });
    } catch {
      return undefined; // RangeError: not a WHATWG encoding label
    }
    decoders.set(label, decoder);
  }
  return decoder;
}

/**
 * windows-1252 (which the Encoding Standard also uses for `latin1`, `iso-8859-1` and
 * `ascii`) maps bytes 0x80-0x9F to typographic characters (`\x93` is `“`). Node 20's
 * TextDecoder decodes it as ISO-8859-1 instead, giving C1 control characters; this table
 * repairs those, and is only used when the running Node has the bug.
 */
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1_CONTROLS = /[\u0080-\u009f]/g;
const WINDOWS_1252_DECODES_AS_LATIN1 = new TextDecoder('windows-1252').decode(Uint8Array.of(0x80)) !== '\u20ac';

function repairWindows1252(text: string): string {
  C1_CONTROLS.lastIndex = 0;
  if (!C1_CONTROLS.test(text)) return text;
  return text.replace(C1_CONTROLS, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]);
}

/**
 * Decodes `body` as `charset` (malformed bytes become U+FFFD). Throws `UnknownCharsetError`
 * (from this frame, so traces name it) when the label has no decoder.
 */
export function decodeBody(body: Buffer, charset: string, pageUrl: string): string {
  const decoder = decoderFor(charset);
  if (decoder === undefined) throw new UnknownCharsetError(charset, pageUrl);
  const text = decoder.decode(body);
  return WINDOWS_1252_DECODES_AS_LATIN1 && decoder.encoding === 'windows-1252' ? repairWindows1252(text) : text;
}

// ---------------------------------------------------------------------------------------
// Tokenizing: hrefs by the link scanner, the title by htmlparser2
//
// The hrefs come from `scanLinks` (link-scanner.ts), which finds the same start tags and
// attributes as htmlparser2's tokenizer but skips everything else with indexOf: on real
// pages of 10-200 KB it is several times faster than a full Parser pass. Values stay raw
// (`decodeEntities: false` in htmlparser2's terms); the few that contain '&' (hrefs with
// `&amp;` in their query, a title with `&mdash;`) are decoded afterwards: the five basic
// references directly, anything else by a small entity-decoding Parser, so the decoding rules
// are htmlparser2's own: attribute mode for hrefs (`&copy=` stays as written, as in HTML),
// text mode for the title.
//
// The title needs htmlparser2's element stack (a <title> inside <svg> is not the document's;
// `<title/>` opens a title in HTML), so a Parser reads the document up to the first `</title`
// end tag, and reads the whole document only when the title was not finished there. A
// Parser's callbacks for a prefix are those of the whole document up to that point.

/**
 * The parser callbacks that find the document's title. Tag names arrive lowercased.
 */
class TitleCollector implements Partial<Handler> {
  /** The first `<title>`'s raw text so far; undefined until one opens. */
  titleText: string | undefined = undefined;
  titleDone = false;
  private inTitle = false;
  /** SVG can contain its own `<title>`; only the document's one counts. */
  private svgDepth = 0;

  onopentagname(name: string): void {
    if (name === 'title') {
      if (!this.titleDone && this.svgDepth === 0) {
        this.inTitle = true;
        this.titleText = '';
      }
    } else if (name === 'svg') {
      this.svgDepth++;
    }
  }

  ontext(data: string): void {
    if (this.inTitle) this.titleText += data;
  }

  onclosetag(name: string): void {
    if (name === 'title') {
      if (this.inTitle) {
        this.inTitle = false;
        this.titleDone = true;
      }
    } else if (name === 'svg' && this.svgDepth > 0) {
      this.svgDepth--;
    }
  }
}

const TITLE_START = /<title/i;
const TITLE_END = /<\/title/i;

/**
 * The raw text of the document's first title, if any. A fresh Parser each time: it costs
 * about a microsecond, and htmlparser2's `reset()` leaves the tokenizer inside a raw-text
 * element when the previous document ended in one (an unclosed `<title>`).
 */
function findTitle(html: string): string | undefined {
  // No '<title' (in any case) means no title element: nothing to parse.
  if (!TITLE_START.test(html)) return undefined;
  const end = TITLE_END.exec(html);
  const gt = end === null ? -1 : html.indexOf('>', end.index);
  if (gt >= 0) {
    const collector = parseForTitle(html.slice(0, gt + 1), false);
    if (collector.titleDone) return collector.titleText;
  }
  // Not finished there: the whole document, in one piece (htmlparser2 can split text
  // differently when it is written in parts, so the prefix's parser is not continued).
  return parseForTitle(html, true).titleText;
}

/** Runs a fresh Parser over `html`; `whole`: `html` is the whole document (end it). */
function parseForTitle(html: string, whole: boolean): TitleCollector {
  const collector = new TitleCollector();
  const parser = new Parser(collector, { decodeEntities: false, lowerCaseTags: true, lowerCaseAttributeNames: true });
  if (whole) parser.end(html);
  else parser.write(html);
  return collector;
}

/** Receives the single attribute or text of the small documents `decodeWithParser` runs. */
class DecodedValue implements Partial<Handler> {
  value = '';
  onattribute(_name: string, value: string): void {
    this.value = value;
  }
  ontext(data: string): void {
    this.value += data;
  }
}

/** Runs a small document through an entity-decoding Parser and returns what it reported. */
function decodeWithParser(document: string): string {
  const decoded = new DecodedValue();
  new Parser(decoded, { decodeEntities: true }).end(document);
  return decoded.value;
}

/** The five references that make up nearly all escaping in URLs and titles. */
const BASIC_REFERENCE = /&(amp|lt|gt|quot|apos);|&/g;

function basicReferenceText(name: string): string {
  switch (name) {
    case 'amp':
      return '&';
    case 'lt':
      return '<';
    case 'gt':
      return '>';
    case 'quot':
      return '"';
    default:
      return "'";
  }
}

/**
 * Decodes `raw` when its only character references are `&amp;`, `&lt;`, `&gt;`, `&quot;`
 * and `&apos;` (these decode the same way in every HTML context); undefined when any other
 * '&' is present and the full decoder must decide.
 */
function decodeBasicReferences(raw: string): string | undefined {
  let other = false;
  const text = raw.replace(BASIC_REFERENCE, (match: string, name: string | undefined) => {
    if (name === undefined) {
      other = true;
      return match;
    }
    return basicReferenceText(name);
  });
  return other ? undefined : text;
}

/** The value of a raw attribute with its character references decoded (attribute rules). */
function decodeAttribute(raw: RawAttribute): string {
  if (raw.value.indexOf('&') < 0) return raw.value;
  const basic = decodeBasicReferences(raw.value);
  if (basic !== undefined) return basic;
  // Re-quote exactly as written, so the value tokenizes the same way again.
  const q = raw.quote === '"' || raw.quote === "'" ? raw.quote : '';
  return decodeWithParser(`<a v=${q}${raw.value}${q}>`);
}

/** The text of a raw `<title>` with its character references decoded (text rules). */
function decodeTitle(raw: string): string {
  if (raw.indexOf('&') < 0) return raw;
  const basic = decodeBasicReferences(raw);
  if (basic !== undefined) return basic;
  // The raw text came out of a title element, so it cannot contain the closing tag.
  return decodeWithParser(`<title>${raw}</title>`);
}

const HTML_WHITESPACE_RUN = /[\t\n\f\r ]+/g;

/** HTML's "strip and collapse ASCII whitespace" (String#trim would also strip U+00A0). */
function collapseWhitespace(text: string): string {
  let collapsed = text.replace(HTML_WHITESPACE_RUN, ' ');
  if (collapsed.startsWith(' ')) collapsed = collapsed.slice(1);
  if (collapsed.endsWith(' ')) collapsed = collapsed.slice(0, -1);
  return collapsed;
}

// ---------------------------------------------------------------------------------------
// URL resolution

/** Parses `href` against `base`, or undefined when it is not a valid URL. */
function parseUrl(href: string, base: string | undefined): URL | undefined {
  try {
    return base === undefined ? new URL(href) : new URL(href, base);
  } catch {
    return undefined;
  }
}

/**
 * References made only of characters that WHATWG URL parsing copies unchanged into an
 * http(s) path or query (no whitespace, quotes, backslashes, `<>{}|^` or non-ASCII).
 */
const SIMPLE_REFERENCE = /^[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/;
/** `%2e` is a dot in a dot-segment: left to the URL parser. */
const ENCODED_DOT = /%2e/i;

/**
 * Resolves hrefs against one base URL into absolute http(s) URLs without fragment.
 *
 * `new URL(href, base)` costs about 0.7 µs on Node 20, which dominates link extraction on
 * link-heavy pages. The references found in real pages are mostly simple (`/a/b`, `c.html`,
 * `../d?e=f`, `#top`), and for those the result is the base's origin and directory plus the
 * reference with its dot-segments removed, exactly as the WHATWG URL parser computes it.
 * Anything else (schemes, `//host`, characters that need percent-encoding, `%2e`) goes to
 * `new URL`. The test suite checks the shortcut against `new URL` on generated references.
 */
export class LinkResolver {
  /** The serialized base URL, or undefined when only absolute URLs can be resolved. */
  readonly base: string | undefined;
  /** The shortcut needs an http(s) base without credentials. */
  private readonly simple: boolean = false;
  /** `scheme://host[:port]` of the base. */
  private readonly origin: string = '';
  /** The base's path (`/dir/page.html`). */
  private readonly basePath: string = '';
  /** The base's path up to its last slash (`/dir/`). */
  private readonly baseDirectoryPath: string = '';
  /** The segments of `baseDirectoryPath` (`['dir']`). */
  private readonly baseDirectory: readonly string[] = [];
  /** The base without its fragment: what `''` and `#frag` resolve to. */
  private readonly baseWithoutFragment: string = '';

  constructor(base: string | undefined) {
    const url = base === undefined ? undefined : parseUrl(base, undefined);
    this.base = url?.href;
    if (url === undefined) return;
    const href = url.href;
    const hash = href.indexOf('#');
    this.baseWithoutFragment = hash < 0 ? href : href.slice(0, hash);
    this.origin = `${url.protocol}//${url.host}`;
    this.basePath = url.pathname;
    this.baseDirectoryPath = this.basePath.slice(0, this.basePath.lastIndexOf('/') + 1);
    this.baseDirectory = this.baseDirectoryPath.split('/').slice(1, -1);
    this.simple =
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.username === '' &&
      url.password === '' &&
      href.startsWith(this.origin + this.basePath);
  }

  /** The absolute http(s) URL `href` refers to, without fragment; undefined if none. */
  resolve(href: string): string | undefined {
    if (this.simple) {
      const hash = href.indexOf('#');
      const reference = hash < 0 ? href : href.slice(0, hash);
      if (SIMPLE_REFERENCE.test(reference)) {
        const resolved = this.resolveSimple(reference);
        if (resolved !== undefined) return resolved;
      }
    }
    return this.resolveWithUrl(href);
  }

  private resolveWithUrl(href: string): string | undefined {
    // An absolute http(s) URL needs no base (saves parsing the base again).
    const absolute = this.base === undefined || href.startsWith('http://') || href.startsWith('https://');
    const url = parseUrl(href, absolute ? undefined : this.base);
    if (url === undefined) return undefined;
    const protocol = url.protocol;
    if (protocol !== 'http:' && protocol !== 'https:') return undefined;
    // In a serialized URL the first '#' always starts the fragment.
    const serialized = url.href;
    const hash = serialized.indexOf('#');
    return hash < 0 ? serialized : serialized.slice(0, hash);
  }

  /** The shortcut for a fragment-free simple reference; undefined to defer to `new URL`. */
  private resolveSimple(reference: string): string | undefined {
    if (reference === '') return this.baseWithoutFragment;
    const first = reference.charCodeAt(0);
    if (first === 0x3f /* ? */) return this.origin + this.basePath + reference;
    const queryStart = reference.indexOf('?');
    const path = queryStart < 0 ? reference : reference.slice(0, queryStart);
    const absolutePath = first === 0x2f; /* / */
    if (absolutePath && path.charCodeAt(1) === 0x2f) return undefined; // `//host/...`
    const colon = path.indexOf(':');
    if (colon >= 0 && !absolutePath) {
      const slash = path.indexOf('/');
      if (slash < 0 || colon < slash) return undefined; // may be `scheme:...`
    }
    if (ENCODED_DOT.test(path)) return undefined;
    // Without a `.` or `..` segment the path is taken as written.
    const hasDotSegment = path.indexOf('/.') >= 0 || (!absolutePath && first === 0x2e); /* . */
    if (!hasDotSegment) return this.origin + (absolutePath ? '' : this.baseDirectoryPath) + reference;

    const segments = absolutePath ? [] : this.baseDirectory.slice();
    let start = absolutePath ? 1 : 0;
    for (;;) {
      const end = path.indexOf('/', start);
      const last = end < 0;
      const segment = last ? path.slice(start) : path.slice(start, end);
      if (segment === '..') {
        segments.pop();
        if (last) segments.push('');
      } else if (segment === '.') {
        if (last) segments.push('');
      } else {
        segments.push(segment);
      }
      if (last) break;
      start = end + 1;
    }
    return this.origin + '/' + segments.join('/') + (queryStart < 0 ? '' : reference.slice(queryStart));
  }
}

/** The document's base URL: the first `<base href>` resolved against the page, else the page. */
function documentBase(pageUrl: string, baseHref: RawAttribute | undefined): string | undefined {
  const pageHref = parseUrl(pageUrl, undefined)?.href;
  if (baseHref === undefined) return pageHref;
  const base = parseUrl(decodeAttribute(baseHref), pageHref);
  // HTML ignores a base URL that fails to parse or whose scheme is data: or javascript:.
  if (base === undefined || base.protocol === 'data:' || base.protocol === 'javascript:') return pageHref;
  return base.href;
}

function resolveLinks(rawHrefs: readonly RawAttribute[], base: string | undefined): string[] {
  const links: string[] = [];
  if (rawHrefs.length === 0) return links;
  const resolver = new LinkResolver(base);
  const seenRaw = new Set<string>();
  const seenLinks = new Set<string>();
  for (const raw of rawHrefs) {
    // Same text, same link (the quoting does not change the decoded value).
    if (seenRaw.has(raw.value)) continue;
    seenRaw.add(raw.value);
    const link = resolver.resolve(decodeAttribute(raw));
    if (link !== undefined && !seenLinks.has(link)) {
      seenLinks.add(link);
      links.push(link);
    }
  }
  return links;
}

// ---------------------------------------------------------------------------------------

/**
 * Extracts the links and title of an HTML response body. Non-HTML content types give
 * `isHtml: false` and no links (the body is not decoded). Throws `UnknownCharsetError` when
 * an HTML page declares a charset that no decoder knows.
 */
export function extractLinks(body: Buffer, contentType: string | undefined, pageUrl: string): LinkExtraction {
  if (!isHtmlContentType(contentType)) {
    return { links: [], charset: charsetFromContentType(contentType) ?? DEFAULT_CHARSET, isHtml: false };
  }
  const charset = detectCharset(body, contentType);
  const text = decodeBody(body, charset, pageUrl);

  const { rawHrefs, baseHref } = scanLinks(text);
  const titleText = findTitle(text);

  const links = resolveLinks(rawHrefs, documentBase(pageUrl, baseHref));
  const result: LinkExtraction = { links, charset, isHtml: true };
  if (titleText !== undefined) result.title = collapseWhitespace(decodeTitle(titleText));
  return result;
}
