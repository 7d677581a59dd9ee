#!/usr/bin/env python3
"""Peer crawler: the chapter's crawler algorithm on today's Python asyncio and aiohttp.

Coroscope's generator crawler is measured against this program, so it is written the way a
Python programmer would write the chapter's crawler now: native coroutines (async/await),
asyncio.Queue with join()/task_done(), one aiohttp ClientSession whose TCPConnector keeps
connections alive, redirects handled by the crawler itself (allow_redirects=False) so that
redirect paths to one destination are coalesced through seen_urls.

Semantics (the same as Coroscope's Crawler and bench/peers/undici-crawler.ts):
- a FIFO queue of (url, max_redirect); max_tasks workers; the crawl ends when the queue's
  unfinished count is zero, then the workers are cancelled;
- seen_urls holds every URL ever queued; each URL is fetched at most once;
- up to max_tries attempts to get a response; a 300/301/302/303/307/308 answer is a redirect
  whose Location (resolved against the URL) is queued with one redirect fewer unless it was
  seen already or the budget is spent; a 200 text/html (or application/xml) answer is parsed
  for <a>, <area> and <link> href links, which are resolved, defragmented, filtered and queued if unseen;
- allowed links are http(s), do not match --exclude, and are on a root's host (strict: the
  same host or its www. twin; lenient: the same last two labels; IPs must match exactly);
  redirect targets are filtered the same way;
- every URL taken from the queue counts once in `fetched` and in `by_status` (its HTTP
  status, or "error" when every try failed).

Links are found with one compiled regular expression over the decoded page, the usual fast
choice in Python (html.parser is pure Python and several times slower); entities in hrefs
are unescaped.

Usage: /usr/bin/python3 bench/peers/aiohttp_crawler.py URL... [--max-tasks 100]
       [--max-tries 4] [--max-redirect 10] [--exclude REGEX] [--lenient] [--uvloop]
Prints one JSON line: {"fetched", "seconds", "rate", "by_status", "distinct_urls",
"cpu_seconds"}.
"""

import argparse
import asyncio
import html
import json
import re
import time
from urllib.parse import urldefrag, urljoin, urlsplit

import aiohttp

REDIRECT_STATUSES = frozenset((300, 301, 302, 303, 307, 308))
PARSED_CONTENT_TYPES = frozenset(('text/html', 'application/xml'))
IP_ADDRESS = re.compile(r'\A(?:\d+\.){3}\d+\Z|\A[0-9a-f:.]*:[0-9a-f:.]*\Z', re.IGNORECASE)
# The href attribute of an <a>, <area> or <link> element (the links Coroscope's crawler
# follows), double-quoted, single-quoted or bare.
ANCHOR_HREF = re.compile(
    r'''<(?:a|area|link)\s(?:[^>]*?\s)?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>`=]+))''',
    re.IGNORECASE,
)


def lenient_host_key(host):
    """'example.co.uk' -> 'couk': the last two labels."""
    return ''.join(host.split('.')[-2:])


