// Crawl benchmark: the same loopback sites crawled, in one run, by Coroscope's crawler and by
// peers written the ordinary way: an async/await crawler on undici and htmlparser2 (same
// algorithm), and the chapter's algorithm on Python asyncio with aiohttp when the machine
// has it (/usr/bin/python3 with python3-aiohttp). Prints each rate, the ratios, and the TCP
// connections each crawler opened (counted by the server).
//
// The sites:
// - farm:  the link farm (bench/sites/link-farm-site.ts: 2,000 pages, 10 links each, a third
//          through 301 redirects, some 404s), prepared responses with Content-Length.
// - node:  the same farm answered as a hand-written node:http app does: everything chunked,
//          redirects with an empty chunked body, pages of 10-100 KB, gzip.
// - nginx: Debian's nginx-light serving the Python 3.11 documentation (python3.11-doc),
//          keep-alive and gzip, 50 tasks (bench/sites/nginx-site.ts); skipped when either is
//          not installed.
// The farm sites run in a child process and nginx is its own, so the server has a core of its
// own and no crawler shares its loop with it. Rounds alternate between the crawlers; the
// median rate of each is reported with the spread. Every farm crawl is checked against the
// site's expected counts, so a fast but incomplete crawl cannot win; on nginx every crawler
// must fetch as many URLs as Coroscope's warm-up crawl did.
//
// With --record, each round also crawls with recording on (runtime/record; writing the file
// after it is timed apart); then, with the site stopped, the last recording is replayed: the ratio on / off
// (of the medians, and the median of each round's ratio) and the CPU per URL on and off,
// the file's bytes per task step and the replay times are printed (bench/recorded-crawl.ts).
// With --record and --inspect, each round also crawls inspected and recorded with frame
// chains (each suspension's chain, the calls written before marked: format 3), given against
// inspected unrecorded and against plain in the same run: the recorder's frame marking cost.
//
// Run: npm run bench:crawl [-- --sites farm,node,nginx --pages N --rounds R --max-tasks T
//      --inspect --record --no-python --json]

import { fork, spawnSync, spawn, type ChildProcess } from 'node:child_process';
import { EventLoop } from '../runtime/loop';
import { setCoroutineTracking } from '../runtime/coroutine';
import { Crawler } from '../runtime/crawler/crawler';
import { startLinkFarm, type LinkFarmStyle } from './sites/link-farm-site';
import { nginxAvailable, startNginxSite } from './sites/nginx-site';
import { crawlWithUndici } from './peers/undici-crawler';
import { crawlRecorded, replayTimes, type RecordedCrawlRun } from './recorded-crawl';

type SiteName = 'farm' | 'node' | 'nginx';
const ALL_SITES: SiteName[] = ['farm', 'node', 'nginx'];

interface Args {
  sites: SiteName[];
  pages: number;
  rounds: number;
  /** Tasks for every site, when given; else 100 on the farms and 50 on nginx. */
  maxTasks: number | null;
  inspect: boolean;
  record: boolean;
  python: boolean;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = {
    sites: ALL_SITES,
    pages: 2000,
    rounds: 5,
    maxTasks: null,
    inspect: false,
    record: false,
    python: true,
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    if (v === '--pages') a.pages = Number(argv[++i]);
    else if (v === '--rounds') a.rounds = Number(argv[++i]);
    else if (v === '--max-tasks') a.maxTasks = Number(argv[++i]);
    else if (v === '--sites') {
      const names = (argv[++i] ?? '').split(',');
      for (const n of names)
        if (!ALL_SITES.includes(n as SiteName)) throw new Error(`--sites: ${ALL_SITES.join(', ')}; not ${n}`);
      a.sites = names as SiteName[];
    } else if (v === '--inspect') a.inspect = true;
    else if (v === '--record') a.record = true;
    else if (v === '--no-python') a.python = false;
    else if (v === '--json') a.json = true;
    else throw new Error(`unknown option ${v}`);
  }
  return a;
}

