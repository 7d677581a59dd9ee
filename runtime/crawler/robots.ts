// robots.txt, as RFC 9309 (the Robots Exclusion Protocol) defines it: parsing and matching.
//
// Parsing: lines of `field: value`, `#` comments, a leading BOM, CR/LF/CRLF line ends,
// field names case-insensitive (with the common misspellings crawlers accept). A group is
// one or more `user-agent` lines followed by rules; a `user-agent` line after a rule starts
// a new group; rules before any `user-agent` line belong to no group and are ignored.
//
// Matching, for a crawler's product token (`coroscope`): the rules of every group naming
// the token (case-insensitively) are combined; if none does, those of the `*` groups; if
// there are none either, everything is allowed. Among the rules whose path pattern matches
// the URL's path and query, the longest pattern (in octets) wins, and on a tie `allow` wins;
// no matching rule means allowed. `*` in a pattern matches any sequence of characters, a
// final `$` anchors it at the end of the path. `/robots.txt` itself is always allowed.
//
// Paths and patterns are compared in one canonical form, the octets they denote: non-ASCII
// characters as their UTF-8 octets and every `%XX` escape decoded, so `/%62az`, `/baz`, and
// `/caf%C3%A9` vs `/café` compare equal, as in RFC 9309 section 2.2.2's examples. The RFC's
// prose keeps escaped reserved characters encoded, but its own table matches the pattern
// `/foo/bar?baz=https://foo.bar` with `...baz=https%3A%2F%2Ffoo.bar`; decoding every escape
// satisfies both, erring towards a rule applying. Wildcards are recognised before decoding,
// so `%2A` and `%24` stay literal characters.
//
// Invariants: `parseRobots` and every method are total (garbage in gives some rules, never
// an exception); a RobotsRules is immutable apart from a cache of per-agent lookups.

/** The product token used when none is given. */
export const DEFAULT_ROBOTS_AGENT = 'coroscope';

/** One allow/disallow line, compiled for matching. */
interface RobotsRule {
  readonly allow: boolean;
  /** Specificity: the pattern's length in canonical octets (wildcards count one each). */
  readonly length: number;
  /** The canonical pattern split at its `*` wildcards (one part when there is none). */
  readonly parts: readonly string[];
  /** Whether the pattern ended with `$` (must match up to the end of the path). */
  readonly anchored: boolean;
}

/** The rules that apply to one user agent, and its crawl delay. */
interface RobotsGroup {
  /** In precedence order (see `combine`). */
  readonly rules: readonly RobotsRule[];
  readonly crawlDelay: number | undefined;
}

interface ParsedGroup {
  agents: string[];
  rules: RobotsRule[];
  crawlDelay: number | undefined;
}

const EMPTY_GROUP: RobotsGroup = { rules: [], crawlDelay: undefined };

// ---------------------------------------------------------------------------------------
// Canonical octets

const NEEDS_CANONICALIZING = /[%\u0080-\uffff]/;

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/**
 * The octets a path (or a pattern part) denotes, as a string of char codes 0-255:
 * UTF-8 for non-ASCII characters, `%XX` escapes decoded, a `%` not followed by two hex
 * digits kept as is. ASCII without `%` (the usual case) is returned unchanged.
 */
function canonicalOctets(text: string): string {
  if (!NEEDS_CANONICALIZING.test(text)) return text;
  const bytes = Buffer.from(text, 'utf8');
  let out = '';
  let runStart = 0;
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] !== 0x25 /* % */) continue;
    const high = hexValue(bytes[i + 1]);
    const low = hexValue(bytes[i + 2]);
    if (high < 0 || low < 0) continue;
    out += bytes.toString('latin1', runStart, i) + String.fromCharCode(high * 16 + low);
    runStart = i + 3;
    i += 2;
  }
  return out + bytes.toString('latin1', runStart);
}

// ---------------------------------------------------------------------------------------
// Rules

/** Compiles a path pattern; undefined for an empty one (an empty rule matches nothing). */
function compileRule(allow: boolean, pattern: string): RobotsRule | undefined {
  if (pattern === '') return undefined;
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const parts = body.split('*').map(canonicalOctets);
  let length = anchored ? 1 : 0;
  for (const part of parts) length += part.length;
  length += parts.length - 1;
  return { allow, length, parts, anchored };
}

