// The tests both teaching stages of the crawler must pass (stage 1: callback Fetcher, stage 2:
// hand-made generator coroutines): they crawl the same sites to the same results. Each stage's
// test file runs this suite with its entry point, then adds what is particular to it (where
// the broken page's error was thrown from).
//
// Servers are real, on loopback, port 0, and closed by the test that started them.

import assert from 'node:assert/strict';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { startDemoSite, type DemoSite } from '../../../runtime/demo-site/index';
import { ConnectionRefusedError, TimeoutError } from '../../../runtime/errors';
import { MalformedResponseError } from '../../../runtime/crawler/http10-response';
import { UnknownCharsetError } from '../../../runtime/crawler/links';
import { exceptionKind, type FetchStatistic } from '../../../runtime/crawler/report';
import {
  RedirectLimitError,
  UnsupportedUrlError,
  type TeachingCrawlOptions,
  type TeachingCrawlResult,
} from '../../../runtime/crawler/teaching-crawl';

export type StageCrawl = (roots: string[], options?: TeachingCrawlOptions) => Promise<TeachingCrawlResult>;

/** A crawl that has not ended after this long is a hang. */
const HANG_MS = 20_000;

/** `promise`, or a failure if it is still pending after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number = HANG_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`crawl still running after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** The function names of a V8 stack trace, innermost first (`async X` for async frames). */
export function frameNames(stack: string | undefined): string[] {
  const names: string[] = [];
  for (const line of (stack ?? '').split('\n')) {
    const match = /^\s+at (.+?)(?: \(.*\))?$/.exec(line);
    if (match !== null) names.push(match[1]!);
  }
  return names;
}

/** The kind of a statistic's recorded failure (the report's own reading of it), or null when none. */
function kindOf(stat: FetchStatistic): string | null {
  return stat.exception === null ? null : exceptionKind(stat.exception);
}

export function statOf(result: TeachingCrawlResult, url: string): FetchStatistic {
  const found = result.stats.filter((s) => s.url === url);
  assert.equal(found.length, 1, `one statistic for ${url}, got ${found.length}`);
  return found[0]!;
}

export function errorOf(result: TeachingCrawlResult, url: string): Error {
  const found = result.errors.filter((e) => e.url === url);
  assert.equal(found.length, 1, `one error for ${url}, got ${found.length}`);
  return found[0]!.error;
}

