// The `coroscope` command as a user runs it: the bundled dist/cli.js in a child process
// (npm test builds it first), against the embedded demo site.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { distBundle } from '../../dist-bundles';

const root = join(__dirname, '..', '..', '..');
const cli = join(root, 'bin', 'coroscope.js');

function coroscope(args: string[], timeoutMs = 60_000): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: timeoutMs });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the CLI bundle is built from the current sources', () => {
  assert.ok(existsSync(distBundle('cli.js')));
});

test('crawl --demo prints the report, a task dump and the rate', () => {
  const r = coroscope(['crawl', '--demo', '--pages', '30', '--dump-tasks-after', '50', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\*\*\* Tasks after 50 ms \*\*\*/);
  assert.match(r.stdout, /crawl runtime\/crawler\/crawler\.ts:\d+/);
  assert.match(r.stdout, /\*\*\* Report \*\*\*/);
  assert.match(r.stdout, /Finished \d+ urls in [\d.]+ secs \(max_tasks=100\)/);
  assert.match(r.stdout, /Rate: [\d.]+ urls\/sec/);
});

test('--json prints exactly one object with the documented fields, for each stage, and the stages agree', () => {
  const seen: Record<string, string[]> = {};
  for (const stage of ['callbacks', 'generators', 'coroutines']) {
    const r = coroscope(['crawl', '--demo', '--instant', '--pages', '30', '--json', '--no-robots', '--stage', stage]);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const k of ['pages', 'fetched', 'errors', 'redirects', 'seconds', 'rate', 'results'])
      assert.ok(k in j, `${stage}: ${k}`);
    const results = j.results as Array<{
      url: string;
      status: number | null;
      contentType: string | null;
      bytes: number;
      nextUrl?: string;
      error?: string;
    }>;
    assert.equal(results.length, j.fetched);
    assert.ok(
      results.some((x) => x.nextUrl !== undefined),
      'redirects are listed',
    );
    assert.ok(
      results.some((x) => x.error !== undefined && /UnknownCharsetError/.test(x.error)),
      'the broken page failed',
    );
    // Ports differ per run: compare paths.
    seen[stage] = results.map((x) => new URL(x.url).pathname).sort();
  }
  assert.deepEqual(seen.generators, seen.callbacks);
  assert.deepEqual(seen.coroutines, seen.callbacks);
});

test('bad arguments exit 2 with a message; an unreachable root exits 1', async () => {
  const bad = coroscope(['crawl', '--max-tasks', 'lots', '--demo']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--max-tasks needs a whole number/);
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const dead = coroscope(['crawl', `http://127.0.0.1:${port}/`, '--quiet', '--max-tries', '1']);
  assert.equal(dead.status, 1);
  assert.match(dead.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+\/: HttpConnectionError/);
});

test('samples lists the tutorial samples; sample runs one', () => {
  const list = coroscope(['samples']);
  assert.equal(list.status, 0);
  assert.match(list.stdout, /^generators\s+/m);
  assert.match(list.stdout, /^json-fetch\s+/m);
  const one = coroscope(['sample', 'exception-chain']);
  assert.equal(one.status, 0, one.stderr);
  const unknown = coroscope(['sample', 'nope']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown sample "nope"/);
});

test('trace --demo prints the coroutine traceback, then the callback traceback of the same failure', () => {
  const r = coroscope(['trace', '--demo']);
  assert.equal(r.status, 0, r.stderr);
  const co = r.stdout.indexOf('Coroutine traceback');
  const cb = r.stdout.indexOf('Callback traceback');
  assert.ok(co >= 0 && cb > co, r.stdout);
  const coroutinePart = r.stdout.slice(co, cb);
  for (const frame of ['in work', 'in fetch', 'in parseLinks', 'in extractLinks', 'in decodeBody'])
    assert.ok(coroutinePart.includes(frame), frame);
  assert.ok(!r.stdout.slice(cb).includes('in fetch'), 'the callback trace is ripped: no fetch frame');
  assert.match(r.stdout, /UnknownCharsetError/);
});

test('crawl --demo announces what the crawl will meet, and the report ends in that many URLs', () => {
  const r = coroscope(['crawl', '--demo', '--instant', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const announced =
    /Crawling the embedded demo site at \S+: 200 content pages; a crawl from \/ meets (\d+) URLs \((\d+) HTML pages, /.exec(
      r.stderr,
    );
  assert.ok(announced, r.stderr);
  const finished = /Finished (\d+) urls/.exec(r.stdout);
  assert.ok(finished, r.stdout);
  assert.equal(Number(finished[1]), Number(announced[1]), `announced ${announced[1]} URLs, crawled ${finished[1]}`);
  const html = /(\d+) content-type text\/html/.exec(r.stdout);
  assert.ok(
    html !== null && Number(html[1]) > Number(announced[2]),
    'the HTML count of the report includes the 404 pages',
  );
});

test("crawl --demo answers with a network's latency (--instant: at once), and both crawls end in the same counts", () => {
  const realistic = coroscope(['crawl', '--demo', '--pages', '20', '--json']);
  const instant = coroscope(['crawl', '--demo', '--pages', '20', '--json', '--instant']);
  assert.equal(realistic.status, 0, realistic.stderr);
  assert.equal(instant.status, 0, instant.stderr);
  const a = JSON.parse(realistic.stdout) as Record<string, number>;
  const b = JSON.parse(instant.stdout) as Record<string, number>;
  for (const k of ['pages', 'fetched', 'errors', 'redirects']) assert.equal(a[k], b[k], k);
  assert.ok(a.seconds! >= 1, `the realistic crawl took ${a.seconds} s`);
  assert.ok(b.seconds! < a.seconds!, `instant ${b.seconds} s, realistic ${a.seconds} s`);
  assert.match(
    coroscope(['crawl', 'http://127.0.0.1:1/', '--instant']).stderr,
    /--instant is for the embedded demo site/,
  );
});
