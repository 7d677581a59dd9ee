// The link scanner: finds the href attributes of <a>, <area>, <link> and <base> start tags in
// a decoded HTML document, as htmlparser2's tokenizer (decodeEntities off, names lowercased)
// reports them, without tokenizing everything else character by character.
//
// Why: on real pages (10-200 KB of markup) htmlparser2's Parser spent most of a crawl's CPU
// in its per-character state machine and its element stack, for the few attributes the
// crawler keeps. This scanner jumps between '<' and the ends of tags, quoted values, comments
// and raw-text elements with indexOf, and looks closely only at tag and attribute names.
//
// Invariants:
// - Same tokens as htmlparser2 10 in HTML mode for what it reports: a start tag is one whose
//   name begins with an ASCII letter and ends at whitespace, '/' or '>'; attributes end where
//   htmlparser2 ends them (a name may start with '=', an unquoted value ends at whitespace or
//   '>', a value cut off by the end of the document is not reported); comments end at the
//   first '-->' counted from the first dash of '<!--' (so '<!-->' is a whole comment), CDATA
//   at ']]>', declarations and processing instructions at '>'; the contents of script, style,
//   textarea, title and xmp end at '</name' followed by whitespace or '>' (name compared as
//   htmlparser2 does, with `| 0x20`), except after a self-closing '<script/>'. The tests
//   compare it with htmlparser2 on a corpus and on generated markup.
// - Values are kept raw (entities undecoded) with their quote: '"', "'", null (unquoted) or
//   undefined (no value), as htmlparser2's onattribute gives them; the first href of a tag wins.
// - Pure, synchronous, allocation-light: strings are sliced only for the names it compares
//   and the values it keeps.

/** An attribute value as written: its raw text and how it was quoted (htmlparser2's `quote`). */
export interface RawAttribute {
  value: string;
  quote: string | null | undefined;
}

