// A recorded crawl of a site this project did not write replays offline, with the site gone,
// to the identical report: `coroscope crawl URL --record x.corotrace`, the server stopped,
// then `coroscope replay x.corotrace`. Two servers on loopback:
// - Node's own node:http server, answering as a hand-written app does: pages in chunks
//   written apart, 301/302 redirects with a chunked body and no Content-Length, and pages and
//   a redirect on `Connection: close` with neither Content-Length nor chunks (the body ends
//   when the connection does);
// - nginx (Debian's nginx-light, bench/sites/nginx-site.ts: keep-alive, gzip) serving the
//   Python 3.11 documentation; skipped, saying so, only where nginx is not installed.
// Nothing of the report is left out of the comparison: the replay gives the program the
// recorded clock, so even its timing figures (secs, urls/sec) are the recorded ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NGINX_BINARY, PYTHON_DOCS, startNginxSite } from '../../../bench/sites/nginx-site';
import { skipUnlessInstalled } from '../../real-servers';

const root = join(__dirname, '..', '..', '..');
const cli = join(root, 'bin', 'coroscope.js');
const dir = mkdtempSync(join(tmpdir(), 'coroscope-real-sites-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** The CLI in a child process, without blocking this one (its servers answer meanwhile). */
function coroscope(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Records a crawl of `url`, runs `stop` (the site goes), replays: both reports, and the recording's figures. */
async function recordThenReplay(
  name: string,
  url: string,
  stop: () => Promise<void>,
  options: string[] = [],
): Promise<{ recorded: string; replayed: string; steps: number; bytes: number }> {
  const file = join(dir, `${name}.corotrace`);
  let rec: Awaited<ReturnType<typeof coroscope>>;
  try {
    rec = await coroscope(['crawl', url, '--quiet', '--record', file, ...options]);
  } finally {
    await stop();
  }
  assert.equal(rec.status, 0, rec.stderr);
  const figures = /Recorded \d+ ticks, (\d+) task steps, \d+ sockets to .* \((\d+) bytes/.exec(rec.stderr);
  assert.ok(figures, rec.stderr);
  const rep = await coroscope(['replay', file]);
  assert.equal(rep.status, 0, rep.stderr);
  assert.equal(rep.stderr, '');
  return { recorded: rec.stdout, replayed: rep.stdout, steps: Number(figures[1]), bytes: Number(figures[2]) };
}

const PAGES = 40;

function pageHtml(i: number): string {
  const links = [1, 3, 7].map((k) => `<a href="/p/${(i * k + 1) % PAGES}">p</a> <a href="/r/${(i + k) % PAGES}">r</a>`);
  return `<!doctype html><html><head><title>page ${i}</title></head><body><h1>Page ${i}</h1>${links.join(' ')} <a href="/c/${(i + 5) % PAGES}">c</a> <a href="/rc/${(i + 2) % PAGES}">rc</a> <a href="/gone">x</a></body></html>`;
}

/** What a hand-written node:http app answers: no Content-Length anywhere. */
function answer(req: IncomingMessage, res: ServerResponse): void {
  const m = /^\/(p|r|c|rc)\/(\d+)$/.exec(req.url ?? '');
  if (req.url === '/') {
    res.writeHead(302, { Location: '/p/0', 'Content-Type': 'text/plain' });
    res.end('moved');
    return;
  }
  if (m === null || Number(m[2]) >= PAGES) {
    res.writeHead(404, { 'Content-Type': 'text/html' });
    res.end('<p>not here</p>');
    return;
  }
  const [, route, n] = m;
  if (route === 'r') {
    res.writeHead(301, { Location: `/p/${n}` });
    res.write('see ');
    res.end(`/p/${n}`);
  } else if (route === 'c' || route === 'rc') {
    // Neither a length nor chunks: the body ends with the connection.
    res.useChunkedEncodingByDefault = false;
    if (route === 'rc') res.writeHead(302, { Location: `/p/${n}`, Connection: 'close' });
    else res.writeHead(200, { 'Content-Type': 'text/html', Connection: 'close' });
    res.end(route === 'rc' ? 'moved' : pageHtml(Number(n)));
  } else {
    const body = pageHtml(Number(n));
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.write(body.slice(0, 50));
    setTimeout(() => res.end(body.slice(50)), 2);
  }
}

test('node:http (chunked pages, redirects without Content-Length, bodies ended by the connection): a recorded crawl replays with the server gone to the identical report', async () => {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const stop = (): Promise<void> => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  const r = await recordThenReplay('node-http', url, stop);
  // The crawl went through every kind of answer.
  assert.match(r.recorded, new RegExp(`${url} redirect -> ${url}p/0`));
  assert.match(r.recorded, /\/r\/\d+ redirect -> http/);
  assert.match(r.recorded, /\/rc\/\d+ redirect -> http/);
  assert.match(r.recorded, /\/c\/\d+ 200 text\/html \d+/);
  assert.match(r.recorded, /\/gone 404/);
  assert.match(r.recorded, new RegExp(`Done: ${PAGES * 4 + 2}\\b`));
  assert.equal(r.replayed, r.recorded);
});

test('nginx serving the Python documentation: a recorded crawl replays with nginx stopped to the identical report', {
  skip: skipUnlessInstalled(
    existsSync(NGINX_BINARY),
    `nginx is not installed (${NGINX_BINARY}): apt-get install nginx-light`,
  ),
}, async () => {
  assert.ok(
    existsSync(join(PYTHON_DOCS, 'index.html')),
    `the Python documentation is not installed (${PYTHON_DOCS}): apt-get install python3.11-doc`,
  );
  const site = await startNginxSite(PYTHON_DOCS);
  const r = await recordThenReplay('nginx', site.url, () => site.close(), ['--max-tasks', '50']);
  const done = /Done: (\d+)/.exec(r.recorded);
  assert.ok(done !== null && Number(done[1]) > 400, `the crawl fetched the documentation (${done?.[1]} URLs)`);
  assert.match(r.recorded, /library\/asyncio\.html 200 text\/html/);
  assert.equal(r.replayed, r.recorded);
});
