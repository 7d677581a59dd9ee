// Tests of the stage-3 Crawler (runtime/crawler/crawler.ts) against a site written the way a
// node:http app usually is: redirects as `res.writeHead(301, {Location}); res.end()` (an
// empty chunked body the crawler never reads) and pages written in pieces (chunked), some
// gzip-compressed. Asserted: the crawl fetches every URL, and it keeps its connections alive
// through all of that: the server sees at most maxTasks + 5 TCP connections; and no error
// object is built per request (counted through CoroscopeError's super constructor).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import * as zlib from 'node:zlib';
import { EventLoop } from '../../../runtime/index';
import { CoroscopeError } from '../../../runtime/errors';
import { Crawler } from '../../../runtime/crawler/crawler';

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
      const links = [(2 * n + 1) % PAGES, (2 * n + 2) % PAGES, (n * 7) % PAGES, PAGES + (n % 5)].map((k, i) => `<a href="/${i % 2 === 0 ? 'r' : 'p'}/${k}">${k}</a>`);
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
  assert.ok(site.connections() <= maxTasks + 5, `${site.connections()} connections for ${crawler.done.length} fetches by ${maxTasks} tasks`);
  // One BlockingIOError per connect (EINPROGRESS, as Python's) and one CancelledError per
  // worker stopped at the end: none per request, so the count does not grow with the fetches.
  const total = [...built.values()].reduce((a, b) => a + b, 0);
  assert.ok(total <= 2 * maxTasks + 5, `${total} errors built for ${crawler.done.length} fetches: ${JSON.stringify([...built])}`);
});