interface Expected {
  ok200: number;
  redirects301: number;
  notFound404: number;
  total: number;
}

/** A site being crawled: where to start, what a full crawl fetches, and its connection count. */
interface BenchSite {
  name: SiteName;
  title: string;
  url: string;
  maxTasks: number;
  /** The farm's prediction; null for nginx (checked against the first crawl instead). */
  expected: Expected | null;
  /** A mark to count connections from. */
  mark(): Promise<number>;
  /** TCP connections the server accepted since `mark`. */
  connectionsSince(mark: number): Promise<number>;
  close(): Promise<void>;
}

/** In the child: serve the link farm, report its URL and expectations, answer connection counts. */
async function serveFarm(pages: number, style: LinkFarmStyle): Promise<void> {
  const farm = await startLinkFarm({ pages, style });
  const e = farm.expected;
  process.send?.({
    url: farm.url,
    expected: { ok200: e.ok200, redirects301: e.redirects301, notFound404: e.notFound404, total: e.urls.size },
  });
  process.on('message', () => process.send?.({ connections: farm.connections() }));
  process.on('disconnect', () => {
    void farm.close().then(() => process.exit(0));
  });
}

function askConnections(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m: unknown) => resolve((m as { connections: number }).connections));
    child.send('connections?');
  });
}

