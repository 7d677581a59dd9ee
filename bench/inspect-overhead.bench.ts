// Measures what inspection costs, side by side in one run (not a test: run it with
// `node --import tsx bench/inspect-overhead.bench.ts [pages] [rounds]`). The demo
// site runs in a child process, so the crawl rates are the crawler's alone:
// - crawl rate of the demo site (maxTasks 100) with inspection off, with coroutine tracking
//   on, with tracking and a TaskRecorder, and with the debugger left enabled (what the
//   inspector avoids by enabling it only to learn script URLs), rounds interleaved;
// - µs per frame read mid-crawl, location only and with locals, and the pstree dump;
// - ms for a summary snapshot of 10k suspended tasks.
// Prints one line per number and the ratios to "off".
import { spawn } from 'node:child_process';
import { Session } from 'node:inspector';
import { createInterface } from 'node:readline';
import {
  EventLoop,
  VirtualClock,
  Event,
  coroutine,
  setCoroutineTracking,
  type Coroutine,
  type Task,
} from '../runtime/index';
import { startDemoSite } from '../runtime/demo-site/index';
import { Crawler } from '../runtime/crawler/crawler';
import { TaskRecorder, formatPsTree, framesOfTasks, generatorReader, snapshotTasks } from '../runtime/inspect/index';

type Mode = 'off' | 'tracking' | 'tracking+recorder' | 'debugger enabled';

const pages = Number(process.argv[2] === '--serve' ? 0 : (process.argv[2] ?? 2000));
const rounds = Number(process.argv[3] ?? 3);

/**
 * CPU time of this process per page crawled, µs, per mode and round (less sensitive to other processes than
 * wall time).
 */
const cpuPerPage = new Map<Mode, number[]>([
  ['off', []],
  ['tracking', []],
  ['tracking+recorder', []],
  ['debugger enabled', []],
]);

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function crawlRate(url: string, mode: Mode): Promise<number> {
  setCoroutineTracking(mode === 'tracking' || mode === 'tracking+recorder');
  let debuggerSession: Session | null = null;
  if (mode === 'debugger enabled') {
    debuggerSession = new Session();
    debuggerSession.connect();
    debuggerSession.post('Debugger.enable');
  }
  const loop = new EventLoop();
  const recorder = mode === 'tracking+recorder' ? TaskRecorder.attach(loop) : null;
  const crawler = new Crawler([url], { maxTasks: 100 });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await loop.runUntilComplete(crawler.crawl());
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  cpuPerPage.get(mode)!.push((cpu.user + cpu.system) / crawler.done.length);
  recorder?.detach();
  loop.close();
  debuggerSession?.disconnect();
  setCoroutineTracking(false);
  return crawler.done.length / seconds;
}

async function framesMidCrawl(url: string): Promise<void> {
  setCoroutineTracking(true);
  const loop = new EventLoop();
  const recorder = TaskRecorder.attach(loop);
  const crawler = new Crawler([url], { maxTasks: 100 });
  const crawlTask = loop.createTask(crawler.crawl(), { name: 'crawl' });
  for (let i = 0; i < 1_000_000 && crawler.done.length < 300; i++) await loop.runOnce();
  const tasks = loop.allTasks();
  framesOfTasks(tasks); // warm up: script scan, source maps
  const reader = generatorReader();
  const time = (f: () => number): { ms: number; frames: number } => {
    const t0 = performance.now();
    const frames = f();
    return { ms: performance.now() - t0, frames };
  };
  const count = (m: Map<Task<unknown>, unknown[]>): number => [...m.values()].reduce((n, f) => n + f.length, 0);
  const loc = time(() => count(framesOfTasks(tasks)));
  const group = reader.newHandleGroup();
  const withLocals = time(() =>
    count(framesOfTasks(tasks, { locals: true, handles: { table: reader.handles, group } })),
  );
  reader.releaseHandles(group);
  const perTask: number[] = [];
  for (const t of tasks.filter((x) => (x._frames?.length ?? 0) > 3).slice(0, 30)) {
    const g = reader.newHandleGroup();
    const t0 = performance.now();
    framesOfTasks([t], { locals: true, handles: { table: reader.handles, group: g } });
    perTask.push(performance.now() - t0);
    reader.releaseHandles(g);
  }
  const tree = time(() => formatPsTree(loop, { recorder }).split('\n').length);
  console.log(
    `frames mid-crawl (${tasks.length} tasks, ${loc.frames} frames): location only ${((loc.ms * 1000) / loc.frames).toFixed(0)} µs/frame, with locals ${((withLocals.ms * 1000) / withLocals.frames).toFixed(0)} µs/frame`,
  );
  console.log(
    `frames with locals of one busy worker: median ${median(perTask).toFixed(2)} ms over ${perTask.length} workers`,
  );
  console.log(`pstree of ${tasks.length} tasks: ${tree.ms.toFixed(0)} ms, ${tree.frames} lines`);
  await loop.runUntilComplete(crawlTask);
  recorder.detach();
  loop.close();
  setCoroutineTracking(false);
}

