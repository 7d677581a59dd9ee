// Tests bench/sites/link-farm-site.ts (the benchmark site) together with its first client,
// bench/peers/undici-crawler.ts: a full crawl from /p/0 must fetch exactly the URLs the site
// says it will, with the counts by status it predicts. All on loopback, port 0. The Python
// peer (bench/peers/aiohttp_crawler.py) is checked the same way where Debian's python3-aiohttp
// is installed, and skipped elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { startLinkFarm } from '../../bench/sites/link-farm-site';
import { crawlWithUndici } from '../../bench/peers/undici-crawler';
import { skipUnlessInstalled } from '../real-servers';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(url: string, agent: http.Agent): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

test('a crawl of a 200-page link farm sees exactly the expected URLs, by status', async () => {
  const farm = await startLinkFarm({ pages: 200 });
  try {
    const { expected } = farm;
    assert.equal(expected.ok200, 200, 'page 0 reaches every page');
    assert.ok(expected.redirects301 > 0 && expected.notFound404 > 0, 'the farm has redirects and missing pages');
    assert.equal(expected.urls.size, expected.ok200 + expected.redirects301 + expected.notFound404);

    const result = await crawlWithUndici([farm.url], { maxTasks: 20 });
    assert.deepEqual(result.urls, expected.urls);
    assert.deepEqual(result.byStatus, {
      '200': expected.ok200,
      '301': expected.redirects301,
      '404': expected.notFound404,
    });
    assert.equal(result.fetched, expected.urls.size);
    assert.ok(result.seconds > 0 && result.rate > 0);
  } finally {
    await farm.close();
  }
});

test('the link farm is deterministic, keeps connections alive and sends Content-Length', async () => {
  const first = await startLinkFarm({ pages: 50, seed: 7 });
  const second = await startLinkFarm({ pages: 50, seed: 7 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const paths = (urls: Set<string>, origin: string): string[] => [...urls].map((u) => u.slice(origin.length)).sort();
    assert.deepEqual(paths(first.expected.urls, first.origin), paths(second.expected.urls, second.origin));

    const page = await get(first.url, agent);
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(Number(page.headers['content-length']), Buffer.byteLength(page.body));
    assert.equal(page.headers.connection, 'keep-alive');
    assert.equal(page.body, (await get(second.url, agent)).body);

    const redirect = await get(`${first.origin}/r/3`, agent);
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.location, '/p/3');

    const missing = await get(`${first.origin}/p/50`, agent);
    assert.equal(missing.status, 404);
    assert.equal(Number(missing.headers['content-length']), Buffer.byteLength(missing.body));
  } finally {
    agent.destroy();
    await Promise.all([first.close(), second.close()]);
  }
});

test("the 'node-app' style: everything chunked, empty chunked 301s, 10-100 KB pages, gzip when accepted; same crawl", async () => {
  const farm = await startLinkFarm({ pages: 60, style: 'node-app' });
  const prepared = await startLinkFarm({ pages: 60 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const paths = (urls: Set<string>, origin: string): string[] => [...urls].map((u) => u.slice(origin.length)).sort();
    assert.deepEqual(
      paths(farm.expected.urls, farm.origin),
      paths(prepared.expected.urls, prepared.origin),
      'the same link graph',
    );

    const page = await get(farm.url, agent);
    assert.equal(page.status, 200);
    assert.equal(page.headers['transfer-encoding'], 'chunked');
    assert.equal(page.headers['content-length'], undefined);
    const size = Buffer.byteLength(page.body);
    assert.ok(size >= 10_000 && size <= 101_000, `page of ${size} bytes`);

    const redirect = await get(`${farm.origin}/r/3`, agent);
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.location, '/p/3');
    assert.equal(redirect.headers['transfer-encoding'], 'chunked');
    assert.equal(redirect.body, '');

    const gzipped = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(farm.url, { agent, headers: { 'accept-encoding': 'gzip' } }, resolve).on('error', reject);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of gzipped) chunks.push(chunk as Buffer);
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(Buffer.concat(chunks)).toString('utf8'), page.body);
    assert.ok(farm.connections() >= 1);

    const result = await crawlWithUndici([farm.url], { maxTasks: 10 });
    assert.deepEqual(result.urls, farm.expected.urls);
  } finally {
    agent.destroy();
    await Promise.all([farm.close(), prepared.close()]);
  }
});

test('the crawler keeps to its host and honours exclude', async () => {
  const farm = await startLinkFarm({ pages: 60 });
  try {
    // Nothing under /r/ is fetched, so pages reached only through redirects are not either.
    const result = await crawlWithUndici([farm.url], { maxTasks: 5, exclude: /\/r\// });
    for (const url of result.urls) {
      assert.ok(url.startsWith(`${farm.origin}/p/`), `fetched ${url}`);
    }
    assert.equal(result.byStatus['301'], undefined);
    assert.ok(result.fetched < farm.expected.urls.size);
    for (const url of result.urls) assert.ok(farm.expected.urls.has(url));
  } finally {
    await farm.close();
  }
});

// Debian's aiohttp is installed for /usr/bin/python3 (a pyenv python3 on PATH may lack it).
const PYTHON = '/usr/bin/python3';
const hasAiohttp = spawnSync(PYTHON, ['-c', 'import aiohttp'], { stdio: 'ignore' }).status === 0;

test('the aiohttp peer sees the same counts by status', {
  skip: skipUnlessInstalled(hasAiohttp, 'no aiohttp for /usr/bin/python3 (apt-get install python3-aiohttp)'),
}, async () => {
  const farm = await startLinkFarm({ pages: 200 });
  try {
    // Asynchronous on purpose: the farm is served by this process's event loop.
    const { stdout } = await promisify(execFile)(
      PYTHON,
      ['bench/peers/aiohttp_crawler.py', farm.url, '--max-tasks', '20'],
      {
        cwd: `${__dirname}/../..`,
      },
    );
    const report: unknown = JSON.parse(stdout);
    assert.ok(typeof report === 'object' && report !== null && 'by_status' in report && 'fetched' in report);
    assert.deepEqual(report.by_status, {
      '200': farm.expected.ok200,
      '301': farm.expected.redirects301,
      '404': farm.expected.notFound404,
    });
    assert.equal(report.fetched, farm.expected.urls.size);
  } finally {
    await farm.close();
  }
});