async function startFarmProcess(
  name: SiteName,
  style: LinkFarmStyle,
  pages: number,
  maxTasks: number,
): Promise<BenchSite> {
  const child = fork(process.argv[1]!, ['--serve-farm', String(pages), style], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: process.execArgv,
  });
  const first = await new Promise<{ url: string; expected: Expected }>((resolve, reject) => {
    child.once('message', (m: unknown) => resolve(m as { url: string; expected: Expected }));
    child.once('exit', (code) => reject(new Error(`the site process exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  const e = first.expected;
  const title =
    style === 'prepared'
      ? `${pages}-page link farm, Content-Length responses (${e.total} URLs: ${e.ok200} x 200, ${e.redirects301} x 301, ${e.notFound404} x 404)`
      : `${pages}-page link farm as a node:http app: chunked, empty chunked 301s, 10-100 KB gzip pages (${e.total} URLs)`;
  return {
    name,
    title,
    url: first.url,
    maxTasks,
    expected: e,
    mark: () => askConnections(child),
    connectionsSince: async (mark) => (await askConnections(child)) - mark,
    close: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.disconnect();
      await exited;
    },
  };
}

async function startNginx(maxTasks: number): Promise<BenchSite> {
  const site = await startNginxSite();
  return {
    name: 'nginx',
    title: 'nginx-light serving the Python 3.11 documentation (python3.11-doc), keep-alive, gzip',
    url: site.url,
    maxTasks,
    expected: null,
    mark: () => Promise.resolve(site.logMark()),
    connectionsSince: async (mark) => {
      await new Promise((r) => setTimeout(r, 300)); // the access log is flushed every 100 ms
      return site.connectionsSince(mark).connections;
    },
    close: () => site.close(),
  };
}

interface CrawlRun {
  seconds: number;
  rate: number;
  byStatus: Record<string, number>;
  /** Client CPU per URL (µs), for the in-process crawlers: steadier than rates on a busy machine. */
  cpuPerUrlUs?: number;
  connections?: number;
}

function fetchedCount(run: CrawlRun): number {
  return Object.values(run.byStatus).reduce((a, b) => a + b, 0);
}

/** Runs an in-process crawl and adds its CPU cost per URL (unless the crawl measured its own). */
async function withCpu(crawl: () => Promise<CrawlRun>): Promise<CrawlRun> {
  const c0 = process.cpuUsage();
  const run = await crawl();
  const c = process.cpuUsage(c0);
  return { ...run, cpuPerUrlUs: run.cpuPerUrlUs ?? (c.user + c.system) / Math.max(1, fetchedCount(run)) };
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
    const p = spawn('/usr/bin/python3', ['bench/peers/aiohttp_crawler.py', url, '--max-tasks', String(maxTasks)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`aiohttp crawler exited with ${code}`));
      try {
        const j = JSON.parse(out.trim().split('\n').pop()!) as {
          seconds: number;
          rate: number;
          by_status: Record<string, number>;
        };
        resolve({ seconds: j.seconds, rate: j.rate, byStatus: j.by_status });
      } catch (e) {
        reject(e);
      }
    });
  });
}

/** Throws unless the crawl did the whole work: the farm's prediction, or as many URLs as the reference crawl. */
function check(name: string, run: CrawlRun, site: BenchSite, reference: CrawlRun): void {
  const e = site.expected;
  if (e !== null) {
    const ok =
      (run.byStatus['200'] ?? 0) === e.ok200 &&
      (run.byStatus['301'] ?? 0) === e.redirects301 &&
      (run.byStatus['404'] ?? 0) === e.notFound404;
    if (!ok)
      throw new Error(
        `${name} crawled ${site.name} incompletely: ${JSON.stringify(run.byStatus)} expected 200:${e.ok200} 301:${e.redirects301} 404:${e.notFound404}`,
      );
  } else if (fetchedCount(run) !== fetchedCount(reference)) {
    throw new Error(
      `${name} fetched ${fetchedCount(run)} URLs from ${site.name} (${JSON.stringify(run.byStatus)}); coroscope's reference crawl fetched ${fetchedCount(reference)} (${JSON.stringify(reference.byStatus)})`,
    );
  }
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const COROSCOPE = 'coroscope';
const UNDICI = 'undici';
const AIOHTTP = 'aiohttp (Python asyncio)';
const INSPECTED = 'coroscope --inspect';
const RECORDED = 'coroscope --record';
const RECORDED_FRAMES = 'coroscope --inspect --record';

interface SiteResult {
  site: string;
  title: string;
  maxTasks: number;
  urls: number;
  rates: Record<string, number[]>;
  connections: Record<string, number[]>;
  cpuPerUrlUs: Record<string, number[]>;
  /** The last recorded crawl (--record), replayed once the site is stopped. */
  recorded?: RecordedCrawlRun;
}

async function benchSite(site: BenchSite, args: Args, withPython: boolean): Promise<SiteResult> {
  const crawlers: Array<[string, () => Promise<CrawlRun>]> = [
    [COROSCOPE, () => withCpu(() => crawlCoroscope(site.url, site.maxTasks, false))],
    [UNDICI, () => withCpu(() => crawlUndici(site.url, site.maxTasks))],
  ];
  if (args.inspect) crawlers.push([INSPECTED, () => withCpu(() => crawlCoroscope(site.url, site.maxTasks, true))]);
  if (args.inspect && args.record)
    crawlers.push([RECORDED_FRAMES, () => withCpu(() => crawlRecorded(site.url, site.maxTasks, true))]);
  if (args.record) {
    crawlers.push([
      RECORDED,
      () =>
        withCpu(async () => {
          const run = await crawlRecorded(site.url, site.maxTasks);
          result.recorded = run;
          return run;
        }),
    ]);
  }
  if (withPython) crawlers.push([AIOHTTP, () => crawlPython(site.url, site.maxTasks)]);
  const result: SiteResult = {
    site: site.name,
    title: site.title,
    maxTasks: site.maxTasks,
    urls: 0,
    rates: {},
    connections: {},
    cpuPerUrlUs: {},
  };
  for (const [name] of crawlers) {
    result.rates[name] = [];
    result.connections[name] = [];
  }
  // Warm-up (JIT, server caches), not counted; Coroscope's is the reference on nginx.
  const reference = await crawlCoroscope(site.url, site.maxTasks, false);
  check(COROSCOPE, reference, site, reference);
  result.urls = fetchedCount(reference);
  await crawlUndici(site.url, site.maxTasks);
  for (let r = 0; r < args.rounds; r++) {
    for (const [name, crawl] of crawlers) {
      const mark = await site.mark();
      const run = await crawl();
      check(name, run, site, reference);
      result.rates[name]!.push(run.rate);
      result.connections[name]!.push(await site.connectionsSince(mark));
      if (run.cpuPerUrlUs !== undefined) (result.cpuPerUrlUs[name] ??= []).push(run.cpuPerUrlUs);
    }
  }
  return result;
}

function printSite(r: SiteResult, args: Args, withPython: boolean): void {
  const med = (name: string): number => median(r.rates[name]!);
  console.log(`\n${r.title}: ${r.urls} URLs, ${r.maxTasks} tasks, median of ${args.rounds} rounds`);
  for (const name of Object.keys(r.rates)) {
    const v = r.rates[name]!;
    console.log(
      `  ${name.padEnd(26)} ${med(name).toFixed(0).padStart(7)} urls/s  (${Math.min(...v).toFixed(0)}-${Math.max(...v).toFixed(0)}; rounds: ${v.map((x) => x.toFixed(0)).join(', ')})  connections: ${median(r.connections[name]!)}`,
    );
  }
  const spread = (name: string): string => {
    const ratios = r.rates[COROSCOPE]!.map((x, i) => x / r.rates[name]![i]!);
    return `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
  };
  console.log(
    `  ratio coroscope / undici:   ${(med(COROSCOPE) / med(UNDICI)).toFixed(2)}  (per round ${spread(UNDICI)})`,
  );
  if (withPython)
    console.log(
      `  ratio coroscope / aiohttp:  ${(med(COROSCOPE) / med(AIOHTTP)).toFixed(2)}  (per round ${spread(AIOHTTP)})`,
    );
  const cpuOurs = median(r.cpuPerUrlUs[COROSCOPE]!);
  const cpuPeer = median(r.cpuPerUrlUs[UNDICI]!);
  console.log(
    `  client CPU per URL:         coroscope ${cpuOurs.toFixed(0)} µs, undici ${cpuPeer.toFixed(0)} µs (undici / coroscope ${(cpuPeer / cpuOurs).toFixed(2)})`,
  );
  if (args.inspect) console.log(`  inspection on / off:        ${(med(INSPECTED) / med(COROSCOPE)).toFixed(2)}`);
  if (r.rates[RECORDED_FRAMES] !== undefined) {
    const perRound = (peer: string): number[] => r.rates[RECORDED_FRAMES]!.map((x, i) => x / r.rates[peer]![i]!);
    const spread = (xs: number[]): string =>
      `median of the rounds' ratios ${median(xs).toFixed(2)}, per round ${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
    console.log(
      `  recording frames, inspected: on / off ${(med(RECORDED_FRAMES) / med(INSPECTED)).toFixed(2)} (${spread(perRound(INSPECTED))}); against plain ${(med(RECORDED_FRAMES) / med(COROSCOPE)).toFixed(2)} (${spread(perRound(COROSCOPE))})`,
    );
    const cpuFrames = median(r.cpuPerUrlUs[RECORDED_FRAMES]!);
    const cpuInspected = median(r.cpuPerUrlUs[INSPECTED]!);
    console.log(
      `  client CPU per URL:         inspected and recording frames ${cpuFrames.toFixed(0)} µs, inspected ${cpuInspected.toFixed(0)} µs (off / on ${(cpuInspected / cpuFrames).toFixed(2)})`,
    );
  }
  if (r.recorded !== undefined) {
    const rec = r.recorded;
    const perRound = r.rates[RECORDED]!.map((x, i) => x / r.rates[COROSCOPE]![i]!);
    console.log(
      `  recording on / off:         ${(med(RECORDED) / med(COROSCOPE)).toFixed(2)}  (median of the rounds' ratios ${median(perRound).toFixed(2)}, per round ${Math.min(...perRound).toFixed(2)}-${Math.max(...perRound).toFixed(2)})`,
    );
    const cpuRecorded = median(r.cpuPerUrlUs[RECORDED]!);
    const cpuRatios = r.cpuPerUrlUs[COROSCOPE]!.map((off, i) => off / r.cpuPerUrlUs[RECORDED]![i]!);
    console.log(
      `  client CPU per URL:         recording on ${cpuRecorded.toFixed(0)} µs, off ${cpuOurs.toFixed(0)} µs (off / on ${(cpuOurs / cpuRecorded).toFixed(2)}; median of the rounds' ratios ${median(cpuRatios).toFixed(2)}, per round ${Math.min(...cpuRatios).toFixed(2)}-${Math.max(...cpuRatios).toFixed(2)}: steadier than rates on a busy machine)`,
    );
    console.log(
      `  recording size:             ${rec.fileBytes} bytes for ${rec.steps} task steps, ${rec.ticks} ticks: ${(rec.fileBytes / rec.steps).toFixed(1)} bytes per step`,
    );
    console.log(
      `  writing the file:           ${(rec.writeSeconds * 1000).toFixed(0)} ms after the crawl (not in its rate; the extension writes a recording only when saved)`,
    );
  }
}

/** With the site stopped: the last recording replayed to the end, and to its middle tick for locals. */
async function printReplay(r: SiteResult, url: string): Promise<void> {
  if (r.recorded === undefined) return;
  const t = await replayTimes(r.recorded, url, r.maxTasks);
  console.log(`  replay, site stopped:       ${t.fullSeconds.toFixed(2)} s to the end (checked against the recording)`);
  console.log(
    `  locals at tick ${t.midTick} by replay: ${(t.toTickSeconds + t.oneTaskSeconds).toFixed(2)} s for one task's frames (replay ${t.toTickSeconds.toFixed(2)} s + read ${t.oneTaskSeconds.toFixed(2)} s); every task's ${t.frames} frames: ${t.allTasksSeconds.toFixed(2)} s more`,
  );
}

async function main(): Promise<void> {
  const serveIdx = process.argv.indexOf('--serve-farm');
  if (serveIdx >= 0) {
    await serveFarm(Number(process.argv[serveIdx + 1]), process.argv[serveIdx + 2] as LinkFarmStyle);
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  const withPython = args.python && pythonHasAiohttp();
  const results: SiteResult[] = [];
  for (const name of args.sites) {
    if (name === 'nginx' && !nginxAvailable()) {
      console.log('\n(nginx site skipped: apt-get install -y nginx-light python3.11-doc)');
      continue;
    }
    const site =
      name === 'nginx'
        ? await startNginx(args.maxTasks ?? 50)
        : await startFarmProcess(name, name === 'farm' ? 'prepared' : 'node-app', args.pages, args.maxTasks ?? 100);
    try {
      const r = await benchSite(site, args, withPython);
      results.push(r);
      if (!args.json) printSite(r, args, withPython);
    } finally {
      await site.close();
    }
    const last = results[results.length - 1];
    if (!args.json && last !== undefined && last.site === site.name) await printReplay(last, site.url);
  }
  if (args.json) {
    const medians = (rec: Record<string, number[]>): Record<string, number> =>
      Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, median(v)]));
    console.log(
      JSON.stringify({
        rounds: args.rounds,
        sites: results.map((r) => ({ ...r, medians: medians(r.rates), medianConnections: medians(r.connections) })),
      }),
    );
    return;
  }
  if (!withPython)
    console.log(
      args.python
        ? '\n(aiohttp peer skipped: /usr/bin/python3 has no aiohttp; apt-get install python3-aiohttp)'
        : '\n(aiohttp peer not run: --no-python)',
    );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