class Crawler:
    def __init__(self, roots, *, max_redirect=10, max_tries=4, max_tasks=100,
                 exclude=None, strict=True):
        self.roots = list(roots)
        self.max_redirect = max_redirect
        self.max_tries = max_tries
        self.max_tasks = max_tasks
        self.exclude = re.compile(exclude) if exclude else None
        self.strict = strict
        self.root_hosts = set()
        for root in self.roots:
            host = (urlsplit(root).hostname or '').lower()
            if not host:
                continue
            if IP_ADDRESS.match(host) or strict:
                self.root_hosts.add(host)
            else:
                self.root_hosts.add(lenient_host_key(host))
        self.queue = asyncio.Queue()
        self.seen_urls = set()
        self.by_status = {}
        self.fetched_urls = set()
        self.session = None

    def host_allowed(self, host):
        host = host.lower()
        if host in self.root_hosts:
            return True
        if IP_ADDRESS.match(host):
            return False
        if self.strict:
            twin = host[4:] if host.startswith('www.') else 'www.' + host
            return twin in self.root_hosts
        return lenient_host_key(host) in self.root_hosts

    def url_allowed(self, url):
        parts = urlsplit(url)
        if parts.scheme not in ('http', 'https'):
            return False
        if self.exclude is not None and self.exclude.search(url):
            return False
        return self.host_allowed(parts.hostname or '')

    def add_url(self, url, max_redirect):
        self.seen_urls.add(url)
        self.queue.put_nowait((url, max_redirect))

    def record(self, url, status):
        self.fetched_urls.add(url)
        self.by_status[status] = self.by_status.get(status, 0) + 1

    def links_in(self, base_url, text):
        hrefs = set()
        for double, single, bare in ANCHOR_HREF.findall(text):
            href = double or single or bare
            if href:
                hrefs.add(html.unescape(href) if '&' in href else href)
        links = set()
        for href in hrefs:
            try:
                link = urldefrag(urljoin(base_url, href.strip()))[0]
            except ValueError:
                continue  # Not a URL, e.g. 'http://[broken'.
            links.add(link)
        return links

    async def fetch(self, url, max_redirect):
        response = None
        for _ in range(self.max_tries):
            try:
                response = await self.session.get(url, allow_redirects=False)
                break
            except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
                continue  # A failed connection or a reset socket: try again.
        if response is None:
            self.record(url, 'error')
            return
        try:
            status = response.status
            if status in REDIRECT_STATUSES:
                await response.read()
                self.record(url, str(status))
                location = response.headers.get('Location')
                if location is None or max_redirect <= 0:
                    return
                next_url = urldefrag(urljoin(url, location))[0]
                # Coalescing: another path already led here, so this one stops.
                if next_url in self.seen_urls or not self.url_allowed(next_url):
                    return
                self.add_url(next_url, max_redirect - 1)
                return
            if status != 200 or response.content_type not in PARSED_CONTENT_TYPES:
                await response.read()
                self.record(url, str(status))
                return
            text = await response.text()
            self.record(url, str(status))
            for link in self.links_in(url, text) - self.seen_urls:
                if self.url_allowed(link):
                    self.add_url(link, self.max_redirect)
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError, UnicodeDecodeError):
            if url not in self.fetched_urls:
                self.record(url, 'error')
        finally:
            response.release()

    async def work(self):
        while True:
            url, max_redirect = await self.queue.get()
            try:
                await self.fetch(url, max_redirect)
            finally:
                self.queue.task_done()

    async def crawl(self):
        connector = aiohttp.TCPConnector(limit=self.max_tasks, limit_per_host=0,
                                         keepalive_timeout=30)
        async with aiohttp.ClientSession(connector=connector,
                                         cookie_jar=aiohttp.DummyCookieJar()) as session:
            self.session = session
            t0 = time.perf_counter()
            for root in self.roots:
                self.add_url(root, self.max_redirect)
            workers = [asyncio.create_task(self.work()) for _ in range(self.max_tasks)]
            try:
                await self.queue.join()
            finally:
                for worker in workers:
                    worker.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
            seconds = time.perf_counter() - t0
        return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('roots', nargs='+', metavar='URL')
    parser.add_argument('--max-tasks', type=int, default=100)
    parser.add_argument('--max-tries', type=int, default=4)
    parser.add_argument('--max-redirect', type=int, default=10)
    parser.add_argument('--exclude', default=None, help='regular expression of URLs to skip')
    parser.add_argument('--lenient', action='store_true', help='lenient host matching')
    parser.add_argument('--uvloop', action='store_true',
                        help='run on uvloop (python3-uvloop) instead of the default loop')
    args = parser.parse_args()
    roots = [r if re.match(r'https?://', r) else 'http://' + r for r in args.roots]
    crawler = Crawler(roots, max_redirect=args.max_redirect, max_tries=args.max_tries,
                      max_tasks=args.max_tasks, exclude=args.exclude, strict=not args.lenient)
    if args.uvloop:
        import uvloop
        uvloop.install()
    cpu_before = time.process_time()
    seconds = asyncio.run(crawler.crawl())
    # CPU seconds of this process during the crawl: steadier than wall time on a busy machine.
    cpu_seconds = time.process_time() - cpu_before
    fetched = len(crawler.fetched_urls)
    print(json.dumps({
        'fetched': fetched,
        'seconds': seconds,
        'rate': fetched / seconds if seconds > 0 else 0.0,
        'by_status': crawler.by_status,
        'distinct_urls': len(crawler.fetched_urls),
        'cpu_seconds': cpu_seconds,
    }))


if __name__ == '__main__':
    main()