/** Runs the suite; `checkBrokenPageTrace` gets the broken page's error for the stage's own checks. */
export function teachingStageSuite(
  name: string,
  crawl: StageCrawl,
  checkBrokenPageTrace: (error: Error) => void,
): void {
  describe(`${name}: the demo site`, () => {
    let site: DemoSite;
    let result: TeachingCrawlResult;
    before(async () => {
      site = await startDemoSite({ pages: 40 });
      result = await within(crawl([site.url]));
    });
    after(async () => {
      await site.close();
    });

    test('visits exactly the URLs of the model, each once, with its status', () => {
      const expected = site.model.expectedOutcomes(site.url);
      const got = new Map(result.stats.map((s) => [s.url, s]));
      assert.equal(got.size, result.stats.length, 'no URL recorded twice');
      assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort());
      for (const [url, outcome] of expected) {
        const stat = got.get(url)!;
        assert.equal(stat.status, outcome.status, `status of ${url}`);
        if (outcome.kind === 'redirect') assert.equal(stat.nextUrl, outcome.location, `Location of ${url}`);
        else assert.equal(stat.nextUrl, null);
        if (outcome.kind === 'binary') assert.equal(stat.size, outcome.bytes);
      }
      // One request per URL: nothing fetched twice, nothing outside the model.
      assert.equal(site.requestCount(), expected.size);
    });

    test('records the links found on each page and how many were new', () => {
      const home = statOf(result, site.url);
      assert.equal(home.contentType, 'text/html; charset=utf-8');
      assert.equal(home.encoding, 'utf-8');
      assert.equal(home.numUrls, site.model.homeLinks().length);
      assert.equal(home.numNewUrls, home.numUrls, 'every link of the first page is new');
      for (const stat of result.stats) assert.ok(stat.numNewUrls <= stat.numUrls, stat.url);
      const redirects = result.stats.filter((s) => s.nextUrl !== null);
      assert.ok(redirects.length > 0);
      for (const stat of redirects) assert.equal(stat.size, 0, 'a redirect is recorded as in the chapter');
    });

    test('the broken page fails with UnknownCharsetError, kept with its stack', () => {
      const broken = new URL('/broken/', site.url).href;
      const stat = statOf(result, broken);
      assert.equal(stat.status, 200);
      assert.equal(kindOf(stat), 'UnknownCharsetError');
      const error = errorOf(result, broken);
      assert.ok(error instanceof UnknownCharsetError);
      assert.equal(result.errors.length, 1, 'no other failure on the demo site');
      checkBrokenPageTrace(error);
    });
  });

  describe(`${name}: failures are recorded, the crawl always ends`, () => {
    test('connection refused', async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/`;
      const result = await within(crawl([url]));
      assert.equal(result.stats.length, 1);
      assert.equal(kindOf(statOf(result, url)), 'ConnectionRefusedError');
      assert.ok(errorOf(result, url) instanceof ConnectionRefusedError);
    });

    test('a stalled server is a timeout, on the loop clock', async () => {
      let connections = 0;
      const server = await listen(net.createServer(() => void connections++)); // accepts, never answers
      try {
        const url = `http://127.0.0.1:${port(server)}/`;
        const result = await within(crawl([url], { timeout: 0.2 }));
        // What ended how: the one URL, by its deadline (the message names the timeout it was
        // given), after one connection (a timeout is not retried by the teaching stages).
        assert.deepEqual(
          result.stats.map((s) => [s.url, kindOf(s)]),
          [[url, 'TimeoutError']],
        );
        const error = errorOf(result, url);
        assert.ok(error instanceof TimeoutError);
        assert.equal(error.message, `no complete response from ${url} within 0.2 s`);
        assert.equal(connections, 1);
        // Never early, read on the crawl's own clock (the one its deadlines use). No upper
        // bound: a timeout that never fires fails through within()'s hang limit.
        assert.ok(result.seconds >= 0.2, `timed out after ${result.seconds} s of the crawl's clock`);
      } finally {
        await closeServer(server);
      }
    });

    test('malformed responses are recorded, never thrown', async () => {
      const server = await rawHttpServer({
        '/': html(['/garbage', '/huge-head', '/short-body', '/empty', '/bad-header', '/ok']),
        '/garbage': 'NOT HTTP AT ALL\r\n\r\n',
        '/huge-head': `HTTP/1.0 200 OK\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\nbody`,
        '/short-body': 'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly this',
        '/empty': '',
        '/bad-header': 'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
        '/ok':
          'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
      });
      try {
        const base = `http://127.0.0.1:${port(server)}`;
        const result = await within(crawl([`${base}/`]));
        assert.equal(result.stats.length, 7);
        for (const path of ['/garbage', '/huge-head', '/short-body', '/empty', '/bad-header']) {
          const stat = statOf(result, base + path);
          assert.equal(stat.status, null, path);
          assert.equal(kindOf(stat), 'MalformedResponseError', path);
          assert.ok(errorOf(result, base + path) instanceof MalformedResponseError, path);
        }
        const ok = statOf(result, `${base}/ok`);
        assert.equal(ok.exception, null);
        assert.equal(ok.size, 5, 'the chunked body was de-chunked');
      } finally {
        await closeServer(server);
      }
    });

    test('a redirect chain longer than maxRedirect is an error', async () => {
      const redirect = (to: string): string => `HTTP/1.0 302 Found\r\nLocation: ${to}\r\nContent-Length: 0\r\n\r\n`;
      const server = await rawHttpServer({
        '/r1': redirect('/r2#frag'),
        '/r2': redirect('r3'),
        '/r3': 'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nend',
      });
      try {
        const base = `http://127.0.0.1:${port(server)}`;
        const limited = await within(crawl([`${base}/r1`], { maxRedirect: 1 }));
        assert.deepEqual(
          limited.stats.map((s) => s.url),
          [`${base}/r1`, `${base}/r2`],
        );
        assert.equal(statOf(limited, `${base}/r1`).nextUrl, `${base}/r2`, 'fragment dropped');
        const r2 = statOf(limited, `${base}/r2`);
        assert.equal(r2.status, 302);
        assert.equal(r2.nextUrl, `${base}/r3`, 'relative Location resolved against the URL');
        assert.equal(kindOf(r2), 'RedirectLimitError');
        assert.ok(errorOf(limited, `${base}/r2`) instanceof RedirectLimitError);

        const followed = await within(crawl([`${base}/r1`], { maxRedirect: 2 }));
        assert.deepEqual(
          followed.stats.map((s) => [s.url, s.status, s.exception]),
          [
            [`${base}/r1`, 302, null],
            [`${base}/r2`, 302, null],
            [`${base}/r3`, 200, null],
          ],
        );
      } finally {
        await closeServer(server);
      }
    });

    test("the demo site's fault routes: each recorded, the crawl ends", async () => {
      const site = await startDemoSite({ pages: 10, faults: true, slowMs: 50 });
      try {
        const at = (path: string): string => new URL(path, site.url).href;
        // The stalled route is crawled on its own with a short timeout; the rest keeps the
        // default one, so that no honest fetch times out on a loaded machine.
        const stall = at('/fault/stall');
        const result = await within(crawl([site.url], { exclude: /\/fault\/stall$/, maxResponseBytes: 1 << 20 }));
        const expected = site.model.expectedOutcomes(site.url);
        assert.deepEqual(result.excluded, [stall]);
        assert.deepEqual(
          result.stats.map((s) => s.url).sort(),
          [...expected.keys()].filter((url) => url !== stall).sort(),
        );
        const failed = (path: string): string => statOf(result, at(path)).exception ?? '';
        assert.match(failed('/fault/reset'), /^ConnectionResetError: /);
        assert.match(failed('/fault/bad-chunk'), /^MalformedResponseError: malformed chunk-size line/);
        assert.match(failed('/fault/endless'), /^ResponseTooLargeError: /);
        assert.match(failed('/fault/no-location'), /^MalformedResponseError: 301 redirect without a Location/);
        assert.match(failed('/fault/wrong-length'), /^MalformedResponseError: body ended after/);
        assert.equal(statOf(result, at('/fault/no-location')).status, 301, 'the status line was read');
        // The redirect loop ends at the first URL seen again.
        const loop = statOf(result, at('/fault/redirect-loop'));
        assert.deepEqual([loop.status, loop.exception, loop.nextUrl], [301, null, at('/fault/redirect-loop/b')]);
        assert.equal(statOf(result, at('/fault/redirect-loop/b')).nextUrl, at('/fault/redirect-loop'));
        assert.equal(result.errors.length, 6, 'five faults and the broken page');

        const stalled = await within(crawl([stall], { timeout: 0.3 }));
        assert.equal(kindOf(statOf(stalled, stall)), 'TimeoutError');
      } finally {
        await site.close();
      }
    });

    test('unsupported roots are recorded at once', async () => {
      const result = await within(crawl(['ftp://example.invalid/file', 'http://']));
      assert.equal(result.stats.length, 2);
      for (const { error } of result.errors) assert.ok(error instanceof UnsupportedUrlError);
    });
  });

  describe(`${name}: options`, () => {
    let site: DemoSite;
    before(async () => {
      site = await startDemoSite({ pages: 40 });
    });
    after(async () => {
      await site.close();
    });

    test('exclude keeps matching links out and lists them', async () => {
      const exclude = /\/page\/\d*[02468]\/?$/;
      const result = await within(crawl([site.url], { exclude }));
      assert.ok(result.excluded.length > 0);
      for (const url of result.excluded) assert.match(url, exclude);
      for (const stat of result.stats) assert.doesNotMatch(stat.url, exclude);
      const seen = new Set([...result.stats.map((s) => s.url), ...result.excluded]);
      assert.equal(seen.size, result.stats.length + result.excluded.length, 'fetched and excluded are disjoint');
    });

    test('maxPages bounds the URLs fetched', async () => {
      const before = site.requestCount();
      const result = await within(crawl([site.url], { maxPages: 5 }));
      assert.equal(result.stats.length, 5);
      assert.equal(site.requestCount() - before, 5);
    });
  });

  describe(`${name}: https`, () => {
    test('an https root is fetched over TLS, verified against the given CA', async () => {
      const server = await listen(
        tls.createServer({ key: TEST_KEY, cert: TEST_CERT }, (socket) => {
          answerRawRequests(socket, {
            '/': html(['/next']),
            '/next': 'HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<p>done</p>',
          });
        }),
      );
      try {
        const base = `https://127.0.0.1:${port(server)}`;
        const result = await within(crawl([`${base}/`], { tls: { ca: TEST_CERT } }));
        assert.deepEqual(result.stats.map((s) => [s.url, s.status, s.exception]).sort(), [
          [`${base}/`, 200, null],
          [`${base}/next`, 200, null],
        ]);
        const untrusted = await within(crawl([`${base}/`]));
        assert.equal(untrusted.stats.length, 1);
        assert.notEqual(untrusted.stats[0]!.exception, null, 'a self-signed certificate is refused by default');
      } finally {
        await closeServer(server);
      }
    });
  });
}

