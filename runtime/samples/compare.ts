// The measured comparison of the ways to fetch many pages, after the source article's table
// (10 pages over the internet: blocking 4.5 s, processes 0.6 s, threads 0.43 s, busy
// non-blocking 4.3 s, callbacks 0.45 s, asyncio 0.36 s), on the embedded demo site.
//
// Every approach fetches the same N pages from the same server: a copy of the demo site's
// pages served from a worker thread with `latencyMs` of latency per response (remote-site.ts
// says why the server must not share this thread). The latency is what makes the ordering
// come from concurrency rather than CPU: an approach with k fetches in flight needs about
// ceil(N / k) round trips.
//
// - blocking: one synchronous fetch after the other; the thread is blocked in each (k = 1).
// - processes / threads: pools of child processes / worker threads, each fetching one page
//   at a time (k = pool size). The pools are started before the clock starts, like an executor
//   that lives as long as the program; their start-up time is reported apart.
// - busy non-blocking: one fetch at a time on a non-blocking socket, retrying until ready (k = 1,
//   and the CPU spins the whole time).
// - callbacks (stage 1's loop), generators (stage 2's coroutines), runtime (ClientSession and
//   one Task per page): every page at once on one thread (k = N). All their work is on this
//   thread, so each first makes an untimed run of two fetches (its code gets compiled then).
//
// Pool sizes for this 2-core machine (both options): 2 processes per core, 4 threads per core.
// The fetches need no CPU, so cores do not bound a pool: what a thread or a process costs does.
// A Node process is a whole runtime (tens of MB, ~70 ms of CPU to start), a worker thread a
// whole V8 isolate (several MB, ~25 ms), and their start-ups compete for the same two cores as
// the fetching. A pool sized like a server would size it from its cores (4 processes, 8
// threads) is the honest picture of these approaches: their concurrency is capped by what each
// unit costs, while the loop's is capped only by sockets, which is the chapter's point.
//
// Memory per concurrent fetch: processes report their own PSS (RSS off Linux); threads, the
// growth of this process's RSS at its peak divided by the pool size; the loop approaches, in
// a second, untimed pass of max(N, 200) fetches at once, the growth of the live JavaScript
// heap (after a full collection) at the moment the server has received every request, divided
// by the number of fetches: what one suspended fetch (its task or callbacks, generator frames,
// futures, socket objects) keeps alive.

import { cpus } from 'node:os';
import { startDemoSite, type DemoSite } from '../demo-site/index';
import { run } from '../run';
import { BlockingFetcher } from './blocking-fetch';
import { busyFetchAll } from './busy-fetch';
import { fetchPagesWithCallbacks } from './callback-pages';
import type { FetchPool } from './fetch-pool';
import { fetchPagesWithGenerators } from './generator-pages';
import { formatBytes, liveHeapBytes } from './memory';
import { countOk, failureOf, resultOf, type Origin, type PageResult } from './page-fetch';
import { startProcessPool } from './process-pool';
import { startRemoteCopy, type RemoteSite } from './remote-site';
import { fetchPagesWithRuntime } from './runtime-pages';
import { listPagePaths } from './site-pages';
import { startThreadPool } from './thread-pool';

export type ApproachName = 'blocking' | 'processes' | 'threads' | 'busy-nonblocking' | 'callbacks' | 'generators' | 'runtime';

/** In the article's order. */
export const APPROACHES: readonly ApproachName[] = Object.freeze(['blocking', 'processes', 'threads', 'busy-nonblocking', 'callbacks', 'generators', 'runtime']);

/** The approaches whose fetches all wait on one event loop. */
export const EVENT_LOOP_APPROACHES: readonly ApproachName[] = Object.freeze(['callbacks', 'generators', 'runtime']);

const LABELS: Readonly<Record<ApproachName, string>> = Object.freeze({
  blocking: 'blocking (sequential)',
  processes: 'processes (pool)',
  threads: 'threads (pool)',
  'busy-nonblocking': 'busy non-blocking',
  callbacks: 'callbacks (selector loop)',
  generators: 'generator coroutines',
  runtime: 'runtime (ClientSession + tasks)',
});

export interface ComparisonRow {
  approach: ApproachName;
  /** Seconds from the first fetch started to the last page in. */
  seconds: number;
  pagesPerSecond: number;
  /** Fetches in flight at once. */
  concurrency: number;
  pages: number;
  latencyMs: number;
  /** Pages that did not come back 200. */
  failures: number;
  /** Memory one concurrent fetch costs (processes, threads, the event-loop approaches). */
  memoryPerFetchBytes?: number;
  /** Seconds to start the pool, not included in `seconds` (processes, threads). */
  startupSeconds?: number;
  /** Tries that found the socket not ready (busy non-blocking). */
  wastedTries?: number;
}

