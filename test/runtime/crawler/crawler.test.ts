// Tests of the stage-3 Crawler (runtime/crawler/crawler.ts) against a site written the way a
// node:http app usually is: redirects as `res.writeHead(301, {Location}); res.end()` (an
// empty chunked body the crawler never reads) and pages written in pieces (chunked), some
// gzip-compressed. Asserted: the crawl fetches every URL, and it keeps its connections alive
// through all of that: the server sees at most maxTasks + 5 TCP connections; and no error
// object is built per request (counted through CoroscopeError's super constructor).
// Also, against raw node:net servers (raw-site.ts): which failures are tried again (and the
// report says why not), robots.txt that keeps a root out (said in a notice), the options'
// documented bounds, roots that are not http(s) URLs, and a link too long to fetch.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import * as zlib from 'node:zlib';
import { EventLoop, run } from '../../../runtime/index';
import { CoroscopeError } from '../../../runtime/errors';
import { Crawler } from '../../../runtime/crawler/crawler';
import { HttpProtocolError, HttpTimeoutError, InvalidUrlError } from '../../../runtime/http/errors';
import { page, rawSite } from './raw-site';

const PAGES = 300;

interface Site {
  root: string;
  /** TCP connections the server accepted ('connection' events). */
  connections(): number;
}

