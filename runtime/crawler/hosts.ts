// Which hosts the crawler may visit: the chapter's `host_okay` test, as a value.
//
// A crawl is confined to the hosts of its root URLs. Two modes, as in the chapter:
// - strict: the URL's host must be a root's host, `www.example.com` and `example.com` being
//   the same site;
// - lenient: the URL's host must be a root's host (without `www.`) or a subdomain of it, so
//   a crawl rooted at `example.com` also visits `blog.example.com`.
// IP addresses are only ever equal to themselves (no `www.`, no subdomains). Loopback hosts
// (`localhost`, `127.0.0.0/8`, `[::1]`) also compare their port, in both modes: on one
// machine each port is a different site (the demo site, a test server, ...), whereas on a
// public host a port change is normally the same site.
//
// Invariants: `matches` never throws; invalid URLs and non-http(s) URLs do not match. A
// HostMatcher is immutable after construction.

/** The site identity of a hostname: lowercased, without a trailing dot or a `www.` prefix. */
export function hostKey(hostname: string): string {
  let key = hostname.toLowerCase();
  if (key.endsWith('.')) key = key.slice(0, -1);
  if (key.startsWith('www.') && key.length > 4) key = key.slice(4);
  return key;
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Whether `hostname` (as in `URL.hostname`, IPv6 in brackets) is an IP address literal. */
export function isIpAddress(hostname: string): boolean {
  return hostname.startsWith('[') || IPV4.test(hostname);
}

/** Whether `hostname` names this machine: `localhost`, `127.0.0.0/8` or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || (host.startsWith('127.') && IPV4.test(host));
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

/** Parses an http(s) URL; undefined for anything else. */
function parseHttpUrl(url: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
}

/** The key a URL's host is compared by: `hostKey`, plus the port for loopback hosts. */
function siteKey(url: URL): string {
  const hostname = url.hostname;
  if (isLoopbackHost(hostname)) return `${hostname.toLowerCase()}:${url.port || defaultPort(url.protocol)}`;
  return isIpAddress(hostname) ? hostname : hostKey(hostname);
}

/** `host`, `host:port` or `host/path`, without a scheme (`localhost:3000` is no scheme). */
const BARE_HOST = /^[A-Za-z0-9.-]+(?::\d+)?(?:\/.*)?$|^\[[0-9A-Fa-f:.]+\](?::\d+)?(?:\/.*)?$/;

/** Decides whether a URL belongs to the crawl rooted at some URLs. */
export class HostMatcher {
  readonly strict: boolean;
  /** Keys of the roots (see `siteKey`). */
  private readonly roots = new Set<string>();

  /**
   * `roots` are URLs (`http://example.com/`); a bare host (`example.com`,
   * `127.0.0.1:8080`) is read as `http://` plus it. Roots that are not http(s) URLs are
   * ignored, as the chapter ignores roots without a host.
   */
  constructor(roots: readonly string[], strict: boolean) {
    this.strict = strict;
    for (const root of roots) {
      const url = parseHttpUrl(root) ?? (BARE_HOST.test(root) ? parseHttpUrl(`http://${root}`) : undefined);
      if (url !== undefined && url.hostname !== '') this.roots.add(siteKey(url));
    }
  }

  /** Whether `url` is an http(s) URL on one of the roots' hosts (see the modes above). */
  matches(url: string): boolean {
    const parsed = parseHttpUrl(url);
    if (parsed === undefined) return false;
    const key = siteKey(parsed);
    if (this.roots.has(key)) return true;
    if (this.strict || isIpAddress(parsed.hostname) || isLoopbackHost(parsed.hostname)) return false;
    // Lenient: a subdomain of a root; try each parent domain of the key.
    for (let dot = key.indexOf('.'); dot >= 0; dot = key.indexOf('.', dot + 1)) {
      if (this.roots.has(key.slice(dot + 1))) return true;
    }
    return false;
  }
}