export interface ScannedLinks {
  /** The href of every <a>, <area> and <link> start tag that has one, in document order. */
  rawHrefs: RawAttribute[];
  /** The href of the first <base> start tag that has one. */
  baseHref: RawAttribute | undefined;
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const EQ = 0x3d;
const BANG = 0x21;
const QUESTION = 0x3f;
const DASH = 0x2d;
const LBRACKET = 0x5b;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

function isAsciiAlpha(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function endsTagSection(c: number): boolean {
  return c === SLASH || c === GT || isWhitespace(c);
}

/** Elements whose contents are raw text up to their end tag, as htmlparser2 knows them. */
const RAW_TEXT_ELEMENTS = ['script', 'style', 'title', 'textarea', 'xmp'];
/** Their end tags' openings, `</name`, as char codes. */
const RAW_TEXT_END = new Map(RAW_TEXT_ELEMENTS.map((name) => [name, Array.from(`</${name}`, (ch) => ch.charCodeAt(0))]));
const CDATA_OPEN = Array.from('CDATA[', (ch) => ch.charCodeAt(0));

/** Which element kind a start tag is, for what the scanner does with it. */
const enum TagKind {
  Other,
  Link,
  Base,
}

/** The kind of the start tag named html[start, end), lowercased as htmlparser2 does. */
function tagKind(html: string, start: number, end: number): TagKind {
  const length = end - start;
  if (length === 1) return (html.charCodeAt(start) | 0x20) === 0x61 /* a */ ? TagKind.Link : TagKind.Other;
  if (length !== 4) return TagKind.Other;
  if (isAsciiNamed(html, start, 'area') || isAsciiNamed(html, start, 'link')) return TagKind.Link;
  if (isAsciiNamed(html, start, 'base')) return TagKind.Base;
  // A non-ASCII character may still lowercase to ASCII (U+212A KELVIN SIGN is 'k'), as
  // htmlparser2's toLowerCase() does it.
  for (let i = start; i < end; i++) {
    if (html.charCodeAt(i) >= 0x80) {
      const name = html.slice(start, end).toLowerCase();
      if (name === 'area' || name === 'link') return TagKind.Link;
      return name === 'base' ? TagKind.Base : TagKind.Other;
    }
  }
  return TagKind.Other;
}

/** Whether html[start, start + name.length) is `name` (lower-case ASCII letters) in any case. */
function isAsciiNamed(html: string, start: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if ((html.charCodeAt(start + i) | 0x20) !== name.charCodeAt(i)) return false;
  return true;
}

/** The raw-text element the start tag html[start, end) opens, if any (compared with `| 0x20`). */
function rawTextEnd(html: string, start: number, end: number): number[] | undefined {
  const length = end - start;
  if (length < 3 || length > 8) return undefined;
  for (const name of RAW_TEXT_ELEMENTS) if (name.length === length && isAsciiNamed(html, start, name)) return RAW_TEXT_END.get(name);
  return undefined;
}

/** Where scanning resumes after raw text that starts at `from` and ends with `endTag`: past the '>' of the end tag, or -1. */
function skipRawText(html: string, from: number, endTag: number[], charByChar: boolean): number {
  const n = html.length;
  const last = endTag.length;
  let k = 0;
  for (let i = from; i < n; i++) {
    const c = html.charCodeAt(i);
    if (k === last) {
      if (c === GT || isWhitespace(c)) {
        // The end tag's name is over; it closes at the next '>'.
        const gt = c === GT ? i : html.indexOf('>', i + 1);
        return gt < 0 ? -1 : gt + 1;
      }
      k = 0;
    }
    if ((c | 0x20) === endTag[k]) k++;
    else if (k === 0) {
      // Outside a possible end tag: jump to the next '<' (a title is stepped through, as htmlparser2 does).
      if (charByChar) continue;
      const lt = html.indexOf('<', i + 1);
      if (lt < 0) return -1;
      i = lt;
      k = 1;
    } else k = c === LT ? 1 : 0;
  }
  return -1;
}

/** Where scanning resumes after the '<!' at `lt`: past the comment, CDATA or declaration, or -1. */
function skipDeclaration(html: string, lt: number): number {
  const first = lt + 2;
  if (first >= html.length) return -1;
  const c = html.charCodeAt(first);
  let end: number;
  if (c === DASH) {
    if (html.charCodeAt(first + 1) === DASH) {
      const close = html.indexOf('-->', first);
      return close < 0 ? -1 : close + 3;
    }
    // '<!-' and one more character, then a declaration up to '>'.
    end = first + 2 <= html.length ? html.indexOf('>', first + 2) : -1;
  } else if (c === LBRACKET) {
    let i = first + 1;
    let k = 0;
    while (k < CDATA_OPEN.length && i < html.length && html.charCodeAt(i) === CDATA_OPEN[k]) {
      i++;
      k++;
    }
    if (k === CDATA_OPEN.length) {
      const close = html.indexOf(']]>', i);
      return close < 0 ? -1 : close + 3;
    }
    // Not CDATA after all: a declaration, whose '>' may be the character that broke the match.
    end = html.indexOf('>', i);
  } else {
    end = html.indexOf('>', first + 1);
  }
  return end < 0 ? -1 : end + 1;
}

/** Where scanning resumes after the '</' at `lt`: past the end tag, or -1. */
function skipEndTag(html: string, lt: number): number {
  let i = lt + 2;
  while (i < html.length && isWhitespace(html.charCodeAt(i))) i++;
  if (i >= html.length) return -1;
  if (html.charCodeAt(i) === GT) return i + 1;
  const gt = html.indexOf('>', i + 1);
  return gt < 0 ? -1 : gt + 1;
}

/** Finds the hrefs of <a>, <area>, <link> and <base> in `html`. */
export function scanLinks(html: string): ScannedLinks {
  const rawHrefs: RawAttribute[] = [];
  let baseHref: RawAttribute | undefined;
  const n = html.length;
  let pos = 0;
  scan: while (pos < n) {
    const lt = html.indexOf('<', pos);
    if (lt < 0 || lt + 1 >= n) break;
    const c = html.charCodeAt(lt + 1);
    if (!isAsciiAlpha(c)) {
      let next: number;
      if (c === BANG) next = skipDeclaration(html, lt);
      else if (c === QUESTION) {
        const gt = html.indexOf('>', lt + 2);
        next = gt < 0 ? -1 : gt + 1;
      } else if (c === SLASH) next = skipEndTag(html, lt);
      else next = lt + 1; // Not markup: text, and the character is looked at again.
      if (next < 0) break;
      pos = next;
      continue;
    }
    // A start tag: its name runs to whitespace, '/' or '>'.
    const nameStart = lt + 1;
    let i = nameStart + 1;
    while (i < n && !endsTagSection(html.charCodeAt(i))) i++;
    if (i >= n) break;
    const kind = tagKind(html, nameStart, i);
    let rawText = rawTextEnd(html, nameStart, i);
    let hasHref = false;
    // Attributes, up to the '>' that ends the tag.
    for (;;) {
      if (i >= n) break scan;
      let ch = html.charCodeAt(i);
      if (ch === GT) {
        i++;
        break;
      }
      if (ch === SLASH) {
        // Self-closing, or a stray '/' before the next attribute.
        i++;
        while (i < n && isWhitespace(html.charCodeAt(i))) i++;
        if (i >= n) break scan;
        if (html.charCodeAt(i) === GT) {
          rawText = undefined;
          i++;
          break;
        }
        continue;
      }
      if (isWhitespace(ch)) {
        i++;
        continue;
      }
      // An attribute name: its first character is taken whatever it is.
      const attrStart = i;
      i++;
      while (i < n && (ch = html.charCodeAt(i)) !== EQ && !endsTagSection(ch)) i++;
      if (i >= n) break scan;
      const attrEnd = i;
      while (i < n && isWhitespace(html.charCodeAt(i))) i++;
      if (i >= n) break scan;
      let value: string | undefined;
      let quote: string | null | undefined;
      let wanted = kind !== TagKind.Other && !hasHref && attrEnd - attrStart === 4 && isAsciiNamed(html, attrStart, 'href');
      if (html.charCodeAt(i) !== EQ) {
        // No value: the next attribute (or the end of the tag) starts here.
        value = '';
        quote = undefined;
      } else {
        i++;
        while (i < n && isWhitespace(html.charCodeAt(i))) i++;
        if (i >= n) break scan;
        const q = html.charCodeAt(i);
        if (q === DQUOTE || q === SQUOTE) {
          const close = html.indexOf(q === DQUOTE ? '"' : "'", i + 1);
          if (close < 0) break scan;
          if (wanted) {
            value = html.slice(i + 1, close);
            quote = q === DQUOTE ? '"' : "'";
          }
          i = close + 1;
        } else {
          const valueStart = i;
          while (i < n && (ch = html.charCodeAt(i)) !== GT && !isWhitespace(ch)) i++;
          if (i >= n) break scan;
          if (wanted) {
            value = html.slice(valueStart, i);
            quote = null;
          }
        }
      }
      if (wanted) {
        hasHref = true;
        const attribute: RawAttribute = { value: value!, quote };
        if (kind === TagKind.Link) rawHrefs.push(attribute);
        else if (baseHref === undefined) baseHref = attribute;
      }
      wanted = false;
    }
    if (rawText !== undefined) {
      const next = skipRawText(html, i, rawText, rawText === RAW_TEXT_END.get('title'));
      if (next < 0) break;
      pos = next;
    } else pos = i;
  }
  return { rawHrefs, baseHref };
}
