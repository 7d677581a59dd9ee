// `coroscope crawl` (runtime/cli/crawl-command.ts) as a user runs it, the bundled CLI in a
// child process, against raw node:net servers in this process (so the child is spawned
// asynchronously): roots that are not http(s) URLs, crawl --help, a robots.txt that keeps the
// root out, a root that answered too much (not "cannot reach"), the teaching stages with
// --timeout, --max-depth and robots.txt, excluded URLs in --json, the report after SIGINT and
// who cancelled (the CLI), the task dump taken at a SIGINT that comes before its time, SIGTERM
// ending the crawl as cleanly (its recording written), and --deadline (cancels attributed to
// the crawl deadline, replayed from a recording to the same report).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type net from 'node:net';
import { page, rawSite, type RawSite } from '../crawler/raw-site';

const root = join(__dirname, '..', '..', '..');
const cli = join(root, 'bin', 'coroscope.js');

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; `whileRunning` may act on the child (send SIGINT). */
function coroscope(
  args: string[],
  whileRunning?: (child: ReturnType<typeof spawn>, stdout: () => string) => void,
  timeoutMs = 60_000,
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    whileRunning?.(child, () => stderr);
  });
}

const NO_ROBOTS_FILE = (path: string, socket: net.Socket): boolean => {
  if (path !== '/robots.txt') return false;
  page(socket, 'none', '404 Not Found', 'text/plain');
  return true;
};

test('mailto: and ht!tp://:::: roots are refused (exit 2) instead of being looked up as http URLs', async () => {
  const mail = await coroscope(['crawl', 'mailto:a@b.invalid', '--quiet']);
  assert.equal(mail.status, 2);
  assert.match(
    mail.stderr,
    /coroscope crawl: unsupported scheme "mailto" for a root: only http and https can be crawled \(mailto:a@b\.invalid\)/,
  );
  const bad = await coroscope(['crawl', 'ht!tp://::::', '--quiet']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /invalid root URL: the part before :\/\/ is not a scheme/);
});

test('crawl --help prints the usage and exits 0', async () => {
  const r = await coroscope(['crawl', '--help']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Crawl options:/);
  assert.match(r.stdout, /--max-tasks N +worker tasks, 1 to 10000/);
});

test('--max-tasks 1e30 is refused with its bounds (exit 2), not a heap exhausted', async () => {
  const r = await coroscope(['crawl', '--demo', '--max-tasks', '1e30']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--max-tasks must be a whole number from 1 to 10000, got 1e\+30/);
});

test('a robots.txt answering 500 ends with exit 1 and says why, in the report and on stderr', async (t) => {
  const site = await rawSite(t, (path, socket) =>
    path === '/robots.txt'
      ? page(socket, 'down', '500 Internal Server Error', 'text/plain')
      : page(socket, '<p>home</p>'),
  );
  const r = await coroscope(['crawl', site.url('/'), '--quiet']);
  assert.equal(r.status, 1, r.stderr);
  assert.match(
    r.stderr,
    /coroscope crawl: robots\.txt of http:\/\/127\.0\.0\.1:\d+ answered HTTP 500: RFC 9309 reads an unreachable robots\.txt as disallowing everything/,
  );
  assert.match(r.stdout, /\*\*\* Notices \*\*\*\nrobots\.txt of .* answered HTTP 500/);
  assert.equal(site.hits.get('/'), undefined);
});

test('a root that answered too much is not "cannot reach"', async (t) => {
  const site = await rawSite(
    t,
    (path, socket) => NO_ROBOTS_FILE(path, socket) || page(socket, Buffer.alloc(11 << 20, 0x20)),
  );
  const r = await coroscope(['crawl', site.url('/'), '--quiet', '--max-tries', '1']);
  assert.equal(r.status, 1);
  assert.doesNotMatch(r.stderr, /cannot reach/);
  assert.match(
    r.stderr,
    /the root http:\/\/127\.0\.0\.1:\d+\/ answered \(HTTP 200\) but could not be crawled: HttpTooLargeError/,
  );
});

