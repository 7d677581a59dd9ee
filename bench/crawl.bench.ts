// Crawl benchmark: the same loopback site crawled, in one run, by Coroscope's crawler and by
// peers written the ordinary way: an async/await crawler on undici and htmlparser2 (same
// algorithm), and the chapter's algorithm on Python asyncio with aiohttp when the machine
// has it (/usr/bin/python3 with python3-aiohttp). Prints each rate and the ratios.
//
// The site (bench/sites/link-farm-site.ts: 2,000 pages, 10 links each, a third through 301
// redirects, some 404s) runs in a child process so it has a core of its own and neither
// crawler shares its loop with the server. Rounds alternate between the crawlers; the
// median rate of each is reported. Every crawl is checked against the site's expected
// counts, so a fast but incomplete crawl cannot win.
//
// Run: npm run bench:crawl [-- --pages N --rounds R --max-tasks T --inspect]

import { fork, spawnSync, spawn, type ChildProcess } from 'node:child_process';
import { EventLoop } from '../runtime/loop';
import { setCoroutineTracking } from '../runtime/coroutine';
import { Crawler } from '../runtime/crawler/crawler';
import { startLinkFarm } from './sites/link-farm-site';
import { crawlWithUndici } from './peers/undici-crawler';

interface Args {
  pages: number;
  rounds: number;
  maxTasks: number;
  inspect: boolean;
  python: boolean;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { pages: 2000, rounds: 3, maxTasks: 100, inspect: false, python: true, json: false };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    if (v === '--pages') a.pages = Number(argv[++i]);
    else if (v === '--rounds') a.rounds = Number(argv[++i]);
    else if (v === '--max-tasks') a.maxTasks = Number(argv[++i]);
    else if (v === '--inspect') a.inspect = true;
    else if (v === '--no-python') a.python = false;
    else if (v === '--json') a.json = true;
  }
  return a;
}

interface Expected {
  ok200: number;
  redirects301: number;
  notFound404: number;
  total: number;
}

interface SiteHandle {
  url: string;
  expected: Expected;
  child: ChildProcess;
}

/** In the child: serve the link farm and report its URL and expectations. */
async function serveSite(pages: number): Promise<void> {
  const farm = await startLinkFarm({ pages });
  const e = farm.expected;
  process.send?.({ url: farm.url, expected: { ok200: e.ok200, redirects301: e.redirects301, notFound404: e.notFound404, total: e.urls.size } });
  process.on('disconnect', () => {
    void farm.close().then(() => process.exit(0));
  });
}

function startSiteProcess(pages: number): Promise<SiteHandle> {
  const child = fork(process.argv[1]!, ['--serve-site', String(pages)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: process.execArgv });
  return new Promise((resolve, reject) => {
    child.once('message', (m: unknown) => {
      const msg = m as { url: string; expected: Expected };
      resolve({ url: msg.url, expected: msg.expected, child });
    });
    child.once('exit', (code) => reject(new Error(`the site process exited with ${code}`)));
  });
}

interface CrawlRun {
  seconds: number;
  rate: number;
  byStatus: Record<string, number>;
  /** Client CPU per URL (µs), for the in-process crawlers: steadier than rates on a busy machine. */
  cpuPerUrlUs?: number;
}

/** Runs an in-process crawl and adds its CPU cost per URL. */
async function withCpu(crawl: () => Promise<CrawlRun>): Promise<CrawlRun> {
  const c0 = process.cpuUsage();
  const run = await crawl();
  const c = process.cpuUsage(c0);
  const urls = Object.values(run.byStatus).reduce((a, b) => a + b, 0);
  return { ...run, cpuPerUrlUs: (c.user + c.system) / Math.max(1, urls) };
}

async function crawlCoroscope(url: string, maxTasks: number, inspect: boolean): Promise<CrawlRun> {
  setCoroutineTracking(inspect);
  const loop = new EventLoop();
  const crawler = new Crawler([url], { maxTasks, robots: false });
  const t0 = performance.now();
  await loop.runUntilComplete(crawler.crawl());
  const seconds = (performance.now() - t0) / 1000;
  loop.close();
  setCoroutineTracking(false);
  const byStatus: Record<string, number> = {};
  for (const s of crawler.done) {
    const k = s.status === null ? 'error' : String(s.status);
    byStatus[k] = (byStatus[k] ?? 0) + 1;
  }
  return { seconds, rate: crawler.done.length / seconds, byStatus };
}

async function crawlUndici(url: string, maxTasks: number): Promise<CrawlRun> {
  const r = await crawlWithUndici([url], { maxTasks });
  return { seconds: r.seconds, rate: r.rate, byStatus: r.byStatus };
}

function pythonHasAiohttp(): boolean {
  const r = spawnSync('/usr/bin/python3', ['-c', 'import aiohttp'], { stdio: 'ignore' });
  return r.status === 0;
}