export interface CompareOptions {
  /** Pages to fetch with each approach. */
  pages: number;
  /** Latency of every response, in milliseconds. */
  latencyMs: number;
  /** A running demo site to take the pages from; by default one is started (and stopped). */
  siteUrl?: string;
  /** Which approaches to run (default: all, in the article's order). */
  approaches?: readonly ApproachName[];
  /** Size of the process pool (default: 2 per core, at least 2). */
  processes?: number;
  /** Size of the thread pool (default: 4 per core, at least 4). */
  threads?: number;
  /** Measure memory per fetch (default true; adds an untimed pass for the event-loop approaches). */
  memory?: boolean;
  /** Progress lines, e.g. for a CLI's stderr. */
  log?: (line: string) => void;
}

export const DEFAULT_LATENCY_MS = 100;
/** Fetches of the untimed warm-up run of an event-loop approach. */
const WARM_UP_FETCHES = 2;
/** Pause before a memory baseline, for closed sockets to be released. */
const SETTLE_MS = 50;
/** The memory pass of the event-loop approaches runs at least this many fetches at once: with a handful the heap's noise would swamp them. */
const MEMORY_PASS_MIN_FETCHES = 200;

function cores(): number {
  return Math.max(1, cpus().length);
}

export function defaultProcessPoolSize(): number {
  return Math.max(2, 2 * cores());
}

export function defaultThreadPoolSize(): number {
  return Math.max(4, 4 * cores());
}