async function startNodeStyleSite(t: TestContext): Promise<Site> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = http.createServer((req, res) => {
    const m = /^\/(p|r)\/(\d+)$/.exec(req.url ?? '');
    const n = m === null ? -1 : Number(m[2]);
    if (m === null || n >= PAGES) {
      res.writeHead(404, { 'Content-Type': 'text/html' });
      res.end('<p>not found</p>');
    } else if (m[1] === 'r') {
      res.writeHead(301, { Location: `/p/${n}` });
      res.end();
    } else {
      const links = [(2 * n + 1) % PAGES, (2 * n + 2) % PAGES, (n * 7) % PAGES, PAGES + (n % 5)].map(
        (k, i) => `<a href="/${i % 2 === 0 ? 'r' : 'p'}/${k}">${k}</a>`,
      );
      const html = `<!doctype html><title>${n}</title><body>${'<p>filler text</p>'.repeat(200)}${links.join(' ')}</body>`;
      if (n % 3 === 0 && /gzip/.test(String(req.headers['accept-encoding']))) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Encoding': 'gzip' });
        res.end(zlib.gzipSync(html));
      } else {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.write(html.slice(0, 1000));
        res.end(html.slice(1000));
      }
    }
  });
  server.on('connection', (socket: net.Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { root: `http://127.0.0.1:${port}/p/0`, connections: () => connections };
}

/**
 * Counts the runtime's errors built (CoroscopeError and its subclasses, by class name) while
 * `body` runs: their constructors' super() goes through a counting stand-in for Error.
 */
async function countingErrors<T>(body: () => Promise<T>): Promise<{ result: T; built: Map<string, number> }> {
  const built = new Map<string, number>();
  const counting = new Proxy(Error, {
    construct(target, args: unknown[], newTarget: Function) {
      built.set(newTarget.name, (built.get(newTarget.name) ?? 0) + 1);
      return Reflect.construct(target, args, newTarget) as object;
    },
  });
  Object.setPrototypeOf(CoroscopeError, counting);
  try {
    return { result: await body(), built };
  } finally {
    Object.setPrototypeOf(CoroscopeError, Error);
  }
}

test('a crawl of a node:http site with chunked empty redirects keeps its connections alive, and builds no error per request', async (t) => {
  const site = await startNodeStyleSite(t);
  const maxTasks = 20;
  const loop = new EventLoop();
  const crawler = new Crawler([site.root], { maxTasks, robots: false });
  const { built } = await countingErrors(async () => {
    try {
      await loop.runUntilComplete(crawler.crawl());
    } finally {
      loop.close();
    }
  });
  const byStatus: Record<string, number> = {};
  for (const s of crawler.done) byStatus[String(s.status)] = (byStatus[String(s.status)] ?? 0) + 1;
  assert.equal(byStatus['200'], PAGES, `every page fetched: ${JSON.stringify(byStatus)}`);
  assert.ok((byStatus['301'] ?? 0) > 100, `many redirects: ${JSON.stringify(byStatus)}`);
  assert.equal(byStatus['404'], 5);
  assert.equal(crawler.errors.length, 0);
  assert.ok(
    site.connections() <= maxTasks + 5,
    `${site.connections()} connections for ${crawler.done.length} fetches by ${maxTasks} tasks`,
  );
  // One BlockingIOError per connect (EINPROGRESS, as Python's) and one CancelledError per
  // worker stopped at the end: none per request, so the count does not grow with the fetches.
  const total = [...built.values()].reduce((a, b) => a + b, 0);
  assert.ok(
    total <= 2 * maxTasks + 5,
    `${total} errors built for ${crawler.done.length} fetches: ${JSON.stringify([...built])}`,
  );
});

test('only what can succeed on retry is retried: a malformed answer once, a stall twice; the report says why', {
  timeout: 30_000,
}, async (t) => {
  const site = await rawSite(t, (path, socket) => {
    if (path === '/robots.txt') return page(socket, 'not here', '404 Not Found', 'text/plain');
    if (path === '/')
      return page(socket, '<a href="/bad-status">s</a> <a href="/bad-header">h</a> <a href="/stall">t</a>');
    if (path === '/bad-status') return void socket.write('HTTP/1.1 OK\r\nContent-Length: 0\r\n\r\n');
    if (path === '/bad-header')
      return void socket.write('HTTP/1.1 200 OK\r\nNo Colon Here\r\nContent-Length: 0\r\n\r\n');
    // '/stall': never answers.
  });
  const crawler = new Crawler([site.url('/')], {
    maxTasks: 4,
    maxTries: 4,
    session: { timeout: { connect: 2, read: 0.3, total: 5 } },
  });
  await run(crawler.crawl());
  assert.equal(site.hits.get('/bad-status'), 1, 'a malformed status line is not retried');
  assert.equal(site.hits.get('/bad-header'), 1, 'an invalid header is not retried');
  assert.equal(site.hits.get('/stall'), 2, 'a stall is tried twice, not maxTries (4) times');
  const stat = (path: string) => crawler.done.find((s) => s.url === site.url(path))!;
  assert.deepEqual(
    [stat('/bad-status').tries, stat('/bad-status').retry],
    [1, 'not retried: the server would send the same answer again'],
  );
  assert.equal(stat('/stall').tries, 2);
  assert.match(stat('/stall').retry!, /a stalling server is tried 2 times at most/);
  const errorOf = (path: string) => crawler.errors.find((e) => e.url === site.url(path))!.error;
  assert.ok(errorOf('/bad-status') instanceof HttpProtocolError);
  assert.ok(errorOf('/stall') instanceof HttpTimeoutError);
  const report = crawler.report();
  assert.match(
    report,
    new RegExp(
      `${site.url('/bad-header')} error: HttpProtocolError: invalid header line .* \\[1 try; not retried: the server would send the same answer again\\]`,
    ),
  );
  assert.match(
    report,
    new RegExp(
      `${site.url('/stall')} error: HttpTimeoutError: .* \\[2 tries; stalled 2 times: a stalling server is tried 2 times at most\\]`,
    ),
  );
});

test('robots.txt answering 500 keeps the root out, and a notice in the report says so', {
  timeout: 30_000,
}, async (t) => {
  const site = await rawSite(t, (path, socket) => {
    if (path === '/robots.txt') return page(socket, 'oops', '500 Internal Server Error', 'text/plain');
    page(socket, '<a href="/a">a</a>');
  });
  const crawler = new Crawler([site.url('/')]);
  await run(crawler.crawl());
  assert.equal(crawler.done.length, 0);
  assert.equal(crawler.excluded.get(site.url('/')), 'robots');
  assert.equal(site.hits.get('/'), undefined, 'the root was not fetched (RFC 9309: 5xx disallows all)');
  const origin = new URL(site.url('/')).origin;
  assert.deepEqual(crawler.notices(), [
    `robots.txt of ${origin} answered HTTP 500: RFC 9309 reads an unreachable robots.txt as disallowing everything, so nothing there was fetched (--no-robots crawls it anyway)`,
  ]);
  assert.match(crawler.report(), /\*\*\* Notices \*\*\*\nrobots\.txt of .* answered HTTP 500/);
});

test('robots.txt disallowing the root: a notice names the root; --no-robots crawls it', {
  timeout: 30_000,
}, async (t) => {
  const site = await rawSite(t, (path, socket) => {
    if (path === '/robots.txt') return page(socket, 'User-agent: *\nDisallow: /\n', '200 OK', 'text/plain');
    page(socket, '<p>home</p>');
  });
  const crawler = new Crawler([site.url('/')]);
  await run(crawler.crawl());
  assert.deepEqual(crawler.notices(), [
    `robots.txt of ${new URL(site.url('/')).origin} disallows the root ${site.url('/')}: it was not fetched (--no-robots crawls it anyway)`,
  ]);
  const ignoring = new Crawler([site.url('/')], { robots: false });
  await run(ignoring.crawl());
  assert.deepEqual(ignoring.notices(), []);
  assert.equal(ignoring.done[0]?.status, 200);
});

// Every worker awaits the one robots.txt task of an origin. Cancelling one worker (a view's
// Cancel Task) must not cancel that shared task, which asyncio's Task.cancel would do to a task
// awaited directly: the crawler shields it, and the other workers get their answer.
test('a worker cancelled while it waits for robots.txt leaves the shared robots task to the others', {
  timeout: 30_000,
}, async (t) => {
  const site = await rawSite(t, (path, socket) => {
    if (path === '/robots.txt') {
      setTimeout(() => page(socket, 'User-agent: *\nDisallow: /private\n', '200 OK', 'text/plain'), 300);
      return;
    }
    page(socket, `<p>${path}</p>`);
  });
  const crawler = new Crawler([site.url('/a'), site.url('/b'), site.url('/c')], { maxTasks: 3 });
  const loop = new EventLoop();
  const crawl = loop.createTask(crawler.crawl(), { name: 'crawl' });
  const done = loop.runUntilComplete(crawl);
  while (site.hits.get('/robots.txt') === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
  const robots = loop.allTasks().find((task) => task.name.startsWith('robots '));
  const worker = loop.allTasks().find((task) => task.name === 'worker-1');
  assert.ok(robots !== undefined && worker !== undefined, 'the robots task and worker-1 exist');
  worker.cancel('a view cancelled worker-1');
  await done;
  loop.close();
  assert.equal(robots.cancelled(), false, 'the shared robots task was not cancelled with the worker');
  const fetched = crawler.done
    .filter((d) => d.status === 200)
    .map((d) => new URL(d.url).pathname)
    .sort();
  assert.equal(fetched.length, 2, `two of the three roots fetched by the other workers: ${fetched.join(', ')}`);
});

test('absurd options are refused with their documented bounds before anything is allocated', () => {
  assert.throws(
    () => new Crawler(['http://127.0.0.1:9/'], { maxTasks: 1e30 }),
    /RangeError|Crawler option maxTasks must be a whole number from 1 to 10000, got 1e\+30/,
  );
  assert.throws(() => new Crawler(['http://127.0.0.1:9/'], { maxTasks: 1e30 }), RangeError);
  assert.throws(
    () => new Crawler(['http://127.0.0.1:9/'], { maxTries: 0 }),
    /Crawler option maxTries must be a whole number from 1 to 100, got 0/,
  );
  assert.throws(
    () => new Crawler(['http://127.0.0.1:9/'], { maxDepth: -1 }),
    /Crawler option maxDepth must be a whole number from 0 to 10000/,
  );
  assert.throws(
    () => new Crawler(['http://127.0.0.1:9/'], { maxPages: 1.5 }),
    /Crawler option maxPages must be a whole number/,
  );
  assert.equal(new Crawler(['http://127.0.0.1:9/'], { maxTasks: 10_000 }).maxTasks, 10_000);
});

test('a root that is not an http(s) URL is refused, not turned into one', () => {
  assert.throws(
    () => new Crawler(['mailto:a@b.invalid']),
    (e: unknown) => e instanceof InvalidUrlError && /unsupported scheme "mailto"/.test(e.message),
  );
  assert.throws(
    () => new Crawler(['ht!tp://::::']),
    (e: unknown) => e instanceof InvalidUrlError && /invalid root URL/.test(e.message),
  );
});

test('a link to an 8 MB URL fails with a clear InvalidUrlError; the crawl goes on', { timeout: 30_000 }, async (t) => {
  const longPath = `/${'x'.repeat(8 << 20)}`;
  const site = await rawSite(t, (path, socket) => {
    if (path === '/') return page(socket, `<a href="${longPath}">long</a> <a href="/ok">ok</a>`);
    page(socket, '<p>ok</p>');
  });
  const crawler = new Crawler([site.url('/')], { robots: false });
  await run(crawler.crawl());
  const long = crawler.errors.find((e) => e.url === site.url(longPath));
  assert.ok(long !== undefined, 'the long URL was tried');
  assert.ok(long.error instanceof InvalidUrlError, `got ${String(long.error).slice(0, 200)}`);
  assert.match(long.error.message, /URL of \d+ characters is longer than the limit of 65536/);
  assert.equal(site.hits.get(longPath), undefined, 'never sent');
  assert.equal(crawler.done.find((s) => s.url === site.url('/ok'))?.status, 200);
});