/** Whether a rule's pattern matches the canonical `path` (from its start). */
function ruleMatches(rule: RobotsRule, path: string): boolean {
  const parts = rule.parts;
  const first = parts[0];
  if (parts.length === 1) return rule.anchored ? path === first : path.startsWith(first);
  if (!path.startsWith(first)) return false;
  // Each `*` takes the shortest run that lets the next part match (leftmost match), which
  // finds a match whenever one exists for a prefix-match glob; the last part of an
  // anchored pattern must instead sit at the very end.
  let position = first.length;
  const lastIndex = parts.length - 1;
  for (let i = 1; i < lastIndex; i++) {
    const found = path.indexOf(parts[i], position);
    if (found < 0) return false;
    position = found + parts[i].length;
  }
  const last = parts[lastIndex];
  if (rule.anchored) return path.length - last.length >= position && path.endsWith(last);
  return path.indexOf(last, position) >= 0;
}

// ---------------------------------------------------------------------------------------
// Parsing

type FieldKind = 'user-agent' | 'allow' | 'disallow' | 'crawl-delay' | 'sitemap';

const FIELD_NAMES = new Map<string, FieldKind>([
  ['user-agent', 'user-agent'],
  ['useragent', 'user-agent'],
  ['user agent', 'user-agent'],
  ['allow', 'allow'],
  ['disallow', 'disallow'],
  ['dissallow', 'disallow'],
  ['dissalow', 'disallow'],
  ['disalow', 'disallow'],
  ['diasllow', 'disallow'],
  ['disallaw', 'disallow'],
  ['crawl-delay', 'crawl-delay'],
  ['crawldelay', 'crawl-delay'],
  ['sitemap', 'sitemap'],
  ['site-map', 'sitemap'],
]);

/**
 * The product token of a `user-agent` value or of a crawler's name: `*`, or its leading
 * run of letters, `_` and `-`, lowercased (`Coroscope/1.0` → `coroscope`); '' if none.
 */
export function productToken(userAgent: string): string {
  const trimmed = userAgent.trim();
  if (trimmed.startsWith('*')) return '*';
  const token = /^[A-Za-z_-]+/.exec(trimmed);
  return token === null ? '' : token[0].toLowerCase();
}

/** Splits a line into a known field and its value; undefined for anything else. */
function parseLine(line: string): [FieldKind, string] | undefined {
  const hash = line.indexOf('#');
  const content = hash < 0 ? line : line.slice(0, hash);
  let separator = content.indexOf(':');
  let valueStart = separator + 1;
  if (separator < 0) {
    // Accept a missing colon (`Disallow /x`), as lenient parsers do.
    const match = /^\s*[A-Za-z-]+(?:\s+agent)?(\s+)/i.exec(content);
    if (match === null) return undefined;
    separator = match[0].length - match[1].length;
    valueStart = match[0].length;
  }
  const kind = FIELD_NAMES.get(content.slice(0, separator).trim().toLowerCase().replace(/\s+/g, ' '));
  if (kind === undefined) return undefined;
  return [kind, content.slice(valueStart).trim()];
}

/** Parses robots.txt text into rules; never throws. */
export function parseRobots(text: string): RobotsRules {
  return RobotsRules.parse(text);
}

/** The groups and sitemaps of a robots.txt text. */
function parseGroups(text: string): { groups: ParsedGroup[]; sitemaps: string[] } {
  const groups: ParsedGroup[] = [];
  const sitemaps: string[] = [];
  let current: ParsedGroup | undefined;
  /** Whether `current` has taken a rule yet (a user-agent line after one opens a group). */
  let currentHasRules = false;

  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const line of source.split(/\r\n|\r|\n/)) {
    const field = parseLine(line);
    if (field === undefined) continue;
    const [kind, value] = field;
    switch (kind) {
      case 'user-agent':
        if (current === undefined || currentHasRules) {
          current = { agents: [], rules: [], crawlDelay: undefined };
          groups.push(current);
          currentHasRules = false;
        }
        current.agents.push(productToken(value));
        break;
      case 'allow':
      case 'disallow': {
        if (current === undefined) break; // a rule outside any group
        currentHasRules = true;
        const rule = compileRule(kind === 'allow', value);
        if (rule !== undefined) current.rules.push(rule);
        break;
      }
      case 'crawl-delay': {
        if (current === undefined) break;
        currentHasRules = true;
        const delay = Number(value);
        if (value !== '' && Number.isFinite(delay) && delay >= 0 && current.crawlDelay === undefined) {
          current.crawlDelay = delay;
        }
        break;
      }
      case 'sitemap':
        if (value !== '') sitemaps.push(value);
        break;
    }
  }
  return { groups, sitemaps };
}