function crawlPython(url: string, maxTasks: number): Promise<CrawlRun> {
  return new Promise((resolve, reject) => {
    const p = spawn('/usr/bin/python3', ['bench/peers/aiohttp_crawler.py', url, '--max-tasks', String(maxTasks)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`aiohttp crawler exited with ${code}`));
      try {
        const j = JSON.parse(out.trim().split('\n').pop()!) as { seconds: number; rate: number; by_status: Record<string, number> };
        resolve({ seconds: j.seconds, rate: j.rate, byStatus: j.by_status });
      } catch (e) {
        reject(e);
      }
    });
  });
}

function check(name: string, run: CrawlRun, expected: Expected): void {
  const ok = (run.byStatus['200'] ?? 0) === expected.ok200 && (run.byStatus['301'] ?? 0) === expected.redirects301 && (run.byStatus['404'] ?? 0) === expected.notFound404;
  if (!ok) throw new Error(`${name} crawled incompletely: ${JSON.stringify(run.byStatus)} expected 200:${expected.ok200} 301:${expected.redirects301} 404:${expected.notFound404}`);
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const serveIdx = process.argv.indexOf('--serve-site');
  if (serveIdx >= 0) {
    await serveSite(Number(process.argv[serveIdx + 1]));
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  const site = await startSiteProcess(args.pages);
  const withPython = args.python && pythonHasAiohttp();
  const rates: Record<string, number[]> = { coroscope: [], undici: [] };
  const cpu: Record<string, number[]> = { coroscope: [], undici: [] };
  if (args.inspect) rates['coroscope --inspect'] = [];
  if (withPython) rates['aiohttp (Python asyncio)'] = [];
  try {
    // Warm-up (JIT, site caches), not counted.
    await crawlCoroscope(site.url, args.maxTasks, false);
    await crawlUndici(site.url, args.maxTasks);
    for (let r = 0; r < args.rounds; r++) {
      const ours = await withCpu(() => crawlCoroscope(site.url, args.maxTasks, false));
      check('coroscope', ours, site.expected);
      rates.coroscope!.push(ours.rate);
      cpu.coroscope!.push(ours.cpuPerUrlUs!);
      const peer = await withCpu(() => crawlUndici(site.url, args.maxTasks));
      check('undici', peer, site.expected);
      rates.undici!.push(peer.rate);
      cpu.undici!.push(peer.cpuPerUrlUs!);
      if (args.inspect) {
        const inspected = await crawlCoroscope(site.url, args.maxTasks, true);
        check('coroscope --inspect', inspected, site.expected);
        rates['coroscope --inspect']!.push(inspected.rate);
      }
      if (withPython) {
        const py = await crawlPython(site.url, args.maxTasks);
        check('aiohttp', py, site.expected);
        rates['aiohttp (Python asyncio)']!.push(py.rate);
      }
    }
  } finally {
    site.child.disconnect();
  }
  const med = Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, median(v)]));
  if (args.json) {
    console.log(JSON.stringify({ pages: site.expected.total, maxTasks: args.maxTasks, rounds: args.rounds, medians: med, rates, cpuPerUrlUs: { coroscope: median(cpu.coroscope!), undici: median(cpu.undici!) } }));
    return;
  }
  console.log(`Crawl of a ${args.pages}-page loopback link farm (${site.expected.total} URLs: ${site.expected.ok200} x 200, ${site.expected.redirects301} x 301, ${site.expected.notFound404} x 404), ${args.maxTasks} tasks, median of ${args.rounds} rounds`);
  for (const [name, v] of Object.entries(rates)) {
    console.log(`  ${name.padEnd(26)} ${med[name]!.toFixed(0).padStart(7)} urls/s   (rounds: ${v.map((x) => x.toFixed(0)).join(', ')})`);
  }
  console.log(`  ratio coroscope / undici:   ${(med.coroscope! / med.undici!).toFixed(2)}`);
  const cpuOurs = median(cpu.coroscope!);
  const cpuPeer = median(cpu.undici!);
  console.log(`  client CPU per URL:         coroscope ${cpuOurs.toFixed(0)} µs, undici ${cpuPeer.toFixed(0)} µs (undici / coroscope ${(cpuPeer / cpuOurs).toFixed(2)})`);
  if (withPython) console.log(`  ratio coroscope / aiohttp:  ${(med.coroscope! / med['aiohttp (Python asyncio)']!).toFixed(2)}`);
  else if (!args.python) console.log('  (aiohttp peer not run: --no-python)');
  else console.log('  (aiohttp peer skipped: /usr/bin/python3 has no aiohttp; apt-get install python3-aiohttp)');
  if (args.inspect) console.log(`  inspection on / off:       ${(med['coroscope --inspect']! / med.coroscope!).toFixed(2)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