async function snapshot10k(): Promise<void> {
  setCoroutineTracking(true);
  const loop = new EventLoop({ clock: new VirtualClock() });
  const ev = new Event();
  const parked = coroutine(function* parked(): Coroutine<void> {
    yield* ev.wait();
  });
  for (let i = 0; i < 10_000; i++) loop.createTask(parked(), { name: `t${i}` });
  await loop.runOnce();
  const times: number[] = [];
  for (let i = 0; i < 11; i++) {
    const t0 = performance.now();
    snapshotTasks(loop);
    times.push(performance.now() - t0);
  }
  console.log(
    `summary snapshot of 10k suspended tasks: median ${median(times).toFixed(1)} ms, best ${Math.min(...times).toFixed(1)} ms`,
  );
  ev.set();
  await loop.runOnce();
  loop.close();
  setCoroutineTracking(false);
}

/** Child mode: serve the demo site, print its URL, stop when stdin closes. */
async function serve(): Promise<void> {
  const site = await startDemoSite({ pages: Number(process.argv[3] ?? 2000) });
  process.stdout.write(`${site.url}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void site.close());
}

/** Starts the site in a child process; resolves with its URL and a stop function. */
function startSiteProcess(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [...process.execArgv, __filename, '--serve', String(pages)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    createInterface({ input: child.stdout }).once('line', (url) => resolve({ url, stop: () => child.stdin.end() }));
  });
}

async function main(): Promise<void> {
  const site = await startSiteProcess();
  try {
    const modes: Mode[] = ['off', 'tracking', 'tracking+recorder', 'debugger enabled'];
    const rates = new Map<Mode, number[]>(modes.map((m) => [m, []]));
    for (const m of modes) await crawlRate(site.url, m); // warm up (JIT, sockets)
    for (const m of modes) cpuPerPage.get(m)!.length = 0;
    for (let r = 0; r < rounds; r++) for (const m of modes) rates.get(m)!.push(await crawlRate(site.url, m));
    const off = median(rates.get('off')!);
    for (const m of modes) {
      const rs = rates.get(m)!;
      // Rounds run back to back share the machine's load: the per-round ratio is the fairer number.
      const paired = rs.map((x, i) => x / rates.get('off')![i]!);
      console.log(
        `crawl rate ${m}: median ${median(rs).toFixed(0)} pages/s (${rs.map((x) => x.toFixed(0)).join(', ')}), ${(median(rs) / off).toFixed(2)}× off; per-round ratio median ${median(paired).toFixed(2)}×`,
      );
      const cpu = cpuPerPage.get(m)!;
      console.log(
        `  crawler CPU per page ${m}: median ${median(cpu).toFixed(0)} µs (${(median(cpuPerPage.get('off')!) / median(cpu)).toFixed(2)}× off's rate at equal CPU)`,
      );
    }
    await framesMidCrawl(site.url);
    await snapshot10k();
  } finally {
    site.stop();
  }
}

void (process.argv[2] === '--serve' ? serve() : main());