// ---------------------------------------------------------------------------------------
// Matching

/** The parsed robots.txt of one site. */
export class RobotsRules {
  /** `Sitemap:` URLs, in file order (they belong to no group). */
  readonly sitemaps: readonly string[];
  private readonly groups: readonly ParsedGroup[];
  /** Combined groups by product token. */
  private readonly byAgent = new Map<string, RobotsGroup>();

  private constructor(groups: readonly ParsedGroup[], sitemaps: readonly string[]) {
    this.groups = groups;
    this.sitemaps = sitemaps;
  }

  /** Parses robots.txt text (same as `parseRobots`); never throws. */
  static parse(text: string): RobotsRules {
    const { groups, sitemaps } = parseGroups(text);
    return new RobotsRules(groups, sitemaps);
  }

  /** No restrictions: what a missing robots.txt (HTTP 4xx) means, per RFC 9309. */
  static allowAll(): RobotsRules {
    return new RobotsRules([], []);
  }

  /** Everything disallowed: what an unreachable robots.txt (HTTP 5xx) means, per RFC 9309. */
  static disallowAll(): RobotsRules {
    return RobotsRules.parse('User-agent: *\nDisallow: /\n');
  }

  /**
   * Whether `userAgent` (a product token, or a name it starts with) may fetch
   * `pathWithQuery` (`/a/b?c`; a full http(s) URL is also accepted, its path and query
   * are used; a fragment is ignored).
   */
  isAllowed(pathWithQuery: string, userAgent: string = DEFAULT_ROBOTS_AGENT): boolean {
    const path = canonicalOctets(pathOf(pathWithQuery));
    if (path === '/robots.txt') return true;
    // Rules are sorted by precedence: the first that matches decides.
    for (const rule of this.groupFor(userAgent).rules) {
      if (ruleMatches(rule, path)) return rule.allow;
    }
    return true;
  }

  /** The `Crawl-delay` in seconds of the group that applies to `userAgent`, if it has one. */
  crawlDelay(userAgent: string = DEFAULT_ROBOTS_AGENT): number | undefined {
    return this.groupFor(userAgent).crawlDelay;
  }

  private groupFor(userAgent: string): RobotsGroup {
    const token = productToken(userAgent);
    let group = this.byAgent.get(token);
    if (group === undefined) {
      group = this.combine(token === '*' || token === '' ? [] : this.groups.filter((g) => g.agents.includes(token)));
      if (group === undefined) group = this.combine(this.groups.filter((g) => g.agents.includes('*'))) ?? EMPTY_GROUP;
      this.byAgent.set(token, group);
    }
    return group;
  }

  private combine(groups: readonly ParsedGroup[]): RobotsGroup | undefined {
    if (groups.length === 0) return undefined;
    const rules: RobotsRule[] = [];
    let crawlDelay: number | undefined;
    for (const group of groups) {
      rules.push(...group.rules);
      crawlDelay ??= group.crawlDelay;
    }
    // Precedence order: longer patterns first, and on equal length allow before disallow.
    rules.sort((a, b) => b.length - a.length || Number(b.allow) - Number(a.allow));
    return { rules, crawlDelay };
  }
}

/** The path and query of a path or an absolute URL, always starting with `/`. */
function pathOf(pathWithQuery: string): string {
  let path = pathWithQuery;
  if (/^https?:\/\//i.test(path)) {
    try {
      const url = new URL(path);
      path = url.pathname + url.search;
    } catch {
      // not a URL after all: match it as a path
    }
  }
  const hash = path.indexOf('#');
  if (hash >= 0) path = path.slice(0, hash);
  return path.startsWith('/') ? path : `/${path}`;
}
