// Tests of the demo site's server against real loopback sockets (127.0.0.1, port 0): every
// route's status and content type, redirects, keep-alive, delays, determinism, the fault
// routes, prompt close() with responses in flight, and a plain BFS crawl that must reach
// exactly the model's expected outcomes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  BINARY_BYTES,
  BROKEN_CHARSET,
  DEFAULT_SLOW_MS,
  MARKUP_TITLE_TEXT,
  startDemoSite,
  type DemoSite,
  type DemoSiteOptions,
  type ExpectedOutcome,
} from '../../../runtime/demo-site';
import { heldFor, mockSiteClock, until } from './site-clock';

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  readonly reusedSocket: boolean;
}

/** One request with node:http; rejects on any transport error. */
function request(url: string, options: { agent?: http.Agent; method?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent: options.agent ?? false, method: options.method ?? 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          reusedSocket: req.reusedSocket,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

interface FaultReply {
  status: number | null;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  error: string | null;
}

/**
 * One request that records what a client sees of a hostile response: the status, the body
 * bytes received and the error that ended it (or null on a clean end). `stopAfterBytes`
 * makes the client give up once it has that many bytes.
 */
function probe(url: string, options: { stopAfterBytes?: number; timeoutMs?: number } = {}): Promise<FaultReply> {
  return new Promise((resolve) => {
    const reply: FaultReply = { status: null, headers: {}, bytes: 0, error: null };
    let settled = false;
    const finish = (error: string | null): void => {
      if (settled) return;
      settled = true;
      reply.error = error;
      req.destroy();
      resolve(reply);
    };
    const req = http.get(url, { agent: false }, (res) => {
      reply.status = res.statusCode ?? null;
      reply.headers = res.headers;
      res.on('data', (chunk: Buffer) => {
        reply.bytes += chunk.length;
        if (options.stopAfterBytes !== undefined && reply.bytes >= options.stopAfterBytes) finish('client stopped');
      });
      res.on('end', () => finish(null));
      res.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
      res.on('close', () => finish(res.complete ? null : 'closed before the end'));
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    if (options.timeoutMs !== undefined) req.setTimeout(options.timeoutMs, () => finish('timeout'));
  });
}

async function withSite(options: DemoSiteOptions, body: (site: DemoSite) => Promise<void>): Promise<void> {
  const site = await startDemoSite(options);
  try {
    await body(site);
  } finally {
    await site.close();
  }
}

test('startDemoSite listens on 127.0.0.1 with an ephemeral port', async () => {
  await withSite({}, async (site) => {
    assert.ok(site.port > 0);
    assert.equal(site.url, `http://127.0.0.1:${site.port}/`);
    assert.equal(site.model.pages, 200);
  });
});

test('every route answers its status, content type and Content-Length', async () => {
  await withSite({ pages: 20, slowMs: 10 }, async (site) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const expect: Array<[string, number, string]> = [
        ['', 200, 'text/html; charset=utf-8'],
        ['page/1/', 200, 'text/html; charset=utf-8'],
        ['page/20/', 200, 'text/html; charset=utf-8'],
        ['page/7', 301, 'text/html; charset=utf-8'],
        ['page/21/', 404, 'text/html; charset=utf-8'],
        ['missing/5', 404, 'text/html; charset=utf-8'],
        ['nowhere', 404, 'text/html; charset=utf-8'],
        ['files/data.bin', 200, 'application/octet-stream'],
        ['slow/1/', 200, 'text/html; charset=utf-8'],
        ['slow/2/', 200, 'text/html; charset=utf-8'],
        ['broken/', 200, `text/html; charset=${BROKEN_CHARSET}`],
        ['titles/markup/', 200, 'text/html; charset=utf-8'],
        ['robots.txt', 200, 'text/plain; charset=utf-8'],
        ['private/secret/', 200, 'text/html; charset=utf-8'],
        ['api/pages.json', 200, 'application/json'],
        ['fault/reset', 404, 'text/html; charset=utf-8'], // faults are opt-in
        ['page/3/?q=1', 200, 'text/html; charset=utf-8'],
      ];
      for (const [path, status, contentType] of expect) {
        const reply = await request(site.url + path, { agent });
        assert.equal(reply.status, status, path);
        assert.equal(reply.headers['content-type'], contentType, path);
        assert.equal(reply.headers['content-length'], String(reply.body.length), path);
        assert.equal(reply.headers.connection, 'keep-alive', path);
        assert.equal(reply.headers.date, undefined, path);
      }
      assert.equal(site.requestCount(), expect.length);
    } finally {
      agent.destroy();
    }
  });
});

test('bodies: redirects, binary, robots.txt, JSON, broken charset, escaped title, HEAD and 405', async () => {
  await withSite({ pages: 20 }, async (site) => {
    const redirect = await request(`${site.url}page/7`);
    assert.equal(redirect.headers.location, '/page/7/');
    const followed = await fetch(`${site.url}page/7`);
    assert.equal(followed.status, 200);
    assert.equal(followed.url, `${site.url}page/7/`);
    assert.match(await followed.text(), /<h1>Page 7<\/h1>/);

    const binary = await request(`${site.url}files/data.bin`);
    assert.equal(binary.body.length, BINARY_BYTES);
    assert.ok(new Set(binary.body).size > 200, 'bytes look random');

    assert.equal(
      (await request(`${site.url}robots.txt`)).body.toString(),
      '# Coroscope demo site\nUser-agent: *\nDisallow: /private/\n',
    );

    const json: unknown = await (await fetch(`${site.url}api/pages.json`)).json();
    assert.ok(typeof json === 'object' && json !== null && 'pages' in json && 'links' in json);
    assert.equal(json.pages, 20);
    assert.deepEqual(
      json.links,
      Array.from({ length: 20 }, (_, i) => `/page/${i + 1}/`),
    );

    const broken = (await request(`${site.url}broken/`)).body.toString('latin1');
    assert.match(broken, /<meta charset="x-coroscope-unknown">/);
    assert.throws(() => new TextDecoder(BROKEN_CHARSET), RangeError, 'no decoder knows the charset');

    const titled = (await request(`${site.url}titles/markup/`)).body.toString();
    assert.match(titled, /<title>&lt;img src=x onerror=alert\(1\)&gt; &amp; &quot;quotes&quot;<\/title>/);
    const decoded = /<title>(.*)<\/title>/
      .exec(titled)?.[1]
      ?.replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
    assert.equal(decoded, MARKUP_TITLE_TEXT);

    const head = await request(`${site.url}page/1/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], '2048');
    assert.equal(head.body.length, 0);

    const post = await request(site.url, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
  });
});

test('served hrefs are exactly the model links, and pages are pageBytes long', async () => {
  await withSite({ pages: 40, linksPerPage: 10, pageBytes: 3000, seed: 5 }, async (site) => {
    for (const n of [1, 2, 20, 39, 40]) {
      const reply = await request(`${site.url}page/${n}/`);
      assert.equal(reply.body.length, 3000);
      const hrefs = [...reply.body.toString().matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
      assert.deepEqual(
        hrefs,
        site.model.linksOf(n).map((l) => l.href),
        `page ${n}`,
      );
    }
    const home = (await request(site.url)).body.toString();
    assert.deepEqual(
      [...home.matchAll(/href="([^"]*)"/g)].map((m) => m[1]),
      site.model.homeLinks().map((l) => l.href),
    );
  });
});

test('same options give byte-identical responses; another seed gives other pages', async () => {
  const a = await startDemoSite({ seed: 3 });
  const b = await startDemoSite({ seed: 3 });
  const c = await startDemoSite({ seed: 4 });
  try {
    assert.notEqual(a.port, b.port);
    for (const path of [
      '',
      'page/1/',
      'page/150/',
      'page/9',
      'files/data.bin',
      'slow/1/',
      'missing/3',
      'api/pages.json',
    ]) {
      const [ra, rb] = await Promise.all([request(a.url + path), request(b.url + path)]);
      assert.equal(ra.status, rb.status, path);
      assert.deepEqual(ra.headers, rb.headers, path);
      assert.ok(ra.body.equals(rb.body), path);
    }
    const [pa, pc] = await Promise.all([request(`${a.url}page/1/`), request(`${c.url}page/1/`)]);
    assert.ok(!pa.body.equals(pc.body));
    const [ba, bc] = await Promise.all([request(`${a.url}files/data.bin`), request(`${c.url}files/data.bin`)]);
    assert.ok(!ba.body.equals(bc.body));
  } finally {
    await Promise.all([a.close(), b.close(), c.close()]);
  }
});

test('keep-alive: requests reuse one connection', async () => {
  await withSite({ pages: 10 }, async (site) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await request(`${site.url}page/1/`, { agent });
      const second = await request(`${site.url}page/2/`, { agent });
      const third = await request(`${site.url}page/3`, { agent });
      assert.equal(first.reusedSocket, false);
      assert.equal(second.reusedSocket, true);
      assert.equal(third.reusedSocket, true);
    } finally {
      agent.destroy();
    }
  });
});

test('latencyMs delays every response and slowMs the slow pages, by the site clock', async (t) => {
  mockSiteClock(t);
  await withSite({ pages: 5, latencyMs: 80, slowMs: 150 }, async (site) => {
    const fast = await heldFor(t, site, () => request(`${site.url}page/1/`), 1000);
    assert.equal(fast.ms, 80);
    assert.equal(fast.reply.status, 200);
    const slow = await heldFor(t, site, () => request(`${site.url}slow/1/`), 1000);
    assert.equal(slow.ms, 80 + 150);
    assert.equal(slow.reply.status, 200);
  });
  await withSite({ pages: 5 }, async (site) => {
    assert.equal((await heldFor(t, site, () => request(`${site.url}slow/2/`), 1000)).ms, DEFAULT_SLOW_MS);
    // No latency: a page is answered with no timer (the mocked clock never moves here).
    assert.equal((await heldFor(t, site, () => request(`${site.url}page/2/`), 0)).ms, 0);
  });
});

test('jitterMs adds a pseudo-random share to each response: at least latencyMs, varied', async (t) => {
  mockSiteClock(t);
  const delays: number[] = [];
  await withSite({ pages: 5, latencyMs: 30, jitterMs: 120 }, async (site) => {
    for (let i = 0; i < 8; i++) delays.push((await heldFor(t, site, () => request(`${site.url}page/1/`), 1000)).ms);
  });
  // A timer of a fractional delay fires at the next whole millisecond.
  for (const ms of delays) assert.ok(ms >= 30 && ms <= 30 + 120, `delay ${ms} ms`);
  assert.ok(Math.max(...delays) - Math.min(...delays) >= 20, `no jitter: ${delays.join(', ')}`);
});

test('close() returns with idle keep-alive sockets and pending delayed responses, their timers cancelled', async (t) => {
  const site = await startDemoSite({ pages: 5, latencyMs: 5000 });
  const agent = new http.Agent({ keepAlive: true });
  const fastSite = await startDemoSite({ pages: 5 });
  await request(fastSite.url, { agent }); // leaves an idle keep-alive socket on fastSite
  await fetch(fastSite.url).then((r) => r.arrayBuffer()); // and one in fetch's own pool
  // The site's clock stands still from here: a close() that waited for the 5 s delay would hang
  // (the test's timeout says so), one that waited for an idle socket's timeout too.
  mockSiteClock(t);
  const pending = probe(`${site.url}page/1/`);
  await until(() => site.requestCount() === 1);
  await Promise.all([site.close(), fastSite.close()]);
  assert.notEqual((await pending).error, null);
  assert.equal(site.answerCount(), 0, 'the delayed response was never sent');
  // Its timer was cleared: the clock passing its due time sends nothing.
  t.mock.timers.tick(10_000);
  assert.equal(site.answerCount(), 0);
  await site.close(); // idempotent
  agent.destroy();
});

test('plain BFS crawl reaches exactly the expected outcomes', async () => {
  await withSite({ slowMs: 20 }, async (site) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const robots = (await request(`${site.url}robots.txt`, { agent })).body.toString();
      const disallowed = [...robots.matchAll(/^Disallow:\s*(\S+)/gm)].map((m) => m[1]);
      assert.deepEqual(disallowed, ['/private/']);

      const root = new URL(site.url);
      const seen = new Set<string>([root.href]);
      const queue: string[] = [root.href];
      const crawled = new Map<string, ExpectedOutcome>();
      const add = (href: string, base: string): void => {
        const url = new URL(href, base);
        url.hash = '';
        if (url.origin === root.origin && !seen.has(url.href)) {
          seen.add(url.href);
          queue.push(url.href);
        }
      };
      const requestsBefore = site.requestCount();
      let fetched = 0;
      while (queue.length > 0) {
        const url = queue.shift() ?? '';
        const path = new URL(url).pathname;
        if (disallowed.some((prefix) => path.startsWith(prefix))) {
          crawled.set(url, { kind: 'excluded-by-robots', status: 200, contentType: 'text/html; charset=utf-8' });
          continue;
        }
        const reply = await request(url, { agent });
        fetched++;
        const contentType = reply.headers['content-type'] ?? '';
        if (reply.status === 301) {
          const location = new URL(reply.headers.location ?? '', url).href;
          crawled.set(url, { kind: 'redirect', status: 301, location });
          add(location, url);
        } else if (reply.status === 404) {
          assert.equal(contentType, 'text/html; charset=utf-8');
          crawled.set(url, { kind: 'missing', status: 404, contentType: 'text/html; charset=utf-8' });
        } else if (reply.status === 200 && contentType === 'application/octet-stream') {
          crawled.set(url, { kind: 'binary', status: 200, contentType, bytes: reply.body.length });
        } else if (reply.status === 200 && contentType.startsWith('text/html')) {
          const charset = /charset=([^\s;]+)/.exec(contentType)?.[1] ?? 'utf-8';
          let text: string;
          try {
            text = new TextDecoder(charset).decode(reply.body);
          } catch (error) {
            assert.ok(error instanceof RangeError);
            crawled.set(url, { kind: 'broken', status: 200, contentType: `text/html; charset=${BROKEN_CHARSET}` });
            continue;
          }
          assert.equal(contentType, 'text/html; charset=utf-8');
          crawled.set(url, { kind: 'page', status: 200, contentType: 'text/html; charset=utf-8' });
          // The chapter's link regex.
          for (const match of text.matchAll(/href=["']([^\s"'<>]+)/gi)) add(match[1], url);
        } else {
          assert.fail(`unexpected ${reply.status} ${contentType} at ${url}`);
        }
      }
      const expected = site.model.expectedOutcomes(site.url);
      assert.deepEqual(new Set(crawled.keys()), new Set(expected.keys()));
      assert.deepEqual(crawled, expected);
      assert.equal(site.requestCount() - requestsBefore, fetched);
      assert.equal(fetched, expected.size - 1); // all but the private page
      assert.ok(crawled.size > 300);
    } finally {
      agent.destroy();
    }
  });
});

test('a crawler ignoring robots.txt gets 200 at /private/secret/ and no new links', async () => {
  await withSite({ pages: 10 }, async (site) => {
    const reply = await request(`${site.url}private/secret/`);
    assert.equal(reply.status, 200);
    assert.deepEqual(
      [...reply.body.toString().matchAll(/href="([^"]*)"/g)].map((m) => m[1]),
      ['/'],
    );
  });
});

test('fault routes: each one breaks the exchange the way it says', async () => {
  await withSite({ pages: 10, faults: true }, async (site) => {
    const home = (await request(site.url)).body.toString();
    for (const fault of ['reset', 'stall', 'bad-chunk', 'endless', 'redirect-loop', 'no-location', 'wrong-length']) {
      assert.ok(home.includes(`href="/fault/${fault}"`), fault);
    }

    const reset = await probe(`${site.url}fault/reset`);
    assert.equal(reset.status, 200);
    assert.equal(reset.headers['content-length'], '4096');
    assert.ok(reset.bytes < 4096);
    assert.equal(reset.error, 'ECONNRESET');

    const stall = await probe(`${site.url}fault/stall`, { timeoutMs: 150 });
    assert.equal(stall.status, 200);
    assert.equal(stall.bytes, 0);
    assert.equal(stall.error, 'timeout');

    const badChunk = await probe(`${site.url}fault/bad-chunk`);
    assert.equal(badChunk.status, 200);
    assert.equal(badChunk.headers['transfer-encoding'], 'chunked');
    assert.equal(badChunk.error, 'HPE_INVALID_CHUNK_SIZE');

    const endless = await probe(`${site.url}fault/endless`, { stopAfterBytes: 4 * 1024 * 1024 });
    assert.equal(endless.status, 200);
    assert.equal(endless.headers['transfer-encoding'], 'chunked');
    assert.equal(endless.error, 'client stopped');
    assert.ok(endless.bytes >= 4 * 1024 * 1024);

    const loopA = await request(`${site.url}fault/redirect-loop`);
    assert.equal(loopA.status, 301);
    assert.equal(loopA.headers.location, '/fault/redirect-loop/b');
    const loopB = await request(`${site.url}fault/redirect-loop/b`);
    assert.equal(loopB.status, 301);
    assert.equal(loopB.headers.location, '/fault/redirect-loop');
    await assert.rejects(fetch(`${site.url}fault/redirect-loop`), TypeError, 'fetch gives up on the loop');

    const noLocation = await request(`${site.url}fault/no-location`);
    assert.equal(noLocation.status, 301);
    assert.equal(noLocation.headers.location, undefined);

    const wrongLength = await probe(`${site.url}fault/wrong-length`);
    assert.equal(wrongLength.status, 200);
    assert.equal(wrongLength.headers['content-length'], '4096');
    assert.equal(wrongLength.bytes, 2048);
    assert.equal(wrongLength.error, 'ECONNRESET'); // node:http's "aborted"
    await assert.rejects(
      fetch(`${site.url}fault/wrong-length`).then((r) => r.arrayBuffer()),
      TypeError,
    );

    // The site still serves normally after all that.
    assert.equal((await request(`${site.url}page/1/`)).status, 200);
  });
});

test('close() returns with a stalled and an endless response in flight', async () => {
  const site = await startDemoSite({ pages: 5, faults: true });
  const stalled = probe(`${site.url}fault/stall`);
  // A client that reads nothing: the endless body fills the buffers and waits for 'drain'.
  const endlessRequest = http.get(`${site.url}fault/endless`, { agent: false });
  const endlessResponse = new Promise<http.IncomingMessage>((resolve, reject) => {
    endlessRequest.on('response', (res) => {
      res.pause();
      resolve(res);
    });
    endlessRequest.on('error', reject);
  });
  const paused = await endlessResponse;
  await until(() => site.answerCount() === 2);
  // No wall-clock window: a close() that waited for the stall or the endless body would never
  // resolve, which the test's timeout reports.
  await site.close();
  const stalledReply = await stalled;
  assert.equal(stalledReply.status, 200);
  assert.notEqual(stalledReply.error, null);
  // Once the paused client reads again it drains what was buffered and sees the connection end.
  const ended = new Promise<boolean>((resolve) => {
    paused.on('error', () => undefined);
    paused.on('close', () => resolve(paused.complete));
  });
  paused.resume();
  assert.equal(await ended, false, 'the endless body never completes');
  endlessRequest.destroy();
});