test('the teaching stages honour --timeout, --max-depth and robots.txt', async (t) => {
  const site = await rawSite(t, (path, socket) => {
    if (path === '/robots.txt') return page(socket, 'User-agent: *\nDisallow: /private/\n', '200 OK', 'text/plain');
    if (path === '/stall') return; // never answers
    if (path === '/') return page(socket, '<a href="/a">a</a> <a href="/private/x">p</a> <a href="/stall">s</a>');
    if (path === '/a') return page(socket, '<a href="/a/deeper">d</a>');
    page(socket, '<p>leaf</p>');
  });
  for (const stage of ['callbacks', 'generators']) {
    site.hits.clear();
    const r = await coroscope([
      'crawl',
      site.url('/'),
      '--stage',
      stage,
      '--timeout',
      '1',
      '--max-depth',
      '1',
      '--json',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as {
      results: Array<{ url: string; error?: string }>;
      excludedUrls: Array<{ url: string; reason: string }>;
      seconds: number;
    };
    // Which URL ended how: the stall by the deadline --timeout gave (not the stage's default
    // of 10 s), fetched once; every other fetched URL answered.
    assert.deepEqual(
      j.results.map((x) => [x.url, x.error ?? null]),
      [
        [site.url('/'), null],
        [site.url('/a'), null],
        [site.url('/stall'), `TimeoutError: no complete response from ${site.url('/stall')} within 1 s`],
      ],
      stage,
    );
    assert.equal(site.hits.get('/stall'), 1, `${stage}: a stall is not retried`);
    // Never early, on the crawl's own clock (no upper bound: a hang ends in the 60 s kill, status null).
    assert.ok(j.seconds >= 1, `${stage}: the crawl ended ${j.seconds} s after it began`);
    assert.equal(site.hits.get('/private/x'), undefined, `${stage}: robots.txt disallows /private/`);
    assert.equal(site.hits.get('/a/deeper'), undefined, `${stage}: depth 2 is beyond --max-depth 1`);
    assert.deepEqual(
      j.excludedUrls.filter((x) => x.url.startsWith(site.url('/'))),
      [
        { url: site.url('/a/deeper'), reason: 'maxDepth' },
        { url: site.url('/private/x'), reason: 'robots' },
      ],
      stage,
    );
  }
});

test('--json lists every excluded URL with its reason', async (t) => {
  const site = await rawSite(
    t,
    (path, socket) =>
      NO_ROBOTS_FILE(path, socket) ||
      page(
        socket,
        path === '/'
          ? '<a href="/skip.pdf">pdf</a> <a href="http://other.invalid/">other</a> <a href="/ok">ok</a>'
          : '<p>ok</p>',
      ),
  );
  const r = await coroscope(['crawl', site.url('/'), '--json', '--exclude', '\\.pdf$']);
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout) as { excluded: number; excludedUrls: Array<{ url: string; reason: string }> };
  assert.deepEqual(j.excludedUrls, [
    { url: site.url('/skip.pdf'), reason: 'exclude' },
    { url: 'http://other.invalid/', reason: 'host' },
  ]);
  assert.equal(j.excluded, 2);
});

/** Crawls a site whose root links to `pages` pages it never answers, with `workers` workers,
 *  and sends the CLI `signal` once every worker is waiting for one of them (none: the crawl
 *  ends by itself, e.g. at its --deadline). */
async function interruptedCrawl(
  t: TestContext,
  pages: number,
  workers: number,
  args: string[] = [],
  signal: NodeJS.Signals | null = 'SIGINT',
): Promise<{ r: Ran; site: RawSite }> {
  const links = Array.from({ length: pages }, (_, i) => `<a href="/slow/${i}">${i}</a>`).join(' ');
  let slow = 0;
  const site = await rawSite(t, (path, socket) => {
    if (NO_ROBOTS_FILE(path, socket)) return;
    if (path === '/') return page(socket, links);
    slow++; // never answered
  });
  const r = await coroscope(['crawl', site.url('/'), '--max-tasks', String(workers), ...args], (child) => {
    if (signal === null) return;
    const poll = setInterval(() => {
      if (slow >= workers) {
        clearInterval(poll);
        child.kill(signal);
      }
    }, 20);
  });
  return { r, site };
}

test('after SIGINT the report names every URL seen: done, cancelled in flight, or not fetched', {
  timeout: 60_000,
}, async (t) => {
  const { r, site } = await interruptedCrawl(t, 30, 8);
  assert.equal(r.status, 130, r.stderr);
  assert.match(r.stdout, /Todo: 22\nBusy: 8\nDone: 1\n/);
  const cancelled = r.stdout.match(/ cancelled: being fetched when the crawl was interrupted\n/g) ?? [];
  const queued = r.stdout.match(/ not fetched: queued when the crawl was interrupted\n/g) ?? [];
  assert.deepEqual([cancelled.length, queued.length], [8, 22]);
  for (let i = 0; i < 30; i++)
    assert.ok(r.stdout.includes(`${site.url(`/slow/${i}`)} `), `/slow/${i} is in the report`);
  // Without --inspect, the cancel is still the CLI's, and said so.
  assert.match(r.stderr, /coroscope crawl: interrupted: the crawl was cancelled by the CLI; report of what was done:/);
});

test("Ctrl-C before --dump-tasks-after's time: the dump is taken at the interruption and says the CLI cancelled the crawl", {
  timeout: 60_000,
}, async (t) => {
  const { r } = await interruptedCrawl(t, 6, 3, ['--dump-tasks-after', '600000']);
  assert.equal(r.status, 130, r.stderr);
  assert.match(r.stdout, /^\*\*\* Tasks at the interruption, after \d+ ms \*\*\*$/m);
  assert.doesNotMatch(r.stdout, /\*\*\* Tasks after 600000 ms/);
  // The crawl task, asked to cancel by the CLI, its three workers still in their fetches.
  assert.match(r.stdout, /\(T\) #\d+ crawl \[suspended, \d+ steps?, cancel requested by the CLI\]/);
  assert.equal((r.stdout.match(/\(T\) #\d+ worker-\d \[suspended/g) ?? []).length, 3, r.stdout);
  assert.match(r.stderr, /interrupted: the crawl was cancelled by the CLI/);
});

/**
 * The report of a crawl of `interruptedCrawl`'s site cut with every worker in a fetch: each URL is in it,
 * cancelled or not fetched.
 */
function assertEveryUrlReported(r: Ran, site: RawSite, pages: number, workers: number): void {
  assert.match(r.stdout, new RegExp(`Todo: ${pages - workers}\nBusy: ${workers}\nDone: 1\n`));
  const cancelled = r.stdout.match(/ cancelled: being fetched when the crawl was interrupted\n/g) ?? [];
  const queued = r.stdout.match(/ not fetched: queued when the crawl was interrupted\n/g) ?? [];
  assert.deepEqual([cancelled.length, queued.length], [workers, pages - workers]);
  for (let i = 0; i < pages; i++)
    assert.ok(r.stdout.includes(`${site.url(`/slow/${i}`)} `), `/slow/${i} is in the report`);
}

test('SIGTERM ends the crawl as cleanly as Ctrl-C: cancelled by the CLI, the report of every URL, the recording written and replayable (exit 143)', {
  timeout: 60_000,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-sigterm-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'term.corotrace');
  const { r, site } = await interruptedCrawl(t, 12, 4, ['--record', file], 'SIGTERM');
  assert.equal(r.status, 143, r.stderr);
  assertEveryUrlReported(r, site, 12, 4);
  assert.match(r.stderr, /coroscope crawl: interrupted: the crawl was cancelled by the CLI; report of what was done:/);
  assert.match(r.stderr, /Recorded \d+ ticks, \d+ task steps, \d+ sockets to .*term\.corotrace/);
  assert.ok(existsSync(file));
  // The signal's cancel is recorded as an input of the run: the recording replays, offline, to the same
  // report, and ends as the crawl did (the CLI's cancel, 143).
  const replay = await coroscope(['replay', file]);
  assert.equal(replay.stdout, r.stdout, replay.stderr);
  assert.equal(replay.status, 143, replay.stderr);
  assert.match(
    replay.stderr,
    /coroscope crawl: interrupted: the crawl was cancelled by the CLI; report of what was done:/,
  );
  assert.doesNotMatch(replay.stderr, /unknown/);
});

test("--deadline cuts the whole crawl: its cancels are the crawl deadline's, the report lists every URL (exit 124), and a recording of it replays to the same report", {
  timeout: 60_000,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-deadline-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'deadline.corotrace');
  const { r, site } = await interruptedCrawl(t, 10, 3, ['--deadline', '1.5', '--record', file], null);
  assert.equal(r.status, 124, r.stderr);
  assertEveryUrlReported(r, site, 10, 3);
  assert.match(
    r.stderr,
    /coroscope crawl: cut at its deadline \(1\.5 s\): cancelled by the crawl deadline; report of what was done:/,
  );
  assert.doesNotMatch(r.stdout + r.stderr, /unknown/);
  const replay = await coroscope(['replay', file]);
  assert.equal(replay.status, 124, replay.stderr);
  assert.equal(replay.stdout, r.stdout, 'the replay prints the same report');
  // In the replay, a tick just after the deadline's cancel (before the tasks are gone): the dump says who asked.
  const ticks = Number(/Recorded (\d+) ticks/.exec(r.stderr)?.[1]);
  assert.ok(ticks > 5, r.stderr);
  let said = '';
  for (let tick = ticks - 1; tick > ticks - 6 && said === ''; tick--) {
    const dump = await coroscope(['replay', file, '--dump-tasks-at-tick', String(tick)]);
    assert.equal(dump.status, 0, dump.stderr);
    said = /crawl \[[^\]]*cancel requested by the crawl deadline\]/.exec(dump.stdout)?.[0] ?? '';
  }
  assert.notEqual(said, '', 'a replayed tick shows the crawl task with its cancel requested by the crawl deadline');
});

test('--deadline is refused outside its bounds and on the teaching stages', async () => {
  const big = await coroscope(['crawl', 'http://127.0.0.1:9/', '--deadline', '1e9']);
  assert.equal(big.status, 2);
  assert.match(big.stderr, /--deadline/);
  const stage = await coroscope(['crawl', 'http://127.0.0.1:9/', '--stage', 'callbacks', '--deadline', '5']);
  assert.equal(stage.status, 2);
  assert.match(stage.stderr, /--deadline applies to --stage coroutines only/);
});