// --- servers ------------------------------------------------------------------------------

function html(links: readonly string[]): string {
  const body = `<!DOCTYPE html><title>t</title>${links.map((l) => `<a href="${l}">${l}</a>`).join('')}`;
  return `HTTP/1.0 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Answers one request per connection with the raw bytes of its path, then closes. */
function answerRawRequests(socket: net.Socket, responses: Readonly<Record<string, string>>): void {
  let head = '';
  socket.setEncoding('latin1');
  socket.on('error', () => undefined);
  socket.on('data', (data: string) => {
    head += data;
    if (!head.includes('\r\n\r\n')) return;
    const path = /^GET (\S+) HTTP\/1\.0\r\n/.exec(head)?.[1] ?? '';
    // The teaching stages' request: HTTP/1.0, Host, Connection: close (a 400 fails the test).
    const wellFormed =
      path !== '' && /\r\nHost: 127\.0\.0\.1:\d+\r\n/.test(head) && /\r\nConnection: close\r\n/.test(head);
    if (!wellFormed) socket.end('HTTP/1.0 400 Bad Request\r\n\r\n');
    else socket.end(responses[path] ?? 'HTTP/1.0 404 Not Found\r\n\r\n', 'latin1');
  });
}

async function rawHttpServer(responses: Readonly<Record<string, string>>): Promise<net.Server> {
  return listen(net.createServer((socket) => answerRawRequests(socket, responses)));
}

/** Open connections of the servers the tests started, destroyed when a server closes. */
const connections = new WeakMap<net.Server, Set<net.Socket>>();

function listen<S extends net.Server>(server: S): Promise<S> {
  const open = new Set<net.Socket>();
  connections.set(server, open);
  server.on('connection', (socket: net.Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function port(server: net.Server): number {
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Connections that stay open (the stalled server's) must not keep it alive.
    for (const socket of connections.get(server) ?? []) socket.destroy();
  });
}

/** A port nobody listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = await listen(net.createServer());
  const free = port(server);
  await closeServer(server);
  return free;
}

// A self-signed certificate for 127.0.0.1 made for these tests only (valid 2020-2120); it is
// trusted by nothing but the `ca` option of the https test.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg36MISS8dayOd5yAB
UrJKXLeH55szbkcdOBfExjYDLt+hRANCAAStyKZe3d26EU8oLMiGa5YJiYYD6/Pf
150XIj0I9Z/WQxbaGYswXt8m3WKsOt3Joa0ms+srN8rag4SGRwJXGQoZ
-----END PRIVATE KEY-----
`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBZDCCAQygAwIBAgIBATAKBggqhkjOPQQDAjAZMRcwFQYDVQQDDA5jb3Jvc2Nv
cGUtdGVzdDAgFw0yMDAxMDEwMDAwMDBaGA8yMTIwMDEwMTAwMDAwMFowGTEXMBUG
A1UEAwwOY29yb3Njb3BlLXRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASt
yKZe3d26EU8oLMiGa5YJiYYD6/Pf150XIj0I9Z/WQxbaGYswXt8m3WKsOt3Joa0m
s+srN8rag4SGRwJXGQoZo0MwQTAPBgNVHREECDAGhwR/AAABMA8GA1UdEwEB/wQF
MAMBAf8wHQYDVR0OBBYEFKWJQl3VRI3IotjwNwPusl9jMOeKMAoGCCqGSM49BAMC
A0YAMEMCHzftbP0yX2fU+OtUdoQrhBrPyoDu7zutplU2+qtMdMUCICoe0ckBGlfq
PSW5p2fcFZzbRYkW2t3DPsAc9wh+Svm8
-----END CERTIFICATE-----
`;