function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1, got ${String(value)}`);
}

/** N request paths over the site's pages (a page is fetched twice only if the site has fewer than N). */
function pathsFor(pagePaths: readonly string[], n: number): string[] {
  if (pagePaths.length === 0) throw new Error('the demo site lists no pages');
  return Array.from({ length: n }, (_, i) => (i < pagePaths.length ? pagePaths[i]! : `${pagePaths[i % pagePaths.length]!}?again=${i}`));
}

/** Calls `measure` once `ready()` holds, checking at every turn of Node's loop, until stopped. */
function measureWhen(ready: () => boolean, measure: () => void): { stop(): void } {
  let timer: NodeJS.Immediate | null = null;
  const check = (): void => {
    timer = null;
    if (ready()) measure();
    else timer = setImmediate(check);
  };
  timer = setImmediate(check);
  return {
    stop: () => {
      if (timer !== null) clearImmediate(timer);
      timer = null;
    },
  };
}

type LoopFetch = (origin: Origin, paths: readonly string[]) => Promise<PageResult[]>;

const LOOP_FETCHES: Readonly<Record<'callbacks' | 'generators' | 'runtime', LoopFetch>> = {
  callbacks: fetchPagesWithCallbacks,
  generators: fetchPagesWithGenerators,
  runtime: (origin, paths) => run(fetchPagesWithRuntime(origin, paths)),
};

/**
 * Heap bytes one in-flight fetch keeps alive: all N fetches started, measured once the server
 * has every request. The baseline is the lower of the readings before and after the pass (each
 * after a pause): what earlier runs left behind, still being released, must not count.
 */
async function loopMemoryPerFetch(fetch: LoopFetch, copy: RemoteSite, origin: Origin, paths: readonly string[]): Promise<number | undefined> {
  const settle = (): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, SETTLE_MS));
  await settle();
  const before = liveHeapBytes();
  const target = copy.requestCount() + paths.length;
  let peak: number | null = null;
  const probe = measureWhen(
    () => copy.requestCount() >= target,
    () => {
      peak = liveHeapBytes();
    },
  );
  try {
    await fetch(origin, paths);
  } finally {
    probe.stop();
  }
  if (peak === null) return undefined;
  await settle();
  const baseline = Math.min(before, liveHeapBytes());
  return Math.max(0, peak - baseline) / paths.length;
}

function rowOf(approach: ApproachName, seconds: number, results: readonly { status?: number | null }[], concurrency: number, options: CompareOptions): ComparisonRow {
  return {
    approach,
    seconds,
    pagesPerSecond: seconds > 0 ? results.length / seconds : Infinity,
    concurrency,
    pages: results.length,
    latencyMs: options.latencyMs,
    failures: results.length - countOk(results),
  };
}

async function measurePool(approach: 'processes' | 'threads', size: number, origin: Origin, paths: readonly string[], options: CompareOptions): Promise<ComparisonRow> {
  const pool: FetchPool = approach === 'processes' ? await startProcessPool(size) : await startThreadPool(size);
  try {
    const t0 = performance.now();
    const replies = await pool.fetchAll(origin.host, origin.port, paths);
    const seconds = (performance.now() - t0) / 1000;
    const row = rowOf(approach, seconds, replies, pool.size, options);
    row.startupSeconds = pool.startupSeconds;
    if (options.memory !== false) row.memoryPerFetchBytes = pool.memoryPerMemberBytes();
    return row;
  } finally {
    await pool.close();
  }
}

async function measureApproach(approach: ApproachName, copy: RemoteSite, paths: readonly string[], options: CompareOptions): Promise<ComparisonRow> {
  const origin: Origin = { host: copy.host, port: copy.port };
  switch (approach) {
    case 'blocking': {
      const fetcher = await BlockingFetcher.start();
      try {
        const t0 = performance.now();
        const results = paths.map((path) => {
          try {
            return resultOf(path, fetcher.fetch(origin.host, origin.port, path).raw);
          } catch (error) {
            return failureOf(path, error);
          }
        });
        return rowOf(approach, (performance.now() - t0) / 1000, results, 1, options);
      } finally {
        await fetcher.close();
      }
    }
    case 'processes':
      return measurePool(approach, Math.min(options.processes ?? defaultProcessPoolSize(), paths.length), origin, paths, options);
    case 'threads':
      return measurePool(approach, Math.min(options.threads ?? defaultThreadPoolSize(), paths.length), origin, paths, options);
    case 'busy-nonblocking': {
      const t0 = performance.now();
      const results = await busyFetchAll(origin, paths);
      const row = rowOf(approach, (performance.now() - t0) / 1000, results, 1, options);
      row.wastedTries = results.reduce((sum, r) => sum + r.wastedTries, 0);
      return row;
    }
    case 'callbacks':
    case 'generators':
    case 'runtime': {
      const fetch = LOOP_FETCHES[approach];
      // These do all their work on this thread: a short untimed run first, so that compiling
      // their code is not counted as waiting.
      await fetch(origin, paths.slice(0, WARM_UP_FETCHES));
      const t0 = performance.now();
      const results = await fetch(origin, paths);
      const row = rowOf(approach, (performance.now() - t0) / 1000, results, paths.length, options);
      if (options.memory !== false) {
        const perFetch = await loopMemoryPerFetch(fetch, copy, origin, pathsFor(paths, Math.max(paths.length, MEMORY_PASS_MIN_FETCHES)));
        if (perFetch !== undefined) row.memoryPerFetchBytes = perFetch;
      }
      return row;
    }
  }
}

/** Fetches `pages` pages with each approach; one row per approach, in the order asked. */
export async function compareApproaches(options: CompareOptions): Promise<ComparisonRow[]> {
  checkCount('pages', options.pages);
  if (!Number.isFinite(options.latencyMs) || options.latencyMs < 0) throw new RangeError(`latencyMs must be a finite number >= 0, got ${String(options.latencyMs)}`);
  if (options.processes !== undefined) checkCount('processes', options.processes);
  if (options.threads !== undefined) checkCount('threads', options.threads);
  const approaches = options.approaches ?? APPROACHES;
  for (const a of approaches) if (!APPROACHES.includes(a)) throw new RangeError(`unknown approach ${JSON.stringify(a)} (known: ${APPROACHES.join(', ')})`);
  const log = options.log ?? ((): void => undefined);

  let site: DemoSite | null = null;
  let copy: RemoteSite | null = null;
  try {
    let siteUrl = options.siteUrl;
    if (siteUrl === undefined) {
      site = await startDemoSite({ pages: options.pages });
      siteUrl = site.url;
    }
    const paths = pathsFor(await listPagePaths(siteUrl), options.pages);
    copy = await startRemoteCopy(siteUrl, paths, { latencyMs: options.latencyMs });
    log(`comparing ${approaches.length} approaches on ${options.pages} pages, ${options.latencyMs} ms latency, served from ${copy.url}`);
    const rows: ComparisonRow[] = [];
    for (const approach of approaches) {
      const row = await measureApproach(approach, copy, paths, options);
      log(`${LABELS[approach]}: ${row.seconds.toFixed(3)} s${row.failures > 0 ? `, ${row.failures} failed` : ''}`);
      rows.push(row);
    }
    return rows;
  } finally {
    await copy?.close();
    await site?.close();
  }
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/** The rows as a text table, with each approach's speed-up over blocking when blocking was measured. */
export function formatComparison(rows: readonly ComparisonRow[]): string {
  if (rows.length === 0) return '(no approaches measured)';
  const first = rows[0]!;
  const blocking = rows.find((r) => r.approach === 'blocking');
  const header = ['approach', 'in flight', 'seconds', 'pages/s', 'vs blocking', 'memory/fetch', 'notes'];
  const body = rows.map((r) => {
    const notes: string[] = [];
    if (r.startupSeconds !== undefined) notes.push(`+${r.startupSeconds.toFixed(2)} s to start the pool`);
    if (r.wastedTries !== undefined) notes.push(`${r.wastedTries} wasted tries`);
    if (r.failures > 0) notes.push(`${r.failures} FAILED`);
    return [
      LABELS[r.approach],
      String(r.concurrency),
      r.seconds.toFixed(3),
      r.pagesPerSecond.toFixed(1),
      blocking !== undefined && r.seconds > 0 ? `${(blocking.seconds / r.seconds).toFixed(1)}x` : '-',
      r.memoryPerFetchBytes !== undefined ? formatBytes(r.memoryPerFetchBytes) : '-',
      notes.join(', '),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => pad(c, widths[i]!, i >= 1 && i <= 5))
      .join('  ')
      .trimEnd();
  return [
    `${first.pages} pages, ${first.latencyMs} ms latency per response`,
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...body.map(line),
  ].join('\n');
}
